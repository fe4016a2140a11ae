//! Phase-1 argument checks of convolution and its backward (second operator
//! set), 1-D and transposed included: every required argument given as null
//! is 161001, the documented dtype, shape and attribute errors are 161002,
//! each with a message naming the op; no executor is left behind.

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::params::*;
use ops_support::*;

#[test]
fn convolution_and_its_backward() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 4, 5, 5]);
    let w = f32t(&mut o, &[6, 2, 3, 3]);
    let b = f32t(&mut o, &[6]);
    let out = f32t(&mut o, &[1, 6, 3, 3]);
    let (s, p, d, op) = (
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
    );
    let x_i32 = typed(&mut o, &[1, 4, 5, 5], ACL_INT32);
    let x_3d = f32t(&mut o, &[4, 5, 5]);
    let w_c = f32t(&mut o, &[6, 3, 3, 3]);
    let b_bad = f32t(&mut o, &[5]);
    let out_bad = f32t(&mut o, &[1, 6, 2, 2]);
    let s3 = o.int_array(&[1, 1, 1]);
    let s0 = o.int_array(&[0, 1]);
    let p_neg = o.int_array(&[-1, 0]);
    let d0 = o.int_array(&[1, 0]);
    let big = f32t(&mut o, &[6, 2, 9, 9]);
    check(
        &o,
        &Case {
            op: "aclnnConvolution",
            ptrs: vec![x, w, b, s, p, d, op, out],
            knobs: vec![2.0, 0.0],
            call: |o, a, k| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnConvolutionGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
                    (
                        a[0],
                        a[1],
                        a[2],
                        a[3],
                        a[4],
                        a[5],
                        k[1] != 0.0,
                        a[6],
                        k[0] as i64,
                        a[7],
                        0
                    )
                );
                (rc, e)
            },
            required: vec![
                (0, "input"),
                (1, "weight"),
                (3, "stride"),
                (4, "padding"),
                (5, "dilation"),
                (7, "output"),
            ],
            bad_ptrs: vec![
                ("int32 input", 0, x_i32),
                ("3-D input", 0, x_3d),
                ("weight C * groups != input C", 1, w_c),
                ("bias of 5 for 6 outputs", 2, b_bad),
                ("stride of 3 entries", 3, s3),
                ("stride 0", 3, s0),
                ("negative padding", 4, p_neg),
                ("dilation 0", 5, d0),
                ("wrong output shape", 7, out_bad),
                ("kernel larger than the padded input", 1, big),
            ],
            bad_knobs: vec![
                ("groups 0", 0, 0.0),
                ("groups 3", 0, 3.0),
                ("transposed, weight N (6) != input C (4)", 1, 1.0),
            ],
        },
    );
    // the backward: groups is a plain int here
    let go = f32t(&mut o, &[1, 6, 3, 3]);
    let gi = f32t(&mut o, &[1, 4, 5, 5]);
    let gw = f32t(&mut o, &[6, 2, 3, 3]);
    let gb = f32t(&mut o, &[6]);
    let mask = o.bool_array(&[true, true, true]);
    let mask2 = o.bool_array(&[true, true]);
    let bias_sizes = o.int_array(&[6]);
    let go_bad = f32t(&mut o, &[1, 6, 2, 3]);
    let gi_bad = f32t(&mut o, &[1, 4, 5, 4]);
    let gb_bad = f32t(&mut o, &[5]);
    let op1 = o.int_array(&[1, 0]);
    let go_i32 = typed(&mut o, &[1, 6, 3, 3], ACL_INT32);
    check(
        &o,
        &Case {
            op: "aclnnConvolutionBackward",
            ptrs: vec![go, x, w, bias_sizes, s, p, d, op, mask, gi, gw, gb],
            knobs: vec![2.0],
            call: |o, a, k| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnConvolutionBackwardGetWorkspaceSize",
                    (
                        Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
                    ),
                    (
                        a[0],
                        a[1],
                        a[2],
                        a[3],
                        a[4],
                        a[5],
                        a[6],
                        false,
                        a[7],
                        k[0] as i32,
                        a[8],
                        0,
                        a[9],
                        a[10],
                        a[11]
                    )
                );
                (rc, e)
            },
            required: vec![
                (0, "gradOutput"),
                (1, "input"),
                (2, "weight"),
                (4, "stride"),
                (5, "padding"),
                (6, "dilation"),
                (7, "outputPadding"),
                (8, "outputMask"),
                (9, "gradInput"),
                (10, "gradWeight"),
                (11, "gradBias"),
            ],
            bad_ptrs: vec![
                ("outputMask of 2", 8, mask2),
                ("gradOutput of the wrong spatial shape", 0, go_bad),
                ("int32 gradOutput", 0, go_i32),
                ("gradInput not input's shape", 9, gi_bad),
                ("gradBias not (C_out)", 11, gb_bad),
                ("outputPadding not 0", 7, op1),
                ("stride 0", 4, s0),
            ],
            bad_knobs: vec![("groups 0", 0, 0.0), ("groups 4", 0, 4.0)],
        },
    );
    o.finish();
}

#[test]
fn conv_backward_outputs_not_requested_may_be_null() {
    let mut o = OpsTest::new();
    let go = f32t(&mut o, &[1, 1, 1, 1]);
    let x = f32t(&mut o, &[1, 1, 2, 2]);
    let w = f32t(&mut o, &[1, 1, 2, 2]);
    let gw = f32t(&mut o, &[1, 1, 2, 2]);
    let (s, p, d, op) = (
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
    );
    let mask = o.bool_array(&[false, true, false]);
    let null = std::ptr::null_mut();
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (
            go, x, w, null, s, p, d, false, op, 1, mask, 0, null, gw, null
        )
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolutionBackward", ws, e);
    o.finish();
}

#[test]
fn conv1d_attribute_lengths_and_a_conv3d_with_conv1d_lengths() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 2, 6]);
    let w = f32t(&mut o, &[2, 2, 3]);
    let out = f32t(&mut o, &[1, 2, 6]);
    let go = f32t(&mut o, &[1, 2, 6]);
    let (s1, d1, p1, p2, op1) = (
        o.int_array(&[1]),
        o.int_array(&[1]),
        o.int_array(&[1]),
        o.int_array(&[1, 1]),
        o.int_array(&[0]),
    );
    let s2 = o.int_array(&[1, 1]);
    let null = std::ptr::null_mut();
    let fwd = |o: &OpsTest, x: Ptr, w: Ptr, s: Ptr, p: Ptr, d: Ptr, out: Ptr| {
        let (rc, _, e) = phase1!(
            o.ops,
            "aclnnConvolutionGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
            (
                x,
                w,
                std::ptr::null_mut(),
                s,
                p,
                d,
                false,
                std::ptr::null_mut(),
                1,
                out,
                0
            )
        );
        if rc == OK {
            assert_eq!(o.ops.destroy_executor(e), OK);
        }
        rc
    };
    assert_eq!(fwd(&o, x, w, s1, p1, d1, out), OK, "{:?}", o.t.recent_msg());
    assert_eq!(
        fwd(&o, x, w, s1, p2, d1, out),
        OK,
        "conv1d padding [left, right]"
    );
    assert_eq!(
        fwd(&o, x, w, s2, p1, d1, out),
        INVALID,
        "conv1d stride of 2"
    );
    // conv3d takes one stride entry per spatial dim (ops2_params_conv3d.rs)
    let x5 = f32t(&mut o, &[1, 2, 3, 3, 3]);
    let w5 = f32t(&mut o, &[2, 2, 1, 1, 1]);
    assert_eq!(
        fwd(&o, x5, w5, s1, p1, d1, x5),
        INVALID,
        "conv3d with one stride entry"
    );
    let mask = o.bool_array(&[true, false, false]);
    let gi = f32t(&mut o, &[1, 2, 6]);
    let bwd = |o: &OpsTest, p: Ptr| {
        let (rc, _, e) = phase1!(
            o.ops,
            "aclnnConvolutionBackwardGetWorkspaceSize",
            (
                Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
            ),
            (
                go, x, w, null, s1, p, d1, false, op1, 1, mask, 0, gi, null, null
            )
        );
        if rc == OK {
            assert_eq!(o.ops.destroy_executor(e), OK);
        }
        rc
    };
    assert_eq!(bwd(&o, p1), OK, "{:?}", o.t.recent_msg());
    // the backward checker wants exactly inputDim - 2 padding entries off 2-D
    assert_eq!(bwd(&o, p2), INVALID);
    assert!(
        o.t.recent_msg()
            .unwrap_or_default()
            .contains("aclnnConvolutionBackward")
    );
    o.finish();
}

#[test]
fn transposed_convolution_arguments() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 4, 3, 3]);
    let w = f32t(&mut o, &[4, 3, 3, 3]);
    let b = f32t(&mut o, &[6]);
    let out = f32t(&mut o, &[1, 6, 6, 6]);
    let (s, p, d, op) = (
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
    );
    let op2 = o.int_array(&[2, 0]);
    let op3 = o.int_array(&[1, 1, 1]);
    let b4 = f32t(&mut o, &[4]);
    let out5 = f32t(&mut o, &[1, 6, 5, 5]);
    let w3 = f32t(&mut o, &[3, 3, 3, 3]);
    check(
        &o,
        &Case {
            op: "aclnnConvolution",
            ptrs: vec![x, w, b, s, p, d, op, out],
            knobs: vec![2.0],
            call: |o, a, k| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnConvolutionGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
                    (
                        a[0],
                        a[1],
                        a[2],
                        a[3],
                        a[4],
                        a[5],
                        true,
                        a[6],
                        k[0] as i64,
                        a[7],
                        0
                    )
                );
                (rc, e)
            },
            // transposed: outputPadding is required too
            required: vec![
                (0, "input"),
                (1, "weight"),
                (3, "stride"),
                (4, "padding"),
                (5, "dilation"),
                (6, "outputPadding"),
                (7, "output"),
            ],
            bad_ptrs: vec![
                ("outputPadding not below stride or dilation", 6, op2),
                ("outputPadding of 3", 6, op3),
                ("bias not weight C * groups", 2, b4),
                ("output without the outputPadding", 7, out5),
                ("weight N != input C", 1, w3),
            ],
            bad_knobs: vec![("groups 3", 0, 3.0)],
        },
    );
    o.finish();
}

/// aclnn_convolution.cpp:1365-1411 (padBinaryValid, the last value check):
/// a transposed conv1d or conv2d is refused when its backprop padding
/// (K-1)·dilation - padding exceeds 255, with the padding read as the source
/// reads the caller's array: for conv2d H takes padding[0] and W
/// padding[1] (with four entries [top, bottom, left, right], the bottom
/// one); conv1d takes padding[0] (padding[1] of two entries).
#[test]
fn transposed_conv1d_and_conv2d_keep_the_backprop_padding_within_255_as_the_source_indexes_it() {
    let mut o = OpsTest::new();
    let transposed = |o: &mut OpsTest, x: &[i64], w: &[i64], out: &[i64], pad: &[i64], dil: i64| {
        let nsp = x.len() - 2;
        let (xt, wt, ot) = (f32t(o, x), f32t(o, w), f32t(o, out));
        let (s, p, d, op) = (
            o.int_array(&vec![1; nsp]),
            o.int_array(pad),
            o.int_array(&vec![dil; nsp]),
            o.int_array(&vec![0; nsp]),
        );
        let (rc, _, e) = phase1!(
            o.ops,
            "aclnnConvolutionGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
            (xt, wt, std::ptr::null_mut(), s, p, d, true, op, 1, ot, 0)
        );
        if rc == OK {
            assert_eq!(o.ops.destroy_executor(e), OK);
        }
        rc
    };
    // A 3x3 kernel at dilation 200 spans 400: each side needs a padding of
    // at least 145. Output side: 2 - (begin + end) + 400.
    let (x, w) = ([1, 1, 2, 2], [1, 1, 3, 3]);
    assert_eq!(
        transposed(&mut o, &x, &w, &[1, 1, 102, 102], &[150, 150], 200),
        OK
    );
    assert_eq!(
        transposed(&mut o, &x, &w, &[1, 1, 202, 102], &[100, 150], 200),
        INVALID
    );
    assert!(
        o.t.recent_msg()
            .unwrap_or_default()
            .contains("larger than 255")
    );
    // [top, bottom, left, right] = [150, 150, 0, 0]: W reads padding[1] = 150
    // and passes although its own padding is 0 ...
    assert_eq!(
        transposed(&mut o, &x, &w, &[1, 1, 102, 402], &[150, 150, 0, 0], 200),
        OK
    );
    // ... and [150, 0, 150, 150] is refused although W's padding is 150.
    assert_eq!(
        transposed(&mut o, &x, &w, &[1, 1, 252, 102], &[150, 0, 150, 150], 200),
        INVALID
    );
    // conv1d: (3 - 1) * 200 - padding[0].
    let (x1, w1) = ([1, 1, 2], [1, 1, 3]);
    assert_eq!(transposed(&mut o, &x1, &w1, &[1, 1, 102], &[150], 200), OK);
    assert_eq!(
        transposed(&mut o, &x1, &w1, &[1, 1, 202], &[100], 200),
        INVALID
    );
    o.finish();
}
