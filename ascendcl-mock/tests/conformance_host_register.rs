//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): pinned host
//! memory beyond aclrtMallocHost (aclrtMallocHostWithCfg, aclrtHostRegister,
//! aclrtHostUnregister) and aclrtPointerGetAttributes. Each test cites its
//! source.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

fn malloc_host_cfg(t: &T, size: u64, cfg: *mut aclrtMallocConfig) -> Result<*mut c_void, i32> {
    let mut p = std::ptr::null_mut();
    // SAFETY: valid out-pointer; `cfg` is null or points at a live config.
    let rc = unsafe { t.lib.aclrtMallocHostWithCfg(&mut p, size, cfg) }.unwrap();
    if rc == OK { Ok(p) } else { Err(rc) }
}

fn register(t: &T, p: *mut c_void, size: u64, kind: u32) -> Result<*mut c_void, i32> {
    let mut d = std::ptr::null_mut();
    // SAFETY: `p` is host memory of `size` bytes that outlives the
    // registration in every test; valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclrtHostRegister(p, size, aclrtHostRegisterType(kind), &mut d)
    }
    .unwrap();
    if rc == OK { Ok(d) } else { Err(rc) }
}

fn unregister(t: &T, p: *mut c_void) -> i32 {
    // SAFETY: the mock validates the pointer.
    unsafe { t.lib.aclrtHostUnregister(p) }.unwrap()
}

fn attributes(t: &T, p: *const c_void) -> Result<aclrtPtrAttributes, i32> {
    let mut a = aclrtPtrAttributes {
        location: aclrtMemLocation {
            id: 99,
            type_: aclrtMemLocationType(99),
        },
        pageSize: 0,
        rsv: [7; 4],
    };
    // SAFETY: valid out-pointer; the pointer is only classified.
    let rc = unsafe { t.lib.aclrtPointerGetAttributes(p, &mut a) }.unwrap();
    if rc == OK { Ok(a) } else { Err(rc) }
}

/// memory.cpp:290-298 (ptr null, size 0 -> 100000), api_impl.cc:2451-2458
/// (a cfg needs attrs; only MODULE_ID and VA_FLAG -> else 107000; then the
/// context, 107002). The block is pinned memory freed by aclrtFreeHost.
#[test]
fn malloc_host_with_cfg_checks_the_config_and_gives_pinned_memory() {
    let t = T::new();
    assert_eq!(
        malloc_host_cfg(&t, 64, std::ptr::null_mut()),
        Err(ACL_ERROR_RT_CONTEXT_NULL)
    );
    assert_eq!(t.set_device(0), OK);
    assert_eq!(malloc_host_cfg(&t, 0, std::ptr::null_mut()), Err(100000));
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtMallocHostWithCfg(std::ptr::null_mut(), 64, std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), 100000);
    let mut no_attrs = aclrtMallocConfig {
        attrs: std::ptr::null_mut(),
        numAttrs: 0,
    };
    assert_eq!(
        malloc_host_cfg(&t, 64, &mut no_attrs),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    let attr = |a: u32| aclrtMallocAttribute {
        attr: aclrtMallocAttrType(a),
        value: aclrtMallocAttrValue { rsv: [0; 8] },
    };
    let mut bad = [attr(1), attr(2)]; // MODULE_ID, then DEVICE_ID
    let mut cfg = aclrtMallocConfig {
        attrs: bad.as_mut_ptr(),
        numAttrs: 2,
    };
    assert_eq!(
        malloc_host_cfg(&t, 64, &mut cfg),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    let mut good = [attr(1), attr(3)]; // MODULE_ID, VA_FLAG
    let mut cfg = aclrtMallocConfig {
        attrs: good.as_mut_ptr(),
        numAttrs: 2,
    };
    let p = malloc_host_cfg(&t, 100, &mut cfg).unwrap();
    assert_eq!(t.s.live(Resource::HostBuffer), 1);
    let a = attributes(&t, p).unwrap();
    assert_eq!(
        a.location.type_,
        aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_HOST
    );
    assert_eq!(t.free_host(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:326-335 (ptr, devPtr null, size 0 -> 100000), api_error.cc:
/// 1470-1473 (a type other than MAPPED -> 207000), api_impl.cc:2526-2527
/// (107002). Registered memory is pinned: a copy from it is asynchronous.
#[test]
fn host_register_pins_caller_memory_for_asynchronous_copies() {
    let t = T::with_device(0);
    let mut host = vec![3u8; 8192];
    let p: *mut c_void = host.as_mut_ptr().cast();
    assert_eq!(register(&t, std::ptr::null_mut(), 64, 0), Err(100000));
    assert_eq!(register(&t, p, 0, 0), Err(100000));
    // SAFETY: a null devPtr is refused by the acl layer.
    let rc = unsafe {
        t.lib
            .aclrtHostRegister(p, 64, aclrtHostRegisterType(0), std::ptr::null_mut())
    };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(
        register(&t, p, 64, 1),
        Err(ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
    );
    let d = register(&t, p, 8192, 0).unwrap();
    assert_eq!(d, p, "the mock's device reads the host address itself");
    assert_eq!(attributes(&t, p).unwrap().location.type_.0, 0, "HOST");
    // overlapping registrations are refused
    // SAFETY: an address inside `host`.
    let inside = unsafe { p.cast::<u8>().add(100) }.cast();
    assert_eq!(
        register(&t, inside, 64, 0),
        Err(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    );
    // a copy from registered memory is queued, not run at once
    t.s.set_stream_delay(Duration::from_millis(30));
    let dev = t.malloc(8192, HUGE_FIRST).unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(t.memcpy_async(dev, 8192, p, 8192, H2D, s), OK);
    assert!(!t.stream_done(s), "asynchronous: the memory is pinned");
    assert_eq!(t.sync_stream(s), OK);
    assert!(t.download(dev, 8192).iter().all(|&b| b == 3));
    // aclrtFreeHost does not free what the caller owns
    assert_eq!(t.free_host(p), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_misuse(Misuse::UnknownPointer, 1);
    assert_eq!(unregister(&t, p), OK);
    assert_eq!(
        attributes(&t, p).unwrap().location.type_.0,
        2,
        "UNREGISTERED"
    );
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(host[0], 3, "the memory is still the caller's");
}

/// memory.cpp:390 (null -> 100000), api_impl.cc:2566-2584 (107002; not the
/// base of a registered range -> 507911).
#[test]
fn host_unregister_takes_only_the_base_of_a_registered_range() {
    let t = T::with_device(0);
    let mut host = vec![0u8; 4096];
    let p: *mut c_void = host.as_mut_ptr().cast();
    assert_eq!(unregister(&t, std::ptr::null_mut()), 100000);
    assert_eq!(unregister(&t, p), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    let pinned = t.malloc_host(64).unwrap();
    assert_eq!(
        unregister(&t, pinned),
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
        "allocated, not registered"
    );
    register(&t, p, 4096, 0).unwrap();
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(unregister(&t, p), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(unregister(&t, p), OK);
    assert_eq!(
        unregister(&t, p),
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
        "twice"
    );
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(Misuse::UnknownPointer, 3);
    assert_eq!(t.s.live(Resource::HostBuffer), 0);
}

/// memory.cpp:312-313 (ptr, attributes null -> 100000); api_impl.cc:
/// 3153-3172 (no context needed). Device memory reports its device.
#[test]
fn pointer_attributes_tell_device_pinned_and_unregistered_memory_apart() {
    let t = T::new();
    assert_eq!(t.set_device(1), OK);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let pinned = t.malloc_host(4096).unwrap();
    let plain = [0u8; 16];
    assert_eq!(t.reset_device(1), OK);
    let d = attributes(&t, dev).unwrap();
    assert_eq!((d.location.type_.0, d.location.id), (1, 1));
    assert_eq!(d.pageSize, 2 << 20);
    assert_eq!(d.rsv, [0; 4]);
    let h = attributes(&t, pinned).unwrap();
    assert_eq!((h.location.type_.0, h.pageSize), (0, 4096));
    let u = attributes(&t, plain.as_ptr().cast()).unwrap();
    assert_eq!(u.location.type_.0, 2);
    assert_eq!(attributes(&t, std::ptr::null()), Err(100000));
    // SAFETY: a null out-pointer is refused by the acl layer.
    let rc = unsafe { t.lib.aclrtPointerGetAttributes(dev, std::ptr::null_mut()) };
    assert_eq!(rc.unwrap(), 100000);
    assert_eq!(t.set_device(1), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(
        attributes(&t, dev),
        Err(ACL_ERROR_RT_PARAM_INVALID),
        "freed"
    );
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.reset_device(1), OK);
    t.assert_clean(0);
}
