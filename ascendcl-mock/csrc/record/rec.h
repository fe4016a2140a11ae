/*
 * rec.h: internals of the recording shim, libascendcl_record.so.
 *
 * The shim exports every function of our AscendCL declaration header. Each
 * forwards to the real library and appends one line per call to the trace
 * (format version 1, docs/trace-format.md) with the arguments and results in
 * symbolic form: handles as c<N>/s<N>/e<N>/p<N>, device and pinned host
 * addresses as m<N>/v<N>/h<N> plus an offset. The keys of each function are
 * the mock's (csrc/), so a card's trace replays on the mock. It also wraps
 * the HCCL functions a program commonly calls (rec_api_hccl_*.c), into the
 * same trace with the same symbolic names; communicators are comm<N> as in
 * the mock's journal. They forward to the real HCCL (rec_hccl_target.c);
 * libhccl_record.so (../record_hccl/) lets loaders that open libhccl.so by
 * path reach them.
 *
 * Environment (read at the first call):
 *   ASCENDCL_RECORD_TRACE   the trace file; "%p" is replaced by the process
 *                           id. If the file exists (another process of the
 *                           same run), the process writes <name>.<pid>.jsonl.
 *                           Unset: the shim only forwards.
 *   ASCENDCL_RECORD_TARGET  the real library to forward to. Unset: the next
 *                           definition (dlsym RTLD_NEXT, for LD_PRELOAD), else
 *                           libascendcl.so or libacl_rt.so from the loader.
 *
 * Calls are forwarded without any lock held; a process-wide mutex guards the
 * symbol tables and the trace. Calls the real library makes to its own
 * exported functions while serving a call (interposed under LD_PRELOAD) are
 * forwarded without being recorded.
 */
#ifndef ACLRECORD_INTERNAL_REC_H
#define ACLRECORD_INTERNAL_REC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <acl/acl.h>
#include <acl/acl_dump.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../acl_functions.h"
#include "../hccl_functions.h"
#include "aclrecord.h"
#include "rec_ops_table.h"
#include "json_quote.h"

#define REC_EXPORT __attribute__((visibility("default")))

/* The descriptor and executor functions of libnnopbase.so the shim wraps
 * (rec_api_nn_desc.c, rec_api_nn_exec.c); the operators are rec_ops_table.h. */
#define REC_NN_FUNCTIONS(X)                                                                                        \
    X(aclCreateTensor) X(aclDestroyTensor) X(aclCreateScalar) X(aclDestroyScalar) X(aclCreateIntArray)             \
    X(aclDestroyIntArray) X(aclCreateFloatArray) X(aclDestroyFloatArray) X(aclCreateBoolArray)                     \
    X(aclDestroyBoolArray) X(aclCreateTensorList) X(aclDestroyTensorList) X(aclSetAclOpExecutorRepeatable)         \
    X(aclDestroyAclOpExecutor) X(aclSetInputTensorAddr) X(aclSetOutputTensorAddr) X(aclSetTensorAddr)              \
    X(AclSetInputTensorAddr) X(AclSetOutputTensorAddr) X(AclSetTensorAddr) X(aclnnInit) X(aclnnFinalize)

enum rec_fn {
#define REC_FN_ENUM(n) RFN_##n,
#define REC_OP_ENUM(Name, ...) RFN_aclnn##Name##GetWorkspaceSize, RFN_aclnn##Name,
    MOCK_FUNCTIONS(REC_FN_ENUM)
    MOCK_HCCL_FUNCTIONS(REC_FN_ENUM)
    REC_NN_FUNCTIONS(REC_FN_ENUM)
    REC_OPS(REC_OP_ENUM)
#undef REC_OP_ENUM
#undef REC_FN_ENUM
    RFN_COUNT
};
extern const char *const rec_fn_names[RFN_COUNT];
/* The first HCCL function: from here on, functions of libhccl.so/libhcomm.so
 * (rec_hccl_target.c resolves them, rec_api_hccl_*.c wrap them). */
#define RFN_HCCL_FIRST RFN_HcclGetRootInfo
/* The first aclnn function: from here on, functions of libnnopbase.so and
 * the op-API libraries (rec_nn_target.c resolves them). */
#define RFN_NN_FIRST RFN_aclCreateTensor

/* Kinds of symbolic ids, in the order of their letters "csepmhv", then
 * aclnn descriptors, models and notifies ('y'). */
enum rec_kind { K_CTX = 0, K_STREAM, K_EVENT, K_PHYS, K_DEV, K_HOST, K_VA, K_NN, K_MODEL, K_NOTIFY, K_COUNT };

typedef struct rec_call {
    int fn;
    bool on; /* this call is recorded */
    uint64_t t0, t1;
    int last_kind; /* the memory kind and id of the latest pointer argument */
    uint64_t last_id;
    void *saved_base; /* the forwarding target of an enclosing call */
    jbuf args; /* JSON members without the braces; never truncated */
    jbuf out;
    jbuf msg; /* quoted JSON text of the failure's message, or empty */
} rec_call;

/* -------------------------------------------------------------- rec_core.c */

/* The target's definition of function fn, or NULL (reported once). */
void *rec_target(int fn);
/* Starts a call: true if it is recorded (the lock is then held). caller is
 * the return address of the exported function. */
bool rec_begin(rec_call *c, int fn, void *caller);
/* Before forwarding: releases the lock and starts the clock. real is the
 * function about to be called. */
void rec_invoke(rec_call *c, void *real);
/* After forwarding: stops the clock, fetches the error text of a failure,
 * takes the lock again. */
void rec_returned(rec_call *c, aclError rc);
/* Writes the record and releases the lock; returns rc. */
aclError rec_end(rec_call *c, aclError rc);
/* The function is missing in the target: says so once, returns 200001. */
aclError rec_missing(rec_call *c);
/* aclGetRecentErrMsg: the texts the shim read after failures on this thread
 * followed by `fresh` (the target's answer now), then clears them. NULL if
 * there is no text at all. Valid until the next call on the thread. */
const char *rec_take_messages(const char *fresh);
/* The code of the latest failure on this thread (aclrtPeekAtLastError). */
aclError rec_peek_error(void);
/* A call of the real function fn the shim makes itself, outside any
 * recorded call and without its lock: what the library calls meanwhile is
 * not recorded. Returns what rec_quiet_leave takes. */
void *rec_quiet_enter(int fn);
void rec_quiet_leave(void *saved);
/* Whether a trace is being written. */
bool rec_recording(void);

/* -------------------------------------------------------------- rec_syms.c */

void syms_reset_locked(void);

/* aclnn descriptors and executors: one numbering for all of them, as the
 * mock's (csrc/ops/nn_desc.c); the letter (t, k, i, f, b, l, x) is the
 * caller's. rec_nn_new gives h the next id, rec_nn_find its id or 0. */
uint64_t rec_nn_new(const void *h);
uint64_t rec_nn_find(const void *h);
/* Forgets the values the shim keeps of arrays (rec_api_nn_desc.c). */
void rec_nn_reset_locked(void);

/* ------------------------------------------------------- rec_nn_target.c */

/* The aclnn libraries' definition of `name` (under the resolver lock). */
void *rec_nn_lookup_locked(const char *name, const char *runtime_target, void *self_base);

/* ------------------------------------------------------ rec_hccl_target.c */

/* The HCCL library's definition of `name` (under the resolver lock);
 * runtime_target is ASCENDCL_RECORD_TARGET (or aclrecordStart's), maybe "". */
void *rec_hccl_lookup_locked(const char *name, const char *runtime_target, void *self_base);

/* ------------------------------------------------------- rec_hccl_comm.c */

/* Communicator ids, the mock's journal names comm1, comm2... in order of
 * creation (under the shim's lock). */
void rec_comm_reset_locked(void);
/* A new communicator: "comm<N>" into out. */
void ro_new_comm(rec_call *c, const char *key, const void *comm);
/* Assigns the next id to comm without recording it (HcclCommInitAll). */
void rec_comm_add(rec_call *c, const void *comm);
/* The argument "comm": comm<N>, "unknown" or "null", as the mock. */
void ra_comm(rec_call *c, const void *comm);

/* ---------------------------------------------------- rec_api_hccl_group.c */

/* A Send or Recv of `count` elements returned rc: inside a group, a
 * successful one with elements is kept until the outermost HcclGroupEnd,
 * which records how many were kept ("kept", as the mock's journal). */
void rec_group_p2p(uint64_t count, int rc);
/* Symbolic arguments (no-ops when c->on is false). */
void ra_i64(rec_call *c, const char *key, int64_t v);
void ra_u64(rec_call *c, const char *key, uint64_t v);
void ra_hex(rec_call *c, const char *key, uint64_t v);
void ra_str(rec_call *c, const char *key, const char *s);
void ra_ptr(rec_call *c, const char *key, const void *p);
void ra_obj(rec_call *c, const char *key, const void *h, int kind);
void ra_stream(rec_call *c, const char *key, const void *s);
/* Out-values. */
void ro_i64(rec_call *c, const char *key, int64_t v);
void ro_u64(rec_call *c, const char *key, uint64_t v);
void ro_f64(rec_call *c, const char *key, double v);
void ro_str(rec_call *c, const char *key, const char *s);
/* A handle: a new one (created by the call) or one that may be known. */
void ro_new_obj(rec_call *c, const char *key, const void *h, int kind);
void ro_obj(rec_call *c, const char *key, const void *h, int kind);
/* A capture began on `stream`: its model's id is taken now, as the mock
 * numbers models (capture.c, aclmdlRICaptureBegin). */
void rec_model_begun(const void *stream);
/* The model handle `h` of the capture on `stream` (CaptureEnd, GetInfo). */
void ro_model(rec_call *c, const char *key, const void *stream, const void *h);
/* A new block of memory of `kind` (K_DEV, K_HOST, K_VA). */
void ro_new_mem(rec_call *c, const char *key, const void *p, uint64_t size, int kind);
/* The block of `kind` at p (with the id of c->last_id) was freed. */
void rec_mem_freed(rec_call *c, const void *p, int kind);


/* --------------------------------------------------- the wrappers' pattern */

#define REC_BEGIN(name)                                                                                        \
    __typeof__(&name) real_ = (__typeof__(&name))rec_target(RFN_##name);                                       \
    rec_call c;                                                                                                \
    bool rec_on_ = rec_begin(&c, RFN_##name, __builtin_return_address(0))

#define REC_INVOKE(rc, ...)                                                                                    \
    do {                                                                                                       \
        if (rec_on_) {                                                                                         \
            rec_invoke(&c, (void *)real_);                                                                     \
        }                                                                                                      \
        (rc) = real_ ? real_(__VA_ARGS__) : rec_missing(&c);                                                   \
        if (rec_on_) {                                                                                         \
            rec_returned(&c, (rc));                                                                            \
        }                                                                                                      \
    } while (0)

#define REC_END(rc) (rec_on_ ? rec_end(&c, (rc)) : (rc))

#endif /* ACLRECORD_INTERNAL_REC_H */
