/*
 * event_sync.c: what waits for events: aclrtStreamWaitEvent (device side),
 * the three status queries and host synchronization.
 */
#include "event.h"

/*
 * Stream waits for an event (v8.5.0), in order:
 * - aclrtStreamWaitEventWithTimeout: timeout <= 0 (-1 included) -> 107000
 *   from the acl layer, no thread error (event.cpp:464-467); it has no acl
 *   null check, the runtime refuses a null event with 107000
 *   (api_error.cc:986); aclrtStreamWaitEvent: null event -> 100000
 *   (stream.cpp:259);
 * - device-only event -> 107000 (api_error.cc:987-991);
 * - an event without wait task (TIME_LINE-only, CAPTURE_STREAM_PROGRESS-only)
 *   -> 207000 (api_error.cc:994-995), no text or thread error
 *   (api_c_stream.cc:139);
 * - no context -> 107002 (api_impl.cc:1518-1519); NULL stream = default;
 *   stream of another context -> 107003 (api_impl.cc:1531-1532);
 * - Event::Wait, event.cc:509-548 and 597-605: an Ex event that was never
 *   recorded, or whose recording already ran, needs no wait (success,
 *   event.cc:519-533); any other event that has no ACL_EVENT_SYNC
 *   (DDSYNC_NS) or ACL_EVENT_EXTERNAL flag and was never recorded -> 107000
 *   (event.cc:598-605, with text); otherwise a wait task is queued while the
 *   recording has not run or the event was reset (event.cc:541-545): the
 *   mock makes a wait on an event that is not recorded (SYNC/EXTERNAL never
 *   recorded, or reset) wait for the event's next recording.
 * A wait on an event of another device is queued (event.cc:612-621).
 */
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
    if (has_timeout && timeout <= 0) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (must be > 0)", timeout));
    }
    if (has_timeout && !event) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "event is null"));
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_rc);
    }
    if (refuse_device_only(ev)) {
        return call_end(&c, tls()->last_rc);
    }
    if (without_wait_task(ev)) {
        return call_end(&c, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    aclError rc = ACL_SUCCESS;
    mock_stream *s = event_stream(ev, stream, false, false, &rc); /* remote waits are allowed */
    if (!s) {
        return call_end(&c, rc);
    }
    if (capture_wait(ev, s, &rc)) {
        return call_end(&c, rc); /* a wait inside a capture (capture.c) */
    }
    int32_t task_timeout = has_timeout ? timeout : -1;
    if (ev->ex) {
        if (ev->rec_gen == 0 || event_complete(ev)) {
            order_wait(s, ev);
            return call_end(&c, ACL_SUCCESS);
        }
        return call_end(&c, queue_event_task(ev, s, TASK_WAIT, ev->rec_gen, task_timeout));
    }
    if (ev->rec_gen == 0 && !(ev->flags & (RT_EV_DDSYNC_NS | RT_EV_EXTERNAL))) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "the wait for event e%llu cannot be submitted before the event is recorded",
                                 (unsigned long long)ev->h.id));
    }
    if (!ev->recorded) {
        /* never recorded (SYNC/EXTERNAL) or reset: wait for the next recording */
        return call_end(&c, queue_event_task(ev, s, TASK_WAIT, ev->rec_gen + 1, task_timeout));
    }
    if (event_complete(ev)) {
        order_wait(s, ev); /* nothing to wait for: the recorded work has finished */
        return call_end(&c, ACL_SUCCESS);
    }
    return call_end(&c, queue_event_task(ev, s, TASK_WAIT, ev->rec_gen, task_timeout));
}

ACLMOCK_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return stream_wait_event(FN_aclrtStreamWaitEvent, stream, event, -1, false);
}

ACLMOCK_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    return stream_wait_event(FN_aclrtStreamWaitEventWithTimeout, stream, event, timeout, true);
}

enum query_kind { Q_OLD, Q_RECORDED, Q_WAIT };

/*
 * Queries (v8.5.0). Null event then null status -> 100000 (event.cpp:137-138,
 * 157-158, 180-181). Then:
 * - aclrtQueryEvent: Ex, EXTERNAL or IPC event -> 207000 (api_error.cc:
 *   1299-1304), no text or thread error (api_c.cc:791); COMPLETE unless the
 *   latest recording is still queued, a never-recorded event included
 *   (event.cc:1053-1066);
 * - aclrtQueryEventStatus: EXTERNAL event -> 207000 with text and thread
 *   error (api_error.cc:1313-1314, api_c.cc:803); a never-recorded event is
 *   NOT_READY, or COMPLETE for an Ex event (event.cc:1070-1078); else
 *   COMPLETE once the latest recording ran;
 * - aclrtQueryEventWaitStatus: Ex, EXTERNAL or IPC -> 207000 (api_error.cc:
 *   1323-1328), no text or thread error (api_c.cc:815); COMPLETE when no
 *   wait task of the event is pending (event.cc:1094-1101).
 */
static aclError query_event(int fn, aclrtEvent event, void *status, enum query_kind kind)
{
    mock_call c;
    call_begin(&c, fn);
    ja_obj(&c, "event", event, OBJ_EVENT);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_rc);
    }
    if (capture_event_captured(ev)) {
        return call_end(&c, capture_refuse_event_use(ev, "a query"));
    }
    if (!status) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "status is null"));
    }
    if (kind != Q_RECORDED && (ev->ex || ev->flags == RT_EV_EXTERNAL || ev->flags == RT_EV_IPC)) {
        return call_end(&c, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    if (kind == Q_RECORDED && ev->flags == RT_EV_EXTERNAL) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "an ACL_EVENT_EXTERNAL event has no status to query"));
    }
    int64_t v;
    bool complete = event_complete(ev);
    if (kind == Q_OLD) {
        v = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    } else if (kind == Q_RECORDED) {
        if (ev->rec_gen == 0) {
            complete = ev->ex;
        }
        v = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    } else {
        v = ev->pending_waits ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
    }
    if (kind != Q_WAIT && complete) {
        order_host_learn(&ev->vc); /* the host saw the recorded work finish */
    }
    if (replay_out_i64(&c, "status", &v) && kind != Q_WAIT && !complete &&
        v == (kind == Q_OLD ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_COMPLETE)) {
        /* strict replay: the card had finished this work, so the program
         * goes on to read or reuse its memory; the mock finishes it first */
        uint64_t target = ev->rec_gen, deadline = deadline_after_ms(RP_REPLAY_CATCH_UP_MS);
        vclock done = {0};
        vc_copy(&done, &ev->vc);
        while (ev->recorded && ev->done_gen < target && mock_wait_until(deadline)) {
        }
        order_host_learn(&done);
        vc_free(&done);
    }
    if (kind == Q_OLD) {
        *(aclrtEventStatus *)status = (aclrtEventStatus)v;
    } else if (kind == Q_RECORDED) {
        *(aclrtEventRecordedStatus *)status = (aclrtEventRecordedStatus)v;
    } else {
        *(aclrtEventWaitStatus *)status = (aclrtEventWaitStatus)v;
    }
    jo_i64(&c, "status", v);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    return query_event(FN_aclrtQueryEvent, event, status, Q_OLD);
}

ACLMOCK_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    return query_event(FN_aclrtQueryEventStatus, event, status, Q_RECORDED);
}

ACLMOCK_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    return query_event(FN_aclrtQueryEventWaitStatus, event, status, Q_WAIT);
}

/*
 * Event synchronization (v8.5.0): timeout < -1 -> 107000 from the acl
 * layer, no thread error (event.cpp:218-221); null event -> 100000
 * (event.cpp:203, 222); timeout 0 -> 107000 (api_error.cc:1287-1288); an
 * EXTERNAL event -> 207000 with text and thread error (api_error.cc:1290-1291,
 * api_c.cc:763, 778); a never-recorded event returns at once
 * (event.cc:965-969); a timeout -> 507047.
 */
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
    if (has_timeout && timeout < -1) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_event *ev = event_arg(event, "event");
    if (!ev) {
        return call_end(&c, tls()->last_rc);
    }
    if (capture_event_captured(ev)) {
        return call_end(&c, capture_refuse_event_use(ev, "synchronizing"));
    }
    if (has_timeout && timeout == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    if (ev->flags == RT_EV_EXTERNAL) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "an ACL_EVENT_EXTERNAL event cannot be synchronized"));
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
