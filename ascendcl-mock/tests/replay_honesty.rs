//! Replay that never lies about what the program did: a recorded failure
//! that changes state is replayed with its effect and checked; a call an
//! edited trace turns into a failure still delivers its message; a poll loop
//! may poll a different number of times than recorded; lenient facts stay
//! consistent.

mod common;

use std::path::PathBuf;

use ascendcl_mock::{REPLAY_DIVERGED, ReplayMode, ReplayState};
use ascendcl_sys::*;
use common::*;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "aclmock-honesty-{}-{name}.jsonl",
        std::process::id()
    ))
}

fn init(t: &T) -> i32 {
    // SAFETY: a null config path is allowed.
    unsafe { t.lib.aclInit(std::ptr::null()) }.unwrap()
}

fn finalize_reference(t: &T) -> (i32, u64) {
    let mut count = u64::MAX;
    // SAFETY: a valid out-pointer.
    let rc = unsafe { t.lib.aclFinalizeReference(&mut count) }.unwrap();
    (rc, count)
}

/// aclInit twice (the second 100002), then the reference dropped twice.
fn init_program(t: &T) -> Vec<(i32, u64)> {
    vec![
        (init(t), 0),
        (init(t), 0),
        finalize_reference(t),
        finalize_reference(t),
    ]
}

#[test]
fn a_repeated_init_recorded_as_failed_raises_the_reference_count_in_the_replay() {
    let t = T::new();
    let path = temp("init");
    let recorded = init_program(&t);
    assert_eq!(
        recorded,
        vec![(OK, 0), (ACL_ERROR_REPEAT_INITIALIZE, 0), (OK, 1), (OK, 0)]
    );
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    // without the second aclInit's effect the second release would fail
    assert_eq!(init_program(&t), recorded);
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_recorded_repeat_init_the_mock_does_not_repeat_is_a_divergence() {
    let t = T::new();
    let path = temp("init-edited");
    assert_eq!(init(&t), OK);
    t.s.save_trace(&path).unwrap();
    // the first aclInit edited into a repeated one: the mock answers 0
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replacen("\"ret\":0", "\"ret\":100002", 1);
    std::fs::write(&path, text).unwrap();
    t.s.reset();
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    init(&t);
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Diverged);
    assert!(
        status
            .text
            .contains("failed in the trace with 100002 but returned 0 in the mock"),
        "{}",
        status.text
    );
    t.s.reset();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_call_an_edited_trace_turns_into_a_failure_delivers_its_message_to_the_next_query() {
    let t = T::new();
    let path = temp("edited-failure");
    assert_eq!(t.set_device(0), OK);
    let p = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.s.save_trace(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited: Vec<String> = text
        .lines()
        .map(|l| {
            if l.contains("\"fn\":\"aclrtMalloc\"") {
                l.replace(
                    "\"ret\":0",
                    "\"ret\":207001,\"msg\":\"EL0004: edited out of memory\"",
                )
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    t.s.reset();
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.malloc(4096, HUGE_FIRST).unwrap_err(), 207_001);
    // the trace has no aclGetRecentErrMsg here: the mock answers it
    assert_eq!(
        t.recent_msg().as_deref(),
        Some("EL0004: edited out of memory")
    );
    // SAFETY: a plain enum argument.
    let last = unsafe { t.lib.aclrtGetLastError(aclrtLastErrLevel(0)) }.unwrap();
    assert_eq!(last, 207_001);
    assert_eq!(t.s.replay_status().state, ReplayState::Replaying);
    t.s.reset();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_wait_loop_replays_its_recorded_timeouts_and_completes_on_a_slower_stream() {
    let t = T::with_device(0);
    let path = temp("poll");
    let s = t.create_stream().unwrap();
    // the recording: the stream is slow, three polls time out, one succeeds
    t.s.set_stream_delay(std::time::Duration::from_millis(400));
    let dev = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(dev, 4096, 0, 4096, s), OK);
    let mut recorded = Vec::new();
    loop {
        let rc = t.sync_stream_timeout(s, 10);
        recorded.push(rc);
        if rc != 507_046 {
            break;
        }
    }
    assert!(recorded.len() >= 2, "{recorded:?}");
    assert_eq!(recorded.last(), Some(&OK));
    assert_eq!(t.free(dev), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    t.s.save_trace(&path).unwrap();
    t.s.reset();

    // the recorded timeouts come back as recorded; on a slower stream the
    // recorded success waits longer (more polls)
    for delay_ms in [0, 1000] {
        t.s.replay(&path, ReplayMode::Strict).unwrap();
        t.s.set_stream_delay(std::time::Duration::from_millis(delay_ms));
        assert_eq!(t.set_device(0), OK);
        let s = t.create_stream().unwrap();
        let dev = t.malloc(4096, HUGE_FIRST).unwrap();
        assert_eq!(t.memset_async(dev, 4096, 0, 4096, s), OK);
        let mut polls = 1;
        while t.sync_stream_timeout(s, 10) == 507_046 {
            polls += 1;
            assert!(polls < 10_000, "the stream never finished");
        }
        // every recorded timeout is replayed; a stream slower than the
        // replay's pace (1 s here) makes the recorded success wait longer
        assert!(
            polls >= recorded.len(),
            "{polls} polls, {} recorded",
            recorded.len()
        );
        assert_eq!(t.free(dev), OK);
        assert_eq!(t.destroy_stream(s), OK);
        assert_eq!(t.reset_device(0), OK);
        let status = t.s.replay_status();
        assert!(status.is_complete(), "delay {delay_ms} ms: {}", status.text);
        t.s.reset();
    }
    std::fs::remove_file(path).unwrap();
}

#[test]
fn lenient_free_memory_never_exceeds_the_total_when_only_one_of_them_is_edited() {
    let t = T::new();
    let header = r#"{"format":"ascendcl-trace","version":1,"producer":"test"}"#;
    let gib: u64 = 1 << 30;
    for (what, free, total) in [
        ("total edited down", 60 * gib, gib),
        ("free edited up", 100 * gib, 30 * gib),
    ] {
        let path = temp("lenient");
        let line = format!(
            r#"{{"seq":1,"thread":1,"fn":"aclrtGetMemInfo","args":{{"attr":1}},"out":{{"free":{free},"total":{total}}},"ret":0,"t_ns":0,"dur_ns":1}}"#
        );
        std::fs::write(&path, format!("{header}\n{line}\n")).unwrap();
        t.s.reset();
        t.s.replay(&path, ReplayMode::Lenient).unwrap();
        assert_eq!(t.set_device(0), OK);
        let (f, tot) = t.mem_info();
        assert_eq!(tot as u64, total, "{what}");
        assert!(f <= tot, "{what}: free {f} > total {tot}");
        assert_eq!(t.reset_device(0), OK);
        std::fs::remove_file(path).unwrap();
    }
    t.s.reset();
}

#[test]
fn a_strict_call_that_diverges_is_reported_with_replay_diverged() {
    let t = T::new();
    let path = temp("diverge");
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(1), REPLAY_DIVERGED);
    t.s.reset();
    std::fs::remove_file(path).unwrap();
}
