//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): aclrtMemcpy2d
//! and aclrtMemcpy2dAsync: the order of checks (acl layer, then the
//! runtime's decorator, then the implementation), the strided effect, the
//! stream worker and the happens-before model. Each test cites its source.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

#[allow(clippy::too_many_arguments)]
fn copy2d(
    t: &T,
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
) -> i32 {
    // SAFETY: host sides are live buffers covering pitch * (height - 1) +
    // width bytes in every call below; device sides are validated by the mock.
    unsafe {
        t.lib.aclrtMemcpy2d(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            aclrtMemcpyKind(kind),
        )
    }
    .unwrap()
}

#[allow(clippy::too_many_arguments)]
fn copy2d_async(
    t: &T,
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: aclrtStream,
) -> i32 {
    // SAFETY: as `copy2d`; every test synchronizes before its host buffers go.
    unsafe {
        t.lib.aclrtMemcpy2dAsync(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            aclrtMemcpyKind(kind),
            stream,
        )
    }
    .unwrap()
}

fn peek(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

/// A 6 x 10 host matrix whose byte (r, c) is r * 16 + c.
fn matrix() -> Vec<u8> {
    (0..6u8)
        .flat_map(|r| (0..10u8).map(move |c| r * 16 + c))
        .collect()
}

/// memory.cpp:82-122: null pointers, zero or too wide rows and kinds other
/// than H2D, D2H and DEFAULT are the acl layer's 100000, which sets no thread
/// error; only the null pointers and the kind are reported as text.
#[test]
fn acl_layer_refuses_null_zero_wide_and_wrong_kinds_with_100000_and_no_thread_error() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let host = vec![0u8; 4096];
    let h = host.as_ptr();
    let null = std::ptr::null_mut();
    assert_eq!(copy2d(&t, null, 16, h.cast(), 16, 8, 4, H2D), 100000);
    assert!(t.recent_msg().is_some(), "a null pointer is reported");
    assert_eq!(copy2d(&t, dev, 16, std::ptr::null(), 16, 8, 4, H2D), 100000);
    let _ = t.recent_msg();
    for (dpitch, spitch, width, height) in
        [(16, 16, 8, 0), (16, 16, 0, 4), (16, 8, 9, 4), (8, 16, 9, 4)]
    {
        assert_eq!(
            copy2d(&t, dev, dpitch, h.cast(), spitch, width, height, H2D),
            100000,
            "{dpitch} {spitch} {width} {height}"
        );
        assert_eq!(t.recent_msg(), None, "logged only (ACL_LOG_ERROR)");
    }
    for kind in [H2H, D2D, 5, 6, 7, 99] {
        assert_eq!(
            copy2d(&t, dev, 16, h.cast(), 16, 8, 4, kind),
            100000,
            "kind {kind}"
        );
    }
    assert!(t.recent_msg().is_some(), "a wrong kind is reported");
    assert_eq!(peek(&t), OK, "the acl layer never sets the thread error");
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:2255-2258 (limits 5242880 rows of at most 5000000 bytes,
/// internal_error_define.hpp:26-27) and 2308-2312: the addresses must make
/// a host-to-device or device-to-host copy -> 107000, a runtime error.
#[test]
fn runtime_refuses_oversized_copies_and_copies_that_are_not_host_to_device_or_back_with_107000() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let dev2 = t.malloc(4096, HUGE_FIRST).unwrap();
    let mut host = vec![0u8; 4096];
    let h = host.as_mut_ptr();
    assert_eq!(
        copy2d(&t, dev, 5_000_001, h.cast(), 5_000_001, 5_000_001, 1, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        copy2d(&t, dev, 1, h.cast(), 1, 1, 5_242_881, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    // device to device and host to host, whatever the kind says
    assert_eq!(
        copy2d(&t, dev2, 16, dev, 16, 8, 4, DEFAULT),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let other = [0u8; 64];
    assert_eq!(
        copy2d(&t, h.cast(), 16, other.as_ptr().cast(), 16, 8, 4, DEFAULT),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // a kind contradicting the addresses
    assert_eq!(
        copy2d(&t, h.cast(), 16, dev, 16, 8, 4, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.free(dev2), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_impl.cc:6596-6597: after the argument checks, no current context ->
/// 107002.
#[test]
fn sync_2d_copy_without_a_context_is_107002_after_the_argument_checks() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.reset_device(0), OK);
    let host = matrix();
    assert_eq!(
        copy2d(&t, dev, 16, host.as_ptr().cast(), 10, 8, 6, 9),
        100000,
        "the kind is checked first"
    );
    assert_eq!(
        copy2d(&t, dev, 16, host.as_ptr().cast(), 10, 8, 6, H2D),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// The effect: `height` rows of `width` bytes move from every `spitch` bytes
/// to every `dpitch` bytes; the bytes between rows stay as they were.
#[test]
fn sync_2d_copies_move_exactly_the_rows_and_leave_the_gaps() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.memset(dev, 4096, 0xAA, 4096), OK);
    let src = matrix(); // 6 rows of 10 bytes
    // rows 8 bytes wide, 16 bytes apart on the device
    assert_eq!(copy2d(&t, dev, 16, src.as_ptr().cast(), 10, 8, 6, H2D), OK);
    let on_dev = t.download(dev, 96);
    for r in 0..6 {
        for c in 0..16 {
            let want = if c < 8 { (r * 16 + c) as u8 } else { 0xAA };
            assert_eq!(on_dev[r * 16 + c], want, "row {r} col {c}");
        }
    }
    // and back, packed 8 bytes apart, with DEFAULT
    let mut back = vec![0u8; 48];
    assert_eq!(
        copy2d(&t, back.as_mut_ptr().cast(), 8, dev, 16, 8, 6, DEFAULT),
        OK
    );
    let want: Vec<u8> = (0..6u8)
        .flat_map(|r| (0..8u8).map(move |c| r * 16 + c))
        .collect();
    assert_eq!(back, want);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:2323: the decorator refuses a NULL stream (107000) before
/// ApiImpl would choose the default stream; api_impl.cc:6631-6632: a stream
/// of another context -> 107003.
#[test]
fn async_2d_copy_needs_an_explicit_stream_of_the_current_context() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let pinned = t.malloc_host(4096).unwrap();
    assert_eq!(
        copy2d_async(&t, dev, 16, pinned, 16, 8, 4, H2D, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let s = t.create_stream().unwrap();
    let orig = t.current_context().unwrap();
    let mut other: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut other, 0) };
    assert_eq!(rc.unwrap(), OK);
    assert_eq!(
        copy2d_async(&t, dev, 16, pinned, 16, 8, 4, H2D, s),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    // SAFETY: live contexts.
    unsafe {
        assert_eq!(t.lib.aclrtSetCurrentContext(orig).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyContext(other).unwrap(), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// With pinned memory the copy is queued: it has not happened when the call
/// returns (the stream worker is slowed down) and has after synchronize.
#[test]
fn async_2d_copy_from_pinned_memory_runs_on_the_stream_worker() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(30));
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.memset(dev, 4096, 0, 4096), OK);
    let pinned = t.malloc_host(4096).unwrap();
    let src = matrix();
    // SAFETY: `pinned` holds 4096 bytes, more than the 60 copied.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), pinned.cast::<u8>(), src.len()) };
    let s = t.create_stream().unwrap();
    assert_eq!(copy2d_async(&t, dev, 32, pinned, 10, 10, 6, H2D, s), OK);
    assert!(!t.stream_done(s), "queued, not run yet");
    assert_eq!(t.sync_stream(s), OK);
    let on_dev = t.download(dev, 192);
    for r in 0..6 {
        assert_eq!(&on_dev[r * 32..r * 32 + 10], &src[r * 10..r * 10 + 10]);
        assert!(on_dev[r * 32 + 10..r * 32 + 32].iter().all(|&b| b == 0));
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:2339-2344: with pageable host memory the runtime
/// synchronizes the stream and copies synchronously, so the data is there
/// when the call returns.
#[test]
fn async_2d_copy_with_pageable_memory_has_finished_when_it_returns() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(20));
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let s = t.create_stream().unwrap();
    let src = matrix();
    assert_eq!(
        copy2d_async(&t, dev, 10, src.as_ptr().cast(), 10, 10, 6, H2D, s),
        OK
    );
    assert!(t.stream_done(s));
    assert_eq!(t.download(dev, 60), src);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// The happens-before model (order.c) knows the 2-D copy's footprint: a
/// write to a device buffer on one stream and a read of it on another with
/// no event between them is an unordered access; with an event it is not.
#[test]
fn async_2d_copies_are_ordered_by_the_happens_before_model() {
    let t = T::with_device(0);
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let pinned = t.malloc_host(4096).unwrap();
    let back = t.malloc_host(4096).unwrap();
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(copy2d_async(&t, dev, 64, pinned, 64, 32, 8, H2D, a), OK);
    let e = t.create_event();
    assert_eq!(t.record(e, a), OK);
    // SAFETY: live stream and event.
    assert_eq!(unsafe { t.lib.aclrtStreamWaitEvent(b, e) }.unwrap(), OK);
    assert_eq!(copy2d_async(&t, back, 64, dev, 64, 32, 8, D2H, b), OK);
    assert_eq!(t.s.misuse_total(), 0, "{}", t.s.misuse_log());
    // now without the event: b reads what a writes, on another buffer
    let dev2 = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(copy2d_async(&t, dev2, 64, pinned, 64, 32, 8, H2D, a), OK);
    assert_eq!(copy2d_async(&t, back, 64, dev2, 64, 32, 8, D2H, b), OK);
    assert_eq!(t.sync_stream(a), OK);
    assert_eq!(t.sync_stream(b), OK);
    let unordered = t.s.misuse(Misuse::UnorderedAccess);
    assert!(unordered >= 1, "{}", t.s.misuse_log());
    assert_eq!(t.s.misuse_total(), unordered, "{}", t.s.misuse_log());
    assert_eq!(t.free(dev2), OK);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.destroy_stream(a), OK);
    assert_eq!(t.destroy_stream(b), OK);
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.free_host(back), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
}

/// A 2-D copy past the end of its allocation is refused (the last row's
/// end counts) and counted as misuse, like any out-of-bounds copy.
#[test]
fn a_2d_copy_whose_last_row_leaves_the_allocation_is_refused() {
    let t = T::with_device(0);
    let dev = t.malloc(1024, HUGE_FIRST).unwrap();
    let src = vec![0u8; 8192];
    // 8 rows 128 bytes apart end at 7 * 128 + 200 > 1024 (+ the mock's padding)
    let rc = copy2d(&t, dev, 256, src.as_ptr().cast(), 256, 200, 8, H2D);
    assert_ne!(rc, OK);
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 1, "{}", t.s.misuse_log());
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.reset_device(0), OK);
}
