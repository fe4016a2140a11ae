//! Host functions and report callbacks in stream order.

mod common;

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

/// What the host function saw: the first byte of a device buffer, read
/// through the ACL API from the runtime's thread.
struct Probe {
    lib: &'static Library,
    dev: *mut c_void,
    seen: AtomicU64,
    rc: AtomicU64,
}

extern "C" fn probe(arg: *mut c_void) {
    // SAFETY: the test passes a pointer to a live Probe and synchronizes
    // before dropping it.
    let probe = unsafe { &*arg.cast::<Probe>() };
    let mut b = 0u8;
    // SAFETY: one byte into a live local, device side validated by the mock.
    let rc = unsafe {
        probe.lib.aclrtMemcpy(
            (&mut b as *mut u8).cast(),
            1,
            probe.dev,
            1,
            aclrtMemcpyKind(D2H),
        )
    }
    .unwrap();
    probe.rc.store(rc as u64, Ordering::SeqCst);
    probe.seen.store(u64::from(b), Ordering::SeqCst);
}

static CALLS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count(_: *mut c_void) {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn launch_host_func_runs_in_stream_order_and_may_call_acl() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(10));
    let s = t.create_stream().unwrap();
    let dev = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(dev, 64, 0x21, 64, s), OK);
    let p = Probe {
        lib: t.lib,
        dev,
        seen: AtomicU64::new(0),
        rc: AtomicU64::new(99),
    };
    let arg = (&p as *const Probe).cast_mut().cast();
    // SAFETY: `probe` is a valid host function, `p` outlives the synchronize.
    let rc = unsafe { t.lib.aclrtLaunchHostFunc(s, Some(probe), arg) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.memset_async(dev, 64, 0x22, 64, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(p.rc.load(Ordering::SeqCst), 0);
    assert_eq!(
        p.seen.load(Ordering::SeqCst),
        0x21,
        "after the first fill, before the second"
    );
    // SAFETY: a null function is rejected, by the runtime (api_error.cc:6232,
    // CANN 8.5.0: 107000; the acl layer has no check).
    let rc = unsafe { t.lib.aclrtLaunchHostFunc(s, None, std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

fn self_id() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { pthread_self() }
}

unsafe extern "C" {
    fn pthread_self() -> u64;
}

#[test]
fn report_callbacks_use_the_subscription_error_codes() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let me = self_id();
    let launch = |block: u32| {
        // SAFETY: valid function; the stream is live.
        unsafe {
            t.lib.aclrtLaunchCallback(
                Some(count),
                std::ptr::null_mut(),
                aclrtCallbackBlockType(block),
                s,
            )
        }
        .unwrap()
    };
    // SAFETY: plain arguments.
    let process = |ms: i32| unsafe { t.lib.aclrtProcessReport(ms) }.unwrap();
    assert_eq!(launch(0), ACL_ERROR_RT_STREAM_NO_CB_REG);
    assert_eq!(process(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(process(0), ACL_ERROR_INVALID_PARAM);
    assert_eq!(process(-2), ACL_ERROR_INVALID_PARAM);
    // SAFETY: live stream.
    assert_eq!(unsafe { t.lib.aclrtSubscribeReport(me, s) }.unwrap(), OK);
    // SAFETY: live stream.
    let rc = unsafe { t.lib.aclrtSubscribeReport(me, s) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(launch(2), ACL_ERROR_INVALID_PARAM, "unknown block type");
    assert_eq!(process(5), ACL_ERROR_RT_REPORT_TIMEOUT, "nothing queued");
    CALLS.store(0, Ordering::SeqCst);
    assert_eq!(launch(0), OK);
    assert_eq!(launch(0), OK);
    assert_eq!(
        t.sync_stream(s),
        OK,
        "non-blocking callbacks do not hold the stream"
    );
    assert_eq!(
        CALLS.load(Ordering::SeqCst),
        0,
        "they run only in aclrtProcessReport"
    );
    assert_eq!(process(1000), OK);
    assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    // SAFETY: live stream, wrong thread id.
    let rc = unsafe { t.lib.aclrtUnSubscribeReport(me + 1, s) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_THREAD_SUBSCRIBE);
    // SAFETY: live stream.
    assert_eq!(unsafe { t.lib.aclrtUnSubscribeReport(me, s) }.unwrap(), OK);
    // SAFETY: live stream.
    let rc = unsafe { t.lib.aclrtUnSubscribeReport(me, s) }.unwrap();
    // CbSubscribe::Delete, subscribe.cc:175-181 (CANN 8.5.0): 107011
    assert_eq!(rc, ACL_ERROR_RT_STREAM_SUBSCRIBE);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn blocking_callback_holds_back_later_tasks_until_processed() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let dev = t.malloc(16, HUGE_FIRST).unwrap();
    let me = self_id();
    // SAFETY: live stream.
    assert_eq!(unsafe { t.lib.aclrtSubscribeReport(me, s) }.unwrap(), OK);
    CALLS.store(0, Ordering::SeqCst);
    // SAFETY: valid function and stream.
    let rc = unsafe {
        t.lib.aclrtLaunchCallback(
            Some(count),
            std::ptr::null_mut(),
            aclrtCallbackBlockType(1),
            s,
        )
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.memset_async(dev, 16, 5, 16, s), OK);
    assert_eq!(
        t.sync_stream_timeout(s, 30),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
        "held by the callback"
    );
    // Reading while the stream still holds the fill is a race, and flagged.
    assert_eq!(t.download(dev, 16), vec![0; 16]);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    // SAFETY: plain argument.
    assert_eq!(unsafe { t.lib.aclrtProcessReport(1000) }.unwrap(), OK);
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.download(dev, 16), vec![5; 16]);
    // SAFETY: live stream.
    assert_eq!(unsafe { t.lib.aclrtUnSubscribeReport(me, s) }.unwrap(), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert!(t.s.live_counts().is_empty(), "{:?}", t.s.live_counts());
}
