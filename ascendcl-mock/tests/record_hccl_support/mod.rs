//! What the recording tests of HCCL share (tests/record_hccl.rs,
//! tests/record_hccl_v.rs): the shim and its HCCL face loaded in this
//! process recording over the mock, and a two-rank program.
#![allow(dead_code)]

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Barrier, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ascendcl_mock::trace::Trace;
use ascendcl_mock::{LIBRARY_PATH, Mock, RECORDER_PATH, Recorder, ReplayMode};
use ascendcl_sys::hccl::{Hccl, hccl_for};
use ascendcl_sys::*;

pub const OK: i32 = ACL_SUCCESS;
pub const COUNT: u64 = 256;

/// A directory holding the shim as the runtime library and its HCCL face as
/// `libhccl.so`, the layout a dlopen-based loader needs (beside the built
/// libraries, made once and shared by every run).
pub fn shim_dir() -> PathBuf {
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
pub struct Rec {
    _guard: MutexGuard<'static, ()>,
    pub lib: &'static Library,
    pub hccl: &'static Hccl,
    pub path: PathBuf,
}

impl Rec {
    pub fn start(name: &str) -> Rec {
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
pub enum Work {
    /// An in-place all-reduce (sum) of this many elements.
    AllReduce(u64),
    /// Inside HcclGroupStart/End: send the rank's `COUNT` elements to the
    /// other rank and receive the other's behind them.
    Exchange,
    /// An all-gather-V of `COUNT / 2` elements per rank, rank 1's block
    /// first in the result (displacements `[COUNT / 2, 0]`).
    GatherV,
}

/// One rank: its device, a stream, `COUNT` f32 of value rank + 1 followed by
/// room for as many, the `work`; every return code in call order, and the
/// first element of the result (0 when a call failed).
pub fn rank(
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
            Work::GatherV => {
                let half = COUNT / 2;
                let (counts, displs) = ([half, half], [half, 0u64]);
                codes.push(
                    hccl.HcclAllGatherV(
                        dev,
                        half,
                        second,
                        counts.as_ptr().cast(),
                        displs.as_ptr().cast(),
                        fp32,
                        comm,
                        stream,
                    )
                    .unwrap()
                    .0 as i32,
                );
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
pub fn program(lib: &Library, hccl: &Hccl, work: Work) -> (Vec<i32>, Vec<f32>) {
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
pub fn replay_strictly(path: &Path) -> &'static Mock {
    let mock = Mock::get();
    mock.reset();
    mock.set_hccl_timeouts(Duration::from_secs(5), Duration::from_secs(2));
    mock.replay(path, ReplayMode::Strict).unwrap();
    mock
}

/// The trace's records of HCCL functions.
pub fn hccl_records(t: &Trace) -> Vec<&ascendcl_mock::trace::Record> {
    t.records
        .iter()
        .filter(|r| r.function.starts_with("Hccl"))
        .collect()
}
