//! Strict replay of a recorded trace: a program that makes the same calls
//! replays to completion; a changed program fails at the first call that
//! differs, with a report naming it and both sides; ids are mapped between
//! the trace and the mock; threads are matched separately; a replay started
//! from the environment reports at exit.

mod common;

use std::ffi::c_void;
use std::path::PathBuf;

use ascendcl_mock::{REPLAY_DIVERGED, ReplayMode, ReplayState};
use common::*;

/// A fresh file name for one test.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "aclmock-replay-{}-{name}.jsonl",
        std::process::id()
    ))
}

/// The small program: device, memory, a copy, a stream and an event. `size`
/// and `extra_stream` are the knobs the "changed program" turns.
fn program(t: &T, size: usize, extra_stream: bool) -> Vec<i32> {
    let mut codes = vec![t.set_device(0)];
    let dev = t.malloc(size, HUGE_FIRST);
    codes.push(dev.err().unwrap_or(OK));
    let host = t.malloc_host(4096).unwrap_or(std::ptr::null_mut());
    let stream = if extra_stream {
        t.create_stream().ok()
    } else {
        None
    };
    let s = t.create_stream().unwrap_or(std::ptr::null_mut());
    let dev = dev.unwrap_or(std::ptr::null_mut());
    codes.push(t.memcpy_async(dev, 4096, host, 4096, H2D, s));
    let e = t.create_event();
    codes.push(t.record(e, s));
    codes.push(t.sync_stream(s));
    codes.push(t.destroy_event(e));
    codes.push(t.destroy_stream(s));
    if let Some(extra) = stream {
        codes.push(t.destroy_stream(extra));
    }
    codes.push(t.free(dev));
    codes.push(t.free_host(host));
    codes.push(t.reset_device(0));
    codes
}

/// Records `program(4096, false)` into a trace and returns its path.
fn record(t: &T, name: &str) -> PathBuf {
    let path = temp(name);
    assert!(program(t, 4096, false).iter().all(|&c| c == OK));
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    path
}

#[test]
fn the_same_program_replays_to_completion() {
    let t = T::new();
    let path = record(&t, "same");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.s.replay_status().state, ReplayState::Replaying);
    assert!(program(&t, 4096, false).iter().all(|&c| c == OK));
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert_eq!(status.matched, status.calls);
    assert_eq!(status.remaining, 0);
    assert!(status.divergence.is_none());
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_changed_argument_fails_that_call_and_names_both_sides() {
    let t = T::new();
    let path = record(&t, "argument");
    let trace = ascendcl_mock::trace::Trace::read(&path).unwrap();
    let malloc_seq = trace
        .records
        .iter()
        .find(|r| r.function == "aclrtMalloc")
        .unwrap()
        .seq;
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.malloc(8192, HUGE_FIRST), Err(REPLAY_DIVERGED));
    let msg = t.recent_msg().unwrap();
    assert!(msg.contains("replay diverged"), "{msg}");

    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Diverged);
    let d = status.divergence.clone().unwrap();
    assert_eq!(d.seq, malloc_seq);
    assert_eq!((d.thread, d.call), (1, 2));
    assert!(d.reason.contains("argument size"), "{}", d.reason);
    let expected = d.expected.unwrap();
    assert_eq!(expected.function, "aclrtMalloc");
    assert_eq!(
        expected.args.get("size").and_then(|v| v.as_u64()),
        Some(4096)
    );
    assert_eq!(d.actual.function, "aclrtMalloc");
    assert_eq!(
        d.actual.args.get("size").and_then(|v| v.as_u64()),
        Some(8192)
    );
    assert_eq!(d.actual.ret, None, "the diverging call did not run");
    for needle in [
        &format!("trace seq {malloc_seq}"),
        "expected: aclrtMalloc {\"size\":4096",
        "actual:   aclrtMalloc {\"size\":8192",
    ] {
        assert!(status.text.contains(needle), "{needle}\n{}", status.text);
    }

    // after the divergence the plain mock answers, so clean-up works
    let p = t.malloc(8192, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.replay_status().divergence, status.divergence);
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_different_call_is_reported_with_the_expected_one() {
    let t = T::new();
    let path = record(&t, "function");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    // the changed program creates one more stream: its first aclrtCreateStream
    // matches the trace's, the second is where the sequences part
    let codes = program(&t, 4096, true);
    assert!(codes.contains(&REPLAY_DIVERGED) || codes.iter().any(|&c| c != OK));
    let status = t.s.replay_status();
    let d = status.divergence.unwrap();
    assert!(d.reason.contains("different function"), "{}", d.reason);
    assert_eq!(d.expected.unwrap().function, "aclrtMemcpyAsync");
    assert_eq!(d.actual.function, "aclrtCreateStream");
    assert!(
        status
            .text
            .contains("the trace called aclrtMemcpyAsync, the program aclrtCreateStream"),
        "{}",
        status.text
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_program_that_stops_early_leaves_the_replay_incomplete() {
    let t = T::new();
    let path = record(&t, "early");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Replaying);
    assert_eq!(status.matched, 1);
    assert_eq!(status.remaining, status.calls - 1);
    assert!(
        status
            .text
            .contains("not made yet: trace seq 2 aclrtMalloc"),
        "{}",
        status.text
    );
    assert_eq!(
        t.reset_device(0),
        REPLAY_DIVERGED,
        "the trace expected aclrtMalloc"
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn calls_past_the_end_of_the_trace_diverge() {
    let t = T::new();
    let path = record(&t, "past");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert!(program(&t, 4096, false).iter().all(|&c| c == OK));
    assert!(t.s.replay_status().is_complete());
    assert_eq!(t.set_device(0), REPLAY_DIVERGED);
    let d = t.s.replay_status().divergence.unwrap();
    assert!(d.expected.is_none());
    assert!(d.reason.contains("no more calls"), "{}", d.reason);
    assert_eq!(d.actual.function, "aclrtSetDevice");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn ids_are_mapped_between_trace_and_mock_and_a_wrong_one_diverges() {
    let t = T::with_device(0);
    // burn ids so the live mock numbers differently from the recording
    let burn: Vec<*mut c_void> = (0..3).map(|_| t.malloc(64, HUGE_FIRST).unwrap()).collect();
    let a = t.malloc(256, HUGE_FIRST).unwrap();
    let b = t.malloc(256, HUGE_FIRST).unwrap();
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    let path = temp("ids");
    let journal: Vec<String> = t.s.journal()[4..].iter().map(|e| e.line.clone()).collect();
    assert!(journal[0].contains("\"m4+0x0\""), "{}", journal[0]);
    std::fs::write(&path, journal.join("\n")).unwrap();
    for p in burn {
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.reset_device(0), OK);

    // live ids start at m1 again after the reset: m4 <-> m1, m5 <-> m2
    t.s.reset();
    assert_eq!(t.set_device(0), OK);
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    let a = t.malloc(256, HUGE_FIRST).unwrap();
    let b = t.malloc(256, HUGE_FIRST).unwrap();
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    assert!(t.s.replay_status().is_complete());

    // freeing in the other order is a different argument
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    let a = t.malloc(256, HUGE_FIRST).unwrap();
    let b = t.malloc(256, HUGE_FIRST).unwrap();
    assert_eq!(t.free(b), REPLAY_DIVERGED);
    let d = t.s.replay_status().divergence.unwrap();
    assert!(d.reason.contains("argument devPtr"), "{}", d.reason);
    assert_eq!(
        d.expected.unwrap().args.get("devPtr").unwrap().as_str(),
        Some("m4+0x0")
    );
    assert_eq!(t.free(b), OK);
    assert_eq!(t.free(a), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

/// The worker's part: binds the context, allocates and frees.
fn worker(t: &T, ctx: usize) {
    // SAFETY: a live context of this mock; the call only binds it.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(ctx as *mut c_void) }.unwrap();
    assert_eq!(rc, OK);
    let p = t.malloc(1024, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
}

/// Records main (device, context), a worker (its part), then main again.
fn record_threads(t: &T, name: &str) -> PathBuf {
    let path = temp(name);
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    std::thread::scope(|s| {
        s.spawn(|| worker(t, ctx));
    });
    let p = t.malloc(2048, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    path
}

#[test]
fn a_call_waits_for_the_other_threads_calls_that_preceded_it_in_the_trace() {
    let t = T::new();
    let path = record_threads(&t, "threads");
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    // main's malloc races the worker here; the replay holds it back until
    // the worker's calls, which came first in the trace, have started
    std::thread::scope(|s| {
        s.spawn(|| worker(&t, ctx));
        let p = t.malloc(2048, HUGE_FIRST).unwrap();
        assert_eq!(t.free(p), OK);
    });
    assert_eq!(t.reset_device(0), OK);
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_call_that_overtakes_an_earlier_call_of_a_running_thread_diverges_after_the_order_timeout() {
    const NAME: &str = "a_call_that_overtakes_an_earlier_call_of_a_running_thread_diverges_after_the_order_timeout";
    if is_child(NAME) {
        let t = T::new();
        let path = std::env::var("TEST_TRACE").unwrap();
        t.s.replay(&path, ReplayMode::Strict).unwrap();
        assert_eq!(t.set_device(0), OK);
        let ctx = t.current_context().unwrap() as usize;
        let (bound, wait_bound) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            // the worker takes its trace thread, then is busy (not waiting
            // in the mock) for longer than the order timeout
            s.spawn(|| {
                // SAFETY: a live context of this mock; the call only binds it.
                let rc = unsafe { t.lib.aclrtSetCurrentContext(ctx as *mut c_void) }.unwrap();
                assert_eq!(rc, OK);
                bound.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(900));
            });
            wait_bound.recv().unwrap();
            // main's part before the worker's malloc: it waits, then fails
            assert_eq!(t.malloc(2048, HUGE_FIRST).unwrap_err(), REPLAY_DIVERGED);
        });
        let status = t.s.replay_status();
        assert_eq!(status.state, ReplayState::Diverged);
        assert!(
            status
                .text
                .contains("waited 300 ms for trace seq 4 (aclrtMalloc"),
            "{}",
            status.text
        );
        t.s.reset();
        return;
    }
    let path = {
        let t = T::new();
        record_threads(&t, "overtake")
    };
    let out = run_child_within(
        NAME,
        &[
            ("TEST_TRACE", path.to_str().unwrap()),
            ("ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS", "300"),
        ],
        std::time::Duration::from_secs(60),
    )
    .expect("the child ends");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn an_incomplete_replay_from_the_environment_reports_at_exit_and_fails_the_process() {
    const NAME: &str =
        "an_incomplete_replay_from_the_environment_reports_at_exit_and_fails_the_process";
    let path = temp("env");
    let report = temp("env-report");
    if is_child(NAME) {
        // ASCENDCL_MOCK_REPLAY was read at load: no reset here
        let lib = ascendcl_mock::library().unwrap();
        let mut count = 0u32;
        // SAFETY: valid out-pointer.
        assert_eq!(unsafe { lib.aclrtGetDeviceCount(&mut count) }.unwrap(), OK);
        assert_eq!(count, 3, "the device count comes from the trace");
        return;
    }
    let trace = [
        r#"{"format":"ascendcl-trace","version":1,"producer":"test"}"#,
        r#"{"seq":1,"thread":1,"fn":"aclrtGetDeviceCount","args":{},"out":{"count":3},"ret":0,"t_ns":0,"dur_ns":1}"#,
        r#"{"seq":2,"thread":1,"fn":"aclrtSetDevice","args":{"deviceId":0},"out":{},"ret":0,"t_ns":0,"dur_ns":1}"#,
    ];
    std::fs::write(&path, trace.join("\n")).unwrap();
    let _ = std::fs::remove_file(&report);
    let out = run_child(
        NAME,
        &[
            ("ASCENDCL_MOCK_REPLAY", path.to_str().unwrap()),
            ("ASCENDCL_MOCK_REPLAY_REPORT", report.to_str().unwrap()),
        ],
    );
    // the child's own test passed, but the replay is incomplete: it fails
    assert_eq!(
        out.status.code(),
        Some(ascendcl_mock::REPLAY_FAILED_EXIT),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let status =
        ascendcl_mock::ReplayStatus::parse(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(status.state, ReplayState::Replaying);
    assert_eq!((status.matched, status.remaining), (1, 1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("did not complete: 1 of 2 calls matched, 1 not made"),
        "{stderr}"
    );
    std::fs::remove_file(path).unwrap();
    std::fs::remove_file(report).unwrap();
}
