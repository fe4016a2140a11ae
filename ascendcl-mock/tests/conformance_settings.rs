//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): the runtime
//! switches set at start-up: the overflow mode, a stream's overflow switch
//! and failure mode, the current context's default stream and options, the
//! operator timeouts and the exception callback. Each test cites its source.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_sys::*;
use common::*;

fn peek(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

fn sat_mode(t: &T) -> Result<u32, i32> {
    let mut m = aclrtFloatOverflowMode(99);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetDeviceSatMode(&mut m) }.unwrap();
    if rc == OK { Ok(m.0) } else { Err(rc) }
}

fn set_sat_mode(t: &T, mode: u32) -> i32 {
    // SAFETY: plain enum argument.
    unsafe { t.lib.aclrtSetDeviceSatMode(aclrtFloatOverflowMode(mode)) }.unwrap()
}

fn overflow(t: &T, s: aclrtStream) -> Result<u32, i32> {
    let mut f = 99u32;
    // SAFETY: valid out-pointer; the mock validates the stream.
    let rc = unsafe { t.lib.aclrtGetStreamOverflowSwitch(s, &mut f) }.unwrap();
    if rc == OK { Ok(f) } else { Err(rc) }
}

fn set_overflow(t: &T, s: aclrtStream, flag: u32) -> i32 {
    // SAFETY: the mock validates the stream.
    unsafe { t.lib.aclrtSetStreamOverflowSwitch(s, flag) }.unwrap()
}

fn failure_mode(t: &T, s: aclrtStream, mode: u64) -> i32 {
    // SAFETY: the mock validates the stream.
    unsafe { t.lib.aclrtSetStreamFailureMode(s, mode) }.unwrap()
}

fn get_opt(t: &T, opt: u32) -> Result<i64, i32> {
    let mut v = -7i64;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCtxGetSysParamOpt(aclSysParamOpt(opt), &mut v) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn set_opt(t: &T, opt: u32, value: i64) -> i32 {
    // SAFETY: plain arguments.
    unsafe { t.lib.aclrtCtxSetSysParamOpt(aclSysParamOpt(opt), value) }.unwrap()
}

/// runtime.hpp:904: SATURATION at start; api_error.cc:4908-4911: only
/// SATURATION and INFNAN; api_impl.cc:6740-6749: the mode is the process's,
/// so no context is needed to set or read it.
#[test]
fn sat_mode_starts_saturating_takes_two_values_and_needs_no_context() {
    let t = T::new();
    assert_eq!(sat_mode(&t), Ok(0));
    assert_eq!(set_sat_mode(&t, 1), OK);
    assert_eq!(sat_mode(&t), Ok(1));
    for bad in [2, 3, u32::MAX] {
        assert_eq!(
            set_sat_mode(&t, bad),
            ACL_ERROR_RT_PARAM_INVALID,
            "mode {bad}"
        );
    }
    assert_eq!(sat_mode(&t), Ok(1), "a refused mode changes nothing");
    // SAFETY: a null out-pointer is refused by the acl layer (device.cpp:258).
    let rc = unsafe { t.lib.aclrtGetDeviceSatMode(std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(set_sat_mode(&t, 0), OK);
    t.assert_clean(0);
}

/// stream.cpp:300-303: a flag other than 0/1 is 100000, logged only;
/// api_impl.cc:6767-6777: the switch needs the SATURATION mode (207000),
/// NULL is the default stream, a stream of another context is 107003;
/// streams start with the switch off.
#[test]
fn overflow_switch_is_per_stream_and_needs_the_saturation_mode() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    assert_eq!(overflow(&t, s), Ok(0));
    assert_eq!(set_overflow(&t, s, 2), 100000);
    assert_eq!(t.recent_msg(), None);
    assert_eq!(set_overflow(&t, s, 1), OK);
    assert_eq!(overflow(&t, s), Ok(1));
    assert_eq!(
        overflow(&t, std::ptr::null_mut()),
        Ok(0),
        "the default stream is apart"
    );
    assert_eq!(set_overflow(&t, std::ptr::null_mut(), 1), OK);
    assert_eq!(overflow(&t, std::ptr::null_mut()), Ok(1));
    assert_eq!(set_sat_mode(&t, 1), OK);
    assert_eq!(set_overflow(&t, s, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_eq!(peek(&t), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_eq!(set_sat_mode(&t, 0), OK);
    // SAFETY: a null out-pointer is refused by the acl layer (stream.cpp:287).
    let rc = unsafe { t.lib.aclrtGetStreamOverflowSwitch(s, std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(
        overflow(&t, std::ptr::null_mut()),
        Err(ACL_ERROR_RT_CONTEXT_NULL)
    );
    t.assert_clean(0);
}

/// api_error.cc:1132-1135: the default stream has no failure mode (207000,
/// no thread error, api_c_stream.cc:310); api_impl.cc:1875-1893: only bit 0
/// counts, setting the same mode succeeds, STOP never goes back to CONTINUE.
#[test]
fn failure_mode_is_for_created_streams_and_stop_is_final() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    assert_eq!(
        failure_mode(&t, std::ptr::null_mut(), ACL_STOP_ON_FAILURE as u64),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(peek(&t), OK, "no thread error");
    assert!(t.recent_msg().is_some(), "reported by the acl layer");
    assert_eq!(failure_mode(&t, s, ACL_CONTINUE_ON_FAILURE as u64), OK);
    assert_eq!(failure_mode(&t, s, 2), OK, "bit 1 is ignored: CONTINUE");
    assert_eq!(failure_mode(&t, s, ACL_STOP_ON_FAILURE as u64), OK);
    assert_eq!(failure_mode(&t, s, 3), OK, "STOP again");
    assert_eq!(
        failure_mode(&t, s, ACL_CONTINUE_ON_FAILURE as u64),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

extern "C" fn sleep_100ms(_: *mut c_void) {
    std::thread::sleep(Duration::from_millis(100));
}

/// Makes stream `b` fail: it waits (20 ms at most) for an event recorded on
/// `a` behind a 100 ms host function, then queues a fill of `dev` on `b`.
fn fail_then_fill(t: &T, a: aclrtStream, b: aclrtStream, e: aclrtEvent, dev: *mut c_void) {
    // SAFETY: live stream, a function that only sleeps.
    let rc = unsafe {
        t.lib
            .aclrtLaunchHostFunc(a, Some(sleep_100ms), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), OK);
    assert_eq!(t.record(e, a), OK);
    // SAFETY: live stream and event.
    let rc = unsafe { t.lib.aclrtStreamWaitEventWithTimeout(b, e, 20) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.memset_async(dev, 64, 0x5A, 64, b), OK);
}

/// The effect of ACL_STOP_ON_FAILURE: after a task of the stream failed (a
/// wait timed out), later device work is not run and the next synchronize
/// reports the failure; with CONTINUE the fill runs.
#[test]
fn stop_on_failure_skips_device_work_queued_after_a_failed_task() {
    let t = T::with_device(0);
    let dev = t.malloc(64, HUGE_FIRST).unwrap();
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    let e = t.create_event();
    for (mode, ran) in [
        (ACL_CONTINUE_ON_FAILURE, true),
        (ACL_STOP_ON_FAILURE, false),
    ] {
        assert_eq!(t.memset(dev, 64, 0, 64), OK);
        assert_eq!(failure_mode(&t, b, mode as u64), OK);
        fail_then_fill(&t, a, b, e, dev);
        assert_eq!(t.sync_stream(b), ACL_ERROR_RT_WAIT_TIMEOUT, "mode {mode}");
        assert_eq!(t.sync_stream(a), OK);
        let want = if ran { 0x5A } else { 0 };
        assert!(
            t.download(dev, 64).iter().all(|&x| x == want),
            "mode {mode}"
        );
    }
    // the failure was reported: the stream runs device work again
    assert_eq!(t.memset_async(dev, 64, 0x11, 64, b), OK);
    assert_eq!(t.sync_stream(b), OK);
    assert!(t.download(dev, 64).iter().all(|&x| x == 0x11));
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.destroy_stream(a), OK);
    assert_eq!(t.destroy_stream(b), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
}

/// context.cpp:217 and api_impl.cc:7405-7411: the current context's default
/// stream as a handle, usable wherever a stream is (it is the stream NULL
/// stands for); 100000 for a null out-pointer, 107002 without a context.
#[test]
fn ctx_default_stream_is_a_usable_handle_of_the_null_stream() {
    let t = T::new();
    let mut s: aclrtStream = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let get = |s: &mut aclrtStream| unsafe { t.lib.aclrtCtxGetCurrentDefaultStream(s) }.unwrap();
    assert_eq!(get(&mut s), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(t.set_device(0), OK);
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe { t.lib.aclrtCtxGetCurrentDefaultStream(std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(get(&mut s), OK);
    assert!(!s.is_null());
    t.s.set_stream_delay(Duration::from_millis(20));
    let dev = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(dev, 64, 7, 64, s), OK);
    // the NULL stream is the same queue: synchronizing it waits for the fill
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert!(t.stream_done(s));
    assert!(t.download(dev, 64).iter().all(|&x| x == 7));
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// context.cpp:100-156 and api_error.cc:5012-5026: options 0-2 (else
/// 100000), values 0 or 1 (else 107000), a current context (107002); an
/// option never set reads as 107021 (context.cpp:120-123); options belong
/// to the context.
#[test]
fn sys_param_options_are_per_context_and_unset_ones_read_as_107021() {
    let t = T::with_device(0);
    assert_eq!(get_opt(&t, 0), Err(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET));
    assert_eq!(set_opt(&t, 0, 1), OK);
    assert_eq!(set_opt(&t, 2, 0), OK);
    assert_eq!(get_opt(&t, 0), Ok(1));
    assert_eq!(get_opt(&t, 2), Ok(0));
    assert_eq!(get_opt(&t, 1), Err(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET));
    assert_eq!(set_opt(&t, 3, 0), 100000);
    assert_eq!(get_opt(&t, 3), Err(100000));
    assert_eq!(set_opt(&t, 0, 2), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(set_opt(&t, 0, -1), ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtCtxGetSysParamOpt(aclSysParamOpt(0), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), 100000);
    let orig = t.current_context().unwrap();
    let mut other: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut other, 0) };
    assert_eq!(rc.unwrap(), OK);
    assert_eq!(
        get_opt(&t, 0),
        Err(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET),
        "a new context has none"
    );
    // SAFETY: live contexts.
    unsafe {
        assert_eq!(t.lib.aclrtSetCurrentContext(orig).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyContext(other).unwrap(), OK);
    }
    assert_eq!(get_opt(&t, 0), Ok(1));
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(set_opt(&t, 0, 1), ACL_ERROR_RT_CONTEXT_NULL);
    t.assert_clean(0);
}

/// event.cpp:264-286: the operator timeouts take any value and need no
/// context; the journal keeps what was set.
#[test]
fn op_timeouts_take_any_value_without_a_context_and_are_journaled() {
    let t = T::new();
    // SAFETY: plain integer arguments.
    unsafe {
        assert_eq!(t.lib.aclrtSetOpWaitTimeout(0).unwrap(), OK);
        assert_eq!(t.lib.aclrtSetOpWaitTimeout(120).unwrap(), OK);
        assert_eq!(t.lib.aclrtSetOpExecuteTimeOut(u32::MAX).unwrap(), OK);
    }
    let j = t.s.journal();
    let last = j.last().unwrap();
    assert_eq!(last.function(), "aclrtSetOpExecuteTimeOut");
    assert_eq!(
        last.raw_field("timeout"),
        Some(u32::MAX.to_string().as_str())
    );
    t.assert_clean(0);
}

extern "C" fn on_exception(_: *mut aclrtExceptionInfo) {}

/// callback.cpp:37-93: the callback is registered (or removed with NULL);
/// each getter answers 0xFFFFFFFF for a NULL info and reports it.
#[test]
fn exception_callback_registers_and_getters_answer_all_ones_for_null() {
    let t = T::new();
    // SAFETY: a callback that does nothing; NULL unregisters.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtSetExceptionInfoCallback(Some(on_exception))
                .unwrap(),
            OK
        );
        assert_eq!(t.lib.aclrtSetExceptionInfoCallback(None).unwrap(), OK);
    }
    let null = std::ptr::null();
    // SAFETY: NULL is the documented invalid input of every getter.
    let all = unsafe {
        [
            t.lib.aclrtGetTaskIdFromExceptionInfo(null).unwrap(),
            t.lib.aclrtGetStreamIdFromExceptionInfo(null).unwrap(),
            t.lib.aclrtGetThreadIdFromExceptionInfo(null).unwrap(),
            t.lib.aclrtGetDeviceIdFromExceptionInfo(null).unwrap(),
            t.lib.aclrtGetErrorCodeFromExceptionInfo(null).unwrap(),
        ]
    };
    assert_eq!(all, [u32::MAX; 5]);
    assert!(t.recent_msg().is_some());
    assert_eq!(peek(&t), OK);
    t.assert_clean(0);
}
