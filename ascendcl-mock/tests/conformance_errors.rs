//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): which failures
//! set the thread's last error and the error text. Each test cites the
//! source lines its rule comes from.

mod common;

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

fn get(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtGetLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

/// log_inner.h:291-298: ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT reports a
/// text and returns 100000 without reaching the runtime, whose
/// GetRtExtErrCodeAndSetGlobalErr (api_global_err.cc:16-27) is the only
/// writer of the thread's last error.
#[test]
fn acl_layer_null_checks_report_text_but_leave_the_last_error_alone() {
    let t = T::with_device(0);
    assert_eq!(get(&t), OK);
    // SAFETY: a null out-pointer is rejected by the acl layer (memory.cpp).
    let rc = unsafe {
        t.lib
            .aclrtMalloc(std::ptr::null_mut(), 64, aclrtMemMallocPolicy(0))
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(peek(&t), OK, "100000 never becomes the last error");
    assert!(t.recent_msg().is_some(), "the input error is reported");
    // SAFETY: null out-pointer (stream.cpp:37).
    let rc = unsafe { t.lib.aclrtCreateStream(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(peek(&t), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_c.h:26-33 and api_global_err.cc:16-27: a runtime failure
/// (ERROR_RETURN_WITH_EXT_ERRCODE) stores its external code as the thread's
/// last error, and a later acl-level failure does not overwrite it.
#[test]
fn runtime_failures_set_the_last_error_and_acl_failures_keep_it() {
    let t = T::with_device(0);
    assert_eq!(t.set_device(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(peek(&t), ACL_ERROR_RT_INVALID_DEVICEID);
    // SAFETY: null event (event.cpp:104, acl layer).
    let rc = unsafe {
        t.lib
            .aclrtRecordEvent(std::ptr::null_mut(), std::ptr::null_mut())
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(get(&t), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(get(&t), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// stream.cpp:156-160, device.cpp:186-190, event.cpp:218-221: the acl layer
/// itself returns 107000 for a timeout below -1, with a call-error text
/// (ACL_LOG_CALL_ERROR) but without touching the runtime's thread error;
/// timeout 0 is refused by the runtime (api_error.cc:1001-1002, 2677-2678,
/// 1287-1288), which does set it.
#[test]
fn timeouts_below_minus_one_fail_in_the_acl_layer_without_last_error() {
    let t = T::with_device(0);
    assert_eq!(
        t.sync_stream_timeout(std::ptr::null_mut(), -2),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(peek(&t), OK);
    // SAFETY: plain integer.
    let rc = unsafe { t.lib.aclrtSynchronizeDeviceWithTimeout(-5) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), OK);
    assert!(t.recent_msg().is_some());
    assert_eq!(
        t.sync_stream_timeout(std::ptr::null_mut(), 0),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(get(&t), ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: plain integer.
    let rc = unsafe { t.lib.aclrtSynchronizeDeviceWithTimeout(0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(get(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// context.cpp:194-197, 205-208: a level other than ACL_RT_THREAD_LEVEL is
/// refused with 100000 by ACL_LOG_ERROR only: no reported text.
#[test]
fn last_error_with_an_unknown_level_is_100000_without_text() {
    let t = T::new();
    // SAFETY: plain enum argument (an unknown level).
    let rc = unsafe { t.lib.aclrtPeekAtLastError(aclrtLastErrLevel(1)) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.recent_msg(), None);
    assert_eq!(peek(&t), OK);
}

/// api_c_device.cc:102-103: aclrtGetDevice without a context returns 107002
/// through COND_RETURN_WITH_NOLOG: neither text nor last error.
#[test]
fn get_device_without_context_is_a_silent_107002() {
    let t = T::new();
    assert_eq!(t.get_device(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    assert_eq!(peek(&t), OK);
    assert_eq!(t.recent_msg(), None);
    // a runtime check of the context does set both (context.hpp:38-42,
    // api_impl.cc:1580-1581)
    assert_eq!(
        t.sync_stream(std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(get(&t), ACL_ERROR_RT_CONTEXT_NULL);
    assert!(t.recent_msg().is_some());
}

/// acl.cpp:292-296: a second aclInit counts a reference and returns 100002
/// without any text; acl.cpp:541-555: aclFinalizeReference reports the count
/// through refCount even when it fails with 100037.
#[test]
fn repeated_init_is_a_silent_100002_and_finalize_reference_reports_the_count() {
    let t = T::new();
    // SAFETY: null config path is allowed.
    assert_eq!(unsafe { t.lib.aclInit(std::ptr::null()) }.unwrap(), OK);
    // SAFETY: as above.
    let rc = unsafe { t.lib.aclInit(std::ptr::null()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(t.recent_msg(), None);
    let mut n = 99u64;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclFinalizeReference(&mut n) }.unwrap(), OK);
    assert_eq!(n, 1);
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclFinalizeReference(&mut n) }.unwrap(), OK);
    assert_eq!(n, 0);
    n = 99;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclFinalizeReference(&mut n) }.unwrap();
    assert_eq!(rc, ACL_ERROR_REPEAT_FINALIZE);
    assert_eq!(n, 0, "written before the check");
    assert!(t.recent_msg().is_some());
}
