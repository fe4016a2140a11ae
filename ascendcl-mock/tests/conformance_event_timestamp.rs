//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0):
//! aclrtEventGetTimestamp (event.cpp:252-262, api_error.cc:1348-1358,
//! event.cc:1175-1190). Each test cites its source.

mod common;

use std::time::Duration;

use ascendcl_sys::*;
use common::*;

fn timestamp(t: &T, e: aclrtEvent) -> Result<u64, i32> {
    let mut ts = 0u64;
    // SAFETY: valid out-pointer; the mock validates the event.
    let rc = unsafe { t.lib.aclrtEventGetTimestamp(e, &mut ts) }.unwrap();
    if rc == OK { Ok(ts) } else { Err(rc) }
}

/// event.cc:1185: the time of the completed recording in microseconds; it
/// grows along the stream and agrees with aclrtEventElapsedTime.
#[test]
fn timestamps_of_completed_timeline_events_are_microseconds_in_stream_order() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(5));
    let s = t.create_stream().unwrap();
    let a = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    let b = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(t.record(a, s), OK);
    let dev = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(dev, 64, 1, 64, s), OK);
    assert_eq!(t.record(b, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    let (ta, tb) = (timestamp(&t, a).unwrap(), timestamp(&t, b).unwrap());
    assert!(tb > ta, "{ta} then {tb}");
    let mut ms = 0f32;
    // SAFETY: valid out-pointer, live events.
    let rc = unsafe { t.lib.aclrtEventElapsedTime(&mut ms, a, b) };
    assert_eq!(rc.unwrap(), OK);
    let from_ts = (tb - ta) as f64 / 1000.0;
    assert!(
        (from_ts - ms as f64).abs() < 0.01,
        "{from_ts} ms vs {ms} ms"
    );
    assert_eq!(t.destroy_event(a), OK);
    assert_eq!(t.destroy_event(b), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// event.cpp:255-256: timestamp, then event null -> 100000 (no thread
/// error); event.cc:1177-1179: never recorded -> 507000.
#[test]
fn timestamp_needs_both_pointers_and_a_recording() {
    let t = T::with_device(0);
    let e = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    // SAFETY: null pointers are refused by the acl layer.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtEventGetTimestamp(e, std::ptr::null_mut())
                .unwrap(),
            100000
        );
        let mut ts = 0u64;
        let rc = t.lib.aclrtEventGetTimestamp(std::ptr::null_mut(), &mut ts);
        assert_eq!(rc.unwrap(), 100000);
    }
    assert_eq!(timestamp(&t, e), Err(ACL_ERROR_RT_INTERNAL_ERROR));
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// A recording still queued and an event without ACL_EVENT_TIME_LINE have
/// no timestamp (107006, as aclrtEventElapsedTime); api_error.cc:1352-1355:
/// EXTERNAL events -> 207000.
#[test]
fn pending_untimed_and_external_events_have_no_timestamp() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(30));
    let s = t.create_stream().unwrap();
    let timed = t.create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    let untimed = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    assert_eq!(t.record(timed, s), OK);
    assert_eq!(
        timestamp(&t, timed),
        Err(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
    );
    assert_eq!(t.record(untimed, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert!(timestamp(&t, timed).is_ok());
    assert_eq!(
        timestamp(&t, untimed),
        Err(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
    );
    let external = t.create_event_with_flag(ACL_EVENT_EXTERNAL).unwrap();
    assert_eq!(
        timestamp(&t, external),
        Err(ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    );
    for e in [timed, untimed, external] {
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
