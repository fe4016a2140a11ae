//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): event flags,
//! Ex events, TIME_LINE-only events, never-recorded events and the timeout
//! of aclrtStreamWaitEventWithTimeout. Each test cites its source lines.

mod common;

use ascendcl_sys::*;
use common::*;

fn create_ex(t: &T, flag: u32) -> Result<aclrtEvent, i32> {
    let mut e: aclrtEvent = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateEventExWithFlag(&mut e, flag) }.unwrap();
    if rc == OK { Ok(e) } else { Err(rc) }
}

fn wait(t: &T, s: aclrtStream, e: aclrtEvent) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtStreamWaitEvent(s, e) }.unwrap()
}

fn reset(t: &T, e: aclrtEvent, s: aclrtStream) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtResetEvent(e, s) }.unwrap()
}

fn peek(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

fn recorded_status(t: &T, e: aclrtEvent) -> Result<u32, i32> {
    let mut st = aclrtEventRecordedStatus(77);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEventStatus(e, &mut st) }.unwrap();
    if rc == OK { Ok(st.0) } else { Err(rc) }
}

#[allow(deprecated)]
fn old_query(t: &T, e: aclrtEvent) -> Result<u32, i32> {
    let mut st = aclrtEventStatus(77);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEvent(e, &mut st) }.unwrap();
    if rc == OK { Ok(st.0) } else { Err(rc) }
}

fn wait_status(t: &T, e: aclrtEvent) -> Result<u32, i32> {
    let mut st = aclrtEventWaitStatus(77);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryEventWaitStatus(e, &mut st) }.unwrap();
    if rc == OK { Ok(st.0) } else { Err(rc) }
}

/// api_error.cc:1165-1178 with event.hpp:33-34: aclrtCreateEventWithFlag
/// takes a non-empty flag up to 0x3F; DEVICE_USE_ONLY and EXTERNAL stand
/// alone; IPC (0x40) is out of range there.
#[test]
fn create_event_with_flag_accepts_up_to_0x3f_and_lone_exclusive_flags() {
    let t = T::with_device(0);
    for bad in [
        0,
        0x80,
        ACL_EVENT_IPC,
        ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_SYNC,
        ACL_EVENT_EXTERNAL | ACL_EVENT_TIME_LINE,
    ] {
        assert_eq!(
            t.create_event_with_flag(bad),
            Err(ACL_ERROR_RT_PARAM_INVALID),
            "flag {bad:#x}"
        );
    }
    for good in [
        ACL_EVENT_SYNC,
        ACL_EVENT_TIME_LINE,
        ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE,
        ACL_EVENT_DEVICE_USE_ONLY,
        ACL_EVENT_EXTERNAL,
    ] {
        let e = t.create_event_with_flag(good).unwrap();
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:1189-1206: aclrtCreateEventExWithFlag refuses
/// DEVICE_USE_ONLY and EXTERNAL (not in its range 0x4F) and IPC combined
/// with anything.
#[test]
fn create_event_ex_refuses_device_only_external_and_combined_ipc() {
    let t = T::with_device(0);
    for bad in [
        0,
        ACL_EVENT_DEVICE_USE_ONLY,
        ACL_EVENT_EXTERNAL,
        ACL_EVENT_IPC | ACL_EVENT_SYNC,
        0x80,
    ] {
        assert_eq!(
            create_ex(&t, bad),
            Err(ACL_ERROR_RT_PARAM_INVALID),
            "flag {bad:#x}"
        );
    }
    let e = create_ex(&t, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// Ex events are "new mode" (api_impl.cc:1992): aclrtQueryEvent and
/// aclrtQueryEventWaitStatus refuse them with 207000 (api_error.cc:1299-1300,
/// 1323-1324) silently (api_c.cc:791, 815); aclrtResetEvent too
/// (api_impl.cc:2196-2200, api_c.cc:749); aclrtQueryEventStatus of a
/// never-recorded Ex event is COMPLETE (event.cc:1072-1077).
#[test]
fn ex_events_refuse_query_wait_status_and_reset_with_a_silent_207000() {
    let t = T::with_device(0);
    let e = create_ex(&t, ACL_EVENT_SYNC).unwrap();
    assert_eq!(old_query(&t, e), Err(ACL_ERROR_RT_FEATURE_NOT_SUPPORT));
    assert_eq!(wait_status(&t, e), Err(ACL_ERROR_RT_FEATURE_NOT_SUPPORT));
    assert_eq!(
        reset(&t, e, std::ptr::null_mut()),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(peek(&t), OK, "COND_RETURN_WITH_NOLOG sets no last error");
    assert_eq!(t.recent_msg(), None);
    assert_eq!(recorded_status(&t, e), Ok(1), "never recorded: COMPLETE");
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cc:519-523: a wait on a never-recorded Ex event needs no wait
/// task and succeeds; event.cc:598-605: the same wait on a plain event (no
/// ACL_EVENT_SYNC) is refused with 107000 and an error text.
#[test]
fn wait_on_never_recorded_event_is_107000_unless_ex() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let ex = create_ex(&t, ACL_EVENT_SYNC).unwrap();
    assert_eq!(wait(&t, s, ex), OK);
    assert!(t.stream_done(s), "no wait task was queued");
    let plain = t.create_event();
    assert_eq!(wait(&t, s, plain), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert!(
        t.recent_msg()
            .unwrap()
            .contains("before the event is recorded")
    );
    // once recorded, the plain event can be waited for
    assert_eq!(t.record(plain, s), OK);
    assert_eq!(wait(&t, s, plain), OK);
    assert_eq!(t.sync_stream(s), OK);
    for e in [ex, plain] {
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cc:541-545 with 597-600: an ACL_EVENT_SYNC event that was never
/// recorded gets a wait task (DDSYNC_NS), which the next recording releases.
#[test]
fn wait_on_never_recorded_sync_event_waits_for_its_first_recording() {
    let t = T::with_device(0);
    let waiter = t.create_stream().unwrap();
    let e = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    assert_eq!(wait(&t, waiter, e), OK);
    assert!(!t.stream_done(waiter), "the wait task blocks the stream");
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(waiter), OK);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.destroy_stream(waiter), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.hpp:135-137 with api_error.cc:994-995 and 1276-1277: an event with
/// only TIME_LINE (or CAPTURE_STREAM_PROGRESS) has no wait task: wait and
/// reset are a silent 207000 (api_c_stream.cc:139, api_c.cc:749); record and
/// timestamps work.
#[test]
fn time_line_only_events_cannot_be_waited_for_or_reset() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    for flag in [ACL_EVENT_TIME_LINE, ACL_EVENT_CAPTURE_STREAM_PROGRESS] {
        let e = t.create_event_with_flag(flag).unwrap();
        assert_eq!(t.record(e, s), OK);
        assert_eq!(wait(&t, s, e), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        assert_eq!(reset(&t, e, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        assert_eq!(peek(&t), OK);
        assert_eq!(
            wait_status(&t, e),
            Ok(0),
            "no wait task: COMPLETE (event.cc:1098-1100)"
        );
        assert_eq!(t.destroy_event(e), OK);
    }
    let a = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    let b = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(t.record(a, s), OK);
    assert_eq!(t.record(b, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    let mut ms = -1.0f32;
    // SAFETY: live events, valid out-pointer.
    let rc = unsafe { t.lib.aclrtEventElapsedTime(&mut ms, a, b) }.unwrap();
    assert_eq!(rc, OK);
    assert!(ms >= 0.0);
    for e in [a, b] {
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:1238-1242, 1269-1273, 987-991: a DEVICE_USE_ONLY event
/// cannot be recorded, reset or waited for from the host (107000).
#[test]
fn device_use_only_events_cannot_be_recorded_reset_or_waited_for() {
    let t = T::with_device(0);
    let e = t.create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY).unwrap();
    assert_eq!(
        t.record(e, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        reset(&t, e, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        wait(&t, std::ptr::null_mut(), e),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cc:1070-1077 and 1053-1066: a never-recorded plain event is
/// NOT_READY for aclrtQueryEventStatus but COMPLETE for aclrtQueryEvent.
#[test]
fn never_recorded_event_status_is_not_ready_but_query_event_complete() {
    let t = T::with_device(0);
    let e = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    assert_eq!(recorded_status(&t, e), Ok(0), "NOT_READY");
    assert_eq!(old_query(&t, e), Ok(0), "ACL_EVENT_STATUS_COMPLETE");
    // SAFETY: live event: a never-recorded event synchronizes at once
    // (event.cc:965-969).
    assert_eq!(unsafe { t.lib.aclrtSynchronizeEvent(e) }.unwrap(), OK);
    assert_eq!(t.record(e, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(recorded_status(&t, e), Ok(1));
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cpp:464-467: aclrtStreamWaitEventWithTimeout refuses a timeout <= 0
/// (-1 included) with 107000 in the acl layer (no last error), before any
/// handle is looked at; a null event then fails in the runtime with 107000
/// (api_error.cc:986), not 100000.
#[test]
fn stream_wait_event_with_timeout_refuses_nonpositive_timeouts_first() {
    let t = T::with_device(0);
    let e = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    for timeout in [-1, 0, i32::MIN] {
        // SAFETY: live event, default stream.
        let rc = unsafe {
            t.lib
                .aclrtStreamWaitEventWithTimeout(std::ptr::null_mut(), e, timeout)
        }
        .unwrap();
        assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID, "timeout {timeout}");
        // SAFETY: null event: the timeout is checked first.
        let rc = unsafe {
            t.lib.aclrtStreamWaitEventWithTimeout(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                timeout,
            )
        }
        .unwrap();
        assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    }
    assert_eq!(peek(&t), OK);
    // SAFETY: null event, valid timeout.
    let rc = unsafe {
        t.lib
            .aclrtStreamWaitEventWithTimeout(std::ptr::null_mut(), std::ptr::null_mut(), 10)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cpp:218-222 then api_error.cc:1287-1288: synchronize with timeout
/// checks timeout < -1 (acl layer) before the null event, timeout 0 after.
#[test]
fn synchronize_event_with_timeout_check_order() {
    let t = T::with_device(0);
    // SAFETY: null event; the timeout is checked first.
    let rc = unsafe {
        t.lib
            .aclrtSynchronizeEventWithTimeout(std::ptr::null_mut(), -2)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: null event with timeout 0: the acl null check wins.
    let rc = unsafe {
        t.lib
            .aclrtSynchronizeEventWithTimeout(std::ptr::null_mut(), 0)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(peek(&t), OK);
    let e = t.create_event();
    // SAFETY: live event.
    let rc = unsafe { t.lib.aclrtSynchronizeEventWithTimeout(e, 0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
