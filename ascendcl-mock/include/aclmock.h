/*
 * aclmock.h: control API of the ascendcl behavioural mock.
 *
 * The mock is a libascendcl.so that implements the runtime subset declared in
 * ascendcl-sys/include/acl/ with the behaviour of CANN 8.5.0 (asynchronous
 * streams, a finite per-device HBM arena, VMM rules, per-thread contexts and
 * error messages). These extra functions are not part of AscendCL: tests use
 * them to configure the model, read the journal, count live resources and
 * misuse, and inject faults. Every one is thread-safe.
 */
#ifndef ASCENDCL_MOCK_ACLMOCK_H
#define ASCENDCL_MOCK_ACLMOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of resources the mock counts while they are alive. */
typedef enum aclmockResource {
    ACLMOCK_RES_DEVICE_BUFFER = 0,   /* aclrtMalloc* allocations            */
    ACLMOCK_RES_HOST_BUFFER = 1,     /* aclrtMallocHost allocations         */
    ACLMOCK_RES_STREAM = 2,          /* streams created by the user         */
    ACLMOCK_RES_EVENT = 3,           /* events                              */
    ACLMOCK_RES_CONTEXT = 4,         /* contexts created by aclrtCreateContext */
    ACLMOCK_RES_RESERVATION = 5,     /* aclrtReserveMemAddress ranges       */
    ACLMOCK_RES_PHYSICAL = 6,        /* aclrtMallocPhysical handles (until really freed) */
    ACLMOCK_RES_MAPPING = 7,         /* aclrtMapMem mappings                */
    ACLMOCK_RES_DEVICE_REF = 8,      /* sum of aclrtSetDevice reference counts */
    ACLMOCK_RES_ACLNN_TENSOR = 9,    /* aclCreateTensor descriptors (libnnopbase) */
    ACLMOCK_RES_ACLNN_SCALAR = 10,   /* aclCreateScalar descriptors          */
    ACLMOCK_RES_ACLNN_ARRAY = 11,    /* int, float and bool arrays           */
    ACLMOCK_RES_ACLNN_TENSOR_LIST = 12, /* aclCreateTensorList lists         */
    ACLMOCK_RES_ACLNN_EXECUTOR = 13, /* op executors not yet freed (libopapi) */
    ACLMOCK_RES_HCCL_COMM = 14,      /* HCCL communicators not yet destroyed (libhcomm) */
    ACLMOCK_RES_NOTIFY = 15,         /* aclrtCreateNotify notifies not yet destroyed */
    ACLMOCK_RES_COUNT = 16
} aclmockResource;

/* Kinds of misuse the mock detects. Misuse never passes silently: it is
 * counted, logged, and the call returns an error where the API has one. */
typedef enum aclmockMisuse {
    ACLMOCK_MISUSE_DOUBLE_FREE = 0,        /* a pointer or handle freed twice           */
    ACLMOCK_MISUSE_UNKNOWN_POINTER = 1,    /* a pointer that no allocation owns         */
    ACLMOCK_MISUSE_DESTROYED_HANDLE = 2,   /* a stream/event/context used after destroy */
    ACLMOCK_MISUSE_OUT_OF_BOUNDS = 3,      /* a copy/memset past an allocation's end,
                                              or an op index out of its tensor's range */
    ACLMOCK_MISUSE_UNMAP_UNMAPPED = 4,     /* aclrtUnmapMem of an address not mapped    */
    ACLMOCK_MISUSE_RELEASE_MAPPED = 5,     /* releasing a range that still has mappings */
    ACLMOCK_MISUSE_USE_AFTER_FREE = 6,     /* queued work touching memory freed before it ran */
    ACLMOCK_MISUSE_WRONG_CONTEXT = 7,      /* destroying a stream from another context  */
    ACLMOCK_MISUSE_HOST_DEREF = 8,         /* host code dereferenced a device address   */
    /* two accesses to one range, at least one a write, by queued work of
     * streams (or a synchronous copy/fill, or aclrtFree / the release of
     * physical memory) that no event record/wait chain or host synchronize
     * orders; judged by the order of the calls, not by timing               */
    ACLMOCK_MISUSE_UNORDERED_ACCESS = 9,
    /* the host reads, writes or frees pinned memory (aclrtMemcpy from/to it,
     * aclrtFreeHost) while queued work not known to have finished uses it   */
    ACLMOCK_MISUSE_PINNED_HOST_ACCESS = 10,
    /* aclrtFreePhysical of a handle that still has mappings (the release is
     * deferred to the last aclrtUnmapMem, but the docs say unmap first)     */
    ACLMOCK_MISUSE_FREE_MAPPED_PHYSICAL = 11,
    ACLMOCK_MISUSE_COUNT = 12
} aclmockMisuse;

/* Back to the pristine state: joins stream workers, frees every resource,
 * clears journal, counters, faults and messages, and re-reads the
 * ASCENDCL_MOCK_* environment variables. Not to be called while another
 * thread is inside an ACL call. */
void aclmockReset(void);

/* Device model. Changes apply to devices that have not been touched since the
 * last reset (call them right after aclmockReset). 0 on success, 100000 for a
 * bad value. */
int32_t aclmockSetDeviceCount(uint32_t count);
int32_t aclmockSetHbmBytes(uint64_t bytesPerDevice);
int32_t aclmockSetSocName(const char *name);
/* Every task a stream worker executes first sleeps this long. */
void aclmockSetStreamDelayUs(uint64_t micros);

/* HCCL timeouts of the mock's libhcomm.so, in milliseconds (0 keeps the
 * current value): how long HcclCommInitRootInfo waits for every rank, and
 * how long a collective waits for its peers before failing with
 * HCCL_E_TIMEOUT. Read at load and at every reset from HCCL_CONNECT_TIMEOUT
 * and HCCL_EXEC_TIMEOUT (seconds, CANN's variables; defaults 120 and 1836),
 * both overridden by ASCENDCL_MOCK_HCCL_TIMEOUT_MS. Applies to
 * communicators created afterwards. */
void aclmockSetHcclTimeouts(uint64_t connectMs, uint64_t execMs);

/* Live resource counts. */
uint64_t aclmockLiveCount(aclmockResource kind);
/* Misuse counts; ACLMOCK_MISUSE_COUNT as kind returns the total. */
uint64_t aclmockMisuseCount(aclmockMisuse kind);
/* Copies the misuse log (one line per event) into buf, NUL-terminated,
 * truncated to cap; returns the full length. */
size_t aclmockMisuseLog(char *buf, size_t cap);

/* Journal: every ACL call, one JSON object per line (see the crate docs).
 * aclmockJournalLen counts entries currently held; aclmockJournalRead copies
 * the entries with sequence number >= fromSeq into buf as JSON lines,
 * NUL-terminated, truncated to cap (whole lines only); returns the full
 * length needed. */
uint64_t aclmockJournalLen(void);
size_t aclmockJournalRead(uint64_t fromSeq, char *buf, size_t cap);
void aclmockJournalClear(void);
/* Number of calls of the named function since the last reset. */
uint64_t aclmockCallCount(const char *function);

/* Fault injection: the nth call (1-based, counted from now) of `function`
 * fails with `code` and `message` (may be NULL); nth == 0 makes every call
 * fail until cleared. Returns 0, or 100000 for an unknown function name. */
int32_t aclmockInjectFault(const char *function, uint64_t nth, int32_t code, const char *message);
void aclmockClearFaults(void);

/* Bytes of host memory currently backing device memory (sparse backing). */
uint64_t aclmockBackedBytes(void);

/* Replay of a recorded trace (format: docs/trace-format.md).
 *
 * STRICT: the live call sequence must match the trace, thread by thread
 * (function and arguments; symbolic ids through a mapping between the
 * trace's ids and the mock's). Recorded failures are returned as recorded
 * (code and message); recorded successes run in the mock and take their data
 * out-values (memory info, granularity, versions, statuses, elapsed times,
 * error text) from the trace. The first call that differs fails with
 * ACLMOCK_ERROR_REPLAY_DIVERGED and is kept as the divergence report; later
 * calls behave as the plain mock does.
 * LENIENT: only the recorded facts (device count, HBM, SoC name, versions,
 * run mode, memory totals, granularity) come from the trace.
 *
 * Both modes configure the device model from the trace (count, HBM, SoC), so
 * load right after aclmockReset. ASCENDCL_MOCK_REPLAY=path (and
 * ASCENDCL_MOCK_REPLAY_MODE=strict|lenient) load a trace at start and at
 * every reset; ASCENDCL_MOCK_REPLAY_REPORT=path receives the status at exit. */
typedef enum aclmockReplayMode {
    ACLMOCK_REPLAY_OFF = 0,
    ACLMOCK_REPLAY_STRICT = 1,
    ACLMOCK_REPLAY_LENIENT = 2
} aclmockReplayMode;

/* Returned by the first call that differs from the trace in strict mode. */
#define ACLMOCK_ERROR_REPLAY_DIVERGED 599999
/* Exit status of a process whose replay from ASCENDCL_MOCK_REPLAY failed (the
 * trace could not be loaded, a call diverged, or a strict replay did not make
 * every call): the mock reports on stderr and ends the process with it at
 * exit. ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS (default 20000) bounds how long
 * a call waits for another thread's call that preceded it in the trace; the
 * wait fails sooner when that call can no longer come (its thread exited, or
 * never came while every thread waits: docs/trace-format.md). */
#define ACLMOCK_REPLAY_FAILED_EXIT 86

/* Loads a trace (replacing any replay; NULL or ACLMOCK_REPLAY_OFF stops).
 * 0, 100003 if the file cannot be opened, 100006 if it is not a version 1
 * trace, 100000 for a bad mode. */
int32_t aclmockReplayLoad(const char *path, int32_t mode);
/* Copies the replay status, a JSON object, into buf (NUL-terminated,
 * truncated to cap); returns its full length. Fields: mode, trace, state
 * (off|replaying|complete|diverged|error), matched, calls, remaining, next
 * (the first record not replayed yet), facts, divergence (null, or seq,
 * thread, call, reason, expected {fn,args,ret,msg}, actual {fn,args,ret,msg}),
 * error, text (human-readable). */
size_t aclmockReplayStatus(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_MOCK_ACLMOCK_H */
