//! Events and streams of different devices (issue 9, item 7). CANN 8.5.0
//! checks, in this order: a null event (100000, acl layer), the current
//! context (107002), the stream being in the current context (107003). A
//! device-0 event with a device-1 stream while device 1 is current is not
//! decided by the open-source runtime; the mock rejects it with 107000 (see
//! the comment above `event_stream` in csrc/event.c for the citations).

mod common;

use ascendcl_sys::*;
use common::*;

fn wait_event(t: &T, s: aclrtStream, e: aclrtEvent) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtStreamWaitEvent(s, e) }.unwrap()
}

fn wait_event_timeout(t: &T, s: aclrtStream, e: aclrtEvent, ms: i32) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtStreamWaitEventWithTimeout(s, e, ms) }.unwrap()
}

fn reset_event(t: &T, e: aclrtEvent, s: aclrtStream) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtResetEvent(e, s) }.unwrap()
}

/// Two devices; an event and a stream on each. Device 1 is current at the end.
struct Pair {
    t: T,
    e0: aclrtEvent,
    s0: aclrtStream,
    e1: aclrtEvent,
    s1: aclrtStream,
}

impl Pair {
    fn new() -> Pair {
        let t = T::new();
        t.s.set_device_count(2).unwrap();
        assert_eq!(t.set_device(0), OK);
        let e0 = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
        let s0 = t.create_stream().unwrap();
        assert_eq!(t.set_device(1), OK);
        let e1 = t.create_event_with_flag(ACL_EVENT_SYNC).unwrap();
        let s1 = t.create_stream().unwrap();
        Pair { t, e0, s0, e1, s1 }
    }

    /// Cleans up; the rejected calls left no misuse.
    fn finish(self) {
        let t = &self.t;
        assert_eq!(t.sync_stream(self.s1), OK);
        assert_eq!(t.destroy_event(self.e1), OK);
        assert_eq!(t.destroy_stream(self.s1), OK);
        assert_eq!(t.set_device(0), OK);
        assert_eq!(t.destroy_event(self.e0), OK);
        assert_eq!(t.destroy_stream(self.s0), OK);
        assert_eq!(t.reset_device(0), OK);
        assert_eq!(t.reset_device(1), OK);
        assert_eq!(t.reset_device(0), OK);
        t.assert_clean(0);
    }
}

#[test]
fn a_device0_event_recorded_on_a_device1_stream_is_rejected_with_107000() {
    let p = Pair::new();
    assert_eq!(p.t.record(p.e0, p.s1), ACL_ERROR_RT_PARAM_INVALID);
    let msg = p.t.recent_msg().unwrap();
    assert!(
        msg.contains("event e1 belongs to device 0 but stream s2 to device 1"),
        "{msg}"
    );
    assert_eq!(
        p.t.record(p.e0, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID,
        "default stream of device 1"
    );
    assert_eq!(reset_event(&p.t, p.e0, p.s1), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(p.t.record(p.e1, p.s1), OK, "same device");
    p.finish();
}

#[test]
fn a_device1_stream_waiting_on_a_device0_event_is_rejected_with_107000() {
    let p = Pair::new();
    // recorded or not, the wait is refused before its state is looked at
    assert_eq!(wait_event(&p.t, p.s1, p.e0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(p.t.set_device(0), OK);
    assert_eq!(p.t.record(p.e0, p.s0), OK);
    assert_eq!(p.t.sync_stream(p.s0), OK);
    assert_eq!(p.t.set_device(1), OK);
    assert_eq!(wait_event(&p.t, p.s1, p.e0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        wait_event_timeout(&p.t, p.s1, p.e0, 100),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(wait_event(&p.t, p.s1, p.e1), OK, "same device");
    // drop the extra references the switches above took
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.reset_device(1), OK);
    p.finish();
}

#[test]
fn a_stream_outside_the_current_context_is_rejected_with_107003_before_the_device_check() {
    let p = Pair::new();
    assert_eq!(p.t.set_device(0), OK);
    // device 0's context is current: s1 (device 1) is not in it
    assert_eq!(p.t.record(p.e0, p.s1), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(p.t.record(p.e1, p.s1), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(wait_event(&p.t, p.s1, p.e0), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(reset_event(&p.t, p.e1, p.s1), ACL_ERROR_RT_STREAM_CONTEXT);
    let msg = p.t.recent_msg().unwrap();
    assert!(msg.contains("is not in the current context"), "{msg}");
    // a stream of the current context with an event of the other device
    assert_eq!(p.t.record(p.e1, p.s0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(p.t.set_device(1), OK);
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.reset_device(1), OK);
    assert_eq!(p.t.s.misuse_total(), 0, "an error, not misuse");
    p.finish();
}

#[test]
fn a_null_event_is_rejected_before_the_context_is_looked_at() {
    let t = T::new();
    // no device set on this thread: the null event still comes first
    let null = std::ptr::null_mut();
    assert_eq!(t.record(null, null), ACL_ERROR_INVALID_PARAM);
    assert_eq!(wait_event(&t, null, null), ACL_ERROR_INVALID_PARAM);
    assert_eq!(reset_event(&t, null, null), ACL_ERROR_INVALID_PARAM);
    t.assert_clean(0);
}
