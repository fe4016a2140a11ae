/*
 * aclmock_ext.h: the entry points libascendcl.so (the mock) exports for its
 * operator libraries (libnnopbase.so, libopapi.so), implemented in
 * csrc/ext_ops.c. They are not AscendCL functions and no user calls them.
 *
 * Every exported function of the operator libraries is one journaled call:
 * aclmock_call_begin (takes the mock's lock, counts the call, applies an
 * injected fault), aclmock_arg_* / aclmock_out_* (journal fields),
 * aclmock_call_end (journals, releases the lock). Everything else here must
 * be called between the two, with the lock held.
 */
#ifndef ACLMOCK_OPS_EXT_H
#define ACLMOCK_OPS_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Storage for one call record; opaque to the operator libraries. */
typedef struct aclmock_call {
    _Alignas(16) unsigned char opaque[2560];
} aclmock_call;

/* The mock's index of a function name (ops_functions.h), -1 if unknown. */
int aclmock_fn_id(const char *name);
/* Takes the lock and starts the call; returns 0, or the injected fault's
 * code (its message is then set: end the call with that code). */
int32_t aclmock_call_begin(aclmock_call *c, int fn);
int32_t aclmock_call_end(aclmock_call *c, int32_t rc);
/* aclmock_call_begin in two steps, so a strict replay compares the call's
 * arguments: start (takes the lock, counts the call), the aclmock_arg_*
 * fields, then check (replay match, injected fault: 0 or the code; asked
 * again, the same answer). A call not checked explicitly is checked by the
 * first aclmock_fail (which then returns the check's code, if any) or by
 * aclmock_call_end. */
void aclmock_call_start(aclmock_call *c, int fn);
int32_t aclmock_call_check(aclmock_call *c);
void aclmock_arg_i64(aclmock_call *c, const char *key, int64_t v);
void aclmock_arg_u64(aclmock_call *c, const char *key, uint64_t v);
void aclmock_arg_str(aclmock_call *c, const char *key, const char *s);
void aclmock_arg_ptr(aclmock_call *c, const char *key, const void *p); /* symbolic device address */
void aclmock_arg_stream(aclmock_call *c, const char *key, const void *stream);
void aclmock_out_u64(aclmock_call *c, const char *key, uint64_t v);
void aclmock_out_str(aclmock_call *c, const char *key, const char *s);
/* Strict replay: the recorded out-value `key` of the call (a phase 1's
 * workspaceSize); false when not replaying or the record has none. */
bool aclmock_replay_out_u64(aclmock_call *c, const char *key, uint64_t *v);

/* Records a failure of the current call (message for aclGetRecentErrMsg,
 * prefixed with the function name) and returns code. */
int32_t aclmock_fail(int32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The mock's reset generation: descriptors from an older one are stale. */
uint64_t aclmock_generation(void);
/* The number of devices (call inside a call, with the lock held). */
uint32_t aclmock_device_count(void);
/* Whether aclInit has run (and aclFinalize not since); inside a call. */
bool aclmock_runtime_initialized(void);
/* Adjusts a live count (aclmockResource). */
void aclmock_live_add(int kind, int64_t delta);
/* Counts a misuse (aclmockMisuse) with a log line. */
void aclmock_misuse(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One memory range a kernel touches. */
enum aclmock_span_use {
    ACLMOCK_SPAN_READ = 0,  /* copied to the host before the kernel runs */
    ACLMOCK_SPAN_WRITE = 1, /* copied in, and back to the device after the kernel */
    ACLMOCK_SPAN_CHECK = 2  /* only validated (a workspace) */
};
typedef struct aclmock_span {
    const void *addr;
    uint64_t bytes; /* 0: nothing to touch (the kernel gets NULL) */
    int32_t use;
    const char *role; /* for messages, e.g. "self" */
} aclmock_span;

/* The kernel, on the stream's worker thread without the lock: bufs[i] is a
 * host copy of span i (NULL for empty or CHECK spans). */
typedef void (*aclmock_kernel_fn)(void *job, void *const *bufs);

/* Validates every span (device memory inside live allocations; failure:
 * ACLNN 361001 with a message, misuse counted for an unknown pointer) and
 * queues the kernel on `stream` (NULL: the current context's default
 * stream). `release(job)` is called exactly once: after the kernel ran, when
 * the task is discarded, or before returning an error. If a span was freed
 * or unmapped before the task runs, a USE_AFTER_FREE misuse is counted and
 * the kernel is skipped. Every span is an access of the happens-before model
 * (order.h: reads, writes; a workspace counts as written), so an op racing
 * with unordered work on the same memory is an UNORDERED_ACCESS misuse,
 * noted in the call's journal entry. */
int32_t aclmock_compute_enqueue(aclmock_call *c, void *stream, const aclmock_span *spans, uint32_t nspans,
                                aclmock_kernel_fn kernel, void (*release)(void *job), void *job);

/* As aclmock_kernel_fn, for work that can fail (a collective whose peers
 * disagree or never come): returns 0, or an ACL runtime code that fails the
 * stream (its next synchronize returns it, with `msg`); nothing is written
 * back to the device then. */
typedef int32_t (*aclmock_status_kernel_fn)(void *job, void *const *bufs, char *msg, size_t cap);
/* As aclmock_compute_enqueue, with a kernel that can fail. */
int32_t aclmock_compute_enqueue_status(aclmock_call *c, void *stream, const aclmock_span *spans, uint32_t nspans,
                                       aclmock_status_kernel_fn kernel, void (*release)(void *job), void *job);

/* ------------------------------------------------ HCCL (csrc/ext_hccl.c) */
/* The HCCL timeouts in ms: HCCL_CONNECT_TIMEOUT / HCCL_EXEC_TIMEOUT (seconds),
 * or ASCENDCL_MOCK_HCCL_TIMEOUT_MS, or aclmockSetHcclTimeouts. Takes the
 * lock: call outside a call. */
void aclmock_hccl_timeouts(uint64_t *connect_ms, uint64_t *exec_ms);
/* Called by aclmockReset before it joins the stream workers, without the
 * lock: must wake every exchange blocked on a peer. */
void aclmock_set_reset_hook(void (*hook)(void));
/* Inside a call: drop and retake the lock around a blocking wait. */
void aclmock_unlock(void);
void aclmock_lock(void);
/* Inside a call: the device of the thread's current context, -1 if none. */
int32_t aclmock_current_device(void);
/* Inside a call: the device of a stream (NULL: the current context's default
 * stream); 0, or the runtime's error (message set) for a bad stream. */
int32_t aclmock_stream_device(const void *stream, int32_t *device);

#endif /* ACLMOCK_OPS_EXT_H */
