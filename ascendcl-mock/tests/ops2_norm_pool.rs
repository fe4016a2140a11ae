//! Numeric checks of batch norm, pooling and upsampling (second operator
//! set) against small hand-computed cases: training and eval batch norm with
//! the running-statistics update, ceil-mode max pooling and its scatter,
//! uneven adaptive bins, bicubic and bilinear with align-corners both ways.
//! (The PyTorch goldens live with the safe layer.)

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

const TIGHT: f32 = 1e-6;

fn x9() -> Vec<f32> {
    (1..=9).map(|v| v as f32).collect()
}

fn batch_norm(
    o: &mut OpsTest,
    a: [Ptr; 5],
    training: bool,
    momentum: f64,
    eps: f64,
    outs: [Ptr; 3],
) {
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnBatchNormGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, f64, Ptr, Ptr, Ptr),
        (
            a[0], a[1], a[2], a[3], a[4], training, momentum, eps, outs[0], outs[1], outs[2]
        )
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnBatchNorm", ws, e);
}

/// (N, C, L) = (2, 2, 2): channel 0 holds 1, 2, 3, 4 (mean 2.5, biased var
/// 1.25, unbiased 5/3), channel 1 holds 0, 0, 4, 4 (mean 2, var 4, unbiased 16/3).
const BN_X: [f32; 8] = [1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 4.0, 4.0];

#[test]
fn batch_norm_training_saves_mean_and_variance_and_updates_running_stats() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 2, 2], &BN_X);
    let (w, _) = o.f32_tensor(&[2], &[2.0, 1.0]);
    let (b, _) = o.f32_tensor(&[2], &[0.0, 1.0]);
    let (rm, rmp) = o.f32_tensor(&[2], &[0.0, 0.0]);
    let (rv, rvp) = o.f32_tensor(&[2], &[1.0, 1.0]);
    let (out, outp) = o.f32_tensor(&[2, 2, 2], &[0.0; 8]);
    let (sm, smp) = o.f32_tensor(&[2], &[0.0; 2]);
    let (sv, svp) = o.f32_tensor(&[2], &[0.0; 2]);
    batch_norm(&mut o, [x, w, b, rm, rv], true, 0.1, 0.0, [out, sm, sv]);
    let k = 2.0 / 1.25f32.sqrt();
    assert_close(
        &read_f32(&o.t, outp, 8),
        &[-1.5 * k, -0.5 * k, 0.0, 0.0, 0.5 * k, 1.5 * k, 2.0, 2.0],
        TIGHT,
    );
    assert_eq!(read_f32(&o.t, smp, 2), [2.5, 2.0]);
    // Ascend910B1 (A2): saveInvstd holds the biased batch variance
    assert_eq!(read_f32(&o.t, svp, 2), [1.25, 4.0]);
    assert_close(&read_f32(&o.t, rmp, 2), &[0.25, 0.2], TIGHT);
    assert_close(
        &read_f32(&o.t, rvp, 2),
        &[0.9 + 0.1 * 5.0 / 3.0, 0.9 + 0.1 * 16.0 / 3.0],
        TIGHT,
    );
    o.finish();
}

#[test]
fn batch_norm_eval_uses_running_stats_and_leaves_them() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 2, 2], &BN_X);
    let (rm, rmp) = o.f32_tensor(&[2], &[1.0, 0.0]);
    let (rv, rvp) = o.f32_tensor(&[2], &[4.0, 1.0]);
    let (out, outp) = o.f32_tensor(&[2, 2, 2], &[0.0; 8]);
    let null = std::ptr::null_mut();
    batch_norm(
        &mut o,
        [x, null, null, rm, rv],
        false,
        0.1,
        0.0,
        [out, null, null],
    );
    assert_eq!(
        read_f32(&o.t, outp, 8),
        [0.0, 0.5, 0.0, 0.0, 1.0, 1.5, 4.0, 4.0]
    );
    assert_eq!(read_f32(&o.t, rmp, 2), [1.0, 0.0]);
    assert_eq!(read_f32(&o.t, rvp, 2), [4.0, 1.0]);
    o.finish();
}

#[allow(clippy::too_many_arguments)]
fn bn_backward(o: &mut OpsTest, a: [Ptr; 7], training: bool, mask: &[bool], outs: [Ptr; 3]) {
    let m = o.bool_array(mask);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnBatchNormBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, Ptr, Ptr, Ptr, Ptr
        ),
        (
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], training, 0.0, m, outs[0], outs[1], outs[2]
        )
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnBatchNormBackward", ws, e);
}

#[test]
fn batch_norm_backward_training_reads_the_saved_variance() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 2, 2], &BN_X);
    let (w, _) = o.f32_tensor(&[2], &[2.0, 1.0]);
    let (sm, _) = o.f32_tensor(&[2], &[2.5, 2.0]);
    let (sv, _) = o.f32_tensor(&[2], &[1.25, 4.0]);
    // channel 0: one 1 at (n0, l0); channel 1: all ones
    let (go, _) = o.f32_tensor(&[2, 2, 2], &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
    let (gi, gip) = o.f32_tensor(&[2, 2, 2], &[0.0; 8]);
    let (gw, gwp) = o.f32_tensor(&[2], &[0.0; 2]);
    let (gb, gbp) = o.f32_tensor(&[2], &[0.0; 2]);
    let null = std::ptr::null_mut();
    bn_backward(
        &mut o,
        [go, x, w, null, null, sm, sv],
        true,
        &[true, true, true],
        [gi, gw, gb],
    );
    // w·invstd·(dy − mean(dy) − x̂·mean(dy·x̂)) with invstd = 1/sqrt(1.25):
    // the brackets are 0.3, −0.4, −0.1, 0.2 in channel 0 and 0 in channel 1
    let k = 2.0 / 1.25f32.sqrt();
    assert_close(
        &read_f32(&o.t, gip, 8),
        &[0.3 * k, -0.4 * k, 0.0, 0.0, -0.1 * k, 0.2 * k, 0.0, 0.0],
        1e-5,
    );
    assert_close(
        &read_f32(&o.t, gwp, 2),
        &[-1.5 / 1.25f32.sqrt(), 0.0],
        TIGHT,
    );
    assert_eq!(read_f32(&o.t, gbp, 2), [1.0, 4.0]);
    o.finish();
}

#[test]
fn batch_norm_backward_eval_and_a_partial_mask() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 2, 2], &BN_X);
    let (w, _) = o.f32_tensor(&[2], &[2.0, 1.0]);
    let (rm, _) = o.f32_tensor(&[2], &[1.0, 0.0]);
    let (rv, _) = o.f32_tensor(&[2], &[4.0, 1.0]);
    let (go, _) = o.f32_tensor(&[2, 2, 2], &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
    let (gi, gip) = o.f32_tensor(&[2, 2, 2], &[0.0; 8]);
    let (gw, gwp) = o.f32_tensor(&[2], &[-1.0; 2]);
    let null = std::ptr::null_mut();
    bn_backward(
        &mut o,
        [go, x, w, rm, rv, null, null],
        false,
        &[true, false, false],
        [gi, gw, null],
    );
    // eval: gradInput = w·dy/sqrt(running_var): 2·0.5 and 1·1
    assert_eq!(
        read_f32(&o.t, gip, 8),
        [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    );
    assert_eq!(
        read_f32(&o.t, gwp, 2),
        [-1.0, -1.0],
        "not requested: not written"
    );
    bn_backward(
        &mut o,
        [go, x, w, rm, rv, null, null],
        false,
        &[false, true, false],
        [null, gw, null],
    );
    // Σ dy·(x − rm)·invstd: channel 0 only (n0, l0) with x = 1; channel 1 0+0+4+4
    assert_eq!(read_f32(&o.t, gwp, 2), [0.0, 8.0]);
    o.finish();
}

#[allow(clippy::too_many_arguments)]
fn max_pool(
    o: &mut OpsTest,
    x: Ptr,
    k: &[i64],
    s: &[i64],
    p: &[i64],
    ceil: bool,
    out: Ptr,
    idx: Ptr,
) {
    let (ka, sa, pa, da) = (
        o.int_array(k),
        o.int_array(s),
        o.int_array(p),
        o.int_array(&[1, 1]),
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMaxPool2dWithIndicesGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, Ptr),
        (x, ka, sa, pa, da, ceil, out, idx)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMaxPool2dWithIndices", ws, e);
}

#[allow(clippy::too_many_arguments)]
fn max_pool_backward(
    o: &mut OpsTest,
    go: Ptr,
    x: Ptr,
    idx: Ptr,
    k: &[i64],
    s: &[i64],
    p: &[i64],
    ceil: bool,
    gi: Ptr,
) {
    let (ka, sa, pa, da) = (
        o.int_array(k),
        o.int_array(s),
        o.int_array(p),
        o.int_array(&[1]),
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr),
        (go, x, idx, ka, sa, pa, da, ceil, gi)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMaxPool2dWithIndicesBackward", ws, e);
}

const POOL_X: [f32; 9] = [1.0, 5.0, 2.0, 7.0, 3.0, 9.0, 4.0, 8.0, 6.0];

#[test]
fn max_pool_ceil_mode_and_empty_stride_with_pytorch_indices() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &POOL_X);
    let (out, outp) = o.f32_tensor(&[1, 1, 2, 2], &[0.0; 4]);
    let (idx, idxp) = o.raw_tensor(&[1, 1, 2, 2], ACL_INT64, &i64_bytes(&[0; 4]));
    // empty stride = the kernel size; ceil mode keeps the partial windows
    max_pool(&mut o, x, &[2], &[], &[0], true, out, idx);
    assert_eq!(read_f32(&o.t, outp, 4), [7.0, 9.0, 8.0, 6.0]);
    assert_eq!(read_i64(&o.t, idxp, 4), [3, 5, 7, 8]);
    // floor mode: one window; a (C, H, W) input and int32 indices
    let (x3, _) = o.f32_tensor(&[1, 3, 3], &POOL_X);
    let (o1, o1p) = o.f32_tensor(&[1, 1, 1], &[0.0]);
    let (i1, i1p) = o.raw_tensor(&[1, 1, 1], ACL_INT32, &i32_bytes(&[0]));
    max_pool(&mut o, x3, &[2, 2], &[2, 2], &[0, 0], false, o1, i1);
    assert_eq!(read_f32(&o.t, o1p, 1), [7.0]);
    assert_eq!(read_i32(&o.t, i1p, 1), [3]);
    // padding 1, kernel 3, stride 2: padded cells never win, indices stay in the plane
    let (o2, o2p) = o.f32_tensor(&[1, 1, 2, 2], &[0.0; 4]);
    let (i2, i2p) = o.raw_tensor(&[1, 1, 2, 2], ACL_INT32, &i32_bytes(&[0; 4]));
    let neg: Vec<f32> = POOL_X.iter().map(|v| -v).collect();
    let (xn, _) = o.f32_tensor(&[1, 1, 3, 3], &neg);
    max_pool(&mut o, xn, &[3, 3], &[2, 2], &[1, 1], false, o2, i2);
    assert_eq!(read_f32(&o.t, o2p, 4), [-1.0, -2.0, -3.0, -3.0]);
    assert_eq!(read_i32(&o.t, i2p, 4), [0, 2, 4, 4]);
    o.finish();
}

#[test]
fn max_pool_backward_scatters_to_the_argmax_and_accumulates() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &POOL_X);
    let (go, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (idx, _) = o.raw_tensor(&[1, 1, 2, 2], ACL_INT32, &i32_bytes(&[3, 5, 7, 8]));
    let (gi, gip) = o.f32_tensor(&[1, 1, 3, 3], &[9.0; 9]);
    max_pool_backward(&mut o, go, x, idx, &[2, 2], &[], &[0, 0], true, gi);
    assert_eq!(
        read_f32(&o.t, gip, 9),
        [0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 4.0]
    );
    // overlapping windows that share one argmax add up there
    let (x2, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (o2, _) = o.f32_tensor(&[1, 1, 2, 2], &[0.0; 4]);
    let (i2, i2p) = o.raw_tensor(&[1, 1, 2, 2], ACL_INT32, &i32_bytes(&[0; 4]));
    max_pool(&mut o, x2, &[3, 3], &[1, 1], &[1, 1], false, o2, i2);
    assert_eq!(read_i32(&o.t, i2p, 4), [3, 3, 3, 3]);
    let (go2, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0; 4]);
    let (gi2, gi2p) = o.f32_tensor(&[1, 1, 2, 2], &[9.0; 4]);
    max_pool_backward(&mut o, go2, x2, i2, &[3, 3], &[1, 1], &[1, 1], false, gi2);
    assert_eq!(read_f32(&o.t, gi2p, 4), [0.0, 0.0, 0.0, 4.0]);
    o.finish();
}

#[test]
fn adaptive_avg_pool_uneven_bins_and_backward() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 3, 3], &x9());
    let (out, outp) = o.f32_tensor(&[1, 1, 2, 2], &[0.0; 4]);
    let os = o.int_array(&[2, 2]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (x, os, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdaptiveAvgPool2d", ws, e);
    // bins rows/cols [0, 2) and [1, 3): they overlap on the middle
    assert_eq!(read_f32(&o.t, outp, 4), [3.0, 4.0, 6.0, 7.0]);
    let (go, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0; 4]);
    let (gi, gip) = o.f32_tensor(&[1, 1, 3, 3], &[9.0; 9]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (go, x, gi)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdaptiveAvgPool2dBackward", ws, e);
    assert_eq!(
        read_f32(&o.t, gip, 9),
        [0.25, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.25]
    );
    // global pooling of a (C, H, W) input: 3 -> 1
    let (x3, _) = o.f32_tensor(&[1, 3, 3], &x9());
    let (g, gp) = o.f32_tensor(&[1, 1, 1], &[0.0]);
    let one = o.int_array(&[1, 1]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (x3, one, g)
    );
    assert_eq!(rc, OK);
    o.run("aclnnAdaptiveAvgPool2d", ws, e);
    assert_eq!(read_f32(&o.t, gp, 1), [5.0]);
    o.finish();
}

#[allow(clippy::too_many_arguments)]
fn upsample(
    o: &mut OpsTest,
    op: &str,
    x: Ptr,
    size: &[i64],
    align: bool,
    sh: f64,
    sw: f64,
    out: Ptr,
) {
    let os = o.int_array(size);
    let name = format!("aclnn{op}GetWorkspaceSize");
    // SAFETY: the bicubic and bilinear forwards share this parameter list
    // (ops-cv v8.5.0 aclnn_upsample_bicubic_2d.h:25-27, aclnn_upsample_bilinear_2d.h:31-33).
    let f = unsafe {
        o.ops
            .op::<unsafe extern "C" fn(Ptr, Ptr, bool, f64, f64, Ptr, *mut u64, *mut Ptr) -> i32>(
                &name,
            )
    };
    let (mut ws, mut e) = (0u64, std::ptr::null_mut());
    // SAFETY: live descriptors; out-pointers are locals.
    let rc = unsafe { f(x, os, align, sh, sw, out, &mut ws, &mut e) };
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run(&format!("aclnn{op}"), ws, e);
}

/// 1 + 2·g(row) + g(col) for a 2x2 input [[1, 2], [3, 4]] and 1-D weights g.
fn plane(g: &[f32]) -> Vec<f32> {
    let mut v = Vec::new();
    for r in g {
        for c in g {
            v.push(1.0 + 2.0 * r + c);
        }
    }
    v
}

#[test]
fn bilinear_2x2_to_4x4_both_align_settings_and_an_explicit_scale() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (out, outp) = o.f32_tensor(&[1, 1, 4, 4], &[0.0; 16]);
    upsample(
        &mut o,
        "UpsampleBilinear2d",
        x,
        &[4, 4],
        true,
        0.0,
        0.0,
        out,
    );
    assert_close(
        &read_f32(&o.t, outp, 16),
        &plane(&[0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]),
        TIGHT,
    );
    upsample(
        &mut o,
        "UpsampleBilinear2d",
        x,
        &[4, 4],
        false,
        0.0,
        0.0,
        out,
    );
    // sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (the last row repeats)
    assert_close(
        &read_f32(&o.t, outp, 16),
        &plane(&[0.0, 0.25, 0.75, 1.0]),
        TIGHT,
    );
    // an explicit scale 2.6 maps with 1/2.6, not in/out = 0.4
    let (row, _) = o.f32_tensor(&[1, 1, 1, 2], &[0.0, 1.0]);
    let (o5, o5p) = o.f32_tensor(&[1, 1, 1, 5], &[0.0; 5]);
    upsample(
        &mut o,
        "UpsampleBilinear2d",
        row,
        &[1, 5],
        false,
        1.0,
        2.6,
        o5,
    );
    let src = |d: f32| (d + 0.5) / 2.6 - 0.5;
    assert_close(
        &read_f32(&o.t, o5p, 5),
        &[0.0, src(1.0), src(2.0), src(3.0), 1.0],
        TIGHT,
    );
    o.finish();
}

/// 1-D bicubic weights (A = -0.75, clamped taps) of input [0, 1] for 2 -> 4.
const CUBIC_ALIGNED: [f32; 4] = [0.0, 17.0 / 54.0, 37.0 / 54.0, 1.0];
const CUBIC_HALF: [f32; 4] = [-27.0 / 256.0, 0.226_562_5, 0.773_437_5, 1.0 + 27.0 / 256.0];

#[test]
fn bicubic_2x2_to_4x4_both_align_settings() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (out, outp) = o.f32_tensor(&[1, 1, 4, 4], &[0.0; 16]);
    upsample(&mut o, "UpsampleBicubic2d", x, &[4, 4], true, 0.0, 0.0, out);
    assert_close(&read_f32(&o.t, outp, 16), &plane(&CUBIC_ALIGNED), 1e-6);
    // explicit scales 2.0 agree with outputSize and give the same mapping
    upsample(
        &mut o,
        "UpsampleBicubic2d",
        x,
        &[4, 4],
        false,
        2.0,
        2.0,
        out,
    );
    assert_close(&read_f32(&o.t, outp, 16), &plane(&CUBIC_HALF), 1e-6);
    o.finish();
}

#[test]
fn bicubic_backward_spreads_one_gradient_with_the_forward_weights() {
    let mut o = OpsTest::new();
    let (os, is) = (o.int_array(&[4, 4]), o.int_array(&[1, 1, 2, 2]));
    let mut g = vec![0.0f32; 16];
    g[0] = 1.0;
    let (go, _) = o.f32_tensor(&[1, 1, 4, 4], &g);
    let (gi, gip) = o.f32_tensor(&[1, 1, 2, 2], &[9.0; 4]);
    let run = |o: &mut OpsTest, align: bool| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize",
            (Ptr, Ptr, Ptr, bool, f64, f64, Ptr),
            (go, os, is, align, 0.0, 0.0, gi)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBicubic2dBackward", ws, e);
    };
    run(&mut o, false);
    // out(0, 0) = Σ m_r·m_c·x with m_1 = -0.10546875 and m_0 = 1.10546875
    let (a, b) = (1.0 + 27.0f32 / 256.0, -27.0f32 / 256.0);
    assert_close(
        &read_f32(&o.t, gip, 4),
        &[a * a, a * b, b * a, b * b],
        TIGHT,
    );
    run(&mut o, true);
    // aligned, out(0, 0) is input(0, 0)
    assert_eq!(read_f32(&o.t, gip, 4), [1.0, 0.0, 0.0, 0.0]);
    o.finish();
}
