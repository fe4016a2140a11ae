//! Phase-1 argument checks of batch norm, pooling and upsampling (second
//! operator set): every required argument given as null is 161001, the
//! documented dtype, shape and attribute errors are 161002, each with a
//! message naming the op; no executor is left behind. Also: an injected
//! fault by name reaches the caller, and the journal records the new calls.

mod common;
#[macro_use]
mod ops_support;

use ascendcl_mock::{Fault, Resource};
use common::OK;
use ops_support::params::*;
use ops_support::*;

#[test]
fn batch_norm_and_its_backward() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[2, 3, 4]);
    let c = [
        f32t(&mut o, &[3]),
        f32t(&mut o, &[3]),
        f32t(&mut o, &[3]),
        f32t(&mut o, &[3]),
    ];
    let out = f32t(&mut o, &[2, 3, 4]);
    let (sm, sv) = (f32t(&mut o, &[3]), f32t(&mut o, &[3]));
    let x1 = f32t(&mut o, &[6]);
    let x_i32 = typed(&mut o, &[2, 3, 4], ACL_INT32);
    let out_bad = f32t(&mut o, &[2, 3, 5]);
    let c4 = f32t(&mut o, &[4]);
    let c2d = f32t(&mut o, &[3, 1]);
    check(
        &o,
        &Case {
            op: "aclnnBatchNorm",
            ptrs: vec![x, c[0], c[1], c[2], c[3], out, sm, sv],
            knobs: vec![1.0],
            call: |o, a, k| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnBatchNormGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, f64, Ptr, Ptr, Ptr),
                    (
                        a[0],
                        a[1],
                        a[2],
                        a[3],
                        a[4],
                        k[0] != 0.0,
                        0.1,
                        1e-5,
                        a[5],
                        a[6],
                        a[7]
                    )
                );
                (rc, e)
            },
            // training: saveMean and saveInvstd are required (weight, bias and the running stats are optional)
            required: vec![
                (0, "input"),
                (5, "output"),
                (6, "saveMean"),
                (7, "saveInvstd"),
            ],
            bad_ptrs: vec![
                ("1-D input", 0, x1),
                ("int32 input", 0, x_i32),
                ("output of another shape", 5, out_bad),
                ("weight of 4 channels", 1, c4),
                ("bias 2-D", 2, c2d),
                ("runningMean of 4", 3, c4),
                ("runningVar of 4", 4, c4),
                ("saveMean of 4", 6, c4),
                ("saveInvstd of 4", 7, c4),
            ],
            bad_knobs: vec![],
        },
    );
    // eval: the saved statistics may be null
    let null = std::ptr::null_mut();
    let (rc, _, e) = phase1!(
        o.ops,
        "aclnnBatchNormGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, f64, Ptr, Ptr, Ptr),
        (x, null, null, null, null, false, 0.1, 1e-5, out, null, null)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    assert_eq!(o.ops.destroy_executor(e), OK);
    let go = f32t(&mut o, &[2, 3, 4]);
    let gi = f32t(&mut o, &[2, 3, 4]);
    let (gw, gb) = (f32t(&mut o, &[3]), f32t(&mut o, &[3]));
    let mask = o.bool_array(&[true, true, true]);
    let empty = o.bool_array(&[]);
    check(
        &o,
        &Case {
            op: "aclnnBatchNormBackward",
            ptrs: vec![go, x, c[0], c[2], c[3], sm, sv, mask, gi, gw, gb],
            knobs: vec![],
            call: |o, a, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnBatchNormBackwardGetWorkspaceSize",
                    (
                        Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, Ptr, Ptr, Ptr, Ptr
                    ),
                    (
                        a[0], a[1], a[2], a[3], a[4], a[5], a[6], true, 1e-5, a[7], a[8], a[9],
                        a[10]
                    )
                );
                (rc, e)
            },
            required: vec![
                (0, "gradOut"),
                (1, "input"),
                (7, "outputMask"),
                (8, "gradInput"),
                (9, "gradWeight"),
                (10, "gradBias"),
            ],
            bad_ptrs: vec![
                ("empty outputMask", 7, empty),
                ("gradOut of another shape", 0, out_bad),
                ("int32 gradOut", 0, x_i32),
                ("gradInput of another shape", 8, out_bad),
                ("weight of 4", 2, c4),
                ("saveInvstd of 4", 6, c4),
                ("gradWeight of 4", 9, c4),
            ],
            bad_knobs: vec![],
        },
    );
    o.finish();
}

#[test]
fn max_pool_and_its_backward() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 2, 5, 5]);
    let out = f32t(&mut o, &[1, 2, 3, 3]);
    let idx = typed(&mut o, &[1, 2, 3, 3], ACL_INT32);
    let (k, s, p, d) = (
        o.int_array(&[3]),
        o.int_array(&[2, 2]),
        o.int_array(&[1]),
        o.int_array(&[1, 1]),
    );
    let x_2d = f32t(&mut o, &[5, 5]);
    let x_i32 = typed(&mut o, &[1, 2, 5, 5], ACL_INT32);
    let out_f16 = typed(&mut o, &[1, 2, 3, 3], ACL_FLOAT16);
    let idx_f32 = f32t(&mut o, &[1, 2, 3, 3]);
    let out_bad = f32t(&mut o, &[1, 2, 2, 2]);
    let idx_bad = typed(&mut o, &[1, 2, 3, 2], ACL_INT64);
    let k3 = o.int_array(&[3, 3, 3]);
    let k0 = o.int_array(&[0, 3]);
    let s3 = o.int_array(&[1, 1, 1]);
    let s0 = o.int_array(&[0]);
    let p2 = o.int_array(&[2]);
    let d2 = o.int_array(&[2, 2]);
    check(
        &o,
        &Case {
            op: "aclnnMaxPool2dWithIndices",
            ptrs: vec![x, k, s, p, d, out, idx],
            knobs: vec![0.0],
            call: |o, a, kn| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnMaxPool2dWithIndicesGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, Ptr),
                    (a[0], a[1], a[2], a[3], a[4], kn[0] != 0.0, a[5], a[6])
                );
                (rc, e)
            },
            required: vec![
                (0, "self"),
                (1, "kernelSize"),
                (2, "stride"),
                (3, "padding"),
                (4, "dilation"),
                (5, "out"),
                (6, "indices"),
            ],
            bad_ptrs: vec![
                ("2-D self", 0, x_2d),
                ("int32 self", 0, x_i32),
                ("out of another dtype", 5, out_f16),
                ("float indices", 6, idx_f32),
                ("out of the wrong shape", 5, out_bad),
                ("indices of the wrong shape", 6, idx_bad),
                ("kernelSize of 3", 1, k3),
                ("kernel 0", 1, k0),
                ("stride of 3", 2, s3),
                ("stride 0", 2, s0),
                ("padding above half the kernel", 3, p2),
                ("dilation 2 on A2", 4, d2),
            ],
            bad_knobs: vec![],
        },
    );
    // ceil mode changes the expected shape: 5 -> 3 either way here, but 6 -> 3 or 4
    let x6 = f32t(&mut o, &[1, 1, 6, 6]);
    let o3 = f32t(&mut o, &[1, 1, 3, 3]);
    let i3 = typed(&mut o, &[1, 1, 3, 3], ACL_INT64);
    let (rc, _, _) = phase1!(
        o.ops,
        "aclnnMaxPool2dWithIndicesGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, Ptr),
        (x6, k, s, p, d, true, o3, i3)
    );
    assert_eq!(rc, INVALID, "ceil mode: 6 -> 4");
    let go = f32t(&mut o, &[1, 2, 3, 3]);
    let gi = f32t(&mut o, &[1, 2, 5, 5]);
    let idx64 = typed(&mut o, &[1, 2, 3, 3], ACL_INT64);
    let x_f16 = typed(&mut o, &[1, 2, 5, 5], ACL_FLOAT16);
    let gi_bad = f32t(&mut o, &[1, 2, 5, 4]);
    check(
        &o,
        &Case {
            op: "aclnnMaxPool2dWithIndicesBackward",
            ptrs: vec![go, x, idx, k, s, p, d, gi],
            knobs: vec![],
            call: |o, a, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr),
                    (a[0], a[1], a[2], a[3], a[4], a[5], a[6], false, a[7])
                );
                (rc, e)
            },
            required: vec![
                (0, "gradOutput"),
                (1, "self"),
                (2, "indices"),
                (3, "kernelSize"),
                (4, "stride"),
                (5, "padding"),
                (6, "dilation"),
                (7, "gradInput"),
            ],
            bad_ptrs: vec![
                ("int64 indices on A2", 2, idx64),
                ("f16 self on A2", 1, x_f16),
                ("gradOutput of the wrong shape", 0, out_bad),
                ("gradInput of the wrong shape", 7, gi_bad),
                ("dilation 2", 6, d2),
            ],
            bad_knobs: vec![],
        },
    );
    o.finish();
}

#[test]
fn adaptive_avg_pool_and_its_backward() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 2, 5, 7]);
    let out = f32t(&mut o, &[1, 2, 3, 2]);
    let os = o.int_array(&[3, 2]);
    let os1 = o.int_array(&[3]);
    let os_mismatch = o.int_array(&[3, 3]);
    let x_2d = f32t(&mut o, &[5, 7]);
    let x_i32 = typed(&mut o, &[1, 2, 5, 7], ACL_INT32);
    let out_f16 = typed(&mut o, &[1, 2, 3, 2], ACL_FLOAT16);
    let out_c = f32t(&mut o, &[1, 3, 3, 2]);
    check(
        &o,
        &Case {
            op: "aclnnAdaptiveAvgPool2d",
            ptrs: vec![x, os, out],
            knobs: vec![],
            call: |o, a, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (a[0], a[1], a[2])
                );
                (rc, e)
            },
            required: vec![(0, "self"), (1, "outputSize"), (2, "out")],
            bad_ptrs: vec![
                ("2-D self", 0, x_2d),
                ("int32 self", 0, x_i32),
                ("out of another dtype", 2, out_f16),
                ("out with another C", 2, out_c),
                ("outputSize of 1", 1, os1),
                ("outputSize not out's", 1, os_mismatch),
            ],
            bad_knobs: vec![],
        },
    );
    let gi = f32t(&mut o, &[1, 2, 5, 7]);
    let gi_bad = f32t(&mut o, &[1, 2, 5, 6]);
    check(
        &o,
        &Case {
            op: "aclnnAdaptiveAvgPool2dBackward",
            ptrs: vec![out, x, gi],
            knobs: vec![],
            call: |o, a, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (a[0], a[1], a[2])
                );
                (rc, e)
            },
            required: vec![(0, "gradOutput"), (1, "self"), (2, "out")],
            bad_ptrs: vec![
                ("gradOutput of another dtype", 0, out_f16),
                ("gradOutput with another C", 0, out_c),
                ("int32 self", 1, x_i32),
                ("out not self's shape", 2, gi_bad),
            ],
            bad_knobs: vec![],
        },
    );
    o.finish();
}

type UpFwd = unsafe extern "C" fn(Ptr, Ptr, bool, f64, f64, Ptr, *mut u64, *mut Ptr) -> i32;

fn up_call(o: &OpsTest, name: &str, a: &[Ptr], k: &[f64]) -> (i32, Ptr) {
    // SAFETY: the bicubic and bilinear forwards share this C parameter list.
    let f = unsafe { o.ops.op::<UpFwd>(name) };
    let (mut ws, mut e) = (0u64, std::ptr::null_mut());
    // SAFETY: descriptor pointers (possibly null or invalid, which the mock
    // checks) and local out-pointers.
    let rc = unsafe { f(a[0], a[1], false, k[0], k[1], a[2], &mut ws, &mut e) };
    (rc, e)
}

#[test]
fn upsample_bicubic_bilinear_and_the_bicubic_backward() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 2, 3, 4]);
    let out = f32t(&mut o, &[1, 2, 6, 8]);
    let os = o.int_array(&[6, 8]);
    let os3 = o.int_array(&[6, 8, 1]);
    let os0 = o.int_array(&[0, 8]);
    let x_3d = f32t(&mut o, &[2, 3, 4]);
    let x_i32 = typed(&mut o, &[1, 2, 3, 4], ACL_INT32);
    let out_f16 = typed(&mut o, &[1, 2, 6, 8], ACL_FLOAT16);
    let out_bad = f32t(&mut o, &[1, 2, 6, 7]);
    check(
        &o,
        &Case {
            op: "aclnnUpsampleBicubic2d",
            ptrs: vec![x, os, out],
            knobs: vec![2.0, 0.0],
            call: |o, a, k| up_call(o, "aclnnUpsampleBicubic2dGetWorkspaceSize", a, k),
            required: vec![(0, "self"), (1, "outputSize"), (2, "out")],
            bad_ptrs: vec![
                ("3-D self", 0, x_3d),
                ("int32 self", 0, x_i32),
                ("out of another dtype", 2, out_f16),
                ("out not (N, C, outputSize)", 2, out_bad),
                ("outputSize of 3", 1, os3),
                ("outputSize 0", 1, os0),
            ],
            bad_knobs: vec![
                ("scalesH 3 for 3 -> 6", 0, 3.0),
                ("scalesW 1.5 for 4 -> 8", 1, 1.5),
            ],
        },
    );
    // bilinear: a null self or out is an inner null pointer (561103) in CANN 8.5.0
    check(
        &o,
        &Case {
            op: "aclnnUpsampleBilinear2d",
            ptrs: vec![x, os, out],
            knobs: vec![0.0, 0.0],
            call: |o, a, k| up_call(o, "aclnnUpsampleBilinear2dGetWorkspaceSize", a, k),
            required: vec![(1, "outputSize")],
            bad_ptrs: vec![
                ("3-D self", 0, x_3d),
                ("int32 self", 0, x_i32),
                ("out of another dtype", 2, out_f16),
                ("outputSize not out's H, W", 2, out_bad),
            ],
            bad_knobs: vec![("negative scalesH", 0, -1.0)],
        },
    );
    for (i, name) in [(0usize, "self"), (2, "out")] {
        let mut a = vec![x, os, out];
        a[i] = std::ptr::null_mut();
        let (rc, e) = up_call(
            &o,
            "aclnnUpsampleBilinear2dGetWorkspaceSize",
            &a,
            &[0.0, 0.0],
        );
        assert_eq!(rc, INNER_NULLPTR, "bilinear null {name}");
        assert!(e.is_null());
        assert!(o.t.recent_msg().unwrap_or_default().contains(name));
    }
    let is = o.int_array(&[1, 2, 3, 4]);
    let is3 = o.int_array(&[1, 2, 3]);
    let gi = f32t(&mut o, &[1, 2, 3, 4]);
    let gi_f16 = typed(&mut o, &[1, 2, 3, 4], ACL_FLOAT16);
    check(
        &o,
        &Case {
            op: "aclnnUpsampleBicubic2dBackward",
            ptrs: vec![out, os, is, gi],
            knobs: vec![],
            call: |o, a, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, bool, f64, f64, Ptr),
                    (a[0], a[1], a[2], true, 0.0, 0.0, a[3])
                );
                (rc, e)
            },
            required: vec![
                (0, "gradOut"),
                (1, "outputSize"),
                (2, "inputSize"),
                (3, "gradInput"),
            ],
            bad_ptrs: vec![
                ("inputSize of 3", 2, is3),
                ("outputSize of 3", 1, os3),
                ("gradOut not (N, C, outputSize)", 0, out_bad),
                ("gradInput of another dtype", 3, gi_f16),
                ("3-D gradOut", 0, x_3d),
            ],
            bad_knobs: vec![],
        },
    );
    o.finish();
}

#[test]
fn a_fault_injected_by_name_reaches_the_caller_and_the_call_is_journaled() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 1, 2, 2]);
    let out = f32t(&mut o, &[1, 1, 1, 1]);
    let os = o.int_array(&[1, 1]);
    let before = o.t.s.call_count("aclnnAdaptiveAvgPool2dGetWorkspaceSize");
    o.t.s
        .inject(&Fault::nth(
            "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
            1,
            161002,
        ))
        .unwrap();
    let (rc, _, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (x, os, out)
    );
    assert_eq!(rc, 161002);
    assert!(e.is_null());
    o.t.s.clear_faults();
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (x, os, out)
    );
    assert_eq!(rc, OK);
    o.t.s
        .inject(&Fault::nth("aclnnAdaptiveAvgPool2d", 1, 361001))
        .unwrap();
    assert_eq!(
        o.ops.launch(
            "aclnnAdaptiveAvgPool2d",
            std::ptr::null_mut(),
            ws,
            e,
            o.stream
        ),
        361001
    );
    o.t.s.clear_faults();
    assert_eq!(
        o.t.s.call_count("aclnnAdaptiveAvgPool2dGetWorkspaceSize"),
        before + 2
    );
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        0,
        "a failed phase 2 consumes the executor"
    );
    let journaled = o.t.s.journal().iter().any(|j| {
        j.line.contains("aclnnAdaptiveAvgPool2dGetWorkspaceSize") && j.line.contains("[1,1]")
    });
    assert!(
        journaled,
        "the phase-1 call and its outputSize are journaled"
    );
    o.finish();
}
