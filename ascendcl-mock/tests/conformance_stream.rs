//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): contexts and
//! stream creation/synchronization. Each test cites its source lines.

mod common;

use ascendcl_sys::*;
use common::*;

fn create(t: &T, prio: u32, flags: u32) -> (i32, aclrtStream) {
    let mut s: aclrtStream = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateStreamWithConfig(&mut s, prio, flags) }.unwrap();
    (rc, s)
}

/// api_impl.cc:3834-3838 and runtime.cc:5300-5312: aclrtGetCurrentContext
/// on a thread with no context returns success and NULL.
#[test]
fn get_current_context_without_context_succeeds_with_null() {
    let t = T::new();
    let mut c: aclrtContext = 0x1 as aclrtContext;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtGetCurrentContext(&mut c) }.unwrap();
    assert_eq!(rc, OK);
    assert!(c.is_null());
    // SAFETY: null out-pointer (context.cpp:86).
    let rc = unsafe { t.lib.aclrtGetCurrentContext(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
}

/// api_error.cc:934-945 (base_info.hpp:154-155): out-of-range priorities
/// are clamped to [0, 7], never refused.
#[test]
fn stream_priority_out_of_range_is_clamped_not_refused() {
    let t = T::with_device(0);
    for prio in [8, 100, u32::MAX, 0x8000_0000] {
        let (rc, s) = create(&t, prio, 0);
        assert_eq!(rc, OK, "priority {prio}");
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// stream.cpp:58-76: flag bits other than the six ACL_STREAM_* are dropped
/// by the acl layer; api_error.cc:966-968: DEVICE_USE_ONLY must be alone.
#[test]
fn stream_unknown_flag_bits_are_ignored_and_device_use_only_is_exclusive() {
    let t = T::with_device(0);
    let (rc, s) = create(&t, 0, 0xFFFF_FFC0);
    assert_eq!(rc, OK);
    assert_eq!(t.destroy_stream(s), OK);
    let (rc, s) = create(&t, 0, ACL_STREAM_DEVICE_USE_ONLY | 0x100);
    assert_eq!(rc, OK, "an unknown bit does not count as another flag");
    assert_eq!(t.destroy_stream(s), OK);
    for other in [
        ACL_STREAM_FAST_LAUNCH,
        ACL_STREAM_FAST_SYNC,
        ACL_STREAM_PERSISTENT,
        ACL_STREAM_CPU_SCHEDULE,
    ] {
        let (rc, _) = create(&t, 0, ACL_STREAM_DEVICE_USE_ONLY | other);
        assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID, "with {other:#x}");
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// stream.cpp:37 before api_error.cc:966 before api_impl.cc:1323-1324: the
/// null out-pointer wins, then the flags, then the missing context.
#[test]
fn stream_creation_check_order_is_null_then_flags_then_context() {
    let t = T::new();
    // SAFETY: null out-pointer with bad flags and no context.
    let rc = unsafe {
        t.lib.aclrtCreateStreamWithConfig(
            std::ptr::null_mut(),
            0,
            ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_SYNC,
        )
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    let (rc, _) = create(&t, 0, ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_SYNC);
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    let (rc, _) = create(&t, 99, 0);
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
}

/// api_error.cc:1003-1007 with errcode_manage.cc:111: a CPU_SCHEDULE or
/// DEVICE_USE_ONLY stream cannot be synchronized (507000).
#[test]
fn device_only_and_cpu_schedule_streams_cannot_be_synchronized() {
    let t = T::with_device(0);
    for flag in [ACL_STREAM_DEVICE_USE_ONLY, ACL_STREAM_CPU_SCHEDULE] {
        let (rc, s) = create(&t, 0, flag);
        assert_eq!(rc, OK);
        assert_eq!(t.sync_stream(s), ACL_ERROR_RT_INTERNAL_ERROR);
        assert_eq!(t.sync_stream_timeout(s, 10), ACL_ERROR_RT_INTERNAL_ERROR);
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_impl.cc:3802-3803: destroying a context that is not valid (already
/// destroyed) or the primary (default) context is 107002; api_impl.cc:
/// 3825-3832: aclrtSetCurrentContext stores any non-null pointer, and the
/// next call that needs a context fails with 107002.
#[test]
fn destroyed_contexts_are_107002_on_destroy_and_on_first_use_after_set() {
    let t = T::with_device(0);
    let primary = t.current_context().unwrap();
    // SAFETY: the default context is refused, not destroyed.
    let rc = unsafe { t.lib.aclrtDestroyContext(primary) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    let mut c: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtCreateContext(&mut c, 0) }.unwrap(), OK);
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(c) }.unwrap(), OK);
    // SAFETY: destroyed context: the mock validates the handle.
    let rc = unsafe { t.lib.aclrtDestroyContext(c) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    // SAFETY: as above.
    assert_eq!(unsafe { t.lib.aclrtSetCurrentContext(c) }.unwrap(), OK);
    assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    // SAFETY: null context (context.cpp:71, acl layer).
    let rc = unsafe { t.lib.aclrtSetCurrentContext(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // SAFETY: live default context.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(primary) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(ascendcl_mock::Misuse::DestroyedHandle, 2);
}

/// api_impl.cc:1636-1643: aclrtStreamQuery needs a current context even for
/// an explicit stream (107002), after the acl layer's null status
/// (stream.cpp:186, 100000); a stream of another context may be queried.
#[test]
fn stream_query_needs_a_context_but_not_the_streams_own() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let mut c: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the new context becomes current.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut c, 1) }.unwrap();
    assert_eq!(rc, OK);
    assert!(t.stream_done(s), "a stream of another context");
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(c) }.unwrap(), OK);
    let mut st = aclrtStreamStatus(9);
    // SAFETY: valid out-pointer, no current context.
    let rc = unsafe { t.lib.aclrtStreamQuery(s, &mut st) }.unwrap();
    assert_eq!(rc, ACL_ERROR_RT_CONTEXT_NULL);
    // SAFETY: null status: the acl layer's check comes first.
    let rc = unsafe { t.lib.aclrtStreamQuery(s, std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
