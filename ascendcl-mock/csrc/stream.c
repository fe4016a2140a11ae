/*
 * stream.c: streams. Each stream is an in-order task queue run by its own
 * worker thread (started on the first task). Every task first sleeps the
 * configured delay, so a missing synchronize is observable as stale data.
 * The worker holds the global lock only while it looks at state or moves
 * data, never while it sleeps or runs a user callback.
 */
#include "mock.h"

#include <stdlib.h>
#include <string.h>

mock_task *task_new(task_kind kind)
{
    mock_task *t = calloc(1, sizeof(*t));
    if (t) {
        t->kind = kind;
    }
    return t;
}

void task_free(mock_task *t)
{
    vc_free(&t->snap);
    free(t);
}

mock_stream *stream_create(mock_ctx *ctx, bool is_default, uint32_t priority, uint32_t flags)
{
    mock_stream *s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    if (G.nstreams == G.capstreams) {
        size_t ncap = G.capstreams ? G.capstreams * 2 : 32;
        mock_stream **nv = realloc(G.streams, ncap * sizeof(*nv));
        if (!nv) {
            free(s);
            return NULL;
        }
        G.streams = nv;
        G.capstreams = ncap;
    }
    obj_register(&s->h, OBJ_STREAM, is_default ? 0 : ++G.next_stream);
    pthread_cond_init(&s->cv, NULL);
    s->ctx = ctx;
    s->device = ctx->device;
    s->is_default = is_default;
    s->priority = priority;
    s->flags = flags;
    order_stream_init(s);
    G.streams[G.nstreams++] = s;
    if (!is_default) {
        G.live[ACLMOCK_RES_STREAM]++;
        G.devices[s->device].nstreams++;
    }
    return s;
}

mock_stream *stream_arg(const void *handle)
{
    if (!handle) {
        mock_ctx *ctx = need_ctx();
        return ctx ? ctx->default_stream : NULL;
    }
    mock_stream *s = (mock_stream *)obj_lookup(handle, OBJ_STREAM);
    if (!s || !s->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "stream %p is %s", handle, s ? "destroyed" : "not a live stream");
        fail(ACL_ERROR_RT_PARAM_INVALID, "stream %p is %s", handle,
             s ? "already destroyed" : "not a stream of this runtime");
        return NULL;
    }
    return s;
}

/* The stream an asynchronous call queues to, as CANN 8.5.0's ApiImpl
 * resolves it (api_impl.cc:1518-1532 wait, 2097-2111 record, 2754-2762
 * memcpy, 3071-3080 memset, 5084-5093 callback, 8733-8741 host function):
 * no current context -> 107002, NULL = the context's default stream, a
 * stream of another context -> 107003. */
mock_stream *stream_in_ctx(const void *handle)
{
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return NULL;
    }
    mock_stream *s = stream_arg(handle);
    if (s && s->ctx != ctx) {
        fail(ACL_ERROR_RT_STREAM_CONTEXT,
             "stream s%llu is not in the current context (it belongs to c%llu on device %d, current is c%llu)",
             (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id, s->device,
             (unsigned long long)ctx->h.id);
        return NULL;
    }
    return s;
}

/* ------------------------------------------------------------- worker */

static void task_finish(mock_task *t, bool executed)
{
    if (t->kind == TASK_RECORD) {
        event_task_done(t, executed);
    } else if (t->kind == TASK_WAIT && t->u.ev.ev->pending_waits) {
        t->u.ev.ev->pending_waits--;
    }
}

static bool discarding(const mock_stream *s) { return s->stopping && s->discard; }

/* Checks that a device or pinned side of a queued task still refers to the
 * same memory as when it was queued. */
static bool side_still_valid(const mock_stream *s, const mock_task *t, const void *p, size_t n, bool write,
                             uint64_t fp, const char *role)
{
    if (fp == 0) {
        return true; /* pageable host memory: the call waited for the task */
    }
    mem_range r;
    if (mem_classify(p, n, write, true, &r) == ACL_SUCCESS && r.fp == fp) {
        return true;
    }
    char sym[96];
    sym_addr(p, sym, sizeof(sym));
    misuse(ACLMOCK_MISUSE_USE_AFTER_FREE, "%s queued on s%llu: %s %p (%s) was freed or unmapped before the task ran",
           mock_fn_names[t->origin], (unsigned long long)s->h.id, role, p, sym);
    return false;
}

static void task_execute(mock_stream *s, mock_task *t)
{
    switch (t->kind) {
    case TASK_COPY:
        if (side_still_valid(s, t, t->u.copy.dst, t->u.copy.count, true, t->u.copy.dst_fp, "destination") &&
            side_still_valid(s, t, t->u.copy.src, t->u.copy.count, false, t->u.copy.src_fp, "source")) {
            mem_copy(t->u.copy.dst, t->u.copy.src, t->u.copy.count);
        }
        break;
    case TASK_SET:
        if (side_still_valid(s, t, t->u.set.dst, t->u.set.count, true, t->u.set.fp, "destination")) {
            mem_fill(t->u.set.dst, t->u.set.value, t->u.set.count);
        }
        break;
    case TASK_RECORD: /* completed by task_finish */
        break;
    case TASK_RESET_EVENT:
        t->u.ev.ev->recorded = false;
        break;
    case TASK_WAIT:
        break;
    case TASK_HOSTFN:
        order_callback_enter(s, order_callback_start(s, t));
        mock_unlock();
        t->u.host.fn(t->u.host.arg);
        mock_lock();
        order_callback_leave();
        break;
    case TASK_CALLBACK:
        callback_execute(s, t);
        break;
    }
}

static void wait_for_event(mock_stream *s, mock_task *t)
{
    uint64_t deadline = t->u.ev.timeout_ms > 0 ? deadline_after_ms(t->u.ev.timeout_ms) : 0;
    while (!event_wait_ready(t) && !discarding(s)) {
        if (!mock_wait_until(deadline) && !event_wait_ready(t)) {
            s->sticky = ACL_ERROR_RT_WAIT_TIMEOUT;
            break;
        }
    }
}

static void *worker_main(void *arg)
{
    mock_stream *s = arg;
    mock_lock();
    tls()->ctx = s->ctx;
    for (;;) {
        while (!s->head && !s->stopping) {
            pthread_cond_wait(&s->cv, &G.lock);
        }
        if (!s->head) {
            break;
        }
        mock_task *t = s->head;
        s->running = t;
        bool executed = false;
        if (!discarding(s)) {
            if (t->kind == TASK_WAIT) {
                wait_for_event(s, t);
            }
            uint64_t delay = G.delay_us;
            if (delay) {
                mock_unlock();
                sleep_us(delay);
                mock_lock();
            }
            if (!discarding(s)) {
                task_execute(s, t);
                executed = true;
            }
        }
        task_finish(t, executed);
        s->head = t->next;
        if (!s->head) {
            s->tail = NULL;
        }
        s->running = NULL;
        s->completed++;
        task_free(t);
        mock_broadcast();
    }
    mock_unlock();
    return NULL;
}

aclError stream_enqueue(mock_stream *s, mock_task *t)
{
    if (!s->has_thread) {
        if (pthread_create(&s->thread, NULL, worker_main, s) != 0) {
            task_finish(t, false);
            task_free(t);
            return fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "cannot start the worker thread of the stream");
        }
        s->has_thread = true;
    }
    int cur = tls()->cur_fn;
    t->origin = cur >= 0 ? (enum mock_fn)cur : FN_aclrtLaunchHostFunc;
    order_enqueue(s, t);
    t->seq = ++s->submitted;
    t->next = NULL;
    if (s->tail) {
        s->tail->next = t;
    } else {
        s->head = t;
    }
    s->tail = t;
    pthread_cond_signal(&s->cv);
    return ACL_SUCCESS;
}

bool stream_wait_seq(mock_stream *s, uint64_t seq, uint64_t deadline_ns)
{
    while (s->completed < seq) {
        if (!mock_wait_until(deadline_ns)) {
            return s->completed >= seq;
        }
    }
    return true;
}

static void discard_pending(mock_stream *s)
{
    mock_task **link = s->running ? &s->running->next : &s->head;
    mock_task *t = *link;
    *link = NULL;
    s->tail = s->running;
    while (t) {
        mock_task *next = t->next;
        task_finish(t, false);
        s->completed++;
        task_free(t);
        t = next;
    }
    mock_broadcast();
}

void stream_destroy(mock_stream *s, bool force)
{
    if (!s->h.alive) {
        return;
    }
    s->h.alive = false;
    for (size_t i = 0; i < G.nstreams; i++) {
        if (G.streams[i] == s) {
            G.streams[i] = G.streams[--G.nstreams];
            break;
        }
    }
    if (!s->is_default) {
        G.live[ACLMOCK_RES_STREAM]--;
        G.devices[s->device].nstreams--;
    }
    bool self = s->has_thread && pthread_equal(s->thread, pthread_self());
    if (force) {
        discard_pending(s);
    } else if (!self) {
        stream_wait_seq(s, s->submitted, 0);
    }
    if (!self) {
        order_host_learn(&s->vc); /* nothing of it runs any more */
    }
    callbacks_stream_gone(s);
    s->stopping = true;
    pthread_cond_signal(&s->cv);
    if (s->has_thread && !self) {
        pthread_t th = s->thread;
        s->has_thread = false;
        mock_unlock();
        pthread_join(th, NULL);
        mock_lock();
    }
    /* a worker destroying its own stream finishes the queue and is joined by aclmockReset */
}

void streams_stop_all_locked(void)
{
    for (mock_obj *o = G.objects; o; o = o->all_next) {
        if (o->kind == OBJ_STREAM) {
            mock_stream *s = (mock_stream *)o;
            s->stopping = true;
            s->discard = true;
            pthread_cond_signal(&s->cv);
        }
    }
    mock_broadcast();
}

/* ------------------------------------------------------------ exported */

/* rt flag of ACL_STREAM_DEVICE_USE_ONLY (RT_STREAM_CP_PROCESS_USE,
 * src/inc/runtime/stream.h:40 v8.5.0) */
#define ACL_STREAM_KNOWN                                                                                      \
    (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |                \
     ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

/*
 * Stream creation, in the order of CANN 8.5.0:
 * 1. stream.cpp:37, 56: null out-pointer -> 100000 (acl layer);
 * 2. stream.cpp:58-76: only the six ACL_STREAM_* bits are translated to
 *    runtime flags; any other bit is dropped silently (no error);
 * 3. api_error.cc:966-968 (CheckStreamFlags): ACL_STREAM_DEVICE_USE_ONLY
 *    (RT_STREAM_CP_PROCESS_USE) combined with any other flag -> 107000;
 *    (api_error.cc:954-956 rejects ACL_STREAM_HUGE on chips without
 *    RT_FEATURE_STREAM_HUGE_DEPTH: a chip table outside these files, the
 *    mock accepts it);
 * 4. api_error.cc:934-945: the priority (an int32 after
 *    api_c_stream.cc:57) is clamped to [0, 7] (base_info.hpp:154-155), never
 *    rejected: 8 or 0xFFFFFFFF (-1) create a stream of priority 7 or 0;
 * 5. api_impl.cc:1323-1324: no current context -> 107002.
 */
static aclError create_stream(mock_call *c, aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (!stream) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null");
    }
    flag &= ACL_STREAM_KNOWN;
    if ((flag & ACL_STREAM_DEVICE_USE_ONLY) && flag != ACL_STREAM_DEVICE_USE_ONLY) {
        return fail(ACL_ERROR_RT_PARAM_INVALID,
                    "flag 0x%x: ACL_STREAM_DEVICE_USE_ONLY does not combine with other flags", flag);
    }
    int32_t prio = (int32_t)priority;
    priority = prio < 0 ? 0 : (prio > 7 ? 7 : (uint32_t)prio);
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (G.devices[ctx->device].nstreams >= MOCK_STREAMS_PER_DEVICE) {
        return fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device %d already has %d streams", ctx->device,
                    MOCK_STREAMS_PER_DEVICE);
    }
    mock_stream *s = stream_create(ctx, false, priority, flag);
    if (!s) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    *stream = s;
    jo_obj(c, "stream", s, OBJ_STREAM);
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateStream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_stream(&c, stream, 0, 0));
}

ACLMOCK_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateStreamWithConfig);
    ja_u64(&c, "priority", priority);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_stream(&c, stream, priority, flag));
}

static aclError destroy_stream(int fn, aclrtStream stream, bool force)
{
    mock_call c;
    call_begin(&c, fn);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:102, 119 (v8.5.0): null -> 100000 (acl layer); then
     * api_impl.cc:1431-1434: no context -> 107002, a stream of another
     * context -> 107003 */
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null"));
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, ACL_ERROR_RT_PARAM_INVALID);
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (s->ctx != ctx) {
        misuse(ACLMOCK_MISUSE_WRONG_CONTEXT, "stream s%llu belongs to context c%llu but the current context is c%llu",
               (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id, (unsigned long long)ctx->h.id);
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CONTEXT,
                                 "stream s%llu is not in the current context (it belongs to c%llu, current is c%llu)",
                                 (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id,
                                 (unsigned long long)ctx->h.id));
    }
    stream_destroy(s, force);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    return destroy_stream(FN_aclrtDestroyStream, stream, false);
}

ACLMOCK_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream(FN_aclrtDestroyStreamForce, stream, true);
}

static aclError sync_stream(int fn, aclrtStream stream, int32_t timeout, bool has_timeout)
{
    mock_call c;
    call_begin(&c, fn);
    ja_stream(&c, "stream", stream);
    if (has_timeout) {
        ja_i64(&c, "timeout", timeout);
    }
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:156-160 (v8.5.0): timeout < -1 -> 107000 from the acl
     * layer (no thread error); api_error.cc:1001-1002: the runtime then
     * rejects timeout 0 -> 107000 */
    if (has_timeout && timeout < -1) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    if (has_timeout && timeout == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_stream *s = NULL;
    if (stream) {
        s = stream_arg(stream);
        if (!s) {
            return call_end(&c, tls()->last_rc);
        }
        /* api_error.cc:1003-1007: a stream created with
         * ACL_STREAM_CPU_SCHEDULE (RT_STREAM_AICPU, 0x08) or
         * ACL_STREAM_DEVICE_USE_ONLY (RT_STREAM_CP_PROCESS_USE) cannot be
         * synchronized: RT_ERROR_STREAM_INVALID -> 507000
         * (errcode_manage.cc:111), before the context check */
        if (s->flags & (ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)) {
            return call_end(&c, fail(ACL_ERROR_RT_INTERNAL_ERROR,
                                     "stream s%llu (flags 0x%x) cannot be synchronized from the host",
                                     (unsigned long long)s->h.id, s->flags));
        }
    }
    /* api_impl.cc:1580-1581: no current context -> 107002; :1602-1609: a
     * stream of another context is synchronized (the runtime switches) */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (!s) {
        s = stream_arg(NULL);
    }
    if (s->flags & ACL_STREAM_PERSISTENT) {
        return call_end(&c, ACL_SUCCESS);
    }
    uint64_t deadline = has_timeout ? deadline_after_ms(timeout) : 0;
    vclock done = {0}; /* what the wait covers: work queued before this call */
    vc_copy(&done, &s->vc);
    bool finished = stream_wait_seq(s, s->submitted, deadline);
    if (finished && !s->sticky) {
        order_host_learn(&done);
    }
    vc_free(&done);
    if (!finished) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                 "stream s%llu still has %llu queued task(s) after %d ms",
                                 (unsigned long long)s->h.id, (unsigned long long)(s->submitted - s->completed),
                                 timeout));
    }
    if (s->sticky) {
        aclError e = s->sticky;
        s->sticky = ACL_SUCCESS;
        return call_end(&c, fail(e, "a task of stream s%llu failed: an event wait timed out",
                                 (unsigned long long)s->h.id));
    }
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream(FN_aclrtSynchronizeStream, stream, -1, false);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream(FN_aclrtSynchronizeStreamWithTimeout, stream, timeout, true);
}

ACLMOCK_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    mock_call c;
    call_begin(&c, FN_aclrtStreamQuery);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:186 (v8.5.0): null status -> 100000 (acl layer);
     * api_impl.cc:1636-1643: no context -> 107002 whatever the stream, NULL
     * = the default stream; a stream of another context may be queried */
    if (!status) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "status is null"));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    int64_t st = s->completed == s->submitted ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    if (st == ACL_STREAM_STATUS_COMPLETE) {
        order_host_learn(&s->vc);
    }
    replay_out_i64(&c, "status", &st);
    *status = (aclrtStreamStatus)st;
    jo_i64(&c, "status", st);
    return call_end(&c, ACL_SUCCESS);
}
