//! Phase-1 argument checks of 3-D (NCDHW) convolution and its backward,
//! direct and transposed: the rules the real v8.5.0 op applies to 5-D
//! tensors on Ascend 910B (cited in the mock's `op_conv.c` and
//! `op_conv_backward.c`): exactly three stride, dilation and padding entries,
//! f32/f16/bf16, groups; a transposed conv3d's backprop padding in 0..255
//! and, in the backward, outputPadding below the stride.

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::params::*;
use ops_support::*;

fn conv_call(o: &OpsTest, a: &[Ptr], groups: i64, transposed: bool) -> (i32, Ptr) {
    let (rc, _, e) = phase1!(
        o.ops,
        "aclnnConvolutionGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
        (
            a[0], a[1], a[2], a[3], a[4], a[5], transposed, a[6], groups, a[7], 0
        )
    );
    (rc, e)
}

fn backward_call(o: &OpsTest, a: &[Ptr], groups: i32, transposed: bool) -> (i32, Ptr) {
    let (rc, _, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], transposed, a[7], groups, a[8], 0, a[9],
            a[10], a[11]
        )
    );
    (rc, e)
}

#[test]
fn conv3d_takes_three_entries_per_attribute_float_dtypes_and_groups() {
    let mut o = OpsTest::new();
    // D: (5 + 2 - 3) / 2 + 1 = 3, H: 6, W: 5
    let x = f32t(&mut o, &[1, 4, 5, 6, 5]);
    let w = f32t(&mut o, &[6, 2, 3, 3, 3]);
    let b = f32t(&mut o, &[6]);
    let out = f32t(&mut o, &[1, 6, 3, 6, 5]);
    let (s, p, d, op) = (
        o.int_array(&[2, 1, 1]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[0, 0, 0]),
    );
    let p6 = o.int_array(&[1, 1, 1, 1, 1, 1]);
    let p2 = o.int_array(&[1, 1]);
    let s2 = o.int_array(&[2, 1]);
    let d4 = o.int_array(&[1, 1, 1, 1]);
    let s0 = o.int_array(&[2, 0, 1]);
    let p_neg = o.int_array(&[1, -1, 1]);
    let x_f64 = typed(&mut o, &[1, 4, 5, 6, 5], ACL_DOUBLE);
    let w_i32 = typed(&mut o, &[6, 2, 3, 3, 3], ACL_INT32);
    let out4 = f32t(&mut o, &[1, 6, 3, 6]);
    let out_bad = f32t(&mut o, &[1, 6, 2, 6, 5]);
    let w_c = f32t(&mut o, &[6, 4, 3, 3, 3]);
    let w_deep = f32t(&mut o, &[6, 2, 8, 3, 3]);
    let b_bad = f32t(&mut o, &[4]);
    check(
        &o,
        &Case {
            op: "aclnnConvolution",
            ptrs: vec![x, w, b, s, p, d, op, out],
            knobs: vec![2.0],
            call: |o, a, k| conv_call(o, a, k[0] as i64, false),
            required: vec![
                (0, "input"),
                (1, "weight"),
                (3, "stride"),
                (4, "padding"),
                (5, "dilation"),
                (7, "output"),
            ],
            bad_ptrs: vec![
                ("padding of 6 entries (conv3d takes 3)", 4, p6),
                ("padding of 2 entries", 4, p2),
                ("stride of 2 entries", 3, s2),
                ("dilation of 4 entries", 5, d4),
                ("stride 0", 3, s0),
                ("negative padding", 4, p_neg),
                ("f64 input", 0, x_f64),
                ("int32 weight", 1, w_i32),
                ("4-D output", 7, out4),
                ("wrong output depth", 7, out_bad),
                ("weight C * groups != input C", 1, w_c),
                ("kernel deeper than the padded input", 1, w_deep),
                ("bias of 4 for 6 outputs", 2, b_bad),
            ],
            bad_knobs: vec![("groups 0", 0, 0.0), ("groups 3", 0, 3.0)],
        },
    );
    // f16 and bf16 throughout are accepted, like f32
    for dt in [ACL_FLOAT16, ACL_BF16] {
        let t = |o: &mut OpsTest, dims: &[i64]| typed(o, dims, dt);
        let (xh, wh, bh, oh) = (
            t(&mut o, &[1, 4, 5, 6, 5]),
            t(&mut o, &[6, 2, 3, 3, 3]),
            t(&mut o, &[6]),
            t(&mut o, &[1, 6, 3, 6, 5]),
        );
        let (rc, e) = conv_call(&o, &[xh, wh, bh, s, p, d, op, oh], 2, false);
        assert_eq!(rc, OK, "dtype {dt}: {:?}", o.t.recent_msg());
        assert_eq!(o.ops.destroy_executor(e), OK);
    }
    o.finish();
}

#[test]
fn transposed_conv3d_outputpadding_and_backprop_padding() {
    let mut o = OpsTest::new();
    // each dim: (3 - 1) * 2 - 2 + 2 + 1 + 1 = 6
    let x = f32t(&mut o, &[1, 4, 3, 3, 3]);
    let w = f32t(&mut o, &[4, 3, 3, 3, 3]);
    let b = f32t(&mut o, &[3]);
    let out = f32t(&mut o, &[1, 3, 6, 6, 6]);
    let (s, p, d, op) = (
        o.int_array(&[2, 2, 2]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[1, 1, 1]),
    );
    let op2 = o.int_array(&[1, 1]);
    let op_big = o.int_array(&[2, 0, 0]);
    let p4 = o.int_array(&[1, 1, 1, 1]);
    let w_n = f32t(&mut o, &[3, 3, 3, 3, 3]);
    let b4 = f32t(&mut o, &[4]);
    check(
        &o,
        &Case {
            op: "aclnnConvolution",
            ptrs: vec![x, w, b, s, p, d, op, out],
            knobs: vec![1.0],
            call: |o, a, k| conv_call(o, a, k[0] as i64, true),
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
                ("outputPadding of 2 entries", 6, op2),
                ("outputPadding not below stride or dilation", 6, op_big),
                ("padding of 4 entries (only 2-D takes 4)", 4, p4),
                ("weight N != input C", 1, w_n),
                ("bias not weight C * groups", 2, b4),
            ],
            bad_knobs: vec![("groups 0", 0, 0.0), ("groups 2", 0, 2.0)],
        },
    );
    // W padding 3 > (KW - 1) * dilation: valid in PyTorch, refused by the
    // real op's backprop-padding rule even with a fitting output
    // (D, H: (3 - 1) * 2 + 2 + 1 + 1 = 8, W: 8 - 6 = 2)
    let (p_w3, op0) = (o.int_array(&[0, 0, 3]), o.int_array(&[1, 1, 1]));
    let out_w3 = f32t(&mut o, &[1, 3, 8, 8, 2]);
    let null = std::ptr::null_mut();
    let (rc, e) = conv_call(&o, &[x, w, null, s, p_w3, d, op0, out_w3], 1, true);
    assert_eq!(rc, INVALID);
    assert!(e.is_null());
    assert!(o.t.recent_msg().unwrap_or_default().contains("255"));
    o.finish();
}

#[test]
fn conv3d_backward_attribute_lengths_and_transposed_outputpadding_below_stride() {
    let mut o = OpsTest::new();
    let x = f32t(&mut o, &[1, 4, 5, 6, 5]);
    let w = f32t(&mut o, &[6, 2, 3, 3, 3]);
    let go = f32t(&mut o, &[1, 6, 3, 6, 5]);
    let (gi, gw, gb) = (
        f32t(&mut o, &[1, 4, 5, 6, 5]),
        f32t(&mut o, &[6, 2, 3, 3, 3]),
        f32t(&mut o, &[6]),
    );
    let (s, p, d, op) = (
        o.int_array(&[2, 1, 1]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[1, 1, 1]),
        o.int_array(&[0, 0, 0]),
    );
    let mask = o.bool_array(&[true, true, true]);
    let bias_sizes = o.int_array(&[6]);
    let p6 = o.int_array(&[1, 1, 1, 1, 1, 1]);
    let op2 = o.int_array(&[0, 0]);
    let op1 = o.int_array(&[0, 1, 0]);
    let gi4 = f32t(&mut o, &[1, 4, 5, 6]);
    let go_bad = f32t(&mut o, &[1, 6, 3, 5, 5]);
    check(
        &o,
        &Case {
            op: "aclnnConvolutionBackward",
            ptrs: vec![go, x, w, bias_sizes, s, p, d, op, mask, gi, gw, gb],
            knobs: vec![2.0],
            call: |o, a, k| backward_call(o, a, k[0] as i32, false),
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
                ("padding of 6 entries (conv3d takes 3)", 5, p6),
                ("outputPadding of 2 entries", 7, op2),
                ("outputPadding not 0", 7, op1),
                ("4-D gradInput", 9, gi4),
                ("gradOutput of the wrong spatial shape", 0, go_bad),
            ],
            bad_knobs: vec![("groups 0", 0, 0.0), ("groups 4", 0, 4.0)],
        },
    );
    // transposed, stride 1, dilation 2: outputPadding 1 passes the forward's
    // "below stride or dilation", the conv3d backward wants it below the stride
    let (xt, wt) = (
        f32t(&mut o, &[1, 4, 3, 3, 3]),
        f32t(&mut o, &[4, 3, 3, 3, 3]),
    );
    let (s1, p0, d2) = (
        o.int_array(&[1, 1, 1]),
        o.int_array(&[0, 0, 0]),
        o.int_array(&[2, 2, 2]),
    );
    let (op_1, op_0) = (o.int_array(&[1, 1, 1]), o.int_array(&[0, 0, 0]));
    // (3 - 1) + 2 * 2 + outputPadding + 1
    let (out8, out7) = (
        f32t(&mut o, &[1, 3, 8, 8, 8]),
        f32t(&mut o, &[1, 3, 7, 7, 7]),
    );
    let null = std::ptr::null_mut();
    let (rc, e) = conv_call(&o, &[xt, wt, null, s1, p0, d2, op_1, out8], 1, true);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    assert_eq!(o.ops.destroy_executor(e), OK);
    let (gix, gwx) = (
        f32t(&mut o, &[1, 4, 3, 3, 3]),
        f32t(&mut o, &[4, 3, 3, 3, 3]),
    );
    let mask2 = o.bool_array(&[true, true, false]);
    let args = |go: Ptr, op: Ptr| [go, xt, wt, null, s1, p0, d2, op, mask2, gix, gwx, null];
    let (rc, e) = backward_call(&o, &args(out8, op_1), 1, true);
    assert_eq!(rc, INVALID);
    assert!(e.is_null());
    assert!(
        o.t.recent_msg()
            .unwrap_or_default()
            .contains("below stride")
    );
    let (rc, e) = backward_call(&o, &args(out7, op_0), 1, true);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    assert_eq!(o.ops.destroy_executor(e), OK);
    o.finish();
}
