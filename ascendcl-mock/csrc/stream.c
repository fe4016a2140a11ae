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

/* ------------------------------------------------------------- worker */

static void task_finish(mock_task *t, bool executed)
{
    if (t->kind == TASK_RECORD) {
        event_task_done(t, executed);
    } else if (t->kind == TASK_WAIT && t->u.ev.ev->pending_waits) {
        t->u.ev.ev->pending_waits--;
    } else if (t->kind == TASK_COMPUTE) {
        t->u.compute.finish(t, executed); /* runs the kernel when executed (ext_ops.c) */
    } else if (t->kind == TASK_NOTIFY_RECORD || t->kind == TASK_NOTIFY_WAIT) {
        notify_task_done(t);
    }
}

static bool discarding(const mock_stream *s) { return s->stopping && s->discard; }

/* ACL_STOP_ON_FAILURE (aclrtSetStreamFailureMode): once a task of the stream
 * failed (its error waits in `sticky` for the next synchronize), later device
 * work (copies, fills, kernels) is not run. Event tasks, host functions and
 * callbacks still complete, so nothing waiting on them hangs (a choice of
 * the mock: the device side is firmware, docs/mock-conformance.md). */
static bool skipped_after_failure(const mock_stream *s, const mock_task *t)
{
    if (!s->stop_on_failure || !s->sticky) {
        return false;
    }
    return t->kind == TASK_COPY || t->kind == TASK_COPY2D || t->kind == TASK_SET || t->kind == TASK_COMPUTE;
}

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
    case TASK_COPY2D: {
        size_t h = t->u.copy2d.height, w = t->u.copy2d.width;
        size_t dspan = t->u.copy2d.dpitch * (h - 1) + w, sspan = t->u.copy2d.spitch * (h - 1) + w;
        if (side_still_valid(s, t, t->u.copy2d.dst, dspan, true, t->u.copy2d.dst_fp, "destination") &&
            side_still_valid(s, t, t->u.copy2d.src, sspan, false, t->u.copy2d.src_fp, "source")) {
            copy2d_rows(t->u.copy2d.dst, t->u.copy2d.dpitch, t->u.copy2d.src, t->u.copy2d.spitch, w, h);
        }
        break;
    }
    case TASK_SET:
        if (side_still_valid(s, t, t->u.set.dst, t->u.set.count, true, t->u.set.fp, "destination")) {
            mem_fill(t->u.set.dst, t->u.set.value, t->u.set.count);
        }
        break;
    case TASK_RECORD: /* completed by task_finish */
    case TASK_COMPUTE:
        break;
    case TASK_RESET_EVENT:
        t->u.ev.ev->recorded = false;
        break;
    case TASK_WAIT:
    case TASK_VALUE_WAIT: /* waited for before the delay (worker_main) */
        break;
    case TASK_VALUE_WRITE:
        value_task_write(s, t);
        break;
    case TASK_NOTIFY_RECORD:
        notify_task_record(t);
        break;
    case TASK_NOTIFY_WAIT: /* took the bit before the delay (worker_main) */
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
            } else if (t->kind == TASK_VALUE_WAIT) {
                value_task_wait(s, t);
            } else if (t->kind == TASK_NOTIFY_WAIT) {
                notify_task_wait(s, t);
            }
            uint64_t delay = G.delay_us;
            if (delay) {
                mock_unlock();
                sleep_us(delay);
                mock_lock();
            }
            if (!discarding(s) && !skipped_after_failure(s, t)) {
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
    int cur0 = tls()->cur_fn;
    t->on = s;
    if (s->cap && capture_is_capturing(s->cap)) {
        t->origin = cur0 >= 0 ? (enum mock_fn)cur0 : FN_aclrtLaunchHostFunc;
        return capture_take(s, t); /* recorded into the model, not run (capture.c) */
    }
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
