/*
 * event.c: events: creation, destruction, record, reset and timestamps.
 * aclrtRecordEvent queues a marker on a stream; the event is complete when
 * the worker has reached its latest recording. Timeline events (plain
 * aclrtCreateEvent, or ACL_EVENT_TIME_LINE) take a timestamp when the marker
 * runs. Waits, queries and synchronization are in event_sync.c.
 */
#include "event.h"

#include <stdlib.h>

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

mock_event *event_arg(const void *handle, const char *what)
{
    if (!handle) {
        /* event.cpp:27, 47, 65, 87, 104, 121, 137, 157, 180, 203, 222,
         * 240-241; stream.cpp:259 (v8.5.0): ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT */
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", what);
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

enum ev_mode { EV_PLAIN, EV_WITH_FLAG, EV_EX };

/*
 * Event creation (v8.5.0), in order:
 * - event.cpp:27, 44, 62: null out-pointer -> 100000 (acl layer);
 * - aclrtCreateEventWithFlag, api_error.cc:1165-1178: the flag must have a
 *   bit of RT_EVENT_FLAG_MAX and none above it (0x40 ACL_EVENT_IPC is above:
 *   IPC events come only from the Ex call), and ACL_EVENT_DEVICE_USE_ONLY or
 *   ACL_EVENT_EXTERNAL must be alone -> 107000; (api_impl.cc:1956-1962:
 *   DEVICE_USE_ONLY alone depends on the TS firmware version; the mock
 *   accepts it);
 * - aclrtCreateEventExWithFlag, api_error.cc:1189-1206: DEVICE_USE_ONLY,
 *   EXTERNAL and IPC must be alone, then the flag must have a bit of
 *   {SYNC, CAPTURE_STREAM_PROGRESS, 0x04, TIME_LINE, IPC} and none above
 *   IPC -> 107000, so DEVICE_USE_ONLY and EXTERNAL are refused there;
 *   (api_error.cc:1198-1201: IPC alone depends on a chip feature table; the
 *   mock accepts it);
 * - api_impl.cc:1952-1953, 1981-1982: no current context -> 107002.
 */
static aclError create_event(mock_call *c, aclrtEvent *event, uint32_t flag, enum ev_mode mode)
{
    if (!event) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "event is null");
    }
    if (mode == EV_WITH_FLAG) {
        if ((flag & RT_EV_FLAG_MAX) == 0 || flag > RT_EV_FLAG_MAX) {
            return fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x is out of range (0, 0x%x]", flag, RT_EV_FLAG_MAX);
        }
        const uint32_t solos[2] = {RT_EV_MC2, RT_EV_EXTERNAL};
        for (int i = 0; i < 2; i++) {
            if ((flag & solos[i]) && (flag & ~solos[i])) {
                return fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x: flag 0x%x does not combine with other flags",
                            flag, solos[i]);
            }
        }
    } else if (mode == EV_EX) {
        const uint32_t solos[3] = {RT_EV_MC2, RT_EV_EXTERNAL, RT_EV_IPC};
        for (int i = 0; i < 3; i++) {
            if ((flag & solos[i]) && (flag & ~solos[i])) {
                return fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x: flag 0x%x does not combine with other flags",
                            flag, solos[i]);
            }
        }
        if ((flag & RT_EV_EX_MAX) == 0 || flag > RT_EV_EX_MAX) {
            return fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x is out of range (0, 0x%x]", flag, RT_EV_EX_MAX);
        }
    } else {
        flag = RT_EV_DEFAULT;
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
    ev->ex = mode == EV_EX;
    ev->timeline = (flag & RT_EV_TIME_LINE) != 0;
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
    return call_end(&c, create_event(&c, event, 0, EV_PLAIN));
}

ACLMOCK_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateEventWithFlag);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_event(&c, event, flag, EV_WITH_FLAG));
}

ACLMOCK_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateEventExWithFlag);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_event(&c, event, flag, EV_EX));
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
        return call_end(&c, tls()->last_rc);
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
mock_stream *event_stream(const mock_event *ev, aclrtStream stream, bool same_device, bool refuse_ex, aclError *rc)
{
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
        return NULL;
    }
    /* api_impl.cc:2196-2200 (reset only): an Ex event cannot be reset ->
     * 207000 after the context check and before the stream's; returned
     * through COND_RETURN_WITH_NOLOG (api_c.cc:749): no text, no thread error */
    if (refuse_ex && ev->ex) {
        *rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return NULL;
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        *rc = tls()->last_rc;
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

aclError queue_event_task(mock_event *ev, mock_stream *s, task_kind kind, uint64_t gen, int32_t timeout)
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

/* api_error.cc:1238-1242, 1269-1273, 987-991 (v8.5.0): an
 * ACL_EVENT_DEVICE_USE_ONLY (RT_EVENT_MC2) event cannot be recorded, reset
 * or waited for from the host -> 107000, before the context check. */
bool refuse_device_only(const mock_event *ev)
{
    if (ev->flags & RT_EV_MC2) {
        fail(ACL_ERROR_RT_PARAM_INVALID, "event e%llu (flag 0x%x) is a device-only event",
             (unsigned long long)ev->h.id, ev->flags);
        return true;
    }
    return false;
}

/* Record: null event (acl, event.cpp:104), device-only flag
 * (api_error.cc:1238), no context (api_impl.cc:2097-2098), stream of
 * another context (api_impl.cc:2110-2111, 107003). */
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
        return call_end(&c, tls()->last_rc);
    }
    if (refuse_device_only(ev)) {
        return call_end(&c, tls()->last_rc);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, true, false, &rc);
    if (!s) {
        return call_end(&c, rc);
    }
    if (capture_record(ev, s, &rc)) {
        return call_end(&c, rc); /* a record inside a capture (capture.c) */
    }
    return call_end(&c, queue_event_task(ev, s, TASK_RECORD, ev->rec_gen + 1, 0));
}

/* Reset: null event (acl, event.cpp:121); device-only flag -> 107000
 * (api_error.cc:1269-1273); an IPC event or one without wait task (only
 * TIME_LINE / CAPTURE_STREAM_PROGRESS) -> 207000 (api_error.cc:1274-1277),
 * returned without text or thread error (api_c.cc:749); no context -> 107002
 * (api_impl.cc:2188-2189); Ex event -> 207000 (api_impl.cc:2196-2200); stream
 * of another context -> 107003 (api_impl.cc:2201-2202). */
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
        return call_end(&c, tls()->last_rc);
    }
    if (refuse_device_only(ev)) {
        return call_end(&c, tls()->last_rc);
    }
    if (ev->flags == RT_EV_IPC || without_wait_task(ev)) {
        return call_end(&c, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, true, true, &rc);
    if (!s) {
        return call_end(&c, rc);
    }
    return call_end(&c, queue_event_task(ev, s, TASK_RESET_EVENT, 0, 0));
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
        /* event.cpp:239-241: ms, startEvent, endEvent null -> 100000 */
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "ms is null"));
    }
    mock_event *a = event_arg(startEvent, "startEvent");
    mock_event *b = a ? event_arg(endEvent, "endEvent") : NULL;
    if (!a || !b) {
        return call_end(&c, tls()->last_rc);
    }
    if (capture_event_captured(a) || capture_event_captured(b)) {
        return call_end(&c, capture_refuse_event_use(capture_event_captured(a) ? a : b, "elapsed time"));
    }
    /* api_error.cc:1338-1344 (v8.5.0): EXTERNAL or IPC events have no
     * timestamps -> 207000 (api_c.cc:828 sets the thread error) */
    if (a->flags == RT_EV_EXTERNAL || b->flags == RT_EV_EXTERNAL || a->flags == RT_EV_IPC ||
        b->flags == RT_EV_IPC) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "EXTERNAL and IPC events have no timestamps"));
    }
    const mock_event *evs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const char *which = i ? "endEvent" : "startEvent";
        /* event.cc:1123-1125: never recorded (a reset keeps the recording,
         * event.cc:1192-1200 is only called on abort) -> 507000 */
        if (evs[i]->rec_gen == 0) {
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

/*
 * aclrtEventGetTimestamp (v8.5.0): timestamp, then event null -> 100000
 * (event.cpp:255-256); EXTERNAL or IPC events -> 207000 (api_error.cc:
 * 1352-1355); never recorded -> 507000 (event.cc:1177-1179, the code
 * aclrtEventElapsedTime gives for it); the time of the latest completed
 * recording in microseconds: event.cc:1185 divides the 50 MHz count by
 * freq / 1000 with freq = 50000 ticks per ms on an Ascend910B
 * (task_base.hpp:40), although the header calls the result "syscnt".
 * A recording that has not completed, or an event without
 * ACL_EVENT_TIME_LINE, has no timestamp: 107006, as aclrtEventElapsedTime
 * (the device's clock is firmware; docs/mock-conformance.md).
 */
ACLMOCK_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    mock_call c;
    call_begin(&c, FN_aclrtEventGetTimestamp);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!timestamp || !event) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", timestamp ? "event" : "timestamp"));
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_rc);
    }
    if (capture_event_captured(ev)) {
        return call_end(&c, capture_refuse_event_use(ev, "a timestamp"));
    }
    if (ev->flags == RT_EV_EXTERNAL || ev->flags == RT_EV_IPC) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "EXTERNAL and IPC events have no timestamps"));
    }
    if (ev->rec_gen == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_INTERNAL_ERROR, "e%llu has no recording",
                                 (unsigned long long)ev->h.id));
    }
    if (!ev->timeline) {
        return call_end(&c, fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "e%llu was created without ACL_EVENT_TIME_LINE",
                                 (unsigned long long)ev->h.id));
    }
    if (!event_complete(ev) || ev->ts_ns == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                                 "e%llu has not completed (synchronize it first)", (unsigned long long)ev->h.id));
    }
    uint64_t us = ev->ts_ns / 1000;
    replay_out_u64(&c, "timestamp", &us);
    *timestamp = us;
    jo_u64(&c, "timestamp", us);
    return call_end(&c, ACL_SUCCESS);
}
