/*
 * ext_ops.c: the entry points the mock's operator libraries (libnnopbase.so,
 * libopapi.so, csrc/ops/) call, declared in ops/aclmock_ext.h: their calls go
 * through the mock's journal, call counts, fault injection and error text,
 * their descriptors through its live counts, and their kernels run as
 * TASK_COMPUTE tasks on the mock's stream workers, reading and writing the
 * device arena like a copy does.
 */
#include "mock.h"
#include "ops/aclmock_ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(mock_call) <= sizeof(aclmock_call), "aclmock_call too small for mock_call");
_Static_assert(_Alignof(mock_call) <= 16, "aclmock_call alignment");

/* ACLNN_ERR_RUNTIME_ERROR (opbase op_errno.h; aclnn-facts.md A.2.2 status codes) */
#define EXT_RUNTIME_ERROR 361001

#define MC(c) ((mock_call *)(void *)(c)->opaque)

ACLMOCK_EXPORT int aclmock_fn_id(const char *name) { return mock_fn_lookup(name); }

ACLMOCK_EXPORT int32_t aclmock_call_begin(aclmock_call *c, int fn)
{
    call_begin(MC(c), fn);
    return call_faulted(MC(c)) ? MC(c)->fault_code : 0;
}

/* The call of this thread started by aclmock_call_start whose arguments are
 * not checked yet (strict replay, injected faults): the check runs at
 * aclmock_call_check, or at the first aclmock_fail or aclmock_call_end
 * before it, so an operator that journals its arguments first and checks
 * them after is compared with the trace on everything it journaled. */
static __thread aclmock_call *t_unchecked;

ACLMOCK_EXPORT void aclmock_call_start(aclmock_call *c, int fn)
{
    call_begin(MC(c), fn);
    t_unchecked = c;
}

ACLMOCK_EXPORT int32_t aclmock_call_check(aclmock_call *c)
{
    if (t_unchecked == c) {
        t_unchecked = NULL;
        call_faulted(MC(c));
    }
    return MC(c)->faulted ? MC(c)->fault_code : 0;
}

ACLMOCK_EXPORT int32_t aclmock_call_end(aclmock_call *c, int32_t rc)
{
    if (t_unchecked == c) {
        int32_t code = aclmock_call_check(c);
        if (code) {
            rc = code;
        }
    }
    return call_end(MC(c), rc);
}

ACLMOCK_EXPORT void aclmock_arg_i64(aclmock_call *c, const char *key, int64_t v) { ja_i64(MC(c), key, v); }
ACLMOCK_EXPORT void aclmock_arg_u64(aclmock_call *c, const char *key, uint64_t v) { ja_u64(MC(c), key, v); }
ACLMOCK_EXPORT void aclmock_arg_str(aclmock_call *c, const char *key, const char *s) { ja_str(MC(c), key, s); }
ACLMOCK_EXPORT void aclmock_arg_ptr(aclmock_call *c, const char *key, const void *p) { ja_ptr(MC(c), key, p); }
ACLMOCK_EXPORT void aclmock_arg_stream(aclmock_call *c, const char *key, const void *s) { ja_stream(MC(c), key, s); }
ACLMOCK_EXPORT void aclmock_out_u64(aclmock_call *c, const char *key, uint64_t v) { jo_u64(MC(c), key, v); }
ACLMOCK_EXPORT void aclmock_out_str(aclmock_call *c, const char *key, const char *s) { jo_str(MC(c), key, s); }

ACLMOCK_EXPORT bool aclmock_replay_out_u64(aclmock_call *c, const char *key, uint64_t *v)
{
    return replay_out_u64(MC(c), key, v);
}

ACLMOCK_EXPORT int32_t aclmock_fail(int32_t code, const char *fmt, ...)
{
    if (t_unchecked) {
        /* the replay's (or the injected fault's) status comes first */
        int32_t first = aclmock_call_check(t_unchecked);
        if (first) {
            return first;
        }
    }
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return fail(code, "%s", detail);
}

ACLMOCK_EXPORT uint64_t aclmock_generation(void) { return G.gen; }

/* The number of devices (the profiler library's device-id checks); call
 * between aclmock_call_begin and aclmock_call_end (the lock is held). */
ACLMOCK_EXPORT uint32_t aclmock_device_count(void) { return G.device_count; }

/* Whether aclInit has run and aclFinalize not since (the DVPP library's
 * initialization check: aclInit initializes DVPP too); call inside a call. */
ACLMOCK_EXPORT bool aclmock_runtime_initialized(void) { return G.init_count > 0 || G.acl_up; }

ACLMOCK_EXPORT void aclmock_live_add(int kind, int64_t delta)
{
    if (kind >= 0 && kind < ACLMOCK_RES_COUNT) {
        G.live[kind] += (uint64_t)delta;
    }
}

ACLMOCK_EXPORT void aclmock_misuse(int kind, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (kind >= 0 && kind < ACLMOCK_MISUSE_COUNT) {
        misuse((aclmockMisuse)kind, "%s", detail);
    }
}

/* ------------------------------------------------------- compute tasks */

typedef struct compute_job {
    mock_stream *stream;
    uint32_t n;
    aclmock_span *spans;
    uint64_t *fps;
    aclmock_kernel_fn kernel;
    aclmock_status_kernel_fn skernel; /* instead of kernel: may fail the stream */
    void (*release)(void *);
    void *job;
    uint32_t refs; /* 1 + the copies a captured model queued (capture_exec.c) */
} compute_job;

static void job_free(compute_job *j)
{
    if (j->refs > 1) {
        j->refs--;
        return;
    }
    j->release(j->job);
    free(j->spans);
    free(j->fps);
    free(j);
}

/* Worker side, lock held: every span still names the memory it named when
 * the op was launched. */
static bool spans_still_valid(const mock_task *t, const compute_job *j)
{
    for (uint32_t i = 0; i < j->n; i++) {
        const aclmock_span *sp = &j->spans[i];
        if (!sp->bytes) {
            continue;
        }
        mem_range r;
        if (mem_classify(sp->addr, sp->bytes, sp->use == ACLMOCK_SPAN_WRITE, true, &r) == ACL_SUCCESS &&
            r.fp == j->fps[i]) {
            continue;
        }
        char sym[96];
        sym_addr(sp->addr, sym, sizeof(sym));
        misuse(ACLMOCK_MISUSE_USE_AFTER_FREE,
               "%s queued on s%llu: %s %p (%s) was freed or unmapped before the kernel ran; the kernel was skipped",
               mock_fn_names[t->origin], (unsigned long long)j->stream->h.id, sp->role ? sp->role : "tensor",
               sp->addr, sym);
        return false;
    }
    return true;
}

static void compute_finish(mock_task *t, bool executed)
{
    compute_job *j = t->u.compute.job;
    mock_stream *on = t->on ? t->on : j->stream;
    if (!executed || !spans_still_valid(t, j)) {
        job_free(j);
        return;
    }
    void **bufs = calloc(j->n ? j->n : 1, sizeof(void *));
    bool ok = bufs != NULL;
    for (uint32_t i = 0; ok && i < j->n; i++) {
        const aclmock_span *sp = &j->spans[i];
        if (!sp->bytes || sp->use == ACLMOCK_SPAN_CHECK) {
            continue;
        }
        bufs[i] = malloc(sp->bytes);
        if (!bufs[i]) {
            ok = false;
            break;
        }
        mem_copy(bufs[i], sp->addr, sp->bytes);
    }
    if (ok) {
        int32_t status = 0;
        char msg[256] = "";
        mock_unlock();
        if (j->skernel) {
            status = j->skernel(j->job, bufs, msg, sizeof(msg));
        } else {
            j->kernel(j->job, bufs);
        }
        mock_lock();
        if (status != 0) {
            /* the task failed: nothing is written back, the stream's next
             * synchronize reports the first failure (stream_api.c) */
            if (!on->sticky) {
                on->sticky = status;
                snprintf(on->sticky_msg, sizeof(on->sticky_msg), "%s: %s",
                         mock_fn_names[t->origin], msg[0] ? msg : "the task failed");
            }
        } else if (spans_still_valid(t, j)) {
            /* the memory may have been freed while the kernel ran without the lock */
            for (uint32_t i = 0; i < j->n; i++) {
                if (bufs[i] && j->spans[i].use == ACLMOCK_SPAN_WRITE) {
                    mem_copy((void *)(uintptr_t)j->spans[i].addr, bufs[i], j->spans[i].bytes);
                }
            }
        }
    } else {
        fprintf(stderr, "aclmock: out of host memory running a kernel of %s\n", mock_fn_names[t->origin]);
    }
    if (bufs) {
        for (uint32_t i = 0; i < j->n; i++) {
            free(bufs[i]);
        }
        free(bufs);
    }
    job_free(j);
}

static int32_t enqueue(aclmock_call *c, void *stream, const aclmock_span *spans, uint32_t nspans,
                       aclmock_kernel_fn kernel, aclmock_status_kernel_fn skernel, void (*release)(void *), void *job)
{
    compute_job *j = calloc(1, sizeof(*j));
    if (j) {
        j->spans = calloc(nspans ? nspans : 1, sizeof(aclmock_span));
        j->fps = calloc(nspans ? nspans : 1, sizeof(uint64_t));
    }
    if (!j || !j->spans || !j->fps) {
        if (j) {
            free(j->spans);
            free(j->fps);
            free(j);
        }
        release(job);
        return fail(EXT_RUNTIME_ERROR, "out of host memory");
    }
    j->n = nspans;
    j->refs = 1;
    j->kernel = kernel;
    j->skernel = skernel;
    j->release = release;
    j->job = job;
    if (nspans) {
        memcpy(j->spans, spans, nspans * sizeof(aclmock_span));
    }
    int *devs = calloc(nspans ? nspans : 1, sizeof(int));
    if (!devs) {
        job_free(j);
        return fail(EXT_RUNTIME_ERROR, "out of host memory");
    }
    for (uint32_t i = 0; i < nspans; i++) {
        const aclmock_span *sp = &spans[i];
        if (!sp->bytes) {
            continue;
        }
        mem_range r;
        aclError e = mem_classify(sp->addr, sp->bytes, sp->use == ACLMOCK_SPAN_WRITE, false, &r);
        if (e != ACL_SUCCESS) {
            free(devs);
            job_free(j);
            return fail(EXT_RUNTIME_ERROR, "%s: device address %p (%llu bytes) is not usable (runtime error %d)",
                        sp->role ? sp->role : "tensor", sp->addr, (unsigned long long)sp->bytes, e);
        }
        if (r.where != MEM_DEVICE) {
            free(devs);
            job_free(j);
            return fail(EXT_RUNTIME_ERROR, "%s: address %p is %s memory, not device memory",
                        sp->role ? sp->role : "tensor", sp->addr, r.where == MEM_PINNED ? "pinned host" : "host");
        }
        j->fps[i] = r.fp;
        devs[i] = r.device;
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        free(devs);
        job_free(j);
        return tls()->last_error ? tls()->last_error : EXT_RUNTIME_ERROR;
    }
    for (uint32_t i = 0; i < nspans; i++) {
        if (spans[i].bytes && devs[i] != s->device) {
            int d = devs[i];
            free(devs);
            job_free(j);
            return fail(EXT_RUNTIME_ERROR, "%s is memory of device %d but the stream runs on device %d",
                        spans[i].role ? spans[i].role : "tensor", d, s->device);
        }
    }
    free(devs);
    j->stream = s;
    mock_task *t = task_new(TASK_COMPUTE);
    if (!t) {
        job_free(j);
        return fail(EXT_RUNTIME_ERROR, "out of host memory");
    }
    t->u.compute.finish = compute_finish;
    t->u.compute.job = j;
    /* the kernel's accesses enter the happens-before model like a copy's (order.h) */
    int kind = -1;
    for (uint32_t i = 0; i < nspans; i++) {
        if (spans[i].bytes) {
            int m = order_access(s, spans[i].addr, spans[i].bytes, spans[i].use != ACLMOCK_SPAN_READ, tls()->cur_fn);
            kind = kind >= 0 ? kind : m;
        }
    }
    order_journal(MC(c), kind);
    aclError e = stream_enqueue(s, t); /* on failure it finished (released) the task */
    return e == ACL_SUCCESS ? 0 : e;
}

ACLMOCK_EXPORT int32_t aclmock_compute_enqueue(aclmock_call *c, void *stream, const aclmock_span *spans,
                                               uint32_t nspans, aclmock_kernel_fn kernel, void (*release)(void *job),
                                               void *job)
{
    return enqueue(c, stream, spans, nspans, kernel, NULL, release, job);
}

ACLMOCK_EXPORT int32_t aclmock_compute_enqueue_status(aclmock_call *c, void *stream, const aclmock_span *spans,
                                                      uint32_t nspans, aclmock_status_kernel_fn kernel,
                                                      void (*release)(void *job), void *job)
{
    return enqueue(c, stream, spans, nspans, NULL, kernel, release, job);
}

/* ------------------------------------------ compute tasks of a model */

/* Another task running the same kernel on the same memory (a replay of a
 * captured model); the job is shared and released with its last task. */
mock_task *compute_task_clone(const mock_task *t)
{
    mock_task *n = task_new(TASK_COMPUTE);
    if (!n) {
        return NULL;
    }
    compute_job *j = t->u.compute.job;
    j->refs++;
    n->u.compute.finish = compute_finish;
    n->u.compute.job = j;
    return n;
}

bool compute_task_touches(const mock_task *t, uintptr_t lo, uintptr_t hi)
{
    const compute_job *j = t->u.compute.job;
    for (uint32_t i = 0; i < j->n; i++) {
        uintptr_t a = (uintptr_t)j->spans[i].addr;
        if (j->spans[i].bytes && a < hi && a + j->spans[i].bytes > lo) {
            return true;
        }
    }
    return false;
}
