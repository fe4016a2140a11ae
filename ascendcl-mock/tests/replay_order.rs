//! Order between threads in a strict replay, when the awaited call cannot
//! come: a call waiting for a trace thread whose live thread has exited
//! fails at once; one waiting for a trace thread no live thread ever takes
//! fails after the absent-thread grace (1 s), not the 20 s order timeout;
//! a thread that is merely late (it sleeps before its first call, within
//! the grace) is still waited for.

mod common;

use std::ffi::c_void;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ascendcl_mock::{REPLAY_DIVERGED, ReplayMode, ReplayState};
use common::*;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "aclmock-replay-order-{}-{name}.jsonl",
        std::process::id()
    ))
}

fn bind(t: &T, ctx: usize) {
    // SAFETY: a live context of this mock; the call only binds it.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(ctx as *mut c_void) }.unwrap();
    assert_eq!(rc, OK);
}

/// Records main (device, context), a worker (bind, malloc, free), then main
/// again (malloc, free, reset): the worker's three calls precede main's
/// second part.
fn record_threads(t: &T, name: &str) -> PathBuf {
    let path = temp(name);
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    std::thread::scope(|s| {
        s.spawn(|| {
            bind(t, ctx);
            let p = t.malloc(1024, HUGE_FIRST).unwrap();
            assert_eq!(t.free(p), OK);
        });
    });
    let p = t.malloc(2048, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    path
}

/// Main's malloc after the worker's part: how long it took and its result.
fn timed_malloc(t: &T) -> (Duration, Result<*mut c_void, i32>) {
    let start = Instant::now();
    let r = t.malloc(2048, HUGE_FIRST);
    (start.elapsed(), r)
}

#[test]
fn a_call_waiting_for_a_thread_that_exited_before_its_turn_fails_at_once() {
    let t = T::new();
    let path = record_threads(&t, "exited");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    // the worker makes two of its three calls and ends (a real join, so its
    // thread-exit hooks have run)
    let lib = t.lib;
    let worker = std::thread::spawn(move || {
        // SAFETY: a live context of this mock; the call only binds it.
        let rc = unsafe { lib.aclrtSetCurrentContext(ctx as *mut c_void) }.unwrap();
        assert_eq!(rc, OK);
        let mut p = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer.
        let rc = unsafe {
            lib.aclrtMalloc(&mut p, 1024, ascendcl_sys::aclrtMemMallocPolicy(HUGE_FIRST))
        }
        .unwrap();
        assert_eq!(rc, OK);
    });
    worker.join().unwrap();
    let (took, r) = timed_malloc(&t);
    assert_eq!(r.unwrap_err(), REPLAY_DIVERGED);
    assert!(
        took < Duration::from_millis(900),
        "failed after {took:?}, not at once"
    );
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Diverged);
    assert!(
        status.text.contains("aclrtFree on trace thread")
            && status.text.contains("exited after 2 of its 3 calls"),
        "{}",
        status.text
    );
    t.s.reset();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_call_waiting_for_a_trace_thread_that_never_comes_fails_after_the_grace_not_the_order_timeout()
{
    let t = T::new();
    let path = record_threads(&t, "absent");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    t.current_context().unwrap();
    // no worker: main, the only thread, waits for the worker's first call
    let (took, r) = timed_malloc(&t);
    assert_eq!(r.unwrap_err(), REPLAY_DIVERGED);
    assert!(
        took >= Duration::from_millis(950) && took < Duration::from_secs(10),
        "failed after {took:?}: want the 1 s grace, not the 20 s order timeout"
    );
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Diverged);
    assert!(
        status
            .text
            .contains("(aclrtSetCurrentContext on trace thread")
            && status.text.contains("no thread has taken trace thread"),
        "{}",
        status.text
    );
    t.s.reset();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_thread_that_starts_late_within_the_grace_is_waited_for() {
    let t = T::new();
    let path = record_threads(&t, "late");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            bind(&t, ctx);
            let p = t.malloc(1024, HUGE_FIRST).unwrap();
            assert_eq!(t.free(p), OK);
        });
        // waits ~300 ms, all alone, for the worker's first call
        let p = t.malloc(2048, HUGE_FIRST).unwrap();
        assert_eq!(t.free(p), OK);
    });
    assert_eq!(t.reset_device(0), OK);
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}
