/*
 * callback.c: host work in stream order. aclrtLaunchHostFunc runs fn(args)
 * on the stream's worker. aclrtLaunchCallback hands fn(userData) to the user
 * thread subscribed to the stream (aclrtSubscribeReport), which runs it in
 * aclrtProcessReport; with ACL_CALLBACK_BLOCK later tasks of the stream wait
 * until it has run.
 *
 * Error codes are the runtime's, as CANN 8.5.0 maps them (not the ACL-level
 * 1000xx subscribe codes the headers also define): a repeated subscription
 * or unsubscribing a stream nobody subscribed 107011, a callback on a stream
 * nobody subscribed 107015, a thread not subscribed 107012, no callback
 * within the timeout 507012. Each rule cites its source line below.
 */
#include "mock.h"

#include <stdlib.h>

typedef struct mock_report {
    struct mock_report *next;
    void (*fn)(void *);
    void *arg;
    uint64_t thread;
    mock_stream *stream;
    bool done;
    bool block;   /* ACL_CALLBACK_BLOCK: the stream waits for it */
    uint64_t clk; /* its place in the stream's order (order.c) */
    int refs;
} mock_report;

/* A non-null stream argument looked up for the decorator checks, which run
 * before the context check (api_error.cc:3652, 3661, 3676, 6233). NULL for
 * a NULL stream, and *rc set when the handle is invalid. */
static mock_stream *early_stream(aclrtStream stream, aclError *rc)
{
    *rc = ACL_SUCCESS;
    if (!stream) {
        return NULL;
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        *rc = tls()->last_rc;
    }
    return s;
}

/*
 * aclrtLaunchHostFunc (v8.5.0): null fn -> 107000 in the runtime
 * (api_error.cc:6232; the acl layer has no check, callback.cpp:115-122); a
 * stream subscribed with aclrtSubscribeReport -> 107011 (api_error.cc:
 * 6233-6234); then the context checks (stream_in_ctx). The first host
 * function subscribes the stream to the context's callback thread
 * (api_impl.cc:8754-8760, runtime.cc:5718-5725: SUBSCRIBE_RUNTIME), after
 * which aclrtSubscribeReport, aclrtLaunchCallback and aclrtUnSubscribeReport
 * refuse the stream with 107011.
 */
ACLMOCK_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    mock_call c;
    call_begin(&c, FN_aclrtLaunchHostFunc);
    ja_stream(&c, "stream", stream);
    ja_hex(&c, "fn", (uint64_t)(uintptr_t)fn);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!fn) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "fn is null"));
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = early_stream(stream, &rc);
    if (rc != ACL_SUCCESS) {
        return call_end(&c, rc);
    }
    if (s && s->subscribed) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream s%llu is subscribed with aclrtSubscribeReport; use aclrtLaunchCallback",
                                 (unsigned long long)s->h.id));
    }
    /* api_impl.cc:8733-8741 (host function), 5084-5093 (callback): the
     * context checks come before the subscription checks of the impl */
    s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (s->subscribed) { /* the default stream, resolved only now */
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream s%llu is subscribed with aclrtSubscribeReport; use aclrtLaunchCallback",
                                 (unsigned long long)s->h.id));
    }
    mock_task *t = task_new(TASK_HOSTFN);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.host.fn = fn;
    t->u.host.arg = args;
    s->runtime_sub = true;
    return call_end(&c, stream_enqueue(s, t));
}

static bool thread_subscribed_elsewhere(uint64_t thread, int device)
{
    for (mock_obj *o = G.objects; o; o = o->all_next) {
        const mock_stream *s = (const mock_stream *)o;
        if (o->kind == OBJ_STREAM && o->alive && s->subscribed && s->sub_thread == thread && s->device != device) {
            return true;
        }
    }
    return false;
}

/*
 * aclrtSubscribeReport (v8.5.0; no acl-layer check, callback.cpp:25-33): a
 * stream used by aclrtLaunchHostFunc -> 107011 (api_error.cc:3652); NULL
 * stream: no context -> 107002, else the default stream (api_impl.cc:
 * 4941-4945); there is no check that the stream is in the current context.
 * CbSubscribe::CheckForInsert (subscribe.cc:61-81): a stream already
 * subscribed (by any thread) -> 107011; a thread already subscribed to a
 * stream of another device -> 107012.
 */
ACLMOCK_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtSubscribeReport);
    ja_u64(&c, "threadId", threadId);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (s->runtime_sub) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream s%llu runs host functions (aclrtLaunchHostFunc) and cannot be subscribed",
                                 (unsigned long long)s->h.id));
    }
    if (s->subscribed) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "stream s%llu is already subscribed by thread %llu",
                                 (unsigned long long)s->h.id, (unsigned long long)s->sub_thread));
    }
    if (thread_subscribed_elsewhere(threadId, s->device)) {
        return call_end(&c, fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                                 "thread %llu already processes reports of another device than %d",
                                 (unsigned long long)threadId, s->device));
    }
    s->subscribed = true;
    s->sub_thread = threadId;
    return call_end(&c, ACL_SUCCESS);
}

/*
 * aclrtLaunchCallback (v8.5.0): invalid blockType -> 100000 in the acl
 * layer (callback.cpp:100-103); null fn -> 107000 (api_error.cc:3660); a
 * stream used by aclrtLaunchHostFunc -> 107011 (api_error.cc:3661-3662);
 * then the context checks (stream_in_ctx, api_impl.cc:5084-5093); a stream
 * nobody subscribed -> 107015 (api_impl.cc:5094-5096).
 */
ACLMOCK_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                            aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtLaunchCallback);
    ja_hex(&c, "fn", (uint64_t)(uintptr_t)fn);
    ja_i64(&c, "blockType", (int64_t)blockType);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "blockType %d is invalid", (int)blockType));
    }
    if (!fn) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "fn is null"));
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = early_stream(stream, &rc);
    if (rc != ACL_SUCCESS) {
        return call_end(&c, rc);
    }
    if (s && s->runtime_sub) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream s%llu runs host functions (aclrtLaunchHostFunc); use aclrtLaunchHostFunc",
                                 (unsigned long long)s->h.id));
    }
    /* api_impl.cc:8733-8741 (host function), 5084-5093 (callback): the
     * context checks come before the subscription checks of the impl */
    s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (!s->subscribed) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                                 "stream s%llu is not subscribed by any thread (call aclrtSubscribeReport)",
                                 (unsigned long long)s->h.id));
    }
    mock_task *t = task_new(TASK_CALLBACK);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.host.fn = fn;
    t->u.host.arg = userData;
    t->u.host.block = blockType == ACL_CALLBACK_BLOCK;
    t->u.host.thread = s->sub_thread;
    return call_end(&c, stream_enqueue(s, t));
}

static void report_unref(mock_report *r)
{
    if (--r->refs == 0) {
        free(r);
    }
}

void callback_execute(mock_stream *s, mock_task *t)
{
    mock_report *r = calloc(1, sizeof(*r));
    if (!r) {
        return;
    }
    r->fn = t->u.host.fn;
    r->arg = t->u.host.arg;
    r->thread = t->u.host.thread;
    r->stream = s;
    r->block = t->u.host.block;
    r->clk = order_callback_start(s, t);
    r->refs = t->u.host.block ? 2 : 1;
    mock_report **tail = &G.reports;
    while (*tail) {
        tail = &(*tail)->next;
    }
    *tail = r;
    mock_broadcast();
    if (t->u.host.block) {
        while (!r->done && !(s->stopping && s->discard)) {
            mock_wait_until(0);
        }
        report_unref(r);
    }
}

static bool thread_subscribed(uint64_t thread)
{
    for (mock_obj *o = G.objects; o; o = o->all_next) {
        if (o->kind == OBJ_STREAM && ((mock_stream *)o)->subscribed && ((mock_stream *)o)->sub_thread == thread) {
            return true;
        }
    }
    return false;
}

static mock_report *take_report(uint64_t thread)
{
    for (mock_report **link = &G.reports; *link; link = &(*link)->next) {
        if ((*link)->thread == thread) {
            mock_report *r = *link;
            *link = r->next;
            r->next = NULL;
            return r;
        }
    }
    return NULL;
}

ACLMOCK_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    mock_call c;
    call_begin(&c, FN_aclrtProcessReport);
    ja_i64(&c, "timeout", timeout);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* callback.cpp:134-141 (v8.5.0): timeout 0 or < -1 -> 100000 from the acl
     * layer (input error text, no thread error) */
    if (timeout == 0 || timeout < -1) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    /* api_impl.cc:5116-5120 with subscribe.cc:358-363: a thread with no
     * subscription -> 107012; CqReportIrqWait timing out -> 507012
     * (api_impl.cc:5139-5140). Both leave no text (COND_RETURN_WARN, and the
     * acl layer skips its log for these two, callback.cpp:144-147) but set
     * the thread's error (api_c.cc:2399). */
    uint64_t self = (uint64_t)pthread_self();
    if (!thread_subscribed(self)) {
        return call_end(&c, fail_silent(ACL_ERROR_RT_THREAD_SUBSCRIBE));
    }
    uint64_t deadline = deadline_after_ms(timeout);
    mock_report *r = take_report(self);
    while (!r) {
        if (!mock_wait_until(deadline)) {
            r = take_report(self);
            if (!r) {
                return call_end(&c, fail_silent(ACL_ERROR_RT_REPORT_TIMEOUT));
            }
            break;
        }
        r = take_report(self);
    }
    uint64_t ran = 0;
    while (r) {
        if (r->block) {
            order_callback_enter(r->stream, r->clk);
        }
        mock_unlock();
        r->fn(r->arg);
        mock_lock();
        order_callback_leave();
        r->done = true;
        report_unref(r);
        ran++;
        mock_broadcast();
        r = take_report(self);
    }
    jo_u64(&c, "callbacks", ran);
    return call_end(&c, ACL_SUCCESS);
}

/* Drops the reports of stream `s` that no thread will process any more. */
static void drop_reports(const mock_stream *s)
{
    mock_report **link = &G.reports;
    while (*link) {
        mock_report *r = *link;
        if (r->stream == s) {
            *link = r->next;
            r->done = true;
            report_unref(r);
        } else {
            link = &r->next;
        }
    }
    mock_broadcast();
}

ACLMOCK_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtUnSubscribeReport);
    ja_u64(&c, "threadId", threadId);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* v8.5.0: a stream used by aclrtLaunchHostFunc -> 107011
     * (api_error.cc:3676-3677); NULL stream: no context -> 107002
     * (api_impl.cc:5208-5214); CbSubscribe::Delete (subscribe.cc:175-189): a
     * stream nobody subscribed -> 107011, another thread's -> 107012 */
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (s->runtime_sub) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream s%llu runs host functions (aclrtLaunchHostFunc), it has no subscription",
                                 (unsigned long long)s->h.id));
    }
    if (!s->subscribed) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "stream s%llu is not subscribed",
                                 (unsigned long long)s->h.id));
    }
    if (s->sub_thread != threadId) {
        return call_end(&c, fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "thread %llu is not subscribed to stream s%llu",
                                 (unsigned long long)threadId, (unsigned long long)s->h.id));
    }
    /* Callbacks of the stream still queued for the thread: the source
     * cannot decide what a card does with them. CbSubscribe::Delete
     * (subscribe.cc:197-205) waits for the subscription's event tasks
     * (Event::WaitForBusy, event.cc:1154-1173) and then frees the report
     * queue (subscribe.cc:207-228); what the task scheduler does with
     * callback tasks whose report queue is gone is in the closed driver/TS
     * firmware. The mock drops them unrun and releases the stream (a
     * blocking callback no longer holds it back); see
     * docs/mock-conformance.md. */
    s->subscribed = false;
    drop_reports(s);
    return call_end(&c, ACL_SUCCESS);
}

void callbacks_stream_gone(mock_stream *s)
{
    if (s->subscribed) {
        s->subscribed = false;
        drop_reports(s);
    }
}

void callbacks_reset_locked(void)
{
    mock_report *r = G.reports;
    while (r) {
        mock_report *next = r->next;
        free(r);
        r = next;
    }
    G.reports = NULL;
}
