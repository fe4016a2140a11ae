//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): the pid
//! whitelist of IPC keys, as runtime samples memory/10 and notify/0 use it:
//! the exporter learns the importer's pid, whitelists it
//! (aclrtIpcMemSetImportPid, aclrtNotifySetImportPid), and only then does the
//! importer open the keys. The importer is this test binary again, started
//! first and told to go on through a file.

mod common;

use std::ffi::{CStr, CString, c_char, c_void};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ascendcl_sys::*;
use common::*;

const TEST: &str = "a_whitelisted_process_imports_memory_and_a_notify_exported_with_pid_validation";

fn key_of(buf: &[c_char]) -> String {
    // SAFETY: the mock wrote a NUL-terminated key into the buffer.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// Waits for `path` to exist, at most a minute (the parent writes it).
fn wait_for(path: &str) {
    let start = Instant::now();
    while !std::path::Path::new(path).exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no go from the parent"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn importer() {
    wait_for(&std::env::var("GO").unwrap());
    let t = T::with_device(1);
    let (km, kn) = (
        CString::new(std::env::var("KEY_M").unwrap()).unwrap(),
        CString::new(std::env::var("KEY_N").unwrap()).unwrap(),
    );
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut n: aclrtNotify = std::ptr::null_mut();
    // SAFETY: valid out-pointers and NUL-terminated keys.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtIpcMemImportByKey(&mut p, km.as_ptr(), 0)
                .unwrap(),
            OK
        );
        assert_eq!(
            t.lib
                .aclrtNotifyImportByKey(&mut n, kn.as_ptr(), 0)
                .unwrap(),
            OK
        );
    }
    assert_eq!(t.upload(p, &[77; 4]), OK);
    // SAFETY: a live notify and the default stream; then the import's key.
    unsafe {
        assert_eq!(
            t.lib.aclrtRecordNotify(n, std::ptr::null_mut()).unwrap(),
            OK
        );
        assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
        assert_eq!(t.lib.aclrtIpcMemClose(km.as_ptr()).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyNotify(n).unwrap(), OK);
    }
    t.assert_clean(1);
}

/// api_impl.cc:4468-4480 (SetIpcMemPid), 4454-4466 (SetIpcNotifyPid): the
/// whitelist a key is exported with by default (flags 0); a whitelisted
/// process imports and its writes and records reach the exporter.
#[test]
fn a_whitelisted_process_imports_memory_and_a_notify_exported_with_pid_validation() {
    if is_child(TEST) {
        importer();
        return;
    }
    let t = T::with_device(0);
    let p = t.malloc(4096, HUGE_FIRST).unwrap();
    let (mut km, mut kn) = ([0 as c_char; 65], [0 as c_char; 65]);
    let mut n: aclrtNotify = std::ptr::null_mut();
    // SAFETY: 65-byte key buffers, device memory of 4096 bytes, a valid out-pointer.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtIpcMemGetExportKey(p, 4096, km.as_mut_ptr(), 65, 0)
                .unwrap(),
            OK
        );
        assert_eq!(t.lib.aclrtCreateNotify(&mut n, 0).unwrap(), OK);
        assert_eq!(
            t.lib
                .aclrtNotifyGetExportKey(n, kn.as_mut_ptr(), 65, 0)
                .unwrap(),
            OK
        );
    }
    let s = t.create_stream().unwrap();
    // SAFETY: a live notify and stream.
    let rc = unsafe { t.lib.aclrtWaitAndResetNotify(n, s, 0) }.unwrap();
    assert_eq!(rc, OK);
    let go = std::env::temp_dir().join(format!("aclmock-ipc-go-{}", std::process::id()));
    let _ = std::fs::remove_file(&go);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env("ASCENDCL_MOCK_TEST_CHILD", TEST)
        .env("KEY_M", key_of(&km))
        .env("KEY_N", key_of(&kn))
        .env("GO", &go)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the importer starts");
    let mut pid = child.id() as i32;
    let kmc = CString::new(key_of(&km)).unwrap();
    // SAFETY: a NUL-terminated key, a live exported notify, one pid each.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtIpcMemSetImportPid(kmc.as_ptr(), &mut pid, 1)
                .unwrap(),
            OK
        );
        assert_eq!(t.lib.aclrtNotifySetImportPid(n, &mut pid, 1).unwrap(), OK);
    }
    std::fs::write(&go, b"go").unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the importer did not finish");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = std::fs::remove_file(&go);
    assert!(status.success(), "the importer failed");
    assert_eq!(t.sync_stream(s), OK, "its record released the wait");
    assert_eq!(t.download(p, 4), [77; 4], "its write reached the exporter");
    // SAFETY: the exported key, then live handles.
    unsafe {
        assert_eq!(t.lib.aclrtIpcMemClose(kmc.as_ptr()).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyNotify(n).unwrap(), OK);
    }
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// A process that exported and died without freeing leaves its object in
/// /dev/shm; the next export of any process removes it (a mock duty: the
/// objects are the mock's, ipc_shm.c).
#[test]
fn an_export_removes_the_objects_of_exporters_that_died() {
    let mut gone = Command::new("true").spawn().expect("true runs");
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = std::path::PathBuf::from(format!("/dev/shm/aclmock_m{dead}_1"));
    std::fs::write(&stale, b"left behind").unwrap();
    let t = T::with_device(0);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    let mut key = [0 as c_char; 65];
    // SAFETY: a 65-byte key buffer and 64 bytes of device memory.
    let rc = unsafe {
        t.lib
            .aclrtIpcMemGetExportKey(p, 64, key.as_mut_ptr(), 65, 0)
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert!(!stale.exists(), "the dead exporter's object was removed");
    let k = CString::new(key_of(&key)).unwrap();
    // SAFETY: the key just exported.
    assert_eq!(unsafe { t.lib.aclrtIpcMemClose(k.as_ptr()) }.unwrap(), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}
