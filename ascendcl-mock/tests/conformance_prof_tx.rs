//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): msproftx, the
//! step records and markers of `acl/acl_prof.h`, served by the mock's
//! `libmsprofiler.so` (src/dfx/msprof/collector/dvvp/msprofiler/
//! prof_acl_core.cpp, msprof/msproftx/src/msprof_tx_manager.cpp and
//! prof_stamp_pool.cpp). Each test cites its source.

mod common;

use std::ffi::{CStr, c_void};

use ascendcl_mock::Misuse;
use ascendcl_sys::prof::{Profiler, profiler_for};
use ascendcl_sys::*;
use common::*;

/// PROFILING_FAILED (error_code.h:21), what the tx manager's refusals return.
const TX_FAILED: i32 = -1;
const TX: u64 = ACL_PROF_ACL_API as u64 | ACL_PROF_TASK_TIME as u64 | ACL_PROF_MSPROFTX as u64;
const NO_TX: u64 = ACL_PROF_ACL_API as u64 | ACL_PROF_TASK_TIME as u64;

fn prof(t: &T) -> &'static Profiler {
    profiler_for(Some(t.lib)).expect("the mock's libmsprofiler.so beside its libascendcl.so")
}

/// aclprofInit, a config of device 0 with `types`, aclprofStart: the config.
fn started(p: &Profiler, types: u64) -> *mut aclprofConfig {
    let dir = c"/tmp/aclmock-prof-tx";
    // SAFETY: a NUL-terminated path and its length.
    let rc = unsafe { p.aclprofInit(dir.as_ptr(), dir.count_bytes()) };
    assert_eq!(rc.unwrap(), OK);
    let mut devices = [0u32];
    // SAFETY: one device id; no AI Core events.
    let c = unsafe {
        p.aclprofCreateConfig(
            devices.as_mut_ptr(),
            1,
            aclprofAicoreMetrics::ACL_AICORE_NONE,
            std::ptr::null(),
            types,
        )
    }
    .unwrap();
    assert!(!c.is_null());
    // SAFETY: a live config.
    assert_eq!(unsafe { p.aclprofStart(c) }.unwrap(), OK);
    c
}

/// aclprofStop, aclprofDestroyConfig, aclprofFinalize.
fn finish(p: &Profiler, c: *mut aclprofConfig) {
    // SAFETY: a live, started config; then no arguments.
    unsafe {
        assert_eq!(p.aclprofStop(c).unwrap(), OK);
        assert_eq!(p.aclprofDestroyConfig(c).unwrap(), OK);
        assert_eq!(p.aclprofFinalize().unwrap(), OK);
    }
}

fn create_stamp(p: &Profiler) -> *mut c_void {
    // SAFETY: no arguments.
    unsafe { p.aclprofCreateStamp() }.unwrap()
}

fn set_message(p: &Profiler, stamp: *mut c_void, msg: &CStr, len: u32) -> i32 {
    // SAFETY: the mock checks the stamp before use and reads at most `len`
    // bytes of `msg`, stopping at its NUL.
    unsafe { p.aclprofSetStampTraceMessage(stamp, msg.as_ptr(), len) }.unwrap()
}

fn mark(p: &Profiler, stamp: *mut c_void) -> i32 {
    // SAFETY: the mock checks the stamp before use.
    unsafe { p.aclprofMark(stamp) }.unwrap()
}

fn destroy_stamp(p: &Profiler, stamp: *mut c_void) {
    // SAFETY: the mock checks the stamp before use.
    unsafe { p.aclprofDestroyStamp(stamp) }.unwrap()
}

fn step(p: &Profiler, s: *mut aclprofStepInfo, tag: aclprofStepTag, stream: aclrtStream) -> i32 {
    // SAFETY: the mock checks the step record before use; the stream is only
    // journaled.
    unsafe { p.aclprofGetStepTimestamp(s, tag, stream) }.unwrap()
}

/// The sequence of CANN's example/profiling/1_msproftx/main.cpp: a step
/// around two marks, each on a stamp of its own, with msproftx on.
#[test]
fn a_step_around_marks_with_msproftx_started_succeeds_and_journals_the_messages() {
    let t = T::with_device(0);
    let p = prof(&t);
    let stream = t.create_stream().unwrap();
    let c = started(p, TX);
    // SAFETY: no arguments.
    let s = unsafe { p.aclprofCreateStepInfo() }.unwrap();
    assert!(!s.is_null());
    assert_eq!(step(p, s, aclprofStepTag::ACL_STEP_START, stream), OK);
    for msg in [c"model_load_mark", c"model_exec_mark"] {
        let stamp = create_stamp(p);
        assert!(!stamp.is_null());
        assert_eq!(set_message(p, stamp, msg, msg.count_bytes() as u32), OK);
        assert_eq!(mark(p, stamp), OK);
        destroy_stamp(p, stamp);
    }
    assert_eq!(step(p, s, aclprofStepTag::ACL_STEP_END, stream), OK);
    // SAFETY: a live step record.
    unsafe { p.aclprofDestroyStepInfo(s) }.unwrap();
    finish(p, c);
    let marks: Vec<String> =
        t.s.journal()
            .iter()
            .filter(|e| e.function() == "aclprofMark")
            .map(|e| e.raw_field("args").unwrap_or("").to_string())
            .collect();
    assert_eq!(marks.len(), 2);
    assert!(marks[0].contains("model_load_mark"), "{}", marks[0]);
    assert!(marks[1].contains("model_exec_mark"), "{}", marks[1]);
    assert_eq!(t.s.call_count("aclprofGetStepTimestamp"), 2);
    assert_eq!(t.destroy_stream(stream), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// msprof_tx_manager.cpp:91-99, 194-199: stamps and marks need the tx
/// manager initialised, which only an aclprofStart of a config with
/// ACL_PROF_MSPROFTX does (prof_acl_mgr.cpp:2553, 2004-2015, 1989-1994);
/// aclprofFinalize ends it (prof_acl_mgr.cpp:388). Before: NULL and -1.
#[test]
fn stamps_exist_only_from_a_start_with_msproftx_until_finalize() {
    let t = T::new();
    let p = prof(&t);
    assert!(create_stamp(p).is_null(), "before aclprofInit");
    let mut x = 0u64;
    assert_eq!(mark(p, std::ptr::null_mut()), TX_FAILED);
    let c = started(p, NO_TX);
    assert!(
        create_stamp(p).is_null(),
        "started without ACL_PROF_MSPROFTX"
    );
    finish(p, c);
    let c = started(p, TX);
    let stamp = create_stamp(p);
    assert!(!stamp.is_null());
    assert_eq!(mark(p, std::ptr::null_mut()), TX_FAILED, "a null stamp");
    // SAFETY: a live config; stopping leaves msproftx on.
    assert_eq!(unsafe { p.aclprofStop(c) }.unwrap(), OK);
    assert_eq!(mark(p, stamp), OK, "after aclprofStop: still on");
    destroy_stamp(p, stamp);
    // SAFETY: a live config, then no arguments.
    unsafe {
        assert_eq!(p.aclprofDestroyConfig(c).unwrap(), OK);
        assert_eq!(p.aclprofFinalize().unwrap(), OK);
    }
    assert!(create_stamp(p).is_null(), "after aclprofFinalize");
    let bogus = bogus_handle(&mut x);
    assert_eq!(
        mark(p, bogus),
        TX_FAILED,
        "off: refused before the stamp is looked at"
    );
    t.assert_clean(0);
}

/// msprof_tx_manager.cpp:166-191: a message below 128 bytes (msgLen 128 ->
/// -1), copied by strncpy_s into 127 bytes (127 bytes -> -1, a null msg ->
/// -1), stopping at a NUL within msgLen; no initialisation check.
#[test]
fn a_stamp_message_is_below_127_bytes_and_stops_at_its_nul() {
    let t = T::new();
    let p = prof(&t);
    let c = started(p, TX);
    let stamp = create_stamp(p);
    let long = std::ffi::CString::new("m".repeat(127)).unwrap();
    assert_eq!(set_message(p, stamp, &long, 128), TX_FAILED);
    assert_eq!(set_message(p, stamp, &long, 127), TX_FAILED);
    assert_eq!(set_message(p, stamp, &long, 126), OK);
    // SAFETY: a null message is refused before it is read.
    let rc = unsafe { p.aclprofSetStampTraceMessage(stamp, std::ptr::null(), 3) };
    assert_eq!(rc.unwrap(), TX_FAILED);
    // SAFETY: a null stamp is refused first.
    let rc = unsafe { p.aclprofSetStampTraceMessage(std::ptr::null_mut(), c"a".as_ptr(), 1) };
    assert_eq!(rc.unwrap(), TX_FAILED);
    assert_eq!(set_message(p, stamp, c"ab", 40), OK, "stops at the NUL");
    assert_eq!(mark(p, stamp), OK);
    let last =
        t.s.journal()
            .into_iter()
            .rfind(|e| e.function() == "aclprofMark");
    let args = last.unwrap().raw_field("args").unwrap_or("").to_string();
    assert!(args.contains("\"ab\""), "{args}");
    destroy_stamp(p, stamp);
    finish(p, c);
    t.assert_clean(0);
}

/// prof_stamp_pool.cpp:102-105 with prof_stamp_pool.h:25: 100 stamps; the
/// 101st is NULL until one is given back (:126-150).
#[test]
fn the_collector_has_100_stamps() {
    let t = T::new();
    let p = prof(&t);
    let c = started(p, TX);
    let stamps: Vec<*mut c_void> = (0..100).map(|_| create_stamp(p)).collect();
    assert!(stamps.iter().all(|s| !s.is_null()));
    assert!(create_stamp(p).is_null(), "the 101st");
    destroy_stamp(p, stamps[42]);
    let again = create_stamp(p);
    assert_eq!(again, stamps[42], "the slot given back");
    for s in stamps {
        destroy_stamp(p, s);
    }
    finish(p, c);
    t.assert_clean(0);
}

/// msprof_tx_manager.cpp:105-118: once msproftx is off a destroy does
/// nothing and the stamp stays taken (the pool outlives the finalize,
/// prof_stamp_pool.cpp:86-89), so the next session has one stamp fewer.
#[test]
fn a_stamp_destroyed_after_finalize_stays_taken() {
    let t = T::new();
    let p = prof(&t);
    let c = started(p, TX);
    let kept = create_stamp(p);
    finish(p, c);
    destroy_stamp(p, kept);
    let c = started(p, TX);
    let stamps: Vec<*mut c_void> = (0..99).map(|_| create_stamp(p)).collect();
    assert!(stamps.iter().all(|s| !s.is_null()));
    assert!(create_stamp(p).is_null(), "99 free, not 100");
    assert_eq!(mark(p, kept), OK, "the old stamp is still taken");
    for s in stamps.into_iter().chain([kept]) {
        destroy_stamp(p, s);
    }
    assert!(!create_stamp(p).is_null());
    t.assert_clean(0);
    finish(p, c);
}

/// The real pool hands a destroyed stamp's slot out again and reads any
/// pointer as a stamp; the mock refuses both (-1) and counts the misuse.
#[test]
fn destroyed_and_unknown_stamps_are_refused_and_counted() {
    let t = T::new();
    let p = prof(&t);
    let c = started(p, TX);
    let stamp = create_stamp(p);
    destroy_stamp(p, stamp);
    assert_eq!(mark(p, stamp), TX_FAILED);
    t.assert_misuse(Misuse::DestroyedHandle, 1);
    destroy_stamp(p, stamp);
    assert_eq!(t.s.misuse(Misuse::DoubleFree), 1);
    let mut x = 0u64;
    assert_eq!(set_message(p, bogus_handle(&mut x), c"x", 1), TX_FAILED);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
    destroy_stamp(p, std::ptr::null_mut());
    assert_eq!(t.s.misuse_total(), 3, "a null stamp is ignored");
    finish(p, c);
}

/// prof_acl_core.cpp:51-79: null -> 100000; each tag once (a second start
/// or end -> 100000); a tag other than START counts as the end (:67-71).
/// The step needs neither profiling nor msproftx in the library itself; its
/// index grows from 1 (:26, :93).
#[test]
fn a_step_takes_its_start_and_its_end_once_each() {
    let t = T::new();
    let p = prof(&t);
    let null: aclrtStream = std::ptr::null_mut();
    let none: *mut aclprofStepInfo = std::ptr::null_mut();
    assert_eq!(step(p, none, aclprofStepTag::ACL_STEP_START, null), 100000);
    // SAFETY: no arguments.
    let (a, b) = unsafe {
        (
            p.aclprofCreateStepInfo().unwrap(),
            p.aclprofCreateStepInfo().unwrap(),
        )
    };
    let index = |n: usize| {
        let e =
            t.s.journal()
                .into_iter()
                .filter(|e| e.function() == "aclprofCreateStepInfo")
                .nth(n);
        e.unwrap().raw_field("out").unwrap_or("").to_string()
    };
    assert!(index(0).contains("\"indexId\":1"), "{}", index(0));
    assert!(index(1).contains("\"indexId\":2"), "{}", index(1));
    assert_eq!(step(p, a, aclprofStepTag::ACL_STEP_START, null), OK);
    assert_eq!(step(p, a, aclprofStepTag::ACL_STEP_START, null), 100000);
    assert_eq!(step(p, a, aclprofStepTag::ACL_STEP_END, null), OK);
    assert_eq!(step(p, a, aclprofStepTag::ACL_STEP_END, null), 100000);
    assert_eq!(step(p, b, aclprofStepTag(7), null), OK, "taken as the end");
    assert_eq!(step(p, b, aclprofStepTag::ACL_STEP_END, null), 100000);
    assert_eq!(step(p, b, aclprofStepTag::ACL_STEP_START, null), OK);
    // SAFETY: live step records, then a destroyed one (refused, counted)
    // and null (reported).
    unsafe {
        p.aclprofDestroyStepInfo(a).unwrap();
        p.aclprofDestroyStepInfo(b).unwrap();
        p.aclprofDestroyStepInfo(b).unwrap();
        p.aclprofDestroyStepInfo(none).unwrap();
    }
    t.assert_misuse(Misuse::DoubleFree, 1);
    assert_eq!(step(p, a, aclprofStepTag::ACL_STEP_START, null), 100000);
    assert_eq!(t.s.misuse(Misuse::DestroyedHandle), 1);
}
