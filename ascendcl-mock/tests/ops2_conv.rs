//! Numeric checks of convolution and its backward (second operator set)
//! against small hand-computed cases: padding, stride, dilation, groups,
//! bias, output masks, transposed and 1-D convolution, f16/bf16 rounding.
//! (The PyTorch goldens live with the safe layer.)

mod common;
#[macro_use]
mod ops_support;

use std::time::Duration;

use ascendcl_mock::Misuse;
use common::OK;
use ops_support::*;

/// aclnnConvolution (groups is int64_t) and run it.
#[allow(clippy::too_many_arguments)]
fn conv(
    o: &mut OpsTest,
    x: Ptr,
    w: Ptr,
    b: Ptr,
    s: &[i64],
    p: &[i64],
    d: &[i64],
    g: i64,
    out: Ptr,
) {
    let (st, pa, di, op) = (
        o.int_array(s),
        o.int_array(p),
        o.int_array(d),
        o.int_array(&[0, 0]),
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnConvolutionGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
        (x, w, b, st, pa, di, false, op, g, out, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolution", ws, e);
}

fn x9() -> Vec<f32> {
    (1..=9).map(|v| v as f32).collect()
}

#[test]
fn conv_3x3_with_padding_stride_and_bias() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &x9());
    let (w, _) = o.f32_tensor(&[1, 1, 3, 3], &[1.0; 9]);
    let (b, _) = o.f32_tensor(&[1], &[0.5]);
    let (out, outp) = o.f32_tensor(&[1, 1, 2, 2], &[0.0; 4]);
    conv(&mut o, x, w, b, &[2, 2], &[1, 1], &[1, 1], 1, out);
    // windows centred on the corners: 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9
    assert_eq!(read_f32(&o.t, outp, 4), [12.5, 16.5, 24.5, 28.5]);
    // dilation 2 with a 2x2 kernel reads the four corners; no bias
    let (w2, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 10.0, 100.0, 1000.0]);
    let (o2, o2p) = o.f32_tensor(&[1, 1, 1, 1], &[0.0]);
    conv(
        &mut o,
        x,
        w2,
        std::ptr::null_mut(),
        &[1, 1],
        &[0, 0],
        &[2, 2],
        1,
        o2,
    );
    assert_eq!(read_f32(&o.t, o2p, 1), [1.0 + 30.0 + 700.0 + 9000.0]);
    // four-entry padding [top, bottom, left, right]
    let (o3, o3p) = o.f32_tensor(&[1, 1, 2, 1], &[0.0; 2]);
    conv(
        &mut o,
        x,
        w,
        std::ptr::null_mut(),
        &[2, 2],
        &[1, 1, 0, 0],
        &[1, 1],
        1,
        o3,
    );
    assert_eq!(
        read_f32(&o.t, o3p, 2),
        [
            1.0 + 2.0 + 3.0 + 4.0 + 5.0 + 6.0,
            4.0 + 5.0 + 6.0 + 7.0 + 8.0 + 9.0
        ]
    );
    o.finish();
}

/// aclnnConvolution with transposed = true and the given outputPadding.
#[allow(clippy::too_many_arguments)]
fn conv_t(
    o: &mut OpsTest,
    x: Ptr,
    w: Ptr,
    b: Ptr,
    s: &[i64],
    p: &[i64],
    op: &[i64],
    g: i64,
    out: Ptr,
) {
    let (st, pa, di, opa) = (
        o.int_array(s),
        o.int_array(p),
        o.int_array(&vec![1; s.len()]),
        o.int_array(op),
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnConvolutionGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
        (x, w, b, st, pa, di, true, opa, g, out, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolution", ws, e);
}

#[test]
fn transposed_conv_spreads_each_input_over_its_window() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (w, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0; 4]);
    let null = std::ptr::null_mut();
    // stride 2: each input fills its own 2x2 block
    let (o4, o4p) = o.f32_tensor(&[1, 1, 4, 4], &[0.0; 16]);
    conv_t(&mut o, x, w, null, &[2, 2], &[0, 0], &[0, 0], 1, o4);
    assert_eq!(
        read_f32(&o.t, o4p, 16),
        [
            1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0, 4.0, 4.0
        ]
    );
    // stride 1: overlapping blocks add up
    let (o3, o3p) = o.f32_tensor(&[1, 1, 3, 3], &[0.0; 9]);
    conv_t(&mut o, x, w, null, &[1, 1], &[0, 0], &[0, 0], 1, o3);
    assert_eq!(
        read_f32(&o.t, o3p, 9),
        [1.0, 3.0, 2.0, 4.0, 10.0, 6.0, 3.0, 7.0, 4.0]
    );
    // outputPadding 1 adds a last row and column that only the bias reaches;
    // groups 2 with weight (C_in, C_out / groups, ...) = (2, 1, 1, 1)
    let (x2, _) = o.f32_tensor(&[1, 2, 1, 1], &[1.0, 2.0]);
    let (w2, _) = o.f32_tensor(&[2, 1, 1, 1], &[10.0, 100.0]);
    let (b2, _) = o.f32_tensor(&[2], &[0.5, -0.5]);
    let (o2, o2p) = o.f32_tensor(&[1, 2, 2, 2], &[0.0; 8]);
    conv_t(&mut o, x2, w2, b2, &[2, 2], &[0, 0], &[1, 1], 2, o2);
    assert_eq!(
        read_f32(&o.t, o2p, 8),
        [10.5, 0.5, 0.5, 0.5, 199.5, -0.5, -0.5, -0.5]
    );
    o.finish();
}

#[test]
fn conv1d_ncl_with_one_and_two_entry_padding() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0]);
    let (w, _) = o.f32_tensor(&[1, 1, 3], &[1.0, 0.0, -1.0]);
    let (out, outp) = o.f32_tensor(&[1, 1, 3], &[0.0; 3]);
    let null = std::ptr::null_mut();
    // padding [1]: windows centred on 0, 2, 4
    conv(&mut o, x, w, null, &[2], &[1], &[1], 1, out);
    assert_eq!(read_f32(&o.t, outp, 3), [-2.0, -2.0, 4.0]);
    // padding [left 0, right 2]: windows start at 0, 2, 4
    conv(&mut o, x, w, null, &[2], &[0, 2], &[1], 1, out);
    assert_eq!(read_f32(&o.t, outp, 3), [-2.0, -2.0, 5.0]);
    // its backward: gradInput of a single gradient at output 1 (window 1..3 with padding 1)
    let (go, _) = o.f32_tensor(&[1, 1, 3], &[0.0, 1.0, 0.0]);
    let (gi, gip) = o.f32_tensor(&[1, 1, 5], &[9.0; 5]);
    let (gw, gwp) = o.f32_tensor(&[1, 1, 3], &[9.0; 3]);
    let (s, p, d, op) = (
        o.int_array(&[2]),
        o.int_array(&[1]),
        o.int_array(&[1]),
        o.int_array(&[0]),
    );
    let mask = o.bool_array(&[true, true, false]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (go, x, w, null, s, p, d, false, op, 1, mask, 0, gi, gw, null)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolutionBackward", ws, e);
    assert_eq!(read_f32(&o.t, gip, 5), [0.0, 1.0, 0.0, -1.0, 0.0]);
    assert_eq!(read_f32(&o.t, gwp, 3), [2.0, 3.0, 4.0]);
    o.finish();
}

#[test]
fn conv_groups_read_a_strided_view_and_write_a_strided_output() {
    let mut o = OpsTest::new();
    // input (1,2,2,2) as a view with an offset of 3 and a channel stride of 5
    let mut store = vec![-7.0f32; 13];
    for c in 0..2 {
        for k in 0..4 {
            store[3 + c * 5 + k] = (c * 10 + k + 1) as f32;
        }
    }
    let xp = o.buf(&f32_bytes(&store));
    let x = o.view(&[1, 2, 2, 2], &[10, 5, 2, 1], 3, ACL_FLOAT, &[13], xp);
    // groups = 2: output channel 0 sees input channel 0 only, 1 sees 1
    let (w, _) = o.f32_tensor(&[2, 1, 1, 1], &[2.0, 3.0]);
    let (b, _) = o.f32_tensor(&[2], &[0.0, 1.0]);
    // output stored H, W transposed
    let outp = o.buf(&f32_bytes(&[0.0; 8]));
    let out = o.view(&[1, 2, 2, 2], &[8, 4, 1, 2], 0, ACL_FLOAT, &[8], outp);
    conv(&mut o, x, w, b, &[1, 1], &[0, 0], &[1, 1], 2, out);
    assert_eq!(
        read_f32(&o.t, outp, 8),
        [2.0, 6.0, 4.0, 8.0, 34.0, 40.0, 37.0, 43.0]
    );
    o.finish();
}

#[test]
fn conv_f16_and_bf16_accumulate_wide_and_round_once() {
    let mut o = OpsTest::new();
    // 2049 + 1 is not representable in f16 step by step but the sum is
    let xs: Vec<u16> = [2048.0f32, 1.0, 1.0, 0.0]
        .iter()
        .map(|v| half_bits(*v))
        .collect();
    let (x, _) = o.raw_tensor(&[1, 1, 2, 2], ACL_FLOAT16, &u16_bytes(&xs));
    let ws: Vec<u16> = [1.0f32; 4].iter().map(|v| half_bits(*v)).collect();
    let (w, _) = o.raw_tensor(&[1, 1, 2, 2], ACL_FLOAT16, &u16_bytes(&ws));
    let (out, outp) = o.raw_tensor(&[1, 1, 1, 1], ACL_FLOAT16, &[0; 2]);
    conv(
        &mut o,
        x,
        w,
        std::ptr::null_mut(),
        &[1, 1],
        &[0, 0],
        &[1, 1],
        1,
        out,
    );
    assert_eq!(read_u16(&o.t, outp, 1), [half_bits(2050.0)]);
    let bx: Vec<u16> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .map(|v| (v.to_bits() >> 16) as u16)
        .collect();
    let (x, _) = o.raw_tensor(&[1, 1, 2, 2], ACL_BF16, &u16_bytes(&bx));
    let (w, _) = o.raw_tensor(&[1, 1, 2, 2], ACL_BF16, &u16_bytes(&bx));
    let (out, outp) = o.raw_tensor(&[1, 1, 1, 1], ACL_BF16, &[0; 2]);
    conv(
        &mut o,
        x,
        w,
        std::ptr::null_mut(),
        &[1, 1],
        &[0, 0],
        &[1, 1],
        1,
        out,
    );
    assert_eq!(read_u16(&o.t, outp, 1), [(30.0f32.to_bits() >> 16) as u16]);
    o.finish();
}

/// f16 bits of a value exactly representable in f16 (tests use such values).
fn half_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if v == 0.0 {
        return sign;
    }
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | man
}

#[allow(clippy::too_many_arguments)]
fn conv_backward(
    o: &mut OpsTest,
    go: Ptr,
    x: Ptr,
    w: Ptr,
    s: &[i64],
    p: &[i64],
    groups: i32,
    mask: &[bool],
    outs: (Ptr, Ptr, Ptr),
) {
    let (st, pa, di, op) = (
        o.int_array(s),
        o.int_array(p),
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
    );
    let m = o.bool_array(mask);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (
            go,
            x,
            w,
            std::ptr::null_mut(),
            st,
            pa,
            di,
            false,
            op,
            groups,
            m,
            0,
            outs.0,
            outs.1,
            outs.2
        )
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolutionBackward", ws, e);
}

#[test]
fn conv_backward_gives_all_three_gradients_and_honours_the_mask() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &x9());
    let (w, _) = o.f32_tensor(&[1, 1, 3, 3], &[1.0; 9]);
    let (go, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0; 4]);
    let (gi, gip) = o.f32_tensor(&[1, 1, 3, 3], &[0.0; 9]);
    let (gw, gwp) = o.f32_tensor(&[1, 1, 3, 3], &[0.0; 9]);
    let (gb, gbp) = o.f32_tensor(&[1], &[0.0]);
    conv_backward(
        &mut o,
        go,
        x,
        w,
        &[2, 2],
        &[1, 1],
        1,
        &[true, true, true],
        (gi, gw, gb),
    );
    // each input row/column is reached by 1, 2, 1 windows
    assert_eq!(
        read_f32(&o.t, gip, 9),
        [1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]
    );
    // gradWeight[kh][kw] sums x over the rows {1}, {0,2}, {1} and the same columns
    assert_eq!(
        read_f32(&o.t, gwp, 9),
        [5.0, 10.0, 5.0, 10.0, 20.0, 10.0, 5.0, 10.0, 5.0]
    );
    assert_eq!(read_f32(&o.t, gbp, 1), [4.0]);
    // a mask of [false, true, false]: gradInput and gradBias are not written
    // (and may be null)
    let (gw2, gw2p) = o.f32_tensor(&[1, 1, 3, 3], &[0.0; 9]);
    let sentinel = o.buf(&f32_bytes(&[-1.0; 9]));
    let gi2 = o.view(&[1, 1, 3, 3], &[9, 9, 3, 1], 0, ACL_FLOAT, &[9], sentinel);
    conv_backward(
        &mut o,
        go,
        x,
        w,
        &[2, 2],
        &[1, 1],
        1,
        &[false, true, false],
        (gi2, gw2, std::ptr::null_mut()),
    );
    assert_eq!(read_f32(&o.t, gw2p, 9), read_f32(&o.t, gwp, 9));
    assert_eq!(read_f32(&o.t, sentinel, 9), [-1.0; 9]);
    o.finish();
}

#[test]
fn conv_backward_with_groups() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 2, 2, 2], &[1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0]);
    let (w, _) = o.f32_tensor(&[2, 1, 1, 1], &[2.0, 3.0]);
    let (go, _) = o.f32_tensor(&[1, 2, 2, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
    let (gi, gip) = o.f32_tensor(&[1, 2, 2, 2], &[9.0; 8]);
    let (gw, gwp) = o.f32_tensor(&[2, 1, 1, 1], &[9.0; 2]);
    let (gb, gbp) = o.f32_tensor(&[2], &[9.0; 2]);
    conv_backward(
        &mut o,
        go,
        x,
        w,
        &[1, 1],
        &[0, 0],
        2,
        &[true, true, true],
        (gi, gw, gb),
    );
    assert_eq!(
        read_f32(&o.t, gip, 8),
        [2.0, 0.0, 0.0, 2.0, 3.0, 3.0, 0.0, 0.0]
    );
    assert_eq!(read_f32(&o.t, gwp, 2), [5.0, 30.0]);
    assert_eq!(read_f32(&o.t, gbp, 2), [2.0, 2.0]);
    o.finish();
}

#[allow(clippy::too_many_arguments)]
#[test]
fn conv_results_are_visible_only_after_synchronize() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &x9());
    let (w, _) = o.f32_tensor(&[1, 1, 3, 3], &[1.0; 9]);
    let (out, outp) = o.f32_tensor(&[1, 1, 1, 1], &[-3.0]);
    let (st, pa, di, op) = (
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
    );
    let (rc, _, e) = phase1!(
        o.ops,
        "aclnnConvolutionGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
        (x, w, std::ptr::null_mut(), st, pa, di, false, op, 1, out, 0)
    );
    assert_eq!(rc, OK);
    o.t.s.set_stream_delay(Duration::from_millis(100));
    assert_eq!(
        o.ops
            .launch("aclnnConvolution", std::ptr::null_mut(), 0, e, o.stream),
        OK
    );
    assert!(!o.t.stream_done(o.stream));
    assert_eq!(
        read_f32(&o.t, outp, 1),
        [-3.0],
        "the kernel has not run yet"
    );
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(read_f32(&o.t, outp, 1), [45.0]);
    o.t.s.set_stream_delay(Duration::ZERO);
    o.finish_with_misuse(Misuse::UnorderedAccess, 1);
}
