//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): report
//! subscription, callbacks and host functions. Each test cites its source.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use ascendcl_sys::*;
use common::*;

static CALLS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count(_: *mut std::ffi::c_void) {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" {
    fn pthread_self() -> u64;
}

fn me() -> u64 {
    // SAFETY: no preconditions.
    unsafe { pthread_self() }
}

fn peek(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

fn host_fn(t: &T, s: aclrtStream) -> i32 {
    // SAFETY: valid function, the mock validates the stream.
    unsafe {
        t.lib
            .aclrtLaunchHostFunc(s, Some(count), std::ptr::null_mut())
    }
    .unwrap()
}

fn callback(t: &T, s: aclrtStream, block: u32) -> i32 {
    // SAFETY: valid function, the mock validates the stream.
    unsafe {
        t.lib.aclrtLaunchCallback(
            Some(count),
            std::ptr::null_mut(),
            aclrtCallbackBlockType(block),
            s,
        )
    }
    .unwrap()
}

fn subscribe(t: &T, thread: u64, s: aclrtStream) -> i32 {
    // SAFETY: the mock validates the stream.
    unsafe { t.lib.aclrtSubscribeReport(thread, s) }.unwrap()
}

fn unsubscribe(t: &T, thread: u64, s: aclrtStream) -> i32 {
    // SAFETY: the mock validates the stream.
    unsafe { t.lib.aclrtUnSubscribeReport(thread, s) }.unwrap()
}

fn process(t: &T, ms: i32) -> i32 {
    // SAFETY: plain argument.
    unsafe { t.lib.aclrtProcessReport(ms) }.unwrap()
}

/// api_error.cc:6232 and 3660: a null function is refused by the runtime
/// (107000, thread error set), not by the acl layer; callback.cpp:100-103:
/// an invalid block type is the acl layer's 100000 and is checked first.
#[test]
fn null_callback_functions_are_the_runtimes_107000_after_the_block_type() {
    let t = T::with_device(0);
    // SAFETY: null function.
    let rc = unsafe {
        t.lib
            .aclrtLaunchHostFunc(std::ptr::null_mut(), None, std::ptr::null_mut())
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: null function and invalid block type.
    let rc = unsafe {
        t.lib.aclrtLaunchCallback(
            None,
            std::ptr::null_mut(),
            aclrtCallbackBlockType(7),
            std::ptr::null_mut(),
        )
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // SAFETY: null function, valid block type.
    let rc = unsafe {
        t.lib.aclrtLaunchCallback(
            None,
            std::ptr::null_mut(),
            aclrtCallbackBlockType(0),
            std::ptr::null_mut(),
        )
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:6233-6234: aclrtLaunchHostFunc on a stream subscribed with
/// aclrtSubscribeReport is 107011; runtime.cc:5718-5725 marks a stream that
/// ran a host function SUBSCRIBE_RUNTIME, which api_error.cc:3652, 3661 and
/// 3676 refuse for subscribe, callbacks and unsubscribe (107011).
#[test]
fn host_functions_and_report_subscriptions_exclude_each_other_per_stream() {
    let t = T::with_device(0);
    let user = t.create_stream().unwrap();
    let host = t.create_stream().unwrap();
    assert_eq!(subscribe(&t, me(), user), OK);
    assert_eq!(host_fn(&t, user), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(host_fn(&t, host), OK);
    assert_eq!(t.sync_stream(host), OK);
    assert_eq!(subscribe(&t, me(), host), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(callback(&t, host, 0), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(unsubscribe(&t, me(), host), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(unsubscribe(&t, me(), user), OK);
    for s in [user, host] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// subscribe.cc:175-189 (CbSubscribe::Delete): unsubscribing a stream that
/// nobody subscribed is 107011, another thread's subscription 107012.
#[test]
fn unsubscribe_of_a_stream_not_subscribed_is_107011() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    assert_eq!(unsubscribe(&t, me(), s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(subscribe(&t, me(), s), OK);
    assert_eq!(unsubscribe(&t, me() ^ 1, s), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(unsubscribe(&t, me(), s), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// subscribe.cc:75-79 (CheckForInsert): a thread that processes reports
/// of one device cannot subscribe a stream of another device (107012).
#[test]
fn a_report_thread_serves_one_device_only() {
    let t = T::with_device(0);
    let s0 = t.create_stream().unwrap();
    assert_eq!(subscribe(&t, me(), s0), OK);
    assert_eq!(t.set_device(1), OK);
    let s1 = t.create_stream().unwrap();
    assert_eq!(subscribe(&t, me(), s1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(subscribe(&t, me() ^ 1, s1), OK);
    assert_eq!(unsubscribe(&t, me() ^ 1, s1), OK);
    assert_eq!(t.destroy_stream(s1), OK);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(unsubscribe(&t, me(), s0), OK);
    assert_eq!(t.destroy_stream(s0), OK);
    assert_eq!(t.reset_device(1), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_c.cc:2393-2400 with callback.cpp:144-147: aclrtProcessReport's 107012
/// (no subscription) and 507012 (timeout) come without text but set the
/// thread's last error; its invalid timeout is the acl layer's 100000
/// (callback.cpp:134-141), which does not.
#[test]
fn process_report_failures_set_the_last_error_without_text() {
    let t = T::with_device(0);
    assert_eq!(process(&t, 5), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(t.recent_msg(), None);
    // SAFETY: plain enum argument.
    let got = unsafe {
        t.lib
            .aclrtGetLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap();
    assert_eq!(got, ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(process(&t, 0), ACL_ERROR_INVALID_PARAM);
    assert_eq!(peek(&t), OK);
    assert!(t.recent_msg().is_some());
    let s = t.create_stream().unwrap();
    assert_eq!(subscribe(&t, me(), s), OK);
    assert_eq!(process(&t, 5), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_eq!(t.recent_msg(), None);
    assert_eq!(peek(&t), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_eq!(unsubscribe(&t, me(), s), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_impl.cc:8733-8741 and 5084-5096: a stream of another context is
/// refused with 107003 by host functions and callbacks, before the
/// subscription check (107015).
#[test]
fn host_functions_and_callbacks_refuse_a_stream_of_another_context_first() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let mut other: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the new context becomes current.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut other, 0) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(host_fn(&t, s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(callback(&t, s, 0), ACL_ERROR_RT_STREAM_CONTEXT);
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(other) }.unwrap(), OK);
    // back on no context: 107002 first
    assert_eq!(host_fn(&t, s), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(callback(&t, s, 0), ACL_ERROR_RT_STREAM_NO_CB_REG);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// Not decided by the source (subscribe.cc:197-228 waits for the
/// subscription's event tasks and frees the report queue; what the task
/// scheduler then does with queued callback tasks is closed firmware). The
/// mock's documented choice (docs/mock-conformance.md): queued callbacks
/// are dropped unrun and a blocking one no longer holds the stream.
#[test]
fn mock_choice_unsubscribe_drops_queued_callbacks_unrun() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    assert_eq!(subscribe(&t, me(), s), OK);
    CALLS.store(0, Ordering::SeqCst);
    assert_eq!(callback(&t, s, 1), OK);
    assert_eq!(
        t.sync_stream_timeout(s, 20),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert_eq!(unsubscribe(&t, me(), s), OK);
    assert_eq!(t.sync_stream(s), OK, "the stream is released");
    assert_eq!(process(&t, 5), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(CALLS.load(Ordering::SeqCst), 0, "never run");
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
