/*
 * aclrecord.h: control API of the recording shim (libascendcl_record.so).
 *
 * The shim is configured by ASCENDCL_RECORD_TRACE and ASCENDCL_RECORD_TARGET
 * (see docs/recording-on-a-card.md); these functions let a test drive it
 * from inside one process. Neither may be called while another thread is
 * inside an ACL call.
 */
#ifndef ASCENDCL_MOCK_ACLRECORD_H
#define ASCENDCL_MOCK_ACLRECORD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a new trace at tracePath (truncated; "%p" is replaced by the
 * process id), with ids and sequence numbers from 1. A non-NULL targetPath
 * replaces the library calls are forwarded to. NULL tracePath stops
 * recording (calls are still forwarded). 0, or 100004 if the file cannot be
 * created. */
int32_t aclrecordStart(const char *tracePath, const char *targetPath);
/* Closes the trace; calls are still forwarded. */
void aclrecordStop(void);
/* Number of calls recorded into the current trace. */
uint64_t aclrecordCalls(void);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_MOCK_ACLRECORD_H */
