//! The recording shim over the start-up functions (issue 14): a program
//! using them records through the shim with the mock's keys, and the trace
//! replays strictly on the mock.
//!
//! This binary selects the shim, never the mock directly; a process-wide
//! lock keeps one recording at a time.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use ascendcl_mock::trace::Trace;
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
        let path = std::env::temp_dir().join(format!(
            "aclrecord-startup-{}-{name}.jsonl",
            std::process::id()
        ));
        Recorder::get()
            .start(&path, Some(Path::new(LIBRARY_PATH)))
            .unwrap();
        Rec {
            _guard: guard,
            lib,
            path,
        }
    }
}

impl Drop for Rec {
    fn drop(&mut self) {
        Recorder::get().stop();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A start-up sequence: settings, facts, a data buffer, a 2-D copy from
/// pinned memory, registered host memory and an event timestamp.
fn program(lib: &Library) {
    let mut caller = vec![5u8; 4096];
    // SAFETY: every pointer passed is valid for its call, every handle is one
    // the runtime returned and has not destroyed, and the registered
    // `caller` memory outlives its registration.
    unsafe {
        assert_eq!(lib.aclInit(std::ptr::null()).unwrap(), OK);
        assert_eq!(lib.aclrtSetDevice(0).unwrap(), OK);
        let mut default: aclrtStream = std::ptr::null_mut();
        assert_eq!(
            lib.aclrtCtxGetCurrentDefaultStream(&mut default).unwrap(),
            OK
        );
        let infnan = aclrtFloatOverflowMode::ACL_RT_OVERFLOW_MODE_INFNAN;
        assert_eq!(lib.aclrtSetDeviceSatMode(infnan).unwrap(), OK);
        let mut mode = aclrtFloatOverflowMode(9);
        assert_eq!(lib.aclrtGetDeviceSatMode(&mut mode).unwrap(), OK);
        let deterministic = aclSysParamOpt::ACL_OPT_DETERMINISTIC;
        assert_eq!(lib.aclrtCtxSetSysParamOpt(deterministic, 1).unwrap(), OK);
        let mut v = 0i64;
        assert_eq!(
            lib.aclrtCtxGetSysParamOpt(deterministic, &mut v).unwrap(),
            OK
        );
        let cores = aclrtDevAttr::ACL_DEV_ATTR_AICORE_CORE_NUM;
        assert_eq!(lib.aclrtGetDeviceInfo(0, cores, &mut v).unwrap(), OK);
        assert_eq!(lib.aclrtSetOpExecuteTimeOut(60).unwrap(), OK);
        let (mut dev, mut host) = (std::ptr::null_mut(), std::ptr::null_mut());
        let policy = aclrtMemMallocPolicy(0);
        assert_eq!(lib.aclrtMalloc(&mut dev, 1 << 16, policy).unwrap(), OK);
        assert_eq!(lib.aclrtMallocHost(&mut host, 4096).unwrap(), OK);
        let buffer = lib.aclCreateDataBuffer(dev, 1 << 16).unwrap();
        assert_eq!(lib.aclGetDataBufferAddr(buffer).unwrap(), dev);
        assert_eq!(lib.aclGetDataBufferSizeV2(buffer).unwrap(), 1 << 16);
        assert_eq!(lib.aclDestroyDataBuffer(buffer).unwrap(), OK);
        let mut stream: aclrtStream = std::ptr::null_mut();
        assert_eq!(lib.aclrtCreateStream(&mut stream).unwrap(), OK);
        let mut event: aclrtEvent = std::ptr::null_mut();
        let rc = lib.aclrtCreateEventWithFlag(&mut event, ACL_EVENT_TIME_LINE);
        assert_eq!(rc.unwrap(), OK);
        let h2d = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
        let rc = lib.aclrtMemcpy2dAsync(dev, 128, host, 64, 64, 16, h2d, stream);
        assert_eq!(rc.unwrap(), OK);
        assert_eq!(lib.aclrtRecordEvent(event, stream).unwrap(), OK);
        assert_eq!(lib.aclrtSynchronizeStream(stream).unwrap(), OK);
        let mut ts = 0u64;
        assert_eq!(lib.aclrtEventGetTimestamp(event, &mut ts).unwrap(), OK);
        let p: *mut c_void = caller.as_mut_ptr().cast();
        let mut mapped = std::ptr::null_mut();
        let mapped_type = aclrtHostRegisterType::ACL_HOST_REGISTER_MAPPED;
        let rc = lib.aclrtHostRegister(p, 4096, mapped_type, &mut mapped);
        assert_eq!(rc.unwrap(), OK);
        let mut attrs = std::mem::zeroed::<aclrtPtrAttributes>();
        assert_eq!(lib.aclrtPointerGetAttributes(p, &mut attrs).unwrap(), OK);
        assert_eq!(lib.aclrtHostUnregister(p).unwrap(), OK);
        assert_eq!(lib.aclrtDestroyEvent(event).unwrap(), OK);
        assert_eq!(lib.aclrtDestroyStream(stream).unwrap(), OK);
        assert_eq!(lib.aclrtFreeHost(host).unwrap(), OK);
        assert_eq!(lib.aclrtFree(dev).unwrap(), OK);
        assert_eq!(lib.aclrtResetDevice(0).unwrap(), OK);
        assert_eq!(lib.aclFinalize().unwrap(), OK);
    }
    assert_eq!(caller[0], 5);
}

#[test]
fn start_up_calls_record_with_the_mocks_keys() {
    let r = Rec::start("keys");
    program(r.lib);
    let t = Trace::read(&r.path).unwrap();
    let args = |f: &str| -> Vec<String> {
        t.records
            .iter()
            .filter(|rec| rec.function == f)
            .map(|rec| rec.args.to_string())
            .collect()
    };
    assert_eq!(
        args("aclrtMemcpy2dAsync"),
        [
            r#"{"dst":"m1+0x0","dpitch":128,"src":"h1+0x0","spitch":64,"width":64,"height":16,"kind":1,"stream":"s1"}"#
        ]
    );
    assert_eq!(
        args("aclCreateDataBuffer"),
        [r#"{"data":"m1+0x0","size":65536}"#]
    );
    let default = t
        .records
        .iter()
        .find(|rec| rec.function == "aclrtCtxGetCurrentDefaultStream")
        .unwrap();
    assert_eq!(
        default.output("stream").and_then(|v| v.as_str()),
        Some("s0")
    );
    for f in [
        "aclrtSetDeviceSatMode",
        "aclrtCtxGetSysParamOpt",
        "aclrtGetDeviceInfo",
        "aclGetDataBufferSizeV2",
        "aclrtEventGetTimestamp",
        "aclrtHostRegister",
        "aclrtPointerGetAttributes",
        "aclrtHostUnregister",
    ] {
        assert_eq!(args(f).len(), 1, "{f} recorded once");
    }
    assert!(t.records.iter().all(|rec| !rec.failed()));
}

#[test]
fn a_start_up_recording_replays_strictly_on_the_mock() {
    let r = Rec::start("replay");
    program(r.lib);
    Recorder::get().stop();
    let mock = Mock::get();
    mock.reset();
    mock.replay(&r.path, ReplayMode::Strict).unwrap();
    program(r.lib);
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    mock.stop_replay();
}
