//! Stream capture (aclmdlRI*, CANN 8.5.0) on the mock through the raw sys
//! layer: captured work is recorded, not run; a model replays it in
//! captured order; every call the v8.5.0 source refuses during a capture is
//! refused with its code and invalidates the capture. Sources are cited in
//! csrc/capture.c and csrc/capture_exec.c.

mod common;
#[macro_use]
mod ops_support;

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;
use ops_support::*;

const GLOBAL: aclmdlRICaptureMode = aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
const RELAXED: aclmdlRICaptureMode = aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
const D2D: u32 = 3;

fn begin(t: &T, s: aclrtStream, mode: aclmdlRICaptureMode) -> i32 {
    // SAFETY: the mock validates the stream handle.
    unsafe { t.lib.aclmdlRICaptureBegin(s, mode) }.unwrap()
}

fn end(t: &T, s: aclrtStream) -> (i32, aclmdlRI) {
    let mut m: aclmdlRI = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclmdlRICaptureEnd(s, &mut m) }.unwrap();
    (rc, m)
}

fn status(t: &T, s: aclrtStream) -> (u32, aclmdlRI) {
    let mut st = aclmdlRICaptureStatus(77);
    let mut m: aclmdlRI = std::ptr::null_mut();
    assert_eq!(
        // SAFETY: valid out-pointers.
        unsafe { t.lib.aclmdlRICaptureGetInfo(s, &mut st, &mut m) }.unwrap(),
        OK
    );
    (st.0, m)
}

fn execute(t: &T, m: aclmdlRI, s: aclrtStream) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclmdlRIExecuteAsync(m, s) }.unwrap()
}

fn destroy(t: &T, m: aclmdlRI) -> i32 {
    // SAFETY: the mock validates the handle.
    unsafe { t.lib.aclmdlRIDestroy(m) }.unwrap()
}

fn sync_event_ex(t: &T) -> aclrtEvent {
    let mut e: aclrtEvent = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateEventExWithFlag(&mut e, ACL_EVENT_SYNC) }.unwrap();
    assert_eq!(rc, OK);
    e
}

fn wait(t: &T, s: aclrtStream, e: aclrtEvent) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtStreamWaitEvent(s, e) }.unwrap()
}

static RUNS: AtomicU32 = AtomicU32::new(0);
extern "C" fn count_run(_: *mut c_void) {
    RUNS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn a_captured_step_runs_only_when_executed_and_gives_its_results_at_every_replay() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let a = t.malloc(64, 0).unwrap();
    let b = t.malloc(64, 0).unwrap();
    assert_eq!(t.upload(a, &[1u8; 64]), OK);
    assert_eq!(t.upload(b, &[0u8; 64]), OK);
    RUNS.store(0, Ordering::SeqCst);
    assert_eq!(begin(&t, s, GLOBAL), OK);
    let (st, m) = status(&t, s);
    assert_eq!(
        st,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE.0
    );
    assert!(!m.is_null());
    assert_eq!(t.memset_async(a, 64, 7, 32, s), OK);
    assert_eq!(t.memcpy_async(b, 64, a, 64, D2D, s), OK);
    assert_eq!(
        // SAFETY: a plain function with no argument use.
        unsafe {
            t.lib
                .aclrtLaunchHostFunc(s, Some(count_run), std::ptr::null_mut())
        }
        .unwrap(),
        OK
    );
    let (rc, model) = end(&t, s);
    assert_eq!((rc, model), (OK, m));
    assert_eq!(
        status(&t, s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE.0
    );
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.download(b, 64), vec![0u8; 64], "nothing ran at capture");
    assert_eq!(RUNS.load(Ordering::SeqCst), 0);
    for replay in 1..=2u32 {
        assert_eq!(t.upload(a, &[1u8; 64]), OK);
        assert_eq!(t.upload(b, &[0u8; 64]), OK);
        assert_eq!(execute(&t, model, s), OK);
        assert_eq!(t.sync_stream(s), OK);
        let mut want = vec![7u8; 32];
        want.extend([1u8; 32]);
        assert_eq!(t.download(b, 64), want, "replay {replay}");
        assert_eq!(RUNS.load(Ordering::SeqCst), replay);
    }
    assert_eq!(destroy(&t, model), OK);
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    assert_eq!(t.destroy_stream(s), OK);
    t.assert_clean(1);
}

/// Starts a GLOBAL capture of a fresh stream holding one captured memset.
fn capturing(t: &T) -> (aclrtStream, *mut c_void) {
    let s = t.create_stream().unwrap();
    let p = t.malloc(64, 0).unwrap();
    assert_eq!(begin(t, s, GLOBAL), OK);
    assert_eq!(t.memset_async(p, 64, 1, 64, s), OK);
    (s, p)
}

fn assert_invalidated_and_end_gives_no_model(t: &T, s: aclrtStream) {
    assert_eq!(
        status(t, s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED.0
    );
    let (rc, m) = end(t, s);
    assert_eq!(rc, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    assert!(m.is_null());
    assert_eq!(
        status(t, s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE.0
    );
}

#[test]
fn synchronizing_or_querying_a_captured_stream_is_refused_with_107027_and_invalidates_it() {
    let t = T::with_device(0);
    let (s, _) = capturing(&t);
    assert_eq!(t.sync_stream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(begin(&t, s, GLOBAL), OK);
    let mut st = aclrtStreamStatus(9);
    assert_eq!(
        // SAFETY: valid out-pointer.
        unsafe { t.lib.aclrtStreamQuery(s, &mut st) }.unwrap(),
        ACL_ERROR_RT_STREAM_CAPTURED
    );
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(begin(&t, s, GLOBAL), OK);
    assert_eq!(
        // SAFETY: no arguments.
        unsafe { t.lib.aclrtSynchronizeDevice() }.unwrap(),
        ACL_ERROR_RT_STREAM_CAPTURED
    );
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(begin(&t, s, GLOBAL), OK);
    assert_eq!(t.destroy_stream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(t.destroy_stream(s), OK);
    t.assert_misuse(Misuse::UseAfterFree, 0);
}

#[test]
fn a_synchronous_copy_is_refused_with_107030_in_global_mode_and_allowed_after_exchanging_to_relaxed()
 {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let host = [0u8; 64];
    assert_eq!(
        t.memcpy(p, 64, host.as_ptr() as *const c_void, 64, H2D),
        ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
    );
    assert_eq!(
        t.memset(p, 64, 0, 64),
        ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
    );
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(begin(&t, s, GLOBAL), OK);
    let mut mode = RELAXED;
    assert_eq!(
        // SAFETY: valid in/out pointer.
        unsafe { t.lib.aclmdlRICaptureThreadExchangeMode(&mut mode) }.unwrap(),
        OK
    );
    assert_eq!(mode, GLOBAL, "the old mode comes back");
    assert_eq!(t.memset(p, 64, 0, 64), OK, "RELAXED restricts nothing");
    let mut back = mode;
    assert_eq!(
        // SAFETY: valid in/out pointer.
        unsafe { t.lib.aclmdlRICaptureThreadExchangeMode(&mut back) }.unwrap(),
        OK
    );
    assert_eq!(back, RELAXED);
    assert_eq!(
        status(&t, s).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE.0
    );
    let (rc, m) = end(&t, s);
    assert_eq!(rc, OK);
    assert_eq!(destroy(&t, m), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.destroy_stream(s), OK);
}

#[test]
fn an_event_recorded_in_the_capture_cannot_be_synchronized_or_queried_107028() {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let e = sync_event_ex(&t);
    assert_eq!(t.record(e, s), OK);
    assert_eq!(
        // SAFETY: the mock validates the event.
        unsafe { t.lib.aclrtSynchronizeEvent(e) }.unwrap(),
        ACL_ERROR_RT_EVENT_CAPTURED
    );
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.destroy_stream(s), OK);
}

#[test]
fn a_plain_event_recorded_on_a_captured_stream_is_refused_with_207000() {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let e = t.create_event();
    assert_eq!(t.record(e, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.destroy_stream(s), OK);
}

#[test]
fn the_default_stream_cannot_be_captured() {
    let t = T::with_device(0);
    assert_eq!(
        begin(&t, std::ptr::null_mut(), GLOBAL),
        ACL_ERROR_INVALID_PARAM
    );
    let mut d: aclrtStream = std::ptr::null_mut();
    assert_eq!(
        // SAFETY: valid out-pointer.
        unsafe { t.lib.aclrtCtxGetCurrentDefaultStream(&mut d) }.unwrap(),
        OK
    );
    assert_eq!(begin(&t, d, GLOBAL), ACL_ERROR_RT_PARAM_INVALID);
}

#[test]
fn a_model_still_capturing_cannot_be_executed_or_destroyed_107026() {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let other = t.create_stream().unwrap();
    let (_, m) = status(&t, s);
    assert_eq!(execute(&t, m, other), ACL_ERROR_RT_MODEL_CAPTURED);
    assert_eq!(destroy(&t, m), ACL_ERROR_RT_MODEL_CAPTURED);
    assert_eq!(
        execute(&t, m, s),
        ACL_ERROR_RT_STREAM_CAPTURED,
        "not on a captured stream"
    );
    assert_invalidated_and_end_gives_no_model(&t, s);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.destroy_stream(other), OK);
}

#[test]
fn a_side_stream_that_never_rejoins_fails_capture_end_with_107025_and_no_model() {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let side = t.create_stream().unwrap();
    let fork = sync_event_ex(&t);
    assert_eq!(t.record(fork, s), OK);
    assert_eq!(wait(&t, side, fork), OK);
    assert_eq!(
        status(&t, side).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE.0,
        "joined"
    );
    assert_eq!(t.memset_async(p, 64, 2, 64, side), OK);
    let (rc, m) = end(&t, s);
    assert_eq!(rc, ACL_ERROR_RT_STREAM_UNJOINED);
    assert!(m.is_null());
    assert_eq!(
        status(&t, side).0,
        aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE.0
    );
    assert_eq!(t.destroy_event(fork), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.destroy_stream(side), OK);
    assert_eq!(t.destroy_stream(s), OK);
}

#[test]
fn a_two_stream_capture_forks_and_joins_through_events_and_replays_in_order() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let side = t.create_stream().unwrap();
    let a = t.malloc(64, 0).unwrap();
    let b = t.malloc(64, 0).unwrap();
    let (fork, join) = (sync_event_ex(&t), sync_event_ex(&t));
    assert_eq!(begin(&t, s, GLOBAL), OK);
    assert_eq!(t.memset_async(a, 64, 5, 64, s), OK);
    assert_eq!(t.record(fork, s), OK);
    assert_eq!(wait(&t, side, fork), OK);
    assert_eq!(t.memcpy_async(b, 64, a, 64, D2D, side), OK);
    assert_eq!(t.record(join, side), OK);
    assert_eq!(wait(&t, s, join), OK);
    assert_eq!(t.memset_async(a, 64, 9, 16, s), OK);
    let (rc, m) = end(&t, s);
    assert_eq!(rc, OK);
    for _ in 0..2 {
        assert_eq!(t.upload(b, &[0u8; 64]), OK);
        assert_eq!(execute(&t, m, side), OK, "any stream can run it");
        assert_eq!(t.sync_stream(side), OK);
        assert_eq!(
            t.download(b, 64),
            vec![5u8; 64],
            "the copy ran after the first memset"
        );
        let mut want = vec![9u8; 16];
        want.extend([5u8; 48]);
        assert_eq!(t.download(a, 64), want, "and before the second");
    }
    assert_eq!(destroy(&t, m), OK);
    for e in [fork, join] {
        assert_eq!(t.destroy_event(e), OK);
    }
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    assert_eq!(t.destroy_stream(side), OK);
    assert_eq!(t.destroy_stream(s), OK);
    t.assert_clean(1);
}

#[test]
fn freeing_memory_a_live_model_uses_is_a_misuse() {
    let t = T::with_device(0);
    let (s, p) = capturing(&t);
    let (rc, m) = end(&t, s);
    assert_eq!(rc, OK);
    assert_eq!(t.free(p), OK);
    t.assert_misuse(Misuse::UseAfterFree, 1);
    assert!(
        t.s.misuse_log().contains("while model"),
        "{}",
        t.s.misuse_log()
    );
    assert_eq!(destroy(&t, m), OK);
    assert_eq!(t.destroy_stream(s), OK);
}

#[test]
fn a_captured_relu_replays_on_fresh_inputs() {
    let mut o = OpsTest::new();
    let (x, xp) = o.f32_tensor(&[4], &[-1.0, 2.0, -3.0, 4.0]);
    let (y, yp) = o.f32_tensor(&[4], &[9.0; 4]);
    let (rc, ws, e) = phase1!(o.ops, "aclnnReluGetWorkspaceSize", (Ptr, Ptr), (x, y));
    assert_eq!((rc, ws), (OK, 0));
    assert_eq!(begin(&o.t, o.stream, GLOBAL), OK);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    let (rc, m) = end(&o.t, o.stream);
    assert_eq!(rc, OK);
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [9.0; 4], "not run at capture");
    assert_eq!(execute(&o.t, m, o.stream), OK);
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [0.0, 2.0, 0.0, 4.0]);
    assert_eq!(o.t.upload(xp, &f32_bytes(&[5.0, -6.0, 7.0, -8.0])), OK);
    assert_eq!(execute(&o.t, m, o.stream), OK);
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(
        read_f32(&o.t, yp, 4),
        [5.0, 0.0, 7.0, 0.0],
        "the replay reads the inputs anew"
    );
    assert_eq!(destroy(&o.t, m), OK);
    o.finish();
}

#[test]
fn an_optional_9x_function_missing_from_the_runtime_is_a_symbol_error_not_a_panic() {
    let t = T::with_device(0);
    assert!(OPTIONAL_FUNCTIONS.contains(&"aclmdlRIUpdate"));
    assert!(OPTIONAL_FUNCTIONS.iter().all(|f| !FUNCTIONS.contains(f)));
    // SAFETY: never called: the mock (CANN 8.5.0) does not export it.
    let err = unsafe { t.lib.aclmdlRIUpdate(std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(err.symbol, "aclmdlRIUpdate");
    assert!(!t.lib.has_symbol("aclmdlRIGetId"));
}
