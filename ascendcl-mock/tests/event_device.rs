//! Events and streams of different devices (issue 9, item 7). CANN 8.5.0
//! checks, in this order: a null event (100000, acl layer), the current
//! context (107002), the stream being in the current context (107003). With
//! device 1 current, a device-1 stream may wait on a device-0 event (8.5.0
//! queues a remote event wait); recording or resetting a device-0 event on a
//! device-1 stream is not decided by the open-source runtime, and the mock
//! rejects it with 107000. The comment above `event_stream` in csrc/event.c
//! cites the source for each rule.

mod common;

use std::time::Duration;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

const N: usize = 4096;

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
        self.clean_up();
        self.t.assert_clean(0);
    }

    /// Cleans up; `n` misuses of `kind` were counted, and nothing else.
    fn finish_with_misuse(self, kind: Misuse, n: u64) {
        self.clean_up();
        self.t.assert_misuse(kind, n);
        assert!(self.t.s.live_counts().is_empty());
    }

    fn clean_up(&self) {
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
fn a_device1_stream_may_wait_on_a_device0_event_and_is_ordered_after_its_recording() {
    let p = Pair::new();
    p.t.s.set_stream_delay(Duration::from_millis(5));
    // device 0: fill x, copy it into pinned memory, record
    assert_eq!(p.t.set_device(0), OK);
    let x = p.t.malloc(N, HUGE_FIRST).unwrap();
    let h = p.t.malloc_host(N).unwrap();
    assert_eq!(p.t.memset_async(x, N, 0x3C, N, p.s0), OK);
    assert_eq!(p.t.memcpy_async(h, N, x, N, D2H, p.s0), OK);
    assert_eq!(p.t.record(p.e0, p.s0), OK);
    // device 1: wait for it, then read the pinned copy
    assert_eq!(p.t.set_device(1), OK);
    let y = p.t.malloc(N, HUGE_FIRST).unwrap();
    assert_eq!(wait_event_timeout(&p.t, p.s1, p.e0, 10_000), OK);
    assert_eq!(p.t.memcpy_async(y, N, h, N, H2D, p.s1), OK);
    assert_eq!(p.t.sync_stream(p.s1), OK);
    assert_eq!(p.t.download(y, N), vec![0x3C; N], "the wait held s1 back");
    assert_eq!(p.t.s.misuse_total(), 0, "{}", p.t.s.misuse_log());
    assert_eq!(p.t.free(y), OK);
    assert_eq!(p.t.free_host(h), OK);
    assert_eq!(p.t.set_device(0), OK);
    assert_eq!(p.t.free(x), OK);
    // drop the extra references the switches above took
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.set_device(1), OK);
    assert_eq!(p.t.reset_device(1), OK);
    assert_eq!(p.t.reset_device(1), OK);
    p.finish();
}

#[test]
fn without_the_cross_device_wait_the_pinned_copy_is_an_unordered_access() {
    let p = Pair::new();
    assert_eq!(p.t.set_device(0), OK);
    let x = p.t.malloc(N, HUGE_FIRST).unwrap();
    let h = p.t.malloc_host(N).unwrap();
    assert_eq!(p.t.memcpy_async(h, N, x, N, D2H, p.s0), OK);
    assert_eq!(p.t.set_device(1), OK);
    let y = p.t.malloc(N, HUGE_FIRST).unwrap();
    assert_eq!(p.t.memcpy_async(y, N, h, N, H2D, p.s1), OK);
    p.t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert_eq!(p.t.sync_stream(p.s1), OK);
    assert_eq!(p.t.free(y), OK);
    assert_eq!(p.t.set_device(0), OK);
    assert_eq!(p.t.sync_stream(p.s0), OK);
    assert_eq!(p.t.free_host(h), OK);
    assert_eq!(p.t.free(x), OK);
    // drop the extra references the switches above took
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.reset_device(0), OK);
    assert_eq!(p.t.set_device(1), OK);
    assert_eq!(p.t.reset_device(1), OK);
    assert_eq!(p.t.reset_device(1), OK);
    p.finish_with_misuse(Misuse::UnorderedAccess, 1);
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
