//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): what a device
//! is and how busy it is (aclrtGetDeviceInfo, aclrtGetDeviceCapability,
//! aclrtGetDeviceUtilizationRate) and peer access between devices. Each test
//! cites its source; the figures themselves come from the driver on a card
//! (docs/mock-conformance.md).

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_sys::*;
use common::*;

fn info(t: &T, dev: u32, attr: u32) -> Result<i64, i32> {
    let mut v = -7i64;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetDeviceInfo(dev, aclrtDevAttr(attr), &mut v) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn capability(t: &T, dev: i32, feature: u32) -> Result<i32, i32> {
    let mut v = -7i32;
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclrtGetDeviceCapability(dev, aclrtDevFeatureType(feature), &mut v)
    }
    .unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn utilization(t: &T, dev: i32) -> Result<aclrtUtilizationInfo, i32> {
    let mut u = aclrtUtilizationInfo {
        cubeUtilization: -7,
        vectorUtilization: -7,
        aicpuUtilization: -7,
        memoryUtilization: -7,
        utilizationExtend: std::ptr::null_mut(),
    };
    // SAFETY: valid out-pointer with the reserved field null.
    let rc = unsafe { t.lib.aclrtGetDeviceUtilizationRate(dev, &mut u) }.unwrap();
    if rc == OK { Ok(u) } else { Err(rc) }
}

fn can_access(t: &T, dev: i32, peer: i32) -> Result<i32, i32> {
    let mut v = -7i32;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtDeviceCanAccessPeer(&mut v, dev, peer) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn status(t: &T, dev: i32, peer: i32) -> Result<i32, i32> {
    let mut v = -7i32;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtDevicePeerAccessStatus(dev, peer, &mut v) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn enable(t: &T, peer: i32, flags: u32) -> i32 {
    // SAFETY: plain integer arguments.
    unsafe { t.lib.aclrtDeviceEnablePeerAccess(peer, flags) }.unwrap()
}

fn disable(t: &T, peer: i32) -> i32 {
    // SAFETY: plain integer argument.
    unsafe { t.lib.aclrtDeviceDisablePeerAccess(peer) }.unwrap()
}

/// device.cpp:342 (null -> 100000) and api_error_standard_soc.cc:418-433 (a
/// device id outside the count -> 107000); no context is needed. The total
/// memory is the device's HBM; the core counts are an Ascend910B1's.
#[test]
fn device_info_answers_every_declared_attribute_without_a_context() {
    let t = T::new();
    let (_, hbm) = {
        assert_eq!(t.set_device(0), OK);
        let m = t.mem_info();
        assert_eq!(t.reset_device(0), OK);
        m
    };
    assert_eq!(info(&t, 0, 301), Ok(hbm as i64));
    assert_eq!(info(&t, 0, 101), Ok(24));
    assert_eq!(info(&t, 0, 201), Ok(48));
    assert_eq!(info(&t, 1, 402), Ok(1), "the physical chip id");
    for attr in [1, 101, 102, 201, 301, 302, 401, 402, 406, 407, 501] {
        assert!(info(&t, 0, attr).is_ok(), "attr {attr}");
    }
    for attr in [202, 203, 204, 403, 404, 405] {
        assert_eq!(
            info(&t, 0, attr),
            Err(ACL_ERROR_RT_FEATURE_NOT_SUPPORT),
            "attr {attr}"
        );
    }
    assert_eq!(info(&t, 0, 0), Err(ACL_ERROR_RT_PARAM_INVALID));
    assert_eq!(
        info(&t, 8, 101),
        Err(ACL_ERROR_RT_PARAM_INVALID),
        "8 devices: 0..7"
    );
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtGetDeviceInfo(0, aclrtDevAttr(101), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), 100000);
    t.assert_clean(0);
}

/// api_c_device.cc:542-543 and 575-580: the runtime's feature types only
/// (else 107000, before the device), then the device (107001).
#[test]
fn device_capability_checks_the_feature_type_before_the_device() {
    let t = T::new();
    assert_eq!(capability(&t, 0, 1), Ok(0));
    assert_eq!(capability(&t, 0, 21), Ok(0));
    for bad in [0, 2, 20, 22, 30000] {
        assert_eq!(
            capability(&t, 99, bad),
            Err(ACL_ERROR_RT_PARAM_INVALID),
            "type {bad}"
        );
    }
    assert_eq!(capability(&t, 99, 1), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    t.assert_clean(0);
}

extern "C" fn sleep_50ms(_: *mut c_void) {
    std::thread::sleep(Duration::from_millis(50));
}

/// device.cpp:222-238: null -> 100000, the reserved extension must be null
/// (100000); memory is always -1; an unknown device gives -1 everywhere and
/// still succeeds (device.cpp:26-43). The engines are busy while a stream of
/// the device has work queued.
#[test]
fn utilization_is_busy_while_work_is_queued_and_minus_one_where_unknown() {
    let t = T::with_device(0);
    let idle = utilization(&t, 0).unwrap();
    assert_eq!(
        (
            idle.cubeUtilization,
            idle.vectorUtilization,
            idle.memoryUtilization
        ),
        (0, 0, -1)
    );
    let s = t.create_stream().unwrap();
    // SAFETY: live stream, a function that only sleeps.
    let rc = unsafe {
        t.lib
            .aclrtLaunchHostFunc(s, Some(sleep_50ms), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), OK);
    let busy = utilization(&t, 0).unwrap();
    assert_eq!((busy.cubeUtilization, busy.vectorUtilization), (100, 100));
    assert_eq!(
        utilization(&t, 1).unwrap().cubeUtilization,
        0,
        "another device"
    );
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(utilization(&t, 0).unwrap().cubeUtilization, 0);
    let unknown = utilization(&t, 99).unwrap();
    assert_eq!(
        [
            unknown.cubeUtilization,
            unknown.vectorUtilization,
            unknown.aicpuUtilization,
            unknown.memoryUtilization
        ],
        [-1; 4]
    );
    let mut u = idle;
    u.utilizationExtend = std::ptr::NonNull::dangling().as_ptr();
    // SAFETY: the mock refuses the non-null reserved pointer without reading it.
    let rc = unsafe { t.lib.aclrtGetDeviceUtilizationRate(0, &mut u) };
    assert_eq!(rc.unwrap(), 100000);
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe { t.lib.aclrtGetDeviceUtilizationRate(0, std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:634-660 and api_error.cc:2603-2615: the same device is
/// 100000, then the peer and the device are checked (107001), then the
/// output (107000); two of the mock's devices can always reach each other.
#[test]
fn can_access_peer_checks_devices_before_the_output() {
    let t = T::new();
    assert_eq!(can_access(&t, 0, 1), Ok(1));
    assert_eq!(can_access(&t, 2, 2), Err(100000));
    assert_eq!(can_access(&t, 0, 64), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    assert_eq!(can_access(&t, -1, 0), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    // SAFETY: the null output is refused before it would be written.
    let rc = unsafe { t.lib.aclrtDeviceCanAccessPeer(std::ptr::null_mut(), 0, 1) };
    assert_eq!(rc.unwrap(), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_clean(0);
}

/// memory.cpp:662-737: flags other than 0 -> 200006 first; the current
/// device (107002 without one, no thread error); not the current device
/// itself (100000); the peer (107001). Enabling shows in
/// aclrtDevicePeerAccessStatus (memory.cpp:1772-1784), from that device
/// only, and disabling removes it.
#[test]
fn enable_and_disable_peer_access_change_the_status_of_the_current_device() {
    let t = T::new();
    assert_eq!(enable(&t, 1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
    assert_eq!(enable(&t, 1, 0), ACL_ERROR_RT_CONTEXT_NULL);
    // SAFETY: plain enum argument.
    let last = unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    };
    assert_eq!(last.unwrap(), OK);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(enable(&t, 0, 0), 100000);
    assert_eq!(enable(&t, 64, 0), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(status(&t, 0, 1), Ok(0));
    assert_eq!(enable(&t, 1, 0), OK);
    assert_eq!(status(&t, 0, 1), Ok(1));
    assert_eq!(status(&t, 1, 0), Ok(0), "one direction only");
    assert_eq!(disable(&t, 1), OK);
    assert_eq!(status(&t, 0, 1), Ok(0));
    assert_eq!(disable(&t, 0), 100000);
    assert_eq!(status(&t, 0, 64), Err(ACL_ERROR_RT_PARAM_INVALID));
    assert_eq!(status(&t, 99, 0), Err(ACL_ERROR_RT_INVALID_DEVICEID));
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtDevicePeerAccessStatus(0, 1, std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
