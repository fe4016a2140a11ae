//! Events: markers in stream order, their two (reversed) status enums,
//! synchronization, timestamps and cross-stream waits.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

const DELAY: Duration = Duration::from_millis(50);

static HOLD: AtomicBool = AtomicBool::new(false);

/// Host function that blocks its stream while HOLD is set.
extern "C" fn hold(_: *mut std::ffi::c_void) {
    while HOLD.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn recorded_status(t: &T, e: aclrtEvent) -> aclrtEventRecordedStatus {
    let mut st = aclrtEventRecordedStatus(77);
    // SAFETY: live event, valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEventStatus(e, &mut st) }.unwrap();
    assert_eq!(rc, OK);
    st
}

#[allow(deprecated)]
fn old_status(t: &T, e: aclrtEvent) -> aclrtEventStatus {
    let mut st = aclrtEventStatus(77);
    // SAFETY: live event, valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtQueryEvent(e, &mut st) }.unwrap(), OK);
    st
}

#[test]
fn event_status_enums_are_reversed_between_query_event_and_query_event_status() {
    let t = T::with_device(0);
    let e = t.create_event();
    // never recorded: NOT_READY for aclrtQueryEventStatus (event.cc:1072-1077,
    // v8.5.0: RT_EVENT_INIT for an event not made by the Ex call) but
    // COMPLETE for the deprecated aclrtQueryEvent (event.cc:1061)
    assert_eq!(
        recorded_status(&t, e),
        aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY
    );
    assert_eq!(recorded_status(&t, e).0, 0);
    assert_eq!(old_status(&t, e).0, 0);
    t.s.set_stream_delay(DELAY);
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    assert_eq!(
        recorded_status(&t, e).0,
        0,
        "NOT_READY is 0 in aclrtEventRecordedStatus"
    );
    assert_eq!(
        old_status(&t, e).0,
        1,
        "NOT_READY is 1 in the deprecated aclrtEventStatus"
    );
    // SAFETY: live event.
    assert_eq!(unsafe { t.lib.aclrtSynchronizeEvent(e) }.unwrap(), OK);
    assert_eq!(recorded_status(&t, e).0, 1);
    assert_eq!(old_status(&t, e).0, 0);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn create_event_with_flag_rejects_zero_unknown_bits_and_exclusive_combinations() {
    let t = T::with_device(0);
    assert_eq!(t.create_event_with_flag(0), Err(ACL_ERROR_RT_PARAM_INVALID));
    // 0x4 (RT_EVENT_DDSYNC) is inside RT_EVENT_FLAG_MAX (event.hpp:33-34,
    // api_error.cc:1165-1167, v8.5.0): accepted
    let internal = t.create_event_with_flag(0x4).unwrap();
    assert_eq!(t.destroy_event(internal), OK);
    // IPC events come only from the Ex call (0x40 > RT_EVENT_FLAG_MAX)
    assert_eq!(
        t.create_event_with_flag(ACL_EVENT_IPC),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    assert_eq!(
        t.create_event_with_flag(0x80),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    assert_eq!(
        t.create_event_with_flag(ACL_EVENT_IPC | ACL_EVENT_SYNC),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    let e = t
        .create_event_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)
        .unwrap();
    let mut ex: aclrtEvent = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateEventExWithFlag(&mut ex, ACL_EVENT_SYNC) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.s.live(Resource::Event), 2);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.destroy_event(ex), OK);
    assert_eq!(t.reset_device(0), OK);
    // creating an event needs a context
    let mut e2: aclrtEvent = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateEvent(&mut e2) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    t.assert_clean(0);
}

#[test]
fn synchronize_event_with_timeout_expires_with_507047() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(50));
    let e = t.create_event();
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    // SAFETY: live event.
    let sync = |ms| unsafe { t.lib.aclrtSynchronizeEventWithTimeout(e, ms) }.unwrap();
    assert_eq!(sync(0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(sync(-7), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(sync(5), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    assert!(t.recent_msg().unwrap().contains("did not complete"));
    assert_eq!(sync(-1), OK);
    assert_eq!(sync(1), OK);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn elapsed_time_needs_two_completed_timeline_events() {
    let t = T::with_device(0);
    let start = t.create_event();
    let end = t.create_event();
    let plain = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    let mut ms = -1.0f32;
    // SAFETY: live events, valid out-pointer.
    let elapsed = |a, b, ms: &mut f32| unsafe { t.lib.aclrtEventElapsedTime(ms, a, b) }.unwrap();
    assert_eq!(
        elapsed(start, end, &mut ms),
        ACL_ERROR_RT_INTERNAL_ERROR,
        "never recorded"
    );
    t.s.set_stream_delay(Duration::from_millis(20));
    let s = t.create_stream().unwrap();
    assert_eq!(t.record(start, s), OK);
    assert_eq!(t.record(plain, s), OK);
    assert_eq!(t.record(end, s), OK);
    assert_eq!(
        elapsed(start, end, &mut ms),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
        "not completed yet"
    );
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(elapsed(start, end, &mut ms), OK);
    assert!(
        ms >= 35.0,
        "two 20 ms tasks between the markers, got {ms} ms"
    );
    assert_eq!(
        elapsed(start, plain, &mut ms),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
        "no ACL_EVENT_TIME_LINE"
    );
    // SAFETY: a null output is rejected.
    let rc = unsafe {
        t.lib
            .aclrtEventElapsedTime(std::ptr::null_mut(), start, end)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    for e in [start, end, plain] {
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn stream_wait_event_orders_work_across_streams() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(15));
    let producer = t.create_stream().unwrap();
    let consumer = t.create_stream().unwrap();
    let a = t.malloc(256, HUGE_FIRST).unwrap();
    let b = t.malloc(256, HUGE_FIRST).unwrap();
    let e = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    for v in 1..=3 {
        assert_eq!(t.memset_async(a, 256, v, 256, producer), OK);
    }
    assert_eq!(t.record(e, producer), OK);
    // SAFETY: live stream and event.
    let rc = unsafe { t.lib.aclrtStreamWaitEvent(consumer, e) }.unwrap();
    assert_eq!(rc, OK);
    let mut ws = aclrtEventWaitStatus(9);
    // SAFETY: live event, valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEventWaitStatus(e, &mut ws) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(ws, aclrtEventWaitStatus::ACL_EVENT_WAIT_STATUS_NOT_READY);
    assert_eq!(t.memcpy_async(b, 256, a, 256, D2D, consumer), OK);
    // a later recording does not change what the queued wait waits for: the
    // producer is held by a host function before it records again
    HOLD.store(true, Ordering::SeqCst);
    // SAFETY: `hold` is a valid host function; its argument is unused.
    let rc = unsafe {
        t.lib
            .aclrtLaunchHostFunc(producer, Some(hold), std::ptr::null_mut())
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.record(e, producer), OK);
    assert_eq!(t.sync_stream(consumer), OK);
    assert_eq!(
        t.download(b, 256),
        vec![3; 256],
        "the copy ran after the third fill"
    );
    assert_eq!(
        recorded_status(&t, e).0,
        0,
        "the second recording is still held back"
    );
    HOLD.store(false, Ordering::SeqCst);
    // SAFETY: live event, valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEventWaitStatus(e, &mut ws) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(ws, aclrtEventWaitStatus::ACL_EVENT_WAIT_STATUS_COMPLETE);
    assert_eq!(t.sync_stream(producer), OK);
    // waiting on a never-recorded event without ACL_EVENT_SYNC is refused
    // (event.cc:598-605, v8.5.0)
    let fresh = t.create_event();
    // SAFETY: live stream and event.
    let rc = unsafe { t.lib.aclrtStreamWaitEventWithTimeout(consumer, fresh, 10) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: as above; 0 is not a valid timeout.
    let rc = unsafe { t.lib.aclrtStreamWaitEventWithTimeout(consumer, fresh, 0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.sync_stream(consumer), OK);
    for e in [e, fresh] {
        assert_eq!(t.destroy_event(e), OK);
    }
    for s in [producer, consumer] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn reset_event_clears_the_recording_in_stream_order() {
    let t = T::with_device(0);
    let e = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    // SAFETY: live event; null stream is the default stream.
    let rc = unsafe { t.lib.aclrtResetEvent(e, std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    // a reset keeps the recording (HasRecord is cleared only on abort,
    // event_task.cc:230-233 and event.cc:1192-1200, v8.5.0), so an event
    // with ACL_EVENT_SYNC only still has no timestamp (107006)
    let mut ms = 0.0f32;
    // SAFETY: live events, valid out-pointer.
    let rc = unsafe { t.lib.aclrtEventElapsedTime(&mut ms, e, e) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    // and a wait after the reset waits for the next recording
    // (event.cc:541-545): it is released by recording again
    let s = t.create_stream().unwrap();
    // SAFETY: live stream and event.
    let rc = unsafe { t.lib.aclrtStreamWaitEvent(s, e) }.unwrap();
    assert_eq!(rc, OK);
    assert!(!t.stream_done(s), "the wait needs a new recording");
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn destroyed_events_are_misuse_and_destroy_does_not_wait() {
    let t = T::with_device(0);
    t.s.set_stream_delay(DELAY);
    let e = t.create_event();
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    // destroying an event with a pending recording is allowed
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(
        t.record(e, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // SAFETY: the mock validates the handle.
    let rc = unsafe { t.lib.aclrtSynchronizeEvent(e) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.destroy_event(e), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        t.destroy_event(std::ptr::null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    t.assert_misuse(Misuse::DestroyedHandle, 3);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::Event), 0);
}
