//! HCCL calls in the mock's journal, traces and happens-before model: they
//! are journaled with their arguments, a trace of them replays strictly (a
//! changed collective diverges at that call), and a collective's reads and
//! writes are ordered against other streams like a copy's.

mod common;
mod hccl_support;

use ascendcl_mock::{Misuse, ReplayMode};
use hccl_support::*;

/// A trace file removed when the test ends, passed or not.
struct TempTrace(std::path::PathBuf);

impl TempTrace {
    fn new(name: &str) -> TempTrace {
        TempTrace(
            std::env::temp_dir().join(format!("aclmock-hccl-{name}-{}.jsonl", std::process::id())),
        )
    }
}

impl Drop for TempTrace {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A one-rank program: init, an AllReduce of `count` f32, queries, destroy.
fn program(t: &common::T, count: u64) -> Vec<i32> {
    let mut codes = vec![t.set_device(0)];
    let comms = init_all(1);
    let stream = t.create_stream().unwrap();
    let buf = t.malloc(4096, 0).unwrap();
    // SAFETY: 4096 bytes hold up to 1024 f32; live comm and stream.
    codes.push(unsafe {
        f::<AllReduce>("HcclAllReduce")(buf, buf, count, FP32, SUM, comms[0], stream)
    });
    codes.push(t.sync_stream(stream));
    let mut size = 0u32;
    // SAFETY: a live comm and an out-pointer.
    codes.push(unsafe { f::<CommU32>("HcclGetRankSize")(comms[0], &mut size) });
    codes.push(destroy(comms[0]));
    codes.push(t.free(buf));
    codes.push(t.destroy_stream(stream));
    codes.push(t.reset_device(0));
    codes
}

#[test]
fn hccl_calls_are_journaled_with_arguments_and_results() {
    let t = fresh(5000, 5000);
    assert!(program(&t, 7).iter().all(|&c| c == 0));
    let lines: Vec<String> =
        t.s.journal()
            .into_iter()
            .filter(|e| e.function().starts_with("Hccl"))
            .map(|e| e.line)
            .collect();
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert!(lines[0].contains("\"fn\":\"HcclCommInitAll\"") && lines[0].contains("\"ndev\":1"));
    assert!(lines[1].contains("\"fn\":\"HcclAllReduce\"") && lines[1].contains("\"count\":7"));
    assert!(lines[1].contains("\"comm\":\"comm1\"") && lines[1].contains("\"op\":0"));
    assert!(lines[2].contains("\"rankSize\":1"), "{}", lines[2]);
    assert!(lines[3].contains("\"fn\":\"HcclCommDestroy\""));
}

#[test]
fn a_trace_with_hccl_calls_replays_strictly_and_a_changed_count_diverges_there() {
    let t = fresh(5000, 5000);
    let trace = TempTrace::new("trace");
    let path = &trace.0;
    assert!(program(&t, 7).iter().all(|&c| c == 0));
    t.s.save_trace(path).unwrap();
    t.s.reset();
    t.s.replay(path, ReplayMode::Strict).unwrap();
    let codes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| program(&t, 7)));
    assert!(
        codes.is_ok_and(|c| c.iter().all(|&c| c == 0)),
        "{}",
        t.s.replay_status().text
    );
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    t.s.reset();
    t.s.replay(path, ReplayMode::Strict).unwrap();
    let codes = program(&t, 9);
    assert_eq!(codes[1], ascendcl_mock::REPLAY_DIVERGED, "{codes:?}");
    let d = t.s.replay_status().divergence.expect("a divergence");
    assert_eq!(d.actual.function, "HcclAllReduce", "{d:?}");
    assert!(d.reason.contains("count"), "{d:?}");
    t.s.reset();
}

#[test]
fn a_collective_write_read_by_another_stream_without_an_event_is_an_unordered_access() {
    let t = fresh(5000, 5000);
    let comms = init_all(1);
    assert_eq!(t.set_device(0), 0);
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    let buf = t.malloc(64, 0).unwrap();
    let out = t.malloc(64, 0).unwrap();
    // SAFETY: 64-byte buffers hold 16 f32; live comm and streams.
    let ar = || unsafe { f::<AllReduce>("HcclAllReduce")(buf, buf, 16, FP32, SUM, comms[0], a) };
    assert_eq!(ar(), SUCCESS);
    // ordered: an event recorded on a after the collective, waited on by b
    let e = t.create_event();
    assert_eq!(t.record(e, a), 0);
    // SAFETY: plain handles.
    assert_eq!(unsafe { t.lib.aclrtStreamWaitEvent(b, e) }.unwrap(), 0);
    assert_eq!(t.memcpy_async(out, 64, buf, 64, common::D2D, b), 0);
    assert_eq!(t.s.misuse(Misuse::UnorderedAccess), 0);
    // unordered: the next collective writes `buf` while b may still read it
    assert_eq!(ar(), SUCCESS);
    assert_eq!(
        t.s.misuse(Misuse::UnorderedAccess),
        1,
        "{}",
        t.s.misuse_log()
    );
    assert_eq!(t.sync_stream(a), 0);
    assert_eq!(t.sync_stream(b), 0);
    assert_eq!(t.destroy_event(e), 0);
    for p in [buf, out] {
        assert_eq!(t.free(p), 0);
    }
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), 0);
    }
    assert_eq!(destroy(comms[0]), SUCCESS);
}

/// Two ranks on their threads: an AllReduce each (threads are matched to the
/// trace's by their calls).
fn two_ranks(t: &common::T) -> Vec<i32> {
    ranks(t, 2, |r| {
        let buf = r.upload(&[0; 16]);
        // SAFETY: 16 bytes hold 4 f32; live comm and stream.
        let rc =
            unsafe { f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, SUM, r.comm, r.stream) };
        let sync = r.sync();
        r.free(buf);
        rc | sync
    })
}

#[test]
fn a_two_rank_trace_replays_strictly_with_a_thread_per_rank() {
    let t = fresh(5000, 5000);
    let trace = TempTrace::new("trace2");
    let path = &trace.0;
    assert_eq!(two_ranks(&t), [0, 0]);
    t.s.save_trace(path).unwrap();
    t.s.reset();
    t.s.replay(path, ReplayMode::Strict).unwrap();
    assert_eq!(two_ranks(&t), [0, 0]);
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    t.s.reset();
}
