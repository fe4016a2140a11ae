//! Streams: asynchronous in-order queues with a configurable delay per task,
//! synchronization with and without timeouts, destruction rules.

mod common;

use std::time::{Duration, Instant};

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

const DELAY: Duration = Duration::from_millis(50);

#[test]
fn creating_a_stream_needs_a_current_context() {
    let t = T::new();
    assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_CONTEXT_NULL));
    // SAFETY: a null out-pointer is rejected.
    let rc = unsafe { t.lib.aclrtCreateStream(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.set_device(0), OK);
    let s = t.create_stream().unwrap();
    assert_eq!(t.s.live(Resource::Stream), 1);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn create_stream_with_config_checks_priority_and_flags() {
    let t = T::with_device(0);
    let create = |prio: u32, flags: u32| {
        let mut s: aclrtStream = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        let rc = unsafe { t.lib.aclrtCreateStreamWithConfig(&mut s, prio, flags) }.unwrap();
        (rc, s)
    };
    // CANN 8.5.0 clamps the priority to [0, 7] (api_error.cc:934-945) and
    // drops unknown flag bits (stream.cpp:58-76): both create a stream
    for (prio, flags) in [(8, 0), (u32::MAX, 0), (0, 0x40)] {
        let (rc, s) = create(prio, flags);
        assert_eq!(rc, OK, "priority {prio}, flags {flags:#x}");
        assert_eq!(t.destroy_stream(s), OK);
    }
    // ACL_STREAM_DEVICE_USE_ONLY takes no other flag (api_error.cc:966-968)
    assert_eq!(
        create(0, ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH).0,
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert!(t.recent_msg().unwrap().contains("DEVICE_USE_ONLY"));
    let all = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE;
    let (rc, s) = create(7, all);
    assert_eq!(rc, OK);
    assert_eq!(t.destroy_stream(s), OK);
    // a persistent stream is not synchronized by the host: sync returns at once
    t.s.set_stream_delay(DELAY);
    let (rc, s) = create(0, ACL_STREAM_PERSISTENT);
    assert_eq!(rc, OK);
    let p = t.malloc(16, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 16, 1, 16, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert!(!t.stream_done(s));
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn missing_synchronize_reads_stale_data_when_stream_is_delayed() {
    let t = T::with_device(0);
    t.s.set_stream_delay(DELAY);
    let s = t.create_stream().unwrap();
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    let host = t.malloc_host(4096).unwrap();
    // SAFETY: `host` is 4096 bytes of pinned host memory.
    unsafe { std::ptr::write_bytes(host.cast::<u8>(), 0x5A, 4096) };
    assert_eq!(t.memcpy_async(dev, 4096, host, 4096, H2D, s), OK);
    // no synchronize: a synchronous copy is not ordered after queued work
    assert_eq!(t.download(dev, 16), vec![0; 16], "stale data");
    // ... and a race the mock reports, whatever the timing
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert!(!t.stream_done(s));
    assert_eq!(t.sync_stream(s), OK);
    assert!(t.stream_done(s));
    assert_eq!(t.download(dev, 4096), vec![0x5A; 4096]);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn sync_with_timeout_expires_with_507046_while_work_is_queued() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(50));
    let s = t.create_stream().unwrap();
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 64, 9, 64, s), OK);
    assert_eq!(t.sync_stream_timeout(s, 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.sync_stream_timeout(s, -2), ACL_ERROR_RT_PARAM_INVALID);
    let start = Instant::now();
    assert_eq!(
        t.sync_stream_timeout(s, 5),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert!(start.elapsed() >= Duration::from_millis(5));
    assert!(t.recent_msg().unwrap().contains("queued task"));
    assert_eq!(t.sync_stream_timeout(s, -1), OK);
    assert_eq!(t.download(p, 64), vec![9; 64]);
    assert_eq!(t.sync_stream_timeout(s, 1), OK, "nothing queued any more");
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn stream_query_reports_not_ready_then_complete() {
    let t = T::with_device(0);
    t.s.set_stream_delay(DELAY);
    let s = t.create_stream().unwrap();
    assert!(t.stream_done(s));
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 64, 1, 64, s), OK);
    assert!(!t.stream_done(s));
    assert_eq!(t.sync_stream(s), OK);
    assert!(t.stream_done(s));
    // SAFETY: a null status is rejected.
    let rc = unsafe { t.lib.aclrtStreamQuery(s, std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn tasks_of_one_stream_run_in_order() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(1));
    let s = t.create_stream().unwrap();
    let p = t.malloc(256, HUGE_FIRST).unwrap();
    for v in 0..20 {
        assert_eq!(t.memset_async(p, 256, v, 256 - v as usize * 8, s), OK);
    }
    assert_eq!(t.sync_stream(s), OK);
    let data = t.download(p, 256);
    for (i, b) in data.iter().enumerate() {
        // the last fill that covers byte i wins
        let expected = (0..20usize).filter(|v| i < 256 - v * 8).max().unwrap();
        assert_eq!(*b as usize, expected, "byte {i}");
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn destroying_a_stream_from_another_context_returns_107003_and_counts_wrong_context() {
    let t = T::with_device(0);
    let ctx0 = t.current_context().unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(t.set_device(1), OK);
    assert_eq!(t.destroy_stream(s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert!(
        t.recent_msg()
            .unwrap()
            .contains("not in the current context")
    );
    t.assert_misuse(Misuse::WrongContext, 1);
    // the stream is still alive and can be destroyed from its own context
    assert_eq!(t.s.live(Resource::Stream), 1);
    assert_eq!(t.reset_device(1), OK);
    // SAFETY: `ctx0` is the live default context of device 0.
    assert_eq!(unsafe { t.lib.aclrtSetCurrentContext(ctx0) }.unwrap(), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::Stream), 0);
}

#[test]
fn destroyed_or_unknown_stream_handles_are_rejected_without_being_read() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.sync_stream(s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.destroy_stream(s), ACL_ERROR_RT_PARAM_INVALID);
    let mut x = 0u64;
    assert_eq!(
        t.sync_stream(bogus_handle(&mut x)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        t.destroy_stream(std::ptr::null_mut()),
        ACL_ERROR_INVALID_PARAM
    );
    t.assert_misuse(Misuse::DestroyedHandle, 3);
    assert!(t.s.misuse_log().contains("destroyed"));
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::Stream), 0);
}

#[test]
fn destroy_waits_for_queued_tasks() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(20));
    let s = t.create_stream().unwrap();
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 64, 4, 64, s), OK);
    assert_eq!(t.memset_async(p, 64, 5, 32, s), OK);
    let start = Instant::now();
    assert_eq!(t.destroy_stream(s), OK);
    assert!(start.elapsed() >= Duration::from_millis(35));
    let data = t.download(p, 64);
    assert_eq!(&data[..32], &[5; 32]);
    assert_eq!(&data[32..], &[4; 32]);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn destroy_stream_force_discards_queued_work() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(30));
    let s = t.create_stream().unwrap();
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    for v in 1..5 {
        assert_eq!(t.memset_async(p, 64, v, 64, s), OK);
    }
    // SAFETY: `s` is a live stream of the current context.
    assert_eq!(unsafe { t.lib.aclrtDestroyStreamForce(s) }.unwrap(), OK);
    // at most the task that was running when the stream went away ran
    let b = t.download(p, 1)[0];
    assert!(b <= 1, "queued work was discarded, got {b}");
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn async_copy_from_pageable_memory_returns_after_the_copy() {
    let t = T::with_device(0);
    t.s.set_stream_delay(DELAY);
    let s = t.create_stream().unwrap();
    let dev = t.malloc(1024, HUGE_FIRST).unwrap();
    let src = vec![0x33u8; 1024];
    let start = Instant::now();
    assert_eq!(
        t.memcpy_async(dev, 1024, src.as_ptr().cast(), 1024, H2D, s),
        OK
    );
    assert!(
        start.elapsed() >= DELAY,
        "pageable host memory makes the copy synchronous"
    );
    assert!(t.stream_done(s));
    let mut back = vec![0u8; 1024];
    // a pinned destination keeps it asynchronous
    let pinned = t.malloc_host(1024).unwrap();
    let start = Instant::now();
    assert_eq!(t.memcpy_async(pinned, 1024, dev, 1024, D2H, s), OK);
    assert!(start.elapsed() < DELAY);
    assert_eq!(t.sync_stream(s), OK);
    // SAFETY: `pinned` holds 1024 bytes and the stream is synchronized.
    unsafe { std::ptr::copy_nonoverlapping(pinned.cast::<u8>(), back.as_mut_ptr(), 1024) };
    assert_eq!(back, src);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.free_host(pinned), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn null_stream_is_the_default_stream_of_the_current_context() {
    let t = T::with_device(0);
    t.s.set_stream_delay(DELAY);
    let p = t.malloc(32, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(p, 32, 6, 32, std::ptr::null_mut()), OK);
    assert!(!t.stream_done(std::ptr::null_mut()));
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.download(p, 32), vec![6; 32]);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    // without a context there is no default stream
    assert_eq!(
        t.sync_stream(std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    t.assert_clean(0);
}
