//! The recording shim over HCCL: a two-rank all-reduce (one thread per
//! rank) run through the shim records its HCCL calls with the mock's journal
//! keys in the same trace as its runtime calls, the trace replays strictly on
//! the mock, and a changed collective count makes that replay diverge.
//!
//! The program reaches HCCL as ascendcl-sys does on a card: the runtime
//! library in use is `libascendcl_record.so` in a directory whose
//! `libhccl.so` is `libhccl_record.so`, and [`hccl::hccl_for`] opens that
//! `libhccl.so` beside it. The shim forwards HCCL calls to the mock's
//! `libhccl.so`, found beside the runtime target (the mock).

mod record_hccl_support;

use ascendcl_mock::Recorder;
use ascendcl_mock::trace::Trace;
use record_hccl_support::*;

#[test]
fn hccl_calls_of_two_ranks_record_with_the_mocks_keys_in_the_runtime_trace() {
    let r = Rec::start("keys");
    let (codes, values) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [3.0, 3.0], "1 + 2 on both ranks");
    Recorder::get().stop();
    let t = Trace::read(&r.path).unwrap();
    let h = hccl_records(&t);
    let names: Vec<&str> = h.iter().map(|r| r.function.as_str()).collect();
    assert_eq!(
        names.iter().filter(|n| **n == "HcclAllReduce").count(),
        2,
        "{names:?}"
    );
    assert_eq!(names[0], "HcclCommInitAll");
    assert_eq!(names[3..], ["HcclCommDestroy", "HcclCommDestroy"]);
    assert_eq!(h[0].args.get("ndev").and_then(|v| v.as_u64()), Some(2));
    assert_eq!(
        h[0].args.get("devices").and_then(|v| v.as_str()),
        Some("[0,1]")
    );
    let mut comms = Vec::new();
    for ar in &h[1..3] {
        let s = |k: &str| ar.args.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let n = |k: &str| ar.args.get(k).and_then(|v| v.as_u64());
        assert_eq!(n("count"), Some(COUNT), "{:?}", ar.args);
        assert_eq!(n("dataType"), Some(4), "FP32");
        assert_eq!(n("op"), Some(0), "SUM");
        // the buffers and the stream carry the runtime calls' symbolic names
        let send = s("sendBuf").unwrap();
        assert!(send.starts_with('m') && send.ends_with("+0x0"), "{send}");
        assert_eq!(s("recvBuf"), Some(send));
        assert!(s("stream").unwrap().starts_with('s'));
        assert_eq!(ar.ret, 0);
        comms.push(s("comm").unwrap());
    }
    comms.sort();
    assert_eq!(comms, ["comm1", "comm2"]);
    let destroyed: Vec<_> = h[3..]
        .iter()
        .map(|r| r.args.get("comm").and_then(|v| v.as_str()))
        .collect();
    assert_eq!(destroyed, [Some("comm1"), Some("comm2")]);
    // one trace: the runtime calls of both threads are in it too
    assert!(
        t.records
            .iter()
            .any(|r| r.function == "aclrtSynchronizeStream")
    );
    let threads: std::collections::BTreeSet<u64> = h[1..3].iter().map(|r| r.thread).collect();
    assert_eq!(threads.len(), 2, "each rank's collective on its own thread");
}

#[test]
fn a_recorded_two_rank_all_reduce_replays_strictly_on_the_mock() {
    let r = Rec::start("replay");
    let (codes, _) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    Recorder::get().stop();
    let mock = replay_strictly(&r.path);
    let (codes, values) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [3.0, 3.0]);
}

#[test]
fn a_changed_all_reduce_count_in_the_recording_fails_the_strict_replay_there() {
    let r = Rec::start("corrupt");
    let (codes, _) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    Recorder::get().stop();
    let text = std::fs::read_to_string(&r.path).unwrap();
    let from = format!("\"count\":{COUNT},");
    let corrupted: String = text
        .lines()
        .map(|l| {
            if l.contains("\"fn\":\"HcclAllReduce\"") {
                l.replace(&from, &format!("\"count\":{},", COUNT - 1))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(corrupted.trim(), text.trim(), "the count was in the trace");
    std::fs::write(&r.path, corrupted + "\n").unwrap();
    let mock = replay_strictly(&r.path);
    let (codes, _) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    let status = mock.replay_status();
    assert!(!status.is_complete(), "{}", status.text);
    assert!(
        codes.contains(&599_999),
        "the diverging call fails: {codes:?}"
    );
    let d = status
        .divergence
        .as_ref()
        .expect("a divergence is reported");
    assert_eq!(d.actual.function, "HcclAllReduce", "{}", status.text);
    assert!(d.reason.contains("count"), "{}", status.text);
}

#[test]
fn a_grouped_send_recv_records_how_many_calls_were_kept_and_replays_strictly() {
    let r = Rec::start("group");
    let (codes, values) = program(r.lib, r.hccl, Work::Exchange);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [2.0, 1.0], "each rank got the other's elements");
    Recorder::get().stop();
    let t = Trace::read(&r.path).unwrap();
    let h = hccl_records(&t);
    let count = |f: &str| h.iter().filter(|r| r.function == f).count();
    assert_eq!(
        (
            count("HcclGroupStart"),
            count("HcclSend"),
            count("HcclRecv")
        ),
        (2, 2, 2)
    );
    for end in h.iter().filter(|r| r.function == "HcclGroupEnd") {
        assert_eq!(
            end.args.get("kept").and_then(|v| v.as_u64()),
            Some(2),
            "{:?}",
            end.args
        );
    }
    let send = h.iter().find(|r| r.function == "HcclSend").unwrap();
    assert_eq!(send.args.get("count").and_then(|v| v.as_u64()), Some(COUNT));
    assert!(send.args.get("destRank").is_some() && send.args.get("sendBuf").is_some());
    let recv = h.iter().find(|r| r.function == "HcclRecv").unwrap();
    let recv_buf = recv.args.get("recvBuf").and_then(|v| v.as_str()).unwrap();
    assert!(
        recv_buf.ends_with(&format!("+0x{:x}", COUNT * 4)),
        "{recv_buf}"
    );
    let mock = replay_strictly(&r.path);
    let (codes, values) = program(r.lib, r.hccl, Work::Exchange);
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [2.0, 1.0]);
}
