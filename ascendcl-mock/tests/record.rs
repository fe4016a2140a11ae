//! The recording shim, recording over the mock: in this process (the shim
//! is the selected library, the mock its target), and a C program under
//! `LD_PRELOAD` with no target (the shim finds the next definition). What it
//! records must replay strictly on the mock.
//!
//! Every test here uses the shim, never the mock directly, so this binary
//! selects the shim; a process-wide lock keeps one recording at a time.

use std::ffi::{CStr, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};

use ascendcl_mock::trace::{Symbol, Trace};
use ascendcl_mock::{LIBRARY_PATH, Mock, RECORDER_PATH, Recorder, ReplayMode};
use ascendcl_sys::*;

const OK: i32 = ACL_SUCCESS;

/// Exclusive use of the shim and the mock, both reset.
struct Rec {
    _guard: MutexGuard<'static, ()>,
    lib: &'static Library,
    path: PathBuf,
}

impl Rec {
    fn start(name: &str) -> Rec {
        static LOCK: Mutex<()> = Mutex::new(());
        let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        let lib = select_library(RECORDER_PATH).expect("the shim loads");
        Mock::get().reset();
        let path =
            std::env::temp_dir().join(format!("aclrecord-{}-{name}.jsonl", std::process::id()));
        Recorder::get()
            .start(&path, Some(Path::new(LIBRARY_PATH)))
            .unwrap();
        Rec {
            _guard: guard,
            lib,
            path,
        }
    }

    fn trace(&self) -> Trace {
        Trace::read(&self.path).unwrap()
    }

    fn recent_msg(&self) -> Option<String> {
        // SAFETY: no arguments; the text is copied before the next call.
        let p = unsafe { self.lib.aclGetRecentErrMsg() }.unwrap();
        // SAFETY: a non-null result is a NUL-terminated string.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

impl Drop for Rec {
    fn drop(&mut self) {
        Recorder::get().stop();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A program using every kind of symbol: contexts, streams, events, device
/// and pinned memory, a reserved range with a mapping, and a failure.
fn program(r: &Rec) {
    let lib = r.lib;
    // SAFETY: every pointer passed is valid for its call, and every handle
    // is one the runtime returned and has not destroyed yet.
    unsafe {
        assert_eq!(lib.aclInit(std::ptr::null()).unwrap(), OK);
        assert_eq!(lib.aclrtSetDevice(0).unwrap(), OK);
        let mut ctx: aclrtContext = std::ptr::null_mut();
        assert_eq!(lib.aclrtGetCurrentContext(&mut ctx).unwrap(), OK);
        let (mut dev, mut host) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(
            lib.aclrtMalloc(&mut dev, 1 << 20, aclrtMemMallocPolicy(0))
                .unwrap(),
            OK
        );
        assert_eq!(lib.aclrtMallocHost(&mut host, 4096).unwrap(), OK);
        let mut stream: aclrtStream = std::ptr::null_mut();
        assert_eq!(lib.aclrtCreateStream(&mut stream).unwrap(), OK);
        let mut event: aclrtEvent = std::ptr::null_mut();
        assert_eq!(lib.aclrtCreateEvent(&mut event).unwrap(), OK);
        let inner = dev.cast::<u8>().add(256).cast::<c_void>();
        let kind = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
        assert_eq!(
            lib.aclrtMemcpyAsync(inner, 4096, host, 4096, kind, stream)
                .unwrap(),
            OK
        );
        assert_eq!(lib.aclrtRecordEvent(event, stream).unwrap(), OK);
        assert_eq!(lib.aclrtSynchronizeEvent(event).unwrap(), OK);
        let mut va = std::ptr::null_mut();
        let rc = lib.aclrtReserveMemAddress(&mut va, 4 << 20, 0, std::ptr::null_mut(), 0);
        assert_eq!(rc.unwrap(), OK);
        let prop = aclrtPhysicalMemProp {
            handleType: aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE,
            allocationType: aclrtMemAllocationType::ACL_MEM_ALLOCATION_TYPE_PINNED,
            memAttr: aclrtMemAttr::ACL_HBM_MEM_HUGE,
            location: aclrtMemLocation {
                id: 0,
                type_: aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE,
            },
            reserve: 0,
        };
        let mut phys: aclrtDrvMemHandle = std::ptr::null_mut();
        assert_eq!(
            lib.aclrtMallocPhysical(&mut phys, 2 << 20, &prop, 0)
                .unwrap(),
            OK
        );
        let page = va.cast::<u8>().add(2 << 20).cast::<c_void>();
        assert_eq!(lib.aclrtMapMem(page, 2 << 20, 0, phys, 0).unwrap(), OK);
        assert_eq!(lib.aclrtMemset(page, 2 << 20, 0, 64).unwrap(), OK);
        assert_eq!(
            lib.aclrtSetDevice(99).unwrap(),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        let msg = r
            .recent_msg()
            .expect("the failure's text reaches the program");
        assert!(msg.contains("99"), "{msg}");
        assert_eq!(lib.aclrtUnmapMem(page).unwrap(), OK);
        assert_eq!(lib.aclrtFreePhysical(phys).unwrap(), OK);
        assert_eq!(lib.aclrtReleaseMemAddress(va).unwrap(), OK);
        assert_eq!(lib.aclrtDestroyEvent(event).unwrap(), OK);
        assert_eq!(lib.aclrtDestroyStream(stream).unwrap(), OK);
        assert_eq!(lib.aclrtFreeHost(host).unwrap(), OK);
        assert_eq!(lib.aclrtFree(dev).unwrap(), OK);
        assert_eq!(lib.aclrtResetDevice(0).unwrap(), OK);
        assert_eq!(lib.aclFinalize().unwrap(), OK);
    }
}

fn args(t: &Trace, function: &str) -> Vec<String> {
    t.records
        .iter()
        .filter(|r| r.function == function)
        .map(|r| r.args.to_string())
        .collect()
}

#[test]
fn the_shim_exports_every_function_of_the_header() {
    let r = Rec::start("exports");
    for name in FUNCTIONS {
        assert!(r.lib.has_symbol(name), "the shim lacks {name}");
    }
    assert_eq!(Recorder::get().exported_functions(), FUNCTIONS.len() as u64);
}

#[test]
fn a_recording_names_everything_symbolically_and_keeps_messages() {
    let r = Rec::start("symbols");
    program(&r);
    let t = r.trace();
    assert_eq!(t.producer(), Some("ascendcl-record"));
    let target = t.header_field("target").and_then(|v| v.as_str()).unwrap();
    assert_eq!(target, LIBRARY_PATH);
    assert_eq!(t.records.len() as u64, Recorder::get().calls());
    let seqs: Vec<u64> = t.records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=t.records.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        args(&t, "aclrtMemcpyAsync"),
        [r#"{"dst":"m1+0x100","destMax":4096,"src":"h1+0x0","count":4096,"kind":1,"stream":"s1"}"#]
    );
    assert_eq!(
        args(&t, "aclrtMapMem"),
        [r#"{"virPtr":"v1+0x200000","size":2097152,"offset":0,"handle":"p1","flags":0}"#]
    );
    assert_eq!(
        args(&t, "aclrtRecordEvent"),
        [r#"{"event":"e1","stream":"s1"}"#]
    );
    assert_eq!(args(&t, "aclrtFree"), [r#"{"devPtr":"m1+0x0"}"#]);
    let ctx = t
        .records
        .iter()
        .find(|r| r.function == "aclrtGetCurrentContext")
        .unwrap();
    assert_eq!(
        ctx.output("context").and_then(Symbol::of),
        Some(Symbol::Handle('c', 1))
    );
    let failed = t.records.iter().find(|r| r.failed()).unwrap();
    assert_eq!(failed.function, "aclrtSetDevice");
    let msg = failed.msg.clone().unwrap();
    assert!(msg.contains("device id 99"), "{msg}");
    // the shim read the text for the trace; the program still got it, once
    let reads: Vec<_> = t
        .records
        .iter()
        .filter(|r| r.function == "aclGetRecentErrMsg")
        .collect();
    assert_eq!(reads.len(), 1);
    assert_eq!(
        reads[0].output("msg").and_then(|v| v.as_str()),
        Some(msg.as_str())
    );
    assert!(t.records.iter().all(|r| r.thread == 1 && r.dur_ns > 0));
}

#[test]
fn a_recording_over_the_mock_replays_strictly() {
    let r = Rec::start("replay");
    program(&r);
    Recorder::get().stop();
    let mock = Mock::get();
    mock.reset();
    mock.replay(&r.path, ReplayMode::Strict).unwrap();
    program(&r);
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    mock.stop_replay();
}

#[test]
fn a_function_the_target_lacks_fails_cleanly() {
    let r = Rec::start("missing");
    // the shim as its own target: every function would call itself
    Recorder::get()
        .start(&r.path, Some(Path::new(RECORDER_PATH)))
        .unwrap();
    let mut count = 0u32;
    // SAFETY: valid out-pointer.
    let rc = unsafe { r.lib.aclrtGetDeviceCount(&mut count) }.unwrap();
    assert_eq!(rc, ACL_ERROR_API_NOT_SUPPORT);
    let msg = r.recent_msg().unwrap();
    assert!(
        msg.contains("aclrtGetDeviceCount is not exported by"),
        "{msg}"
    );
    let t = r.trace();
    assert_eq!(t.records[0].ret, ACL_ERROR_API_NOT_SUPPORT);
    assert!(
        t.records[0]
            .msg
            .as_deref()
            .unwrap()
            .contains("not exported")
    );
    Recorder::get()
        .start(&r.path, Some(Path::new(LIBRARY_PATH)))
        .unwrap();
    // SAFETY: valid out-pointer.
    let rc = unsafe { r.lib.aclrtGetDeviceCount(&mut count) };
    assert_eq!(rc.unwrap(), OK);
}

#[test]
fn threads_record_concurrently() {
    let r = Rec::start("threads");
    // SAFETY: plain integer argument.
    assert_eq!(unsafe { r.lib.aclrtSetDevice(0) }.unwrap(), OK);
    let mut ctx: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { r.lib.aclrtGetCurrentContext(&mut ctx) };
    assert_eq!(rc.unwrap(), OK);
    let ctx = ctx as usize;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                // SAFETY: a live context; valid out-pointers; each block is
                // freed once by the thread that allocated it.
                unsafe {
                    assert_eq!(
                        r.lib.aclrtSetCurrentContext(ctx as aclrtContext).unwrap(),
                        OK
                    );
                    for _ in 0..50 {
                        let mut p = std::ptr::null_mut();
                        assert_eq!(
                            r.lib
                                .aclrtMalloc(&mut p, 4096, aclrtMemMallocPolicy(0))
                                .unwrap(),
                            OK
                        );
                        assert_eq!(r.lib.aclrtFree(p).unwrap(), OK);
                    }
                }
            });
        }
    });
    // SAFETY: plain integer argument.
    assert_eq!(unsafe { r.lib.aclrtResetDevice(0) }.unwrap(), OK);
    let t = r.trace();
    assert_eq!(t.records.len(), 3 + 4 * 101);
    for thread in 2..=5 {
        let mine: Vec<_> = t.records.iter().filter(|r| r.thread == thread).collect();
        assert_eq!(mine.len(), 101);
        for pair in mine[1..].chunks(2) {
            let block = pair[0].output("devPtr").unwrap().as_str().unwrap();
            assert_eq!(pair[1].arg("devPtr").unwrap().as_str(), Some(block));
        }
    }
}

#[test]
fn ld_preload_records_a_c_program_without_a_target() {
    let _r = Rec::start("preload");
    let dir = std::env::temp_dir();
    let pattern = dir.join(format!("aclrecord-preload-{}-%p.jsonl", std::process::id()));
    let run = |trace: &Path| {
        Command::new(env!("ASCENDCL_RECORD_PROBE_PATH"))
            .env("LD_PRELOAD", RECORDER_PATH)
            .env("ASCENDCL_RECORD_TRACE", trace)
            .env_remove("ASCENDCL_RECORD_TARGET")
            .output()
            .unwrap()
    };
    let out = run(&pattern);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok 8 devices"));
    let written = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ascendcl-record: recording AscendCL calls to "))
        .and_then(|l| l.split(" (target ").next())
        .unwrap()
        .to_string();
    assert!(!written.contains("%p"), "{written}");
    let t = Trace::read(&written).unwrap();
    let target = t.header_field("target").and_then(|v| v.as_str()).unwrap();
    assert!(
        target.ends_with("libascendcl.so"),
        "the next definition: {target}"
    );
    assert_eq!(
        t.header_field("program").and_then(|v| v.as_str()),
        Some("record_probe")
    );
    let names: Vec<&str> = t.records.iter().map(|r| r.function.as_str()).collect();
    assert_eq!(names.len(), 13, "{names:?}");
    assert_eq!(
        names.iter().filter(|n| **n == "aclGetRecentErrMsg").count(),
        1
    );
    assert!(t.records[7].msg.as_deref().unwrap().contains("999"));

    // a second process with the same file name writes its own file
    let fixed = dir.join(format!("aclrecord-preload-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&fixed);
    assert!(run(&fixed).status.success());
    let second = run(&fixed);
    let stderr = String::from_utf8_lossy(&second.stderr);
    let other = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ascendcl-record: recording AscendCL calls to "))
        .and_then(|l| l.split(" (target ").next())
        .unwrap()
        .to_string();
    assert_ne!(Path::new(&other), fixed.as_path());
    assert!(other.ends_with(".jsonl"), "{other}");
    assert_eq!(Trace::read(&other).unwrap().records.len(), 13);
    for f in [written, other] {
        std::fs::remove_file(f).unwrap();
    }
    std::fs::remove_file(fixed).unwrap();
}
