//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): the profiling
//! API of `acl/acl_prof.h`, served by the mock's `libmsprofiler.so` (found by
//! `ascendcl_sys::prof` beside the runtime library, as on a card). Nothing is
//! collected: these tests check the arguments and the state machine
//! (msprofiler/prof_acl_api.cpp, profimpl/adapter/src/msprofiler_acl_api.cpp,
//! msprof/engine/src/prof_acl_mgr.cpp). Each test cites its source.

mod common;

use std::ffi::{CStr, c_void};

use ascendcl_mock::Misuse;
use ascendcl_sys::prof::{Profiler, profiler_for};
use ascendcl_sys::*;
use common::*;

fn prof(t: &T) -> &'static Profiler {
    profiler_for(Some(t.lib)).expect("the mock's libmsprofiler.so beside its libascendcl.so")
}

fn init(p: &Profiler, path: &CStr) -> i32 {
    // SAFETY: a NUL-terminated path and its length.
    unsafe { p.aclprofInit(path.as_ptr(), path.count_bytes()) }.unwrap()
}

fn finalize(p: &Profiler) -> i32 {
    // SAFETY: no arguments.
    unsafe { p.aclprofFinalize() }.unwrap()
}

fn config(p: &Profiler, devices: &mut [u32], types: u64) -> *mut aclprofConfig {
    let list = if devices.is_empty() {
        std::ptr::null_mut()
    } else {
        devices.as_mut_ptr()
    };
    // SAFETY: `list` holds `devices.len()` ids (or is null for none).
    unsafe {
        p.aclprofCreateConfig(
            list,
            devices.len() as u32,
            aclprofAicoreMetrics::ACL_AICORE_PIPE_UTILIZATION,
            std::ptr::null(),
            types,
        )
    }
    .unwrap()
}

fn start(p: &Profiler, c: *const aclprofConfig) -> i32 {
    // SAFETY: the mock validates the config before reading it.
    unsafe { p.aclprofStart(c) }.unwrap()
}

fn stop(p: &Profiler, c: *const aclprofConfig) -> i32 {
    // SAFETY: as `start`.
    unsafe { p.aclprofStop(c) }.unwrap()
}

fn destroy(p: &Profiler, c: *const aclprofConfig) -> i32 {
    // SAFETY: as `start`.
    unsafe { p.aclprofDestroyConfig(c) }.unwrap()
}

const API_AND_TASKS: u64 = ACL_PROF_ACL_API as u64 | ACL_PROF_TASK_TIME as u64;

#[test]
fn the_profiler_is_its_own_library_beside_the_runtime() {
    let t = T::new();
    let p = prof(&t);
    assert_eq!(p.path().file_name().unwrap(), "libmsprofiler.so");
    assert_eq!(p.path().parent(), t.lib.path().parent());
    assert!(
        !t.lib.has_symbol("aclprofInit"),
        "not in the runtime library"
    );
}

/// The usual sequence works and is journaled: init, create, start, stop,
/// destroy, finalize (example/profiling/0_create_config/main.cpp).
#[test]
fn init_start_stop_finalize_in_order_succeeds_and_is_journaled() {
    let t = T::with_device(0);
    let p = prof(&t);
    assert_eq!(init(p, c"/tmp/aclmock-prof"), OK);
    let c = config(p, &mut [0, 1], API_AND_TASKS);
    assert!(!c.is_null());
    assert_eq!(start(p, c), OK);
    assert_eq!(stop(p, c), OK);
    assert_eq!(stop(p, c), OK, "stopping what is not started succeeds");
    assert_eq!(destroy(p, c), OK);
    assert_eq!(finalize(p), OK);
    let names: Vec<String> =
        t.s.journal()
            .iter()
            .map(|e| e.function().to_string())
            .filter(|f| f.starts_with("aclprof"))
            .collect();
    assert_eq!(
        names,
        [
            "aclprofInit",
            "aclprofCreateConfig",
            "aclprofStart",
            "aclprofStop",
            "aclprofStop",
            "aclprofDestroyConfig",
            "aclprofFinalize"
        ]
    );
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// msprofiler_acl_api.cpp:64-80: the path's strlen must equal `length`, in
/// (0, 4096]; prof_acl_mgr.cpp:152-156: a second init -> 100002.
#[test]
fn init_checks_the_path_and_refuses_a_second_init() {
    let t = T::new();
    let p = prof(&t);
    // SAFETY: a null path is refused before it is read.
    let rc = unsafe { p.aclprofInit(std::ptr::null(), 0) };
    assert_eq!(rc.unwrap(), 100000);
    let path = c"/tmp/x";
    // SAFETY: the length is checked against strlen before any use.
    assert_eq!(unsafe { p.aclprofInit(path.as_ptr(), 5) }.unwrap(), 100000);
    assert_eq!(init(p, c""), 100000);
    let long = std::ffi::CString::new("a".repeat(4097)).unwrap();
    assert_eq!(init(p, &long), 100000);
    assert_eq!(init(p, path), OK);
    assert_eq!(init(p, path), ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(finalize(p), OK);
    t.assert_clean(0);
}

/// prof_acl_mgr.cpp:171-173 with msprofiler_acl_api.cpp:124-131 and the
/// start/stop prechecks (prof_acl_mgr.cpp:2499-2505, 2567-2571): without
/// aclprofInit, finalize, start and stop are 100043.
#[test]
fn finalize_start_and_stop_need_init_first() {
    let t = T::new();
    let p = prof(&t);
    assert_eq!(finalize(p), ACL_ERROR_PROF_NOT_RUN);
    let c = config(p, &mut [0], API_AND_TASKS);
    assert!(!c.is_null(), "a config needs no init");
    assert_eq!(start(p, c), ACL_ERROR_PROF_NOT_RUN);
    assert_eq!(stop(p, c), ACL_ERROR_PROF_NOT_RUN);
    assert_eq!(destroy(p, c), OK);
    t.assert_clean(0);
}

/// prof_acl_api.cpp:55-127, 172-174: null list with devices, AI Core events,
/// too many devices, an id out of range or listed twice, and no device
/// without ACL_PROF_MSPROFTX all give NULL.
#[test]
fn create_config_refuses_bad_device_lists_with_null() {
    let t = T::new();
    let p = prof(&t);
    assert!(
        config(p, &mut [8], API_AND_TASKS).is_null(),
        "8 devices: 0..7"
    );
    assert!(config(p, &mut [1, 1], API_AND_TASKS).is_null());
    assert!(config(p, &mut [0; 9], API_AND_TASKS).is_null());
    assert!(config(p, &mut [], API_AND_TASKS).is_null());
    // SAFETY: a null list with one device is refused before it is read.
    let c = unsafe {
        p.aclprofCreateConfig(
            std::ptr::null_mut(),
            1,
            aclprofAicoreMetrics::ACL_AICORE_NONE,
            std::ptr::null(),
            API_AND_TASKS,
        )
    };
    assert!(c.unwrap().is_null());
    let events = std::ptr::NonNull::<aclprofAicoreEvents>::dangling().as_ptr();
    // SAFETY: non-null events are refused without being read.
    let c = unsafe {
        p.aclprofCreateConfig(
            [0u32].as_mut_ptr(),
            1,
            aclprofAicoreMetrics::ACL_AICORE_NONE,
            events,
            API_AND_TASKS,
        )
    };
    assert!(c.unwrap().is_null());
    let tx_only = config(p, &mut [], ACL_PROF_MSPROFTX as u64);
    assert!(!tx_only.is_null(), "msproftx needs no device");
    assert_eq!(destroy(p, tx_only), OK);
    t.assert_clean(0);
}

/// msprofiler_acl_api.cpp:165-175: switches outside the release build's
/// supported set (prof_api_common.h:28-31) -> 200007 at start.
#[test]
fn start_refuses_unsupported_data_types_with_200007() {
    let t = T::new();
    let p = prof(&t);
    assert_eq!(init(p, c"/tmp/p"), OK);
    let c = config(p, &mut [0], API_AND_TASKS | 0x0400);
    assert_eq!(start(p, c), ACL_ERROR_PROF_MODULES_UNSUPPORTED);
    assert_eq!(destroy(p, c), OK);
    assert_eq!(finalize(p), OK);
    t.assert_clean(0);
}

/// prof_acl_api.cpp:212-228: null -> 100000. The profiler deletes the
/// config; the mock refuses a destroyed or made-up one and counts it.
#[test]
fn destroyed_and_unknown_configs_are_refused_and_counted() {
    let t = T::new();
    let p = prof(&t);
    assert_eq!(destroy(p, std::ptr::null()), 100000);
    let c = config(p, &mut [0], API_AND_TASKS);
    assert_eq!(destroy(p, c), OK);
    assert_eq!(destroy(p, c), 100000);
    t.assert_misuse(Misuse::DoubleFree, 1);
    let mut x = 0u64;
    let bogus: *const c_void = bogus_handle(&mut x);
    assert_eq!(start(p, bogus.cast()), 100000);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
}

/// The profiler's state belongs to the mock's session: a reset forgets the
/// initialisation (and the configs).
#[test]
fn a_mock_reset_forgets_the_profiling_state() {
    let t = T::new();
    let p = prof(&t);
    assert_eq!(init(p, c"/tmp/p"), OK);
    drop(t);
    let t = T::new();
    assert_eq!(finalize(prof(&t)), ACL_ERROR_PROF_NOT_RUN);
    t.assert_clean(0);
}

fn set_config(p: &Profiler, kind: aclprofConfigType, value: Option<&CStr>, length: usize) -> i32 {
    let ptr = value.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: a NUL-terminated value or null; the mock reads at most 257 bytes.
    unsafe { p.aclprofSetConfig(kind, ptr, length) }.unwrap()
}

/// aclprofSetConfig (prof_acl_api.cpp:273-290, msprofiler_acl_api.cpp:310-313):
/// the type must lie strictly between ACL_PROF_ARGS_MIN and ACL_PROF_ARGS_MAX,
/// the value be at most 256 bytes and exactly `configLength` long (each
/// 100000, in that order), and profiling initialised (100001); it may be
/// called again, and before aclprofStart (example/profiling/0_create_config).
#[test]
fn set_config_checks_the_type_the_length_and_the_value_then_that_profiling_is_initialised() {
    let t = T::new();
    let p = prof(&t);
    let value = c"200";
    type K = aclprofConfigType;
    assert_eq!(
        set_config(p, K::ACL_PROF_STORAGE_LIMIT, Some(value), 3),
        100001,
        "before aclprofInit"
    );
    assert_eq!(set_config(p, K::ACL_PROF_ARGS_MIN, Some(value), 3), 100000);
    assert_eq!(set_config(p, K::ACL_PROF_ARGS_MAX, Some(value), 3), 100000);
    assert_eq!(
        set_config(p, K::ACL_PROF_STORAGE_LIMIT, Some(value), 2),
        100000,
        "a wrong length"
    );
    assert_eq!(
        set_config(p, K::ACL_PROF_STORAGE_LIMIT, None, 0),
        100000,
        "no value"
    );
    let long = std::ffi::CString::new("7".repeat(257)).unwrap();
    assert_eq!(
        set_config(p, K::ACL_PROF_STORAGE_LIMIT, Some(&long), 257),
        100000,
        "over 256"
    );
    let dir = std::env::temp_dir().join(format!("prof-set-config-{}", std::process::id()));
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    assert_eq!(init(p, &path), 0);
    assert_eq!(set_config(p, K::ACL_PROF_STORAGE_LIMIT, Some(value), 3), 0);
    assert_eq!(
        set_config(p, K::ACL_PROF_HOST_SYS, Some(c"cpu,mem"), 7),
        0,
        "again, another option"
    );
    let mut devices = [0u32];
    let c = config(p, &mut devices, API_AND_TASKS);
    assert_eq!(start(p, c), 0);
    assert_eq!(stop(p, c), 0);
    assert_eq!(destroy(p, c), 0);
    assert_eq!(finalize(p), 0);
    assert_eq!(
        set_config(p, K::ACL_PROF_STORAGE_LIMIT, Some(value), 3),
        100001,
        "after aclprofFinalize"
    );
    assert_eq!(t.s.call_count("aclprofSetConfig"), 9);
    assert!(t.s.misuse_log().is_empty(), "{}", t.s.misuse_log());
}
