//! Devices (reference counted, default context per device) and per-thread
//! current contexts.

mod common;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

#[test]
fn device_count_defaults_to_eight_and_bad_ids_return_107001() {
    let t = T::new();
    let mut n = 0u32;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap(), OK);
    assert_eq!(n, 8);
    // SAFETY: a null out-pointer is rejected.
    let rc = unsafe { t.lib.aclrtGetDeviceCount(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    for bad in [-1, 8, 1000, i32::MIN] {
        assert_eq!(
            t.set_device(bad),
            ACL_ERROR_RT_INVALID_DEVICEID,
            "device {bad}"
        );
        assert!(
            t.recent_msg()
                .unwrap()
                .contains(&format!("device id {bad}"))
        );
        assert_eq!(t.reset_device(bad), ACL_ERROR_RT_INVALID_DEVICEID);
    }
    assert_eq!(t.set_device(7), OK);
    assert_eq!(t.get_device(), Ok(7));
    assert_eq!(t.reset_device(7), OK);
    t.assert_clean(0);
}

/// CANN 8.5.0: aclrtGetDevice without a context returns 107002 quietly
/// (api_c_device.cc:102-103); aclrtGetCurrentContext succeeds with NULL
/// (api_impl.cc:3834-3838).
#[test]
fn get_device_without_a_context_returns_107002_and_current_context_null() {
    let t = T::new();
    assert_eq!(t.get_device(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    assert_eq!(t.current_context(), Ok(std::ptr::null_mut()));
    assert_eq!(t.recent_msg(), None, "a special state: no error text");
    // SAFETY: null out-pointer is rejected before the context check.
    let rc = unsafe { t.lib.aclrtGetDevice(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // the current context is per thread
    assert_eq!(t.set_device(1), OK);
    let lib = t.lib;
    let other = std::thread::spawn(move || {
        let mut d = -1;
        // SAFETY: valid out-pointer.
        unsafe { lib.aclrtGetDevice(&mut d) }.unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(other, ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(t.reset_device(1), OK);
    t.assert_clean(0);
}

#[test]
fn set_device_shares_one_default_context_and_counts_references() {
    let t = T::new();
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap();
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.current_context().unwrap(), ctx);
    let lib = t.lib;
    let ctx_addr = ctx as usize;
    let from_other = std::thread::spawn(move || {
        // SAFETY: plain integer argument.
        assert_eq!(unsafe { lib.aclrtSetDevice(0) }.unwrap(), OK);
        let mut c: aclrtContext = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { lib.aclrtGetCurrentContext(&mut c) }.unwrap(), OK);
        c as usize
    })
    .join()
    .unwrap();
    assert_eq!(
        from_other, ctx_addr,
        "threads setting the same device share its default context"
    );
    assert_eq!(t.s.live(Resource::DeviceRef), 3);
    assert_eq!(
        t.s.live(Resource::Context),
        0,
        "default contexts are not user contexts"
    );
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.get_device(), Ok(0), "one reference is left");
    assert_eq!(t.reset_device(0), OK);
    // the default context is gone: this thread has no current context any more
    assert_eq!(t.get_device(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    // and a fresh SetDevice creates a new one
    assert_eq!(t.set_device(0), OK);
    assert_ne!(t.current_context().unwrap(), ctx);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn reset_of_a_device_that_is_not_set_returns_507007() {
    let t = T::new();
    assert_eq!(t.reset_device(3), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert!(t.recent_msg().unwrap().contains("device 3 is not set"));
    // SAFETY: plain integer argument.
    let rc = unsafe { t.lib.aclrtResetDeviceForce(3) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    t.assert_clean(0);
}

#[test]
fn reset_device_releases_the_default_context_and_its_streams() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let p = t.malloc(4096, HUGE_FIRST).unwrap();
    t.s.set_stream_delay(std::time::Duration::from_millis(20));
    assert_eq!(t.memset_async(p, 4096, 7, 4096, s), OK);
    assert_eq!(t.s.live(Resource::Stream), 1);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::Stream), 0);
    // the queue was drained before the stream went away
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.download(p, 4), vec![7; 4]);
    // the stream handle is dead now
    assert_eq!(t.sync_stream(s), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_misuse(Misuse::DestroyedHandle, 1);
    // device memory is not freed by a reset
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::DeviceBuffer), 0);
}

#[test]
fn reset_device_force_releases_whatever_the_count() {
    let t = T::new();
    for _ in 0..3 {
        assert_eq!(t.set_device(2), OK);
    }
    assert_eq!(t.s.live(Resource::DeviceRef), 3);
    // SAFETY: plain integer argument.
    assert_eq!(unsafe { t.lib.aclrtResetDeviceForce(2) }.unwrap(), OK);
    assert_eq!(t.s.live(Resource::DeviceRef), 0);
    assert_eq!(t.get_device(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    assert_eq!(t.reset_device(2), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    t.assert_clean(0);
}

#[test]
fn create_context_makes_it_current_and_counts_a_device_reference() {
    let t = T::new();
    let mut ctx: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut ctx, 5) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.current_context(), Ok(ctx));
    assert_eq!(t.get_device(), Ok(5));
    assert_eq!(t.s.live(Resource::Context), 1);
    assert_eq!(t.s.live(Resource::DeviceRef), 1);
    // SAFETY: valid out-pointer, invalid device.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut ctx, 8) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_INVALID_DEVICEID);
    // SAFETY: a null out-pointer is rejected.
    let rc = unsafe { t.lib.aclrtCreateContext(std::ptr::null_mut(), 0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // a stream of the context works and goes away with it
    let s = t.create_stream().unwrap();
    assert_eq!(t.sync_stream(s), OK);
    // SAFETY: `ctx` is a live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(ctx) }.unwrap(), OK);
    assert_eq!(t.current_context(), Ok(std::ptr::null_mut()));
    t.assert_clean(0);
}

#[test]
fn default_context_cannot_be_destroyed_with_destroy_context() {
    let t = T::with_device(0);
    let ctx = t.current_context().unwrap();
    // SAFETY: `ctx` is the live default context.
    let rc = unsafe { t.lib.aclrtDestroyContext(ctx) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    assert!(t.recent_msg().unwrap().contains("default context"));
    // SAFETY: null is rejected.
    let rc = unsafe { t.lib.aclrtDestroyContext(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.current_context(), Ok(ctx));
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn destroyed_context_is_misuse_and_never_read() {
    let t = T::new();
    let mut ctx: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut ctx, 1) }.unwrap();
    assert_eq!(rc, OK);
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(ctx) }.unwrap(), OK);
    // CANN 8.5.0 stores the current context unchecked (api_impl.cc:3825-3832):
    // setting a destroyed one succeeds, the next call needing a context fails
    // with 107002; destroying it again is 107002 (api_impl.cc:3802).
    // SAFETY: the mock validates the handle before using it.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(ctx) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    // SAFETY: as above.
    let rc = unsafe { t.lib.aclrtDestroyContext(ctx) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    let mut x = 0u64;
    // SAFETY: a pointer to a local is not a context; the mock never reads it.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(bogus_handle(&mut x)) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    t.assert_misuse(Misuse::DestroyedHandle, 3);
    assert!(t.s.misuse_log().contains("aclrtSetCurrentContext"));
    assert_eq!(t.s.live(Resource::Context), 0);
    assert_eq!(t.s.live(Resource::DeviceRef), 0);
}

#[test]
fn set_current_context_switches_the_device_of_the_thread() {
    let t = T::with_device(0);
    let ctx0 = t.current_context().unwrap();
    assert_eq!(t.set_device(3), OK);
    let ctx3 = t.current_context().unwrap();
    assert_eq!(t.get_device(), Ok(3));
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtSetCurrentContext(ctx0) }.unwrap(), OK);
    assert_eq!(t.get_device(), Ok(0));
    // a context can be made current on another thread
    let lib = t.lib;
    let ctx3_addr = ctx3 as usize;
    let dev = std::thread::spawn(move || {
        // SAFETY: a live context handle.
        let rc = unsafe { lib.aclrtSetCurrentContext(ctx3_addr as aclrtContext) }.unwrap();
        assert_eq!(rc, OK);
        let mut d = -1;
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { lib.aclrtGetDevice(&mut d) }.unwrap(), OK);
        d
    })
    .join()
    .unwrap();
    assert_eq!(dev, 3);
    assert_eq!(t.reset_device(3), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn synchronize_device_waits_for_every_stream_of_the_current_device() {
    let t = T::with_device(0);
    t.s.set_stream_delay(std::time::Duration::from_millis(20));
    let a = t.create_stream().unwrap();
    let b = t.create_stream().unwrap();
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 64, 1, 16, a), OK);
    assert_eq!(t.memset_async(p.wrapping_byte_add(32), 32, 2, 32, b), OK);
    assert_eq!(
        t.memset_async(p.wrapping_byte_add(16), 48, 3, 16, std::ptr::null_mut()),
        OK
    );
    // SAFETY: no arguments.
    let rc = unsafe { t.lib.aclrtSynchronizeDeviceWithTimeout(0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: plain integer argument.
    let rc = unsafe { t.lib.aclrtSynchronizeDeviceWithTimeout(1) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    // SAFETY: no arguments.
    assert_eq!(unsafe { t.lib.aclrtSynchronizeDevice() }.unwrap(), OK);
    assert!(t.stream_done(a) && t.stream_done(b) && t.stream_done(std::ptr::null_mut()));
    let data = t.download(p, 64);
    assert_eq!(&data[..16], &[1; 16]);
    assert_eq!(&data[16..32], &[3; 16]);
    assert_eq!(&data[32..], &[2; 32]);
    assert_eq!(t.destroy_stream(a), OK);
    assert_eq!(t.destroy_stream(b), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn device_count_and_hbm_size_follow_the_environment() {
    const NAME: &str = "device_count_and_hbm_size_follow_the_environment";
    if is_child(NAME) {
        let t = T::new();
        let mut n = 0u32;
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap(), OK);
        assert_eq!(n, 2);
        assert_eq!(t.set_device(2), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(t.set_device(1), OK);
        assert_eq!(t.mem_info(), (512 * MIB, 512 * MIB));
        assert_eq!(t.reset_device(1), OK);
        return;
    }
    let out = run_child(
        NAME,
        &[
            ("ASCENDCL_MOCK_DEVICE_COUNT", "2"),
            ("ASCENDCL_MOCK_HBM_BYTES", "512MiB"),
        ],
    );
    assert!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}
