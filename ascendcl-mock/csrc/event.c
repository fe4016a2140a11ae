/*
 * event.c: events. aclrtRecordEvent queues a marker on a stream; the event
 * is complete when the worker has reached its latest recording (an event
 * never recorded is complete). Timeline events (plain aclrtCreateEvent, or
 * ACL_EVENT_TIME_LINE) take a timestamp when the marker runs.
 * aclrtStreamWaitEvent makes later work on a stream wait for the recording
 * that was the latest when the wait was queued.
 */
#include "mock.h"

#include <stdlib.h>

#define EVENT_KNOWN_FLAGS                                                                                          \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |       \
     ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

static bool event_complete(const mock_event *ev) { return !ev->recorded || ev->done_gen >= ev->rec_gen; }

void event_task_done(mock_task *t, bool executed)
{
    mock_event *ev = t->u.ev.ev;
    uint64_t gen = t->u.ev.gen;
    if (gen <= ev->done_gen) {
        return;
    }
    ev->done_gen = gen;
    if (gen == ev->rec_gen) {
        ev->ts_ns = executed && ev->timeline ? now_ns() : 0;
    }
}

bool event_wait_ready(const mock_task *t) { return t->u.ev.ev->done_gen >= t->u.ev.gen; }

static mock_event *event_arg(const void *handle, const char *what)
{
    if (!handle) {
        fail(ACL_ERROR_INVALID_PARAM, "%s is null", what);
        return NULL;
    }
    mock_event *ev = (mock_event *)obj_lookup(handle, OBJ_EVENT);
    if (!ev || !ev->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "%s %p is %s", what, handle, ev ? "destroyed" : "not a live event");
        fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p is %s", what, handle,
             ev ? "already destroyed" : "not an event of this runtime");
        return NULL;
    }
    return ev;
}

static aclError create_event(mock_call *c, aclrtEvent *event, uint32_t flag, bool plain)
{
    if (!event) {
        return fail(ACL_ERROR_INVALID_PARAM, "event is null");
    }
    if (!plain) {
        if (flag == 0 || (flag & ~EVENT_KNOWN_FLAGS)) {
            return fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x is invalid (a non-empty OR of ACL_EVENT_* flags)",
                        flag);
        }
        uint32_t solo = flag & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC);
        if (solo && flag != solo) {
            return fail(ACL_ERROR_RT_PARAM_INVALID,
                        "flag 0x%x combines ACL_EVENT_EXTERNAL or ACL_EVENT_IPC with other flags", flag);
        }
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    mock_device *d = &G.devices[ctx->device];
    if (d->nevents >= MOCK_EVENTS_PER_DEVICE) {
        return fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, "device %d already has %d events", ctx->device,
                    MOCK_EVENTS_PER_DEVICE);
    }
    mock_event *ev = calloc(1, sizeof(*ev));
    if (!ev) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    obj_register(&ev->h, OBJ_EVENT, ++G.next_event);
    ev->device = ctx->device;
    ev->flags = flag;
    ev->timeline = plain || (flag & ACL_EVENT_TIME_LINE);
    d->nevents++;
    G.live[ACLMOCK_RES_EVENT]++;
    *event = ev;
    jo_obj(c, "event", ev, OBJ_EVENT);
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateEvent);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_event(&c, event, 0, true));
}

ACLMOCK_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateEventWithFlag);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_event(&c, event, flag, false));
}

ACLMOCK_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateEventExWithFlag);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_event(&c, event, flag, false));
}

ACLMOCK_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    mock_call c;
    call_begin(&c, FN_aclrtDestroyEvent);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    ev->h.alive = false;
    G.devices[ev->device].nevents--;
    G.live[ACLMOCK_RES_EVENT]--;
    return call_end(&c, ACL_SUCCESS);
}

/*
 * The stream an event task goes to, checked in the order of CANN 8.5.0
 * (hicann/runtime tag v8.5.0). The acl layer rejects a null event first
 * (src/acl/aclrt_impl/event.cpp:104, stream.cpp:259: 100000, done by
 * event_arg). Then the runtime: no current context -> 107002
 * (src/runtime/feature/src/api_impl/api_impl.cc:2098 record, :1519 wait,
 * :2189 reset); a NULL stream is the context's default stream; a stream that
 * is not in the current context -> RT_ERROR_STREAM_CONTEXT, which
 * errcode_manage.cc:110 maps to 107003 (api_impl.cc:2110 record, :1531 wait,
 * :2201 reset). A device-1 stream used while device 0's context is current
 * therefore fails with 107003 before anything else.
 *
 * An event of device 0 with a stream of device 1 while device 1's context
 * is current (all paths in src/runtime/feature/src/):
 *
 * - aclrtStreamWaitEvent: the source decides, and it is NOT an error.
 *   Event::Wait (event/event.cc:586-628) compares the event's device with
 *   the waiting stream's (event.cc:597, 612) and queues a remote event wait
 *   task when they differ (event.cc:614-621). The mock accepts the wait and
 *   orders the stream after the recording like any other wait.
 * - aclrtRecordEvent and aclrtResetEvent: the source cannot decide. No
 *   open-source layer compares the devices: api/api_c.cc:715-733 and
 *   api_impl/api_error.cc:1235-1248 check only the event's flags; Event::Record
 *   (event.cc:440-495) takes the event id from the event's device
 *   (AllocEventIdResource, event.cc:292-301) and submits the task to the
 *   stream's device (event.cc:448, 484); Event::Reset (event.cc:667-701)
 *   submits to the stream's device. What a card then does is in the closed
 *   driver. The runtime FAQ on master ("docs/zh/FAQ/多Device场景下Stream跨
 *   Device下发失败.md", lines 28-35 and 83-91) says record and wait fail when
 *   event and stream belong to different devices, but names no code, and its
 *   own example (lines 70-74) waits across devices, as 8.5.0's Event::Wait
 *   allows. The mock rejects a cross-device record or reset after the
 *   context check with 107000 (ACL_ERROR_RT_PARAM_INVALID, the runtime's
 *   code for an invalid argument): a mock decision, not a fact from the
 *   source.
 */
static mock_stream *event_stream(const mock_event *ev, aclrtStream stream, bool same_device, aclError *rc)
{
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
        return NULL;
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        *rc = tls()->last_error;
        return NULL;
    }
    if (s->ctx != ctx) {
        *rc = fail(ACL_ERROR_RT_STREAM_CONTEXT,
                   "stream s%llu is not in the current context (it belongs to c%llu on device %d, current is c%llu)",
                   (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id, s->device,
                   (unsigned long long)ctx->h.id);
        return NULL;
    }
    if (same_device && s->device != ev->device) {
        *rc = fail(ACL_ERROR_RT_PARAM_INVALID, "event e%llu belongs to device %d but stream s%llu to device %d",
                   (unsigned long long)ev->h.id, ev->device, (unsigned long long)s->h.id, s->device);
        return NULL;
    }
    return s;
}

/* Queues a marker task of `kind` for `ev` on `s`. */
static aclError queue_event_task(mock_event *ev, mock_stream *s, task_kind kind, uint64_t gen, int32_t timeout)
{
    mock_task *t = task_new(kind);
    if (!t) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    t->u.ev.ev = ev;
    t->u.ev.gen = gen;
    t->u.ev.timeout_ms = timeout;
    if (kind == TASK_RECORD) {
        ev->rec_gen = gen;
        ev->recorded = true;
    } else if (kind == TASK_WAIT) {
        ev->pending_waits++;
    }
    aclError rc = stream_enqueue(s, t);
    if (rc == ACL_SUCCESS && kind == TASK_RECORD) {
        order_record(ev, s);
    } else if (rc == ACL_SUCCESS && kind == TASK_WAIT) {
        order_wait(s, ev);
    }
    return rc;
}

ACLMOCK_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtRecordEvent);
    ja_obj(&c, "event", event, OBJ_EVENT);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, true, &rc);
    if (!s) {
        return call_end(&c, rc);
    }
    return call_end(&c, queue_event_task(ev, s, TASK_RECORD, ev->rec_gen + 1, 0));
}

ACLMOCK_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtResetEvent);
    ja_obj(&c, "event", event, OBJ_EVENT);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, true, &rc);
    if (!s) {
        return call_end(&c, rc);
    }
    return call_end(&c, queue_event_task(ev, s, TASK_RESET_EVENT, 0, 0));
}

static aclError stream_wait_event(int fn, aclrtStream stream, aclrtEvent event, int32_t timeout, bool has_timeout)
{
    mock_call c;
    call_begin(&c, fn);
    ja_stream(&c, "stream", stream);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (has_timeout) {
        ja_i64(&c, "timeout", timeout);
    }
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (has_timeout && (timeout == 0 || timeout < -1)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, false, &rc); /* remote waits are allowed */
    if (!s) {
        return call_end(&c, rc);
    }
    if (event_complete(ev)) {
        order_wait(s, ev); /* nothing to wait for: the recorded work has finished */
        return call_end(&c, ACL_SUCCESS);
    }
    return call_end(&c, queue_event_task(ev, s, TASK_WAIT, ev->rec_gen, has_timeout ? timeout : -1));
}

ACLMOCK_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return stream_wait_event(FN_aclrtStreamWaitEvent, stream, event, -1, false);
}

ACLMOCK_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    return stream_wait_event(FN_aclrtStreamWaitEventWithTimeout, stream, event, timeout, true);
}

static aclError query_event(int fn, aclrtEvent event, void *status, int kind)
{
    mock_call c;
    call_begin(&c, fn);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    if (!status) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "status is null"));
    }
    int64_t v;
    if (kind == 0) {
        v = event_complete(ev) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    } else if (kind == 1) {
        v = event_complete(ev) ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    } else {
        v = ev->pending_waits ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
    }
    if (kind != 2 && event_complete(ev)) {
        order_host_learn(&ev->vc); /* the host saw the recorded work finish */
    }
    replay_out_i64(&c, "status", &v);
    if (kind == 0) {
        *(aclrtEventStatus *)status = (aclrtEventStatus)v;
    } else if (kind == 1) {
        *(aclrtEventRecordedStatus *)status = (aclrtEventRecordedStatus)v;
    } else {
        *(aclrtEventWaitStatus *)status = (aclrtEventWaitStatus)v;
    }
    jo_i64(&c, "status", v);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    return query_event(FN_aclrtQueryEvent, event, status, 0);
}

ACLMOCK_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    return query_event(FN_aclrtQueryEventStatus, event, status, 1);
}

ACLMOCK_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    return query_event(FN_aclrtQueryEventWaitStatus, event, status, 2);
}

static aclError sync_event(int fn, aclrtEvent event, int32_t timeout, bool has_timeout)
{
    mock_call c;
    call_begin(&c, fn);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (has_timeout) {
        ja_i64(&c, "timeout", timeout);
    }
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (has_timeout && (timeout == 0 || timeout < -1)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_error);
    }
    uint64_t target = ev->rec_gen;
    uint64_t deadline = has_timeout ? deadline_after_ms(timeout) : 0;
    vclock done = {0}; /* the recording this call waits for (order.c) */
    vc_copy(&done, &ev->vc);
    while (ev->recorded && ev->done_gen < target) {
        if (!mock_wait_until(deadline) && ev->recorded && ev->done_gen < target) {
            vc_free(&done);
            return call_end(&c, fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                                     "event e%llu did not complete within %d ms", (unsigned long long)ev->h.id,
                                     timeout));
        }
    }
    order_host_learn(&done);
    vc_free(&done);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return sync_event(FN_aclrtSynchronizeEvent, event, -1, false);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    return sync_event(FN_aclrtSynchronizeEventWithTimeout, event, timeout, true);
}

ACLMOCK_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    mock_call c;
    call_begin(&c, FN_aclrtEventElapsedTime);
    ja_obj(&c, "startEvent", startEvent, OBJ_EVENT);
    ja_obj(&c, "endEvent", endEvent, OBJ_EVENT);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!ms) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "ms is null"));
    }
    mock_event *a = event_arg(startEvent, "startEvent");
    mock_event *b = a ? event_arg(endEvent, "endEvent") : NULL;
    if (!a || !b) {
        return call_end(&c, tls()->last_error);
    }
    const mock_event *evs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const char *which = i ? "endEvent" : "startEvent";
        if (!evs[i]->recorded) {
            return call_end(&c, fail(ACL_ERROR_RT_INTERNAL_ERROR, "%s e%llu has no recording", which,
                                     (unsigned long long)evs[i]->h.id));
        }
        if (!evs[i]->timeline) {
            return call_end(&c, fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                                     "%s e%llu was created without ACL_EVENT_TIME_LINE", which,
                                     (unsigned long long)evs[i]->h.id));
        }
        if (!event_complete(evs[i]) || evs[i]->ts_ns == 0) {
            return call_end(&c, fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                                     "%s e%llu has not completed (synchronize it first)", which,
                                     (unsigned long long)evs[i]->h.id));
        }
    }
    double d = ((double)b->ts_ns - (double)a->ts_ns) / 1e6;
    replay_out_f64(&c, "ms", &d);
    *ms = (float)d;
    jo_f64(&c, "ms", d);
    return call_end(&c, ACL_SUCCESS);
}
