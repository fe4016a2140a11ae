//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): a device's
//! health (aclrtQueryDeviceStatus), the stream priority range
//! (aclrtDeviceGetStreamPriorityRange) and the core limits of a process
//! (aclrtGetDeviceResLimit, aclrtSetDeviceResLimit, aclrtResetDeviceResLimit),
//! as runtime samples device/1 and kernel/1 call them. Each test cites the
//! lines of the rule it checks.

mod common;

use ascendcl_sys::*;
use common::*;

const CUBE: aclrtDevResLimitType = aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE;
const VECTOR: aclrtDevResLimitType = aclrtDevResLimitType::ACL_RT_DEV_RES_VECTOR_CORE;

fn status(t: &T, dev: i32) -> Result<aclrtDeviceStatus, i32> {
    let mut s = aclrtDeviceStatus(77);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtQueryDeviceStatus(dev, &mut s) }.unwrap();
    if rc == OK { Ok(s) } else { Err(rc) }
}

fn get_limit(t: &T, dev: i32, ty: aclrtDevResLimitType) -> Result<u32, i32> {
    let mut v = 7777u32;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetDeviceResLimit(dev, ty, &mut v) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn set_limit(t: &T, dev: i32, ty: aclrtDevResLimitType, v: u32) -> i32 {
    // SAFETY: plain values.
    unsafe { t.lib.aclrtSetDeviceResLimit(dev, ty, v) }.unwrap()
}

fn reset_limit(t: &T, dev: i32) -> i32 {
    // SAFETY: plain value.
    unsafe { t.lib.aclrtResetDeviceResLimit(dev) }.unwrap()
}

fn peek(t: &T) -> i32 {
    // SAFETY: plain value.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

/// device.cpp:313 (null -> 100000, no thread error); api_error.cc:5315-5321
/// with 4818-4829 (an id outside the device count -> 107001); runtime.cc:
/// 5237-5252 (NORMAL unless the watchdog saw a failure). No device is set.
#[test]
fn query_device_status_needs_no_set_device_and_checks_the_id() {
    let t = T::new();
    assert_eq!(
        status(&t, 0),
        Ok(aclrtDeviceStatus::ACL_RT_DEVICE_STATUS_NORMAL)
    );
    assert_eq!(
        status(&t, 7),
        Ok(aclrtDeviceStatus::ACL_RT_DEVICE_STATUS_NORMAL)
    );
    assert_eq!(status(&t, 8), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    assert_eq!(status(&t, -1), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    assert_eq!(peek(&t), ACL_ERROR_RT_INVALID_DEVICEID);
    // SAFETY: the null output is refused by the acl layer.
    let rc = unsafe { t.lib.aclrtQueryDeviceStatus(0, std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), ACL_ERROR_INVALID_PARAM);
    t.assert_clean(0);
}

/// api_impl.cc:3610-3621 with base_info.hpp:154-155: least 7, greatest 0;
/// either output may be null, both too (api_error.cc:2739-2741 only logs);
/// no device or context is needed.
#[test]
fn stream_priority_range_is_seven_to_zero_and_takes_null_outputs() {
    let t = T::new();
    let (mut least, mut greatest) = (-1i32, -1i32);
    // SAFETY: valid out-pointers.
    let rc = unsafe {
        t.lib
            .aclrtDeviceGetStreamPriorityRange(&mut least, &mut greatest)
    };
    assert_eq!(rc.unwrap(), OK);
    assert_eq!((least, greatest), (7, 0));
    let mut only = -1i32;
    // SAFETY: one valid out-pointer, one null (not written).
    let rc = unsafe {
        t.lib
            .aclrtDeviceGetStreamPriorityRange(std::ptr::null_mut(), &mut only)
    };
    assert_eq!((rc.unwrap(), only), (OK, 0));
    // SAFETY: both null: nothing is written.
    let rc = unsafe {
        t.lib
            .aclrtDeviceGetStreamPriorityRange(std::ptr::null_mut(), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), OK);
    t.assert_clean(0);
}

/// raw_device_res.cc:47-64: until a limit is set, the device's totals (the
/// mock's Ascend910B1: 24 cube cores, 48 vector cores, as
/// aclrtGetDeviceInfo says).
#[test]
fn device_res_limits_start_at_the_core_counts_of_the_device() {
    let t = T::with_device(0);
    assert_eq!(get_limit(&t, 0, CUBE), Ok(24));
    assert_eq!(get_limit(&t, 0, VECTOR), Ok(48));
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_impl.cc:7550-7562: a limit up to the total is kept (0 too) and the
/// last setting wins; more than the total -> 107000 and the limit stays;
/// api_impl.cc:7572 with raw_device_res.cc:102-107: reset restores both.
#[test]
fn set_device_res_limit_keeps_values_up_to_the_total_and_reset_restores_the_totals() {
    let t = T::with_device(1);
    assert_eq!(set_limit(&t, 1, CUBE, 8), OK);
    assert_eq!(set_limit(&t, 1, CUBE, 12), OK);
    assert_eq!(set_limit(&t, 1, VECTOR, 0), OK);
    assert_eq!(get_limit(&t, 1, CUBE), Ok(12));
    assert_eq!(get_limit(&t, 1, VECTOR), Ok(0));
    assert_eq!(set_limit(&t, 1, CUBE, 25), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(set_limit(&t, 1, VECTOR, 49), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(set_limit(&t, 1, CUBE, 24), OK);
    assert_eq!(get_limit(&t, 1, VECTOR), Ok(0));
    assert_eq!(reset_limit(&t, 1), OK);
    assert_eq!(get_limit(&t, 1, CUBE), Ok(24));
    assert_eq!(get_limit(&t, 1, VECTOR), Ok(48));
    assert_eq!(t.reset_device(1), OK);
    t.assert_clean(0);
}

/// api_impl.cc:7548-7549, 7570-7571, 7585-7586: the runtime's Device object
/// exists only while the process holds the device (RT_ERROR_DEVICE_NULL,
/// 507033 by errcode_manage.cc:36); its limits go with the last reset.
#[test]
fn device_res_limits_need_the_device_set_and_go_with_the_last_reset() {
    let t = T::new();
    assert_eq!(get_limit(&t, 0, CUBE), Err(ACL_ERROR_RT_DEV_SETUP_ERROR));
    assert_eq!(set_limit(&t, 0, CUBE, 4), ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_eq!(reset_limit(&t, 0), ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_eq!(peek(&t), ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(set_limit(&t, 0, CUBE, 4), OK);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(get_limit(&t, 0, CUBE), Ok(4), "one reference remains");
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(get_limit(&t, 0, CUBE), Ok(24));
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// The order of the checks: device.cpp:408 (null value -> 100000, Get
/// only); api_c_device.cc:190-193, 204-207, 218-221 (a negative id ->
/// 107001); api_error.cc:5517-5518, 5549-5550 (a type outside [0, 2) ->
/// 107000); api_error.cc:5520-5528, 5535-5543, 5553-5561 (an id past the
/// device count -> 107001); then the device must be set (507033).
#[test]
fn device_res_limit_checks_run_null_then_negative_id_then_type_then_id_then_device() {
    let t = T::new();
    let bad_type = aclrtDevResLimitType(2);
    // SAFETY: the null output is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtGetDeviceResLimit(-1, bad_type, std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        get_limit(&t, -1, bad_type),
        Err(ACL_ERROR_RT_INVALID_DEVICEID)
    );
    assert_eq!(
        set_limit(&t, -1, bad_type, 1),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(reset_limit(&t, -1), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(get_limit(&t, 8, bad_type), Err(ACL_ERROR_RT_PARAM_INVALID));
    assert_eq!(set_limit(&t, 8, bad_type, 1), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(get_limit(&t, 8, CUBE), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    assert_eq!(set_limit(&t, 8, CUBE, 1), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(reset_limit(&t, 8), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(get_limit(&t, 3, CUBE), Err(ACL_ERROR_RT_DEV_SETUP_ERROR));
    t.assert_clean(0);
}

/// The functions are journaled with their arguments and outputs, like their
/// neighbours (journal keys of csrc/device_res.c).
#[test]
fn device_res_calls_are_journaled() {
    let t = T::with_device(0);
    assert_eq!(set_limit(&t, 0, VECTOR, 16), OK);
    assert_eq!(get_limit(&t, 0, VECTOR), Ok(16));
    assert_eq!(reset_limit(&t, 0), OK);
    assert!(status(&t, 0).is_ok());
    for f in [
        "aclrtSetDeviceResLimit",
        "aclrtGetDeviceResLimit",
        "aclrtResetDeviceResLimit",
        "aclrtQueryDeviceStatus",
    ] {
        assert_eq!(t.s.call_count(f), 1, "{f}");
    }
    assert_eq!(t.reset_device(0), OK);
}
