//! Executor rules of the mock's operator libraries: single-use unless
//! repeatable, the workspace contract, results visible only after a
//! synchronize, addresses read at launch, memory checked at launch and when
//! the kernel runs, journal and fault injection on both phases.

mod common;
#[macro_use]
mod ops_support;

use std::time::Duration;

use ascendcl_mock::{Fault, Misuse, Resource};
use common::OK;
use ops_support::*;

type ReluWs = (Ptr, Ptr);

/// Phase 1 of Relu(self, out).
fn relu(o: &OpsTest, x: Ptr, y: Ptr) -> (i32, u64, Ptr) {
    phase1!(o.ops, "aclnnReluGetWorkspaceSize", (Ptr, Ptr), (x, y))
}

fn relu_pair(o: &mut OpsTest) -> (ReluWs, ReluWs) {
    let (x, xp) = o.f32_tensor(&[4], &[-1.0, 2.0, -3.0, 4.0]);
    let (y, yp) = o.f32_tensor(&[4], &[9.0; 4]);
    ((x, xp), (y, yp))
}

#[test]
fn a_single_use_executor_is_freed_by_its_launch_and_a_second_launch_fails() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    let (rc, ws, e) = relu(&o, x, y);
    assert_eq!((rc, ws), (OK, 0));
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 1);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        0,
        "freed by its launch"
    );
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        INVALID
    );
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("single-use"), "{msg}");
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [0.0, 2.0, 0.0, 4.0]);
    o.finish_with_misuse(Misuse::DestroyedHandle, 1);
}

#[test]
fn a_repeatable_executor_runs_many_times_with_re_pointed_addresses_until_destroyed() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    let x2 = o.buf(&f32_bytes(&[5.0, -6.0, 7.0, -8.0]));
    let y2 = o.buf(&f32_bytes(&[9.0; 4]));
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK);
    assert_eq!(o.ops.set_repeatable(e), OK);
    o.run("aclnnRelu", 0, e);
    assert_eq!(read_f32(&o.t, yp, 4), [0.0, 2.0, 0.0, 4.0]);
    type SetAddr = unsafe extern "C" fn(Ptr, usize, Ptr, Ptr) -> i32;
    // SAFETY: acl_meta.h signatures (executor, index, tensor, addr).
    unsafe {
        assert_eq!(
            o.ops.nn::<SetAddr>("aclSetInputTensorAddr")(e, 0, x, x2),
            OK
        );
        assert_eq!(
            o.ops.nn::<SetAddr>("aclSetOutputTensorAddr")(e, 0, y, y2),
            OK
        );
        assert_eq!(
            o.ops.nn::<SetAddr>("aclSetOutputTensorAddr")(e, 0, std::ptr::null_mut(), y2),
            561103,
            "a null tensor is ACLNN_ERR_INNER_NULLPTR"
        );
    }
    o.run("aclnnRelu", 0, e);
    assert_eq!(read_f32(&o.t, y2, 4), [5.0, 0.0, 7.0, 0.0]);
    assert_eq!(
        read_f32(&o.t, yp, 4),
        [0.0, 2.0, 0.0, 4.0],
        "the old output is untouched"
    );
    // the executor follows its tensors: the index is unused for these ops
    // (opbase v8.5.0 acl_op_api.cpp:424-440)
    // SAFETY: as above.
    unsafe {
        assert_eq!(o.ops.nn::<SetAddr>("aclSetTensorAddr")(e, 7, y, yp), OK);
    }
    o.run("aclnnRelu", 0, e);
    assert_eq!(read_f32(&o.t, yp, 4), [5.0, 0.0, 7.0, 0.0]);
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        1,
        "repeatable: still alive"
    );
    assert_eq!(o.ops.destroy_executor(e), OK);
    assert_eq!(o.ops.destroy_executor(e), INVALID);
    o.finish_with_misuse(Misuse::DestroyedHandle, 1);
}

#[test]
fn results_are_visible_only_after_synchronize() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    o.t.s.set_stream_delay(Duration::from_millis(100));
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    assert!(!o.t.stream_done(o.stream));
    let early = read_f32(&o.t, yp, 4);
    assert_eq!(early, [9.0; 4], "the kernel has not run yet");
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [0.0, 2.0, 0.0, 4.0]);
    o.t.s.set_stream_delay(Duration::ZERO);
    // the early read is exactly the race the happens-before model reports
    assert!(
        o.t.s.misuse_log().contains("aclnnRelu"),
        "{}",
        o.t.s.misuse_log()
    );
    o.finish_with_misuse(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_null_stream_is_the_default_stream_of_the_current_context() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK);
    assert_eq!(
        o.ops.launch(
            "aclnnRelu",
            std::ptr::null_mut(),
            0,
            e,
            std::ptr::null_mut()
        ),
        OK
    );
    assert_eq!(o.t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [0.0, 2.0, 0.0, 4.0]);
    o.finish();
}

/// Addmm, Matmul and ReduceSum ask for a workspace. Phase 2 with a null
/// workspace and a nonzero size is 161001 and deletes the executor
/// (opbase v8.5.0 op_executor.cpp:1390-1394); a too small one is the mock's
/// 161002. Both consume a single-use executor.
#[test]
fn ops_with_a_workspace_reject_a_null_or_too_small_one() {
    let mut o = OpsTest::new();
    let (a, _) = o.f32_tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (b, _) = o.f32_tensor(&[2, 2], &[1.0, 0.0, 0.0, 1.0]);
    let (bias, _) = o.f32_tensor(&[2], &[0.5, 0.5]);
    let (out, outp) = o.f32_tensor(&[2, 2], &[0.0; 4]);
    let (sum, _) = o.f32_tensor(&[2], &[0.0; 2]);
    let one = o.scalar_f32(1.0);
    let dims = o.int_array(&[0]);
    let prep = |o: &OpsTest, which: &str| -> (i32, u64, Ptr) {
        match which {
            "aclnnAddmm" => phase1!(
                o.ops,
                "aclnnAddmmGetWorkspaceSize",
                (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, i8),
                (bias, a, b, one, one, out, 0)
            ),
            "aclnnMatmul" => phase1!(
                o.ops,
                "aclnnMatmulGetWorkspaceSize",
                (Ptr, Ptr, Ptr, i8),
                (a, b, out, 0)
            ),
            _ => phase1!(
                o.ops,
                "aclnnReduceSumGetWorkspaceSize",
                (Ptr, Ptr, bool, i32, Ptr),
                (a, dims, false, ACL_FLOAT, sum)
            ),
        }
    };
    for op in ["aclnnAddmm", "aclnnMatmul", "aclnnReduceSum"] {
        let (rc, ws, e) = prep(&o, op);
        assert_eq!(rc, OK, "{op}");
        assert!(ws > 0, "{op} asks for a workspace");
        assert_eq!(
            o.ops.launch(op, std::ptr::null_mut(), ws, e, o.stream),
            NULLPTR,
            "{op}: null"
        );
        assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0, "{op}: deleted");
        let (_, _, e) = prep(&o, op);
        assert_eq!(
            o.ops.launch(op, std::ptr::null_mut(), 0, e, o.stream),
            INVALID,
            "{op}: no workspace"
        );
        let (_, ws, e) = prep(&o, op);
        let w = o.buf(&vec![0u8; ws as usize]);
        assert_eq!(
            o.ops.launch(op, w, ws - 1, e, o.stream),
            INVALID,
            "{op}: too small"
        );
        let msg = o.t.recent_msg().unwrap_or_default();
        assert!(msg.contains("workspace"), "{msg}");
        let (_, ws, e) = prep(&o, op);
        o.run(op, ws, e);
    }
    assert_eq!(read_f32(&o.t, outp, 4), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.finish();
}

#[test]
fn a_null_workspace_with_a_size_deletes_even_a_repeatable_executor() {
    let mut o = OpsTest::new();
    let ((x, _), (y, _)) = relu_pair(&mut o);
    let (_, _, e) = relu(&o, x, y);
    assert_eq!(o.ops.set_repeatable(e), OK);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 64, e, o.stream),
        NULLPTR
    );
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.finish();
}

#[test]
fn an_executor_launched_by_another_op_is_rejected() {
    let mut o = OpsTest::new();
    let ((x, _), (y, _)) = relu_pair(&mut o);
    let (_, _, e) = relu(&o, x, y);
    assert_eq!(
        o.ops
            .launch("aclnnMm", std::ptr::null_mut(), 0, e, o.stream),
        INVALID
    );
    assert_eq!(
        o.ops.launch(
            "aclnnRelu",
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            o.stream
        ),
        NULLPTR
    );
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.finish();
}

#[test]
fn a_tensor_address_outside_live_device_memory_fails_at_launch() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[4], &[1.0; 4]);
    #[repr(align(32))]
    struct Aligned([f32; 8]);
    let mut host = Aligned([0.0; 8]);
    let y = o.view(&[4], &[1], 0, ACL_FLOAT, &[4], host.0.as_mut_ptr().cast());
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK, "phase 1 does not look at memory");
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        RUNTIME
    );
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("not device memory"), "{msg}");
    // a misaligned device address
    let p = o.buf(&[0u8; 64]);
    let z = o.view(&[4], &[1], 0, ACL_FLOAT, &[4], p.wrapping_byte_add(4));
    let (_, _, e) = relu(&o, x, z);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        INVALID
    );
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.finish();
}

#[test]
fn a_tensor_on_another_device_than_the_stream_fails_at_launch() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[4], &[1.0; 4]);
    assert_eq!(o.t.set_device(1), OK);
    let p1 = o.t.malloc(64, 0).unwrap();
    assert_eq!(o.t.set_device(0), OK); // every aclrtSetDevice counts a reference
    let y = o.view(&[4], &[1], 0, ACL_FLOAT, &[4], p1);
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        RUNTIME
    );
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("device 1"), "{msg}");
    assert_eq!(o.t.free(p1), OK);
    assert_eq!(o.t.reset_device(1), OK);
    assert_eq!(o.t.reset_device(0), OK);
    o.finish();
}

#[test]
fn an_op_and_a_copy_on_another_stream_without_an_event_are_an_unordered_access() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    let other = o.t.create_stream().expect("a second stream");
    let (_, _, e) = relu(&o, x, y);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    let z = o.buf(&[0u8; 16]);
    assert_eq!(o.t.memcpy_async(z, 16, yp, 16, common::D2D, other), OK);
    assert_eq!(o.t.sync_stream(other), OK);
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(o.t.destroy_stream(other), OK);
    o.finish_with_misuse(Misuse::UnorderedAccess, 1);
}

#[test]
fn memory_freed_before_the_kernel_runs_is_a_use_after_free_and_the_kernel_is_skipped() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[4], &[1.0; 4]);
    let yp = o.t.malloc(64, 0).unwrap();
    let y = o.view(&[4], &[1], 0, ACL_FLOAT, &[4], yp);
    o.t.s.set_stream_delay(Duration::from_millis(100));
    let (_, _, e) = relu(&o, x, y);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    assert_eq!(o.t.free(yp), OK);
    assert_eq!(o.t.sync_stream(o.stream), OK);
    o.t.s.set_stream_delay(Duration::ZERO);
    assert!(
        o.t.s.misuse_log().contains("aclnnRelu"),
        "{}",
        o.t.s.misuse_log()
    );
    // the free races with the queued kernel too (a host write to the block)
    o.finish_with_misuses(&[(Misuse::UseAfterFree, 1), (Misuse::UnorderedAccess, 1)]);
}

#[test]
fn injected_faults_fail_either_phase_and_leak_nothing() {
    let mut o = OpsTest::new();
    let ((x, _), (y, yp)) = relu_pair(&mut o);
    o.t.s
        .inject(&Fault::nth("aclnnReluGetWorkspaceSize", 1, 561000))
        .unwrap();
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!((rc, e.is_null()), (561000, true));
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.t.s.inject(&Fault::nth("aclnnRelu", 1, 361001)).unwrap();
    let (rc, _, e) = relu(&o, x, y);
    assert_eq!(rc, OK);
    assert_eq!(
        o.ops
            .launch("aclnnRelu", std::ptr::null_mut(), 0, e, o.stream),
        361001
    );
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        0,
        "phase 2 consumed the executor"
    );
    let faulted =
        o.t.s
            .journal()
            .into_iter()
            .rfind(|e| e.raw_field("fn") == Some("\"aclnnRelu\""))
            .expect("the faulted call is journaled");
    assert_eq!(faulted.raw_field("ret"), Some("361001"));
    assert!(
        faulted.line.contains("\"executor\":\"x"),
        "{}",
        faulted.line
    );
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, yp, 4), [9.0; 4], "nothing ran");
    o.finish();
}

#[test]
fn both_phases_are_journaled_with_their_key_arguments() {
    let mut o = OpsTest::new();
    let ((x, _), (y, _)) = relu_pair(&mut o);
    o.t.s.clear_journal();
    let (_, _, e) = relu(&o, x, y);
    o.run("aclnnRelu", 0, e);
    let j = o.t.s.journal();
    let p1 = j
        .iter()
        .find(|e| e.raw_field("fn") == Some("\"aclnnReluGetWorkspaceSize\""))
        .expect("phase 1 journaled");
    assert!(
        p1.line.contains("\"self\":\"t") && p1.line.contains("\"executor\":\"x"),
        "{}",
        p1.line
    );
    let p2 = j
        .iter()
        .find(|e| e.raw_field("fn") == Some("\"aclnnRelu\""))
        .expect("phase 2 journaled");
    assert!(
        p2.line.contains("\"stream\":\"s") && p2.line.contains("\"executor\":\"x"),
        "{}",
        p2.line
    );
    assert_eq!(o.t.s.call_count("aclnnRelu"), 1);
    o.finish();
}
