/*
 * tx.h: what the profiler's session functions (prof.c) tell the msproftx
 * collector (tx.c). Internal to libmsprofiler.so; call with the mock's lock
 * held (inside a journaled call).
 */
#ifndef ACLMOCK_PROF_TX_H
#define ACLMOCK_PROF_TX_H

/* aclprofStart succeeded with ACL_PROF_MSPROFTX among the data types. */
void prof_tx_started(void);
/* aclprofFinalize succeeded. */
void prof_tx_finalized(void);

#endif /* ACLMOCK_PROF_TX_H */
