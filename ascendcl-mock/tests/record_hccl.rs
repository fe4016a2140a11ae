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

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Barrier, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ascendcl_mock::trace::Trace;
use ascendcl_mock::{LIBRARY_PATH, Mock, RECORDER_PATH, Recorder, ReplayMode};
use ascendcl_sys::hccl::{Hccl, hccl_for};
use ascendcl_sys::*;

const OK: i32 = ACL_SUCCESS;
const COUNT: u64 = 256;

/// A directory holding the shim as the runtime library and its HCCL face as
/// `libhccl.so`, the layout a dlopen-based loader needs (beside the built
/// libraries, made once and shared by every run).
fn shim_dir() -> PathBuf {
    let built = Path::new(RECORDER_PATH).parent().unwrap();
    let dir = built.join("record-with-hccl");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, file) in [
        ("libascendcl_record.so", "libascendcl_record.so"),
        ("libhccl.so", "libhccl_record.so"),
    ] {
        match std::os::unix::fs::symlink(built.join(file), dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("{name}: {e}"),
            _ => {}
        }
    }
    dir
}

/// Exclusive use of the shim and the mock, both reset, recording into a
/// trace removed at the end.
struct Rec {
    _guard: MutexGuard<'static, ()>,
    lib: &'static Library,
    hccl: &'static Hccl,
    path: PathBuf,
}

impl Rec {
    fn start(name: &str) -> Rec {
        static LOCK: Mutex<()> = Mutex::new(());
        let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        let lib = select_library(shim_dir().join("libascendcl_record.so")).expect("the shim loads");
        let hccl = hccl_for(Some(lib)).expect("libhccl.so beside the shim loads");
        let mock = Mock::get();
        mock.reset();
        // a diverged rank leaves its peer waiting: let that end soon
        mock.set_hccl_timeouts(Duration::from_secs(5), Duration::from_secs(2));
        let path = std::env::temp_dir().join(format!(
            "aclrecord-hccl-{}-{name}.jsonl",
            std::process::id()
        ));
        Recorder::get()
            .start(&path, Some(Path::new(LIBRARY_PATH)))
            .unwrap();
        Rec {
            _guard: guard,
            lib,
            hccl,
            path,
        }
    }
}

impl Drop for Rec {
    fn drop(&mut self) {
        Recorder::get().stop();
        Mock::get().stop_replay();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What each rank does on its stream.
#[derive(Clone, Copy)]
enum Work {
    /// An in-place all-reduce (sum) of this many elements.
    AllReduce(u64),
    /// Inside HcclGroupStart/End: send the rank's `COUNT` elements to the
    /// other rank and receive the other's behind them.
    Exchange,
}

/// One rank: its device, a stream, `COUNT` f32 of value rank + 1 followed by
/// room for as many, the `work`; every return code in call order, and the
/// first element of the result (0 when a call failed).
fn rank(
    lib: &Library,
    hccl: &Hccl,
    r: u32,
    comm: HcclComm,
    work: Work,
    both: &Barrier,
) -> (Vec<i32>, f32) {
    let mut codes = Vec::new();
    let mut data = vec![(r + 1) as f32; COUNT as usize];
    let bytes = std::mem::size_of_val(data.as_slice());
    let mut stream: aclrtStream = std::ptr::null_mut();
    let mut dev: *mut c_void = std::ptr::null_mut();
    let fp32 = HcclDataType::HCCL_DATA_TYPE_FP32;
    // SAFETY: every pointer passed is valid for its call (`data` holds
    // `bytes` bytes, `dev` twice as many once allocated), the stream and the
    // comm are live ones, and the stream is synchronized before `dev` is
    // freed.
    unsafe {
        codes.push(lib.aclrtSetDevice(r as i32).unwrap());
        codes.push(lib.aclrtCreateStream(&mut stream).unwrap());
        codes.push(
            lib.aclrtMalloc(&mut dev, 2 * bytes, aclrtMemMallocPolicy(0))
                .unwrap(),
        );
        let h2d = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
        codes.push(
            lib.aclrtMemcpy(dev, bytes, data.as_ptr().cast(), bytes, h2d)
                .unwrap(),
        );
        let second = dev.cast::<u8>().add(bytes).cast::<c_void>();
        let result = match work {
            Work::AllReduce(count) => {
                let sum = HcclReduceOp::HCCL_REDUCE_SUM;
                codes.push(
                    hccl.HcclAllReduce(dev, dev, count, fp32, sum, comm, stream)
                        .unwrap()
                        .0 as i32,
                );
                dev
            }
            Work::Exchange => {
                let peer = 1 - r;
                codes.push(hccl.HcclGroupStart().unwrap().0 as i32);
                codes.push(
                    hccl.HcclSend(dev, COUNT, fp32, peer, comm, stream)
                        .unwrap()
                        .0 as i32,
                );
                codes.push(
                    hccl.HcclRecv(second, COUNT, fp32, peer, comm, stream)
                        .unwrap()
                        .0 as i32,
                );
                codes.push(hccl.HcclGroupEnd().unwrap().0 as i32);
                second
            }
        };
        // both ranks' work starts before either waits for it, in the
        // recording and in the replay
        both.wait();
        codes.push(lib.aclrtSynchronizeStream(stream).unwrap());
        let d2h = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST;
        codes.push(
            lib.aclrtMemcpy(data.as_mut_ptr().cast(), bytes, result, bytes, d2h)
                .unwrap(),
        );
        codes.push(lib.aclrtFree(dev).unwrap());
        codes.push(lib.aclrtDestroyStream(stream).unwrap());
        codes.push(lib.aclrtResetDevice(r as i32).unwrap());
    }
    let ok = codes.iter().all(|&c| c == OK);
    (codes, if ok { data[0] } else { 0.0 })
}

/// The program: communicators for devices 0 and 1 (HcclCommInitAll), one
/// thread per rank doing `work`, then both destroyed. Every return code and
/// each rank's first result element.
fn program(lib: &Library, hccl: &Hccl, work: Work) -> (Vec<i32>, Vec<f32>) {
    let mut devices = [0i32, 1];
    let mut comms: [HcclComm; 2] = [std::ptr::null_mut(); 2];
    // SAFETY: `devices` and `comms` hold two elements each.
    let init = unsafe { hccl.HcclCommInitAll(2, devices.as_mut_ptr(), comms.as_mut_ptr()) };
    let mut codes = vec![init.unwrap().0 as i32];
    if codes[0] != OK {
        return (codes, vec![]);
    }
    let both = Barrier::new(2);
    let results: Vec<(Vec<i32>, f32)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2u32)
            .map(|r| {
                // a raw pointer is not Send: the handle crosses as a number
                let (comm, both) = (comms[r as usize] as usize, &both);
                s.spawn(move || rank(lib, hccl, r, comm as HcclComm, work, both))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut values = Vec::new();
    for (c, v) in results {
        codes.extend(c);
        values.push(v);
    }
    for comm in comms {
        // SAFETY: a communicator HcclCommInitAll returned, destroyed once.
        codes.push(unsafe { hccl.HcclCommDestroy(comm) }.unwrap().0 as i32);
    }
    (codes, values)
}

/// A fresh mock replaying `path` strictly.
fn replay_strictly(path: &Path) -> &'static Mock {
    let mock = Mock::get();
    mock.reset();
    mock.set_hccl_timeouts(Duration::from_secs(5), Duration::from_secs(2));
    mock.replay(path, ReplayMode::Strict).unwrap();
    mock
}

/// The trace's records of HCCL functions.
fn hccl_records(t: &Trace) -> Vec<&ascendcl_mock::trace::Record> {
    t.records
        .iter()
        .filter(|r| r.function.starts_with("Hccl"))
        .collect()
}

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
