//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): the dump API of
//! `acl/acl_dump.h` (src/dfx/adump/: adump/host/adx_datadump_callback.cpp,
//! adump/adx_dump_process.cpp, adump/manage/adump_api_platform.cpp,
//! adump/manage/dump_manager/dump_manager.cpp). The mock keeps the callback's
//! registration and the args-dump switch; it makes no dump data, so it
//! never calls the callback and writes no file. Each test cites its source.

mod common;

use std::ffi::{CString, c_char};

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

/// ACL_ERROR_FAILURE, what the dump API's refusals are.
const FAILURE: i32 = 500001;

unsafe extern "C" fn on_chunk(_chunk: *const acldumpChunk, _len: i32) -> i32 {
    0
}

fn reg(t: &T, cb: bool, flag: i32) -> i32 {
    let f: Option<unsafe extern "C" fn(*const acldumpChunk, i32) -> i32> =
        if cb { Some(on_chunk) } else { None };
    // SAFETY: a callback that reads nothing, or none.
    unsafe { t.lib.acldumpRegCallback(f, flag) }.unwrap()
}

fn unreg(t: &T) {
    // SAFETY: no arguments.
    unsafe { t.lib.acldumpUnregCallback() }.unwrap()
}

fn start_args(t: &T, kind: u32, path: *const c_char) -> i32 {
    // SAFETY: the mock checks for null before reading the path.
    unsafe { t.lib.aclopStartDumpArgs(kind, path) }.unwrap()
}

fn stop_args(t: &T, kind: u32) -> i32 {
    // SAFETY: no pointers.
    unsafe { t.lib.aclopStopDumpArgs(kind) }.unwrap()
}

fn scratch(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("aclmock-dump-{}-{name}", std::process::id()))
}

/// adx_datadump_callback.cpp:41-57: flag other than 0, then a null
/// callback: 500001. adx_dump_process.cpp:14-22: while one is registered a
/// second one is ignored and the call succeeds; :34-42 unregistering clears
/// it (and without one is harmless).
#[test]
fn reg_callback_takes_flag_zero_and_a_callback_and_ignores_a_second_one() {
    let t = T::new();
    assert_eq!(reg(&t, true, 1), FAILURE);
    assert_eq!(reg(&t, false, 0), FAILURE);
    unreg(&t);
    assert_eq!(reg(&t, true, 0), OK);
    assert_eq!(reg(&t, true, 0), OK, "ignored, not refused");
    let j = t.s.journal();
    let regs: Vec<_> = j
        .iter()
        .filter(|e| e.function() == "acldumpRegCallback")
        .collect();
    assert!(
        regs[3]
            .raw_field("out")
            .unwrap_or("")
            .contains("\"ignored\":1")
    );
    unreg(&t);
    assert_eq!(
        reg(&t, true, 0),
        OK,
        "a new registration after unregistering"
    );
    unreg(&t);
    assert_eq!(t.s.call_count("acldumpUnregCallback"), 3);
    t.assert_clean(0);
}

/// adump_api_platform.cpp:64-92 with dump_manager.cpp:455-505: only
/// ACL_OP_DUMP_OP_AICORE_ARGS acts; the directory is created; a second start
/// and a path that is a file are 500001; stopping when off succeeds.
#[test]
fn args_dump_creates_its_directory_refuses_a_second_start_and_stops_once() {
    let t = T::new();
    let dir = scratch("args").join("nested");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    let path = CString::new(dir.to_str().unwrap()).unwrap();
    assert_eq!(stop_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS), OK, "off already");
    assert_eq!(
        start_args(&t, 0, std::ptr::null()),
        OK,
        "no known bit: nothing read"
    );
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, c"".as_ptr()),
        FAILURE
    );
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        OK
    );
    assert!(dir.is_dir(), "created with its parent");
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        FAILURE,
        "already on"
    );
    assert_eq!(stop_args(&t, 2), OK, "another bit leaves it on");
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        FAILURE
    );
    assert_eq!(stop_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS), OK);
    let file = dir.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let file = CString::new(file.to_str().unwrap()).unwrap();
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, file.as_ptr()),
        FAILURE,
        "not a directory"
    );
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        OK
    );
    assert_eq!(stop_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS), OK);
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    t.assert_clean(0);
}

/// adump_api_platform.cpp:67 builds a std::string from the path: null is
/// undefined there; the mock refuses it and counts the misuse.
#[test]
fn a_null_args_dump_path_is_refused_and_counted() {
    let t = T::new();
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, std::ptr::null()),
        FAILURE
    );
    t.assert_misuse(Misuse::UnknownPointer, 1);
}

/// The registration and the switch belong to the mock's session.
#[test]
fn a_mock_reset_forgets_the_callback_and_the_args_dump() {
    let t = T::new();
    let dir = scratch("reset");
    let path = CString::new(dir.to_str().unwrap()).unwrap();
    assert_eq!(reg(&t, true, 0), OK);
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        OK
    );
    drop(t);
    let t = T::new();
    assert_eq!(
        start_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS, path.as_ptr()),
        OK
    );
    assert_eq!(reg(&t, true, 0), OK);
    let j = t.s.journal();
    let last = j
        .iter()
        .rfind(|e| e.function() == "acldumpRegCallback")
        .unwrap();
    assert!(!last.raw_field("out").unwrap_or("").contains("ignored"));
    unreg(&t);
    assert_eq!(stop_args(&t, ACL_OP_DUMP_OP_AICORE_ARGS), OK);
    let _ = std::fs::remove_dir_all(dir);
    t.assert_clean(0);
}
