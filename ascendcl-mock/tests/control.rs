//! The mock's own control API: configuration setters, live counts and the
//! misuse log.

mod common;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

#[test]
fn configuration_setters_reject_bad_values_and_apply_to_untouched_devices() {
    let t = T::new();
    assert_eq!(
        t.s.set_device_count(0).map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(
        t.s.set_device_count(65).map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(
        t.s.set_hbm_bytes(4096).map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(
        t.s.set_soc_name("").map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(
        t.s.set_soc_name("a\0b").map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    // each refusal names the control and the accepted range
    let error = t.s.set_hbm_bytes(4096).unwrap_err();
    assert_eq!(error.control(), "set_hbm_bytes");
    assert!(error.to_string().contains("2 MiB to 16 TiB"), "{error}");
    assert!(
        t.s.set_device_count(65)
            .unwrap_err()
            .reason()
            .contains("1 to 64")
    );
    t.s.set_device_count(2).unwrap();
    let mut n = 0u32;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap();
    assert_eq!((rc, n), (OK, 2));
    assert_eq!(t.set_device(2), ACL_ERROR_RT_INVALID_DEVICEID);
    // the HBM size is fixed when a device is first touched
    assert_eq!(t.set_device(0), OK);
    t.s.set_hbm_bytes(256 * MIB as u64).unwrap();
    assert_eq!(t.mem_info().1, 62423 * MIB, "device 0 was touched before");
    assert_eq!(t.set_device(1), OK);
    assert_eq!(t.mem_info().1, 256 * MIB);
    assert_eq!(t.reset_device(1), OK);
    assert_eq!(t.reset_device(0), OK);
    // a reset restores the defaults (from the environment)
    t.s.reset();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap();
    assert_eq!((rc, n), (OK, 8));
    t.assert_clean(0);
}

#[test]
fn live_counts_follow_every_kind_of_resource() {
    let t = T::with_device(0);
    let mut ctx: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut ctx, 1) }.unwrap();
    assert_eq!(rc, OK);
    let s = t.create_stream().unwrap();
    let e = t.create_event();
    let d = t.malloc(64, HUGE_FIRST).unwrap();
    let h = t.malloc_host(64).unwrap();
    let counts = t.s.live_counts();
    let expect = [
        (Resource::DeviceBuffer, 1),
        (Resource::HostBuffer, 1),
        (Resource::Stream, 1),
        (Resource::Event, 1),
        (Resource::Context, 1),
        (Resource::Reservation, 0),
        (Resource::Physical, 0),
        (Resource::Mapping, 0),
        (Resource::DeviceRef, 2),
    ];
    for (kind, n) in expect {
        assert_eq!(counts.get(kind), n, "{kind:?}");
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.free(d), OK);
    assert_eq!(t.free_host(h), OK);
    // SAFETY: live context.
    let rc = unsafe { t.lib.aclrtDestroyContext(ctx) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.reset_device(0), OK);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn misuse_log_names_the_function_the_kind_and_the_address() {
    let t = T::with_device(0);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.free(p), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.free(p.wrapping_byte_add(8)), ACL_ERROR_RT_PARAM_INVALID);
    let log = t.s.misuse_log();
    let lines: Vec<_> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].starts_with("DOUBLE_FREE: aclrtFree: 0x"), "{log}");
    assert!(lines[0].contains("(m1)"), "{log}");
    assert!(
        lines[1].starts_with("UNKNOWN_POINTER: aclrtFree: 0x"),
        "{log}"
    );
    assert_eq!(t.s.misuse(Misuse::DoubleFree), 1);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
    assert_eq!(t.s.misuse_total(), 2);
    assert_eq!(t.reset_device(0), OK);
    t.s.reset();
    assert_eq!(t.s.misuse_log(), "");
    assert_eq!(t.s.misuse_total(), 0);
}
