//! Gradient checks of the second set's backward ops against central finite
//! differences of their own forward ops, on small inputs: with a fixed
//! upstream gradient r, dL/dθ for L = Σ r·forward(θ) must match the backward
//! op's result. Independent of any golden. The step h and the tolerance are
//! chosen together: the forwards are linear in the perturbed input (conv,
//! pooling, upsampling: the difference is exact up to f32 rounding of L,
//! about 1e-6·|L|/h) or smooth (batch norm: truncation O(h²)), so an
//! absolute tolerance of 2e-3 on gradients of order 1 with h = 1e-2 (1e-3
//! for max pool, whose inputs are 0.05 apart so no window changes its
//! argmax) leaves an order of magnitude of margin.

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

const TOL: f32 = 2e-3;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Central differences of L = Σ r·out with respect to the buffer `p` of
/// `x0` (f32), running `fwd` (which fills `outp` of `r.len()` f32) each time.
fn numeric_grad(
    o: &mut OpsTest,
    p: Ptr,
    x0: &[f32],
    outp: Ptr,
    r: &[f32],
    h: f32,
    fwd: &mut dyn FnMut(&mut OpsTest),
) -> Vec<f32> {
    let mut loss = |o: &mut OpsTest, x: &[f32]| -> f64 {
        assert_eq!(o.t.upload(p, &f32_bytes(x)), OK);
        fwd(o);
        read_f32(&o.t, outp, r.len())
            .iter()
            .zip(r)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum()
    };
    let mut g = Vec::with_capacity(x0.len());
    for i in 0..x0.len() {
        let mut x = x0.to_vec();
        x[i] = x0[i] + h;
        let up = loss(o, &x);
        x[i] = x0[i] - h;
        let down = loss(o, &x);
        g.push(((up - down) / (2.0 * f64::from(h))) as f32);
    }
    assert_eq!(o.t.upload(p, &f32_bytes(x0)), OK);
    g
}

fn assert_grad(what: &str, analytic: &[f32], numeric: &[f32]) {
    for (i, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        assert!(
            (a - n).abs() <= TOL,
            "{what}[{i}]: backward {a}, finite difference {n}\n{analytic:?}\n{numeric:?}"
        );
    }
}

#[test]
fn convolution_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    // N=1, C=4, 5x5, groups 2, kernel 3x3, stride 2, padding 1, dilation 1; and a
    // second geometry with dilation 2
    for (dil, pad, stride, oh) in [(1i64, 1i64, 2i64, 3i64), (2, 2, 1, 5)] {
        let xs = values(100, 1);
        let ws = values(6 * 2 * 9, 2);
        let bs = values(6, 3);
        let r = values((6 * oh * oh) as usize, 4);
        let (x, xp) = o.f32_tensor(&[1, 4, 5, 5], &xs);
        let (w, wp) = o.f32_tensor(&[6, 2, 3, 3], &ws);
        let (b, bp) = o.f32_tensor(&[6], &bs);
        let (out, outp) = o.f32_tensor(&[1, 6, oh, oh], &vec![0.0; r.len()]);
        let (s, p, d, op) = (
            o.int_array(&[stride, stride]),
            o.int_array(&[pad, pad]),
            o.int_array(&[dil, dil]),
            o.int_array(&[0, 0]),
        );
        let mut fwd = |o: &mut OpsTest| {
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnConvolutionGetWorkspaceSize",
                (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
                (x, w, b, s, p, d, false, op, 2, out, 0)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnConvolution", ws, e);
        };
        let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
        let nw = numeric_grad(&mut o, wp, &ws, outp, &r, 1e-2, &mut fwd);
        let nb = numeric_grad(&mut o, bp, &bs, outp, &r, 1e-2, &mut fwd);
        let (go, _) = o.f32_tensor(&[1, 6, oh, oh], &r);
        let (gi, gip) = o.f32_tensor(&[1, 4, 5, 5], &[0.0; 100]);
        let (gw, gwp) = o.f32_tensor(&[6, 2, 3, 3], &[0.0; 108]);
        let (gb, gbp) = o.f32_tensor(&[6], &[0.0; 6]);
        let mask = o.bool_array(&[true, true, true]);
        let null = std::ptr::null_mut();
        let (rc, ws_, e) = phase1!(
            o.ops,
            "aclnnConvolutionBackwardGetWorkspaceSize",
            (
                Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
            ),
            (go, x, w, null, s, p, d, false, op, 2, mask, 0, gi, gw, gb)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnConvolutionBackward", ws_, e);
        assert_grad("gradInput", &read_f32(&o.t, gip, 100), &nx);
        assert_grad("gradWeight", &read_f32(&o.t, gwp, 108), &nw);
        assert_grad("gradBias", &read_f32(&o.t, gbp, 6), &nb);
    }
    o.finish();
}

#[test]
fn transposed_convolution_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    // input (1, 4, 3, 3), weight (C_in 4, C_out / groups 3, 3, 3), groups 2,
    // stride 2, padding 1, outputPadding 1: output (1, 6, 6, 6)
    let xs = values(36, 18);
    let ws = values(4 * 3 * 9, 19);
    let bs = values(6, 20);
    let r = values(6 * 36, 21);
    let (x, xp) = o.f32_tensor(&[1, 4, 3, 3], &xs);
    let (w, wp) = o.f32_tensor(&[4, 3, 3, 3], &ws);
    let (b, bp) = o.f32_tensor(&[6], &bs);
    let (out, outp) = o.f32_tensor(&[1, 6, 6, 6], &vec![0.0; r.len()]);
    let (s, p, d, op) = (
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
    );
    let mut fwd = |o: &mut OpsTest| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnConvolutionGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
            (x, w, b, s, p, d, true, op, 2, out, 0)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnConvolution", ws, e);
    };
    let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
    let nw = numeric_grad(&mut o, wp, &ws, outp, &r, 1e-2, &mut fwd);
    let nb = numeric_grad(&mut o, bp, &bs, outp, &r, 1e-2, &mut fwd);
    let (go, _) = o.f32_tensor(&[1, 6, 6, 6], &r);
    let (gi, gip) = o.f32_tensor(&[1, 4, 3, 3], &[0.0; 36]);
    let (gw, gwp) = o.f32_tensor(&[4, 3, 3, 3], &[0.0; 108]);
    let (gb, gbp) = o.f32_tensor(&[6], &[0.0; 6]);
    let mask = o.bool_array(&[true, true, true]);
    let null = std::ptr::null_mut();
    let (rc, ws_, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (go, x, w, null, s, p, d, true, op, 2, mask, 0, gi, gw, gb)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolutionBackward", ws_, e);
    assert_grad("gradInput", &read_f32(&o.t, gip, 36), &nx);
    assert_grad("gradWeight", &read_f32(&o.t, gwp, 108), &nw);
    assert_grad("gradBias", &read_f32(&o.t, gbp, 6), &nb);
    o.finish();
}

#[test]
fn conv1d_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    let xs = values(2 * 2 * 7, 15);
    let ws = values(4 * 3, 16);
    let r = values(2 * 4 * 4, 17);
    let (x, xp) = o.f32_tensor(&[2, 2, 7], &xs);
    let (w, wp) = o.f32_tensor(&[4, 1, 3], &ws);
    let (out, outp) = o.f32_tensor(&[2, 4, 4], &vec![0.0; r.len()]);
    // groups 2, stride 2, padding 2, dilation 2: (7 + 4 - 4 - 1) / 2 + 1 = 4
    let (s, p, d, op) = (
        o.int_array(&[2]),
        o.int_array(&[2]),
        o.int_array(&[2]),
        o.int_array(&[0]),
    );
    let null = std::ptr::null_mut();
    let mut fwd = |o: &mut OpsTest| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnConvolutionGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i64, Ptr, i8),
            (x, w, null, s, p, d, false, op, 2, out, 0)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnConvolution", ws, e);
    };
    let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
    let nw = numeric_grad(&mut o, wp, &ws, outp, &r, 1e-2, &mut fwd);
    let (go, _) = o.f32_tensor(&[2, 4, 4], &r);
    let (gi, gip) = o.f32_tensor(&[2, 2, 7], &[0.0; 28]);
    let (gw, gwp) = o.f32_tensor(&[4, 1, 3], &[0.0; 12]);
    let mask = o.bool_array(&[true, true, false]);
    let (rc, ws_, e) = phase1!(
        o.ops,
        "aclnnConvolutionBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
        ),
        (go, x, w, null, s, p, d, false, op, 2, mask, 0, gi, gw, null)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnConvolutionBackward", ws_, e);
    assert_grad("gradInput", &read_f32(&o.t, gip, 28), &nx);
    assert_grad("gradWeight", &read_f32(&o.t, gwp, 12), &nw);
    o.finish();
}

#[test]
fn batch_norm_backward_matches_finite_differences_in_training() {
    let mut o = OpsTest::new();
    let xs = values(2 * 3 * 4, 5);
    let ws = values(3, 6);
    let bs = values(3, 7);
    let r = values(24, 8);
    let (x, xp) = o.f32_tensor(&[2, 3, 2, 2], &xs);
    let (w, wp) = o.f32_tensor(&[3], &ws);
    let (b, bp) = o.f32_tensor(&[3], &bs);
    let (rm, _) = o.f32_tensor(&[3], &[0.0; 3]);
    let (rv, _) = o.f32_tensor(&[3], &[1.0; 3]);
    let (out, outp) = o.f32_tensor(&[2, 3, 2, 2], &[0.0; 24]);
    let (sm, _) = o.f32_tensor(&[3], &[0.0; 3]);
    let (sv, _) = o.f32_tensor(&[3], &[0.0; 3]);
    let eps = 1e-5;
    let mut fwd = |o: &mut OpsTest| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnBatchNormGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, f64, Ptr, Ptr, Ptr),
            (x, w, b, rm, rv, true, 0.1, eps, out, sm, sv)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnBatchNorm", ws, e);
    };
    let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
    let nw = numeric_grad(&mut o, wp, &ws, outp, &r, 1e-2, &mut fwd);
    let nb = numeric_grad(&mut o, bp, &bs, outp, &r, 1e-2, &mut fwd);
    fwd(&mut o); // saveMean / saveInvstd of the unperturbed input
    let (go, _) = o.f32_tensor(&[2, 3, 2, 2], &r);
    let (gi, gip) = o.f32_tensor(&[2, 3, 2, 2], &[0.0; 24]);
    let (gw, gwp) = o.f32_tensor(&[3], &[0.0; 3]);
    let (gb, gbp) = o.f32_tensor(&[3], &[0.0; 3]);
    let mask = o.bool_array(&[true, true, true]);
    let (rc, ws_, e) = phase1!(
        o.ops,
        "aclnnBatchNormBackwardGetWorkspaceSize",
        (
            Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, Ptr, Ptr, Ptr, Ptr
        ),
        (go, x, w, rm, rv, sm, sv, true, eps, mask, gi, gw, gb)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnBatchNormBackward", ws_, e);
    assert_grad("gradInput", &read_f32(&o.t, gip, 24), &nx);
    assert_grad("gradWeight", &read_f32(&o.t, gwp, 3), &nw);
    assert_grad("gradBias", &read_f32(&o.t, gbp, 3), &nb);
    o.finish();
}

#[test]
fn max_pool_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    // distinct values 0.05 apart, shuffled: no ties, no argmax change for h = 1e-3
    let n = 2 * 5 * 5;
    let mut xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.05).collect();
    let key = values(n, 9);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| key[*a].total_cmp(&key[*b]));
    xs = order.iter().map(|i| xs[*i]).collect();
    let r = values(2 * 3 * 3, 10);
    let (x, xp) = o.f32_tensor(&[1, 2, 5, 5], &xs);
    let (out, outp) = o.f32_tensor(&[1, 2, 3, 3], &[0.0; 18]);
    let (idx, _) = o.raw_tensor(&[1, 2, 3, 3], ACL_INT32, &i32_bytes(&[0; 18]));
    let (k, s, p, d) = (
        o.int_array(&[3, 3]),
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
    );
    let mut fwd = |o: &mut OpsTest| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnMaxPool2dWithIndicesGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, Ptr),
            (x, k, s, p, d, true, out, idx)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnMaxPool2dWithIndices", ws, e);
    };
    let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-3, &mut fwd);
    fwd(&mut o);
    let (go, _) = o.f32_tensor(&[1, 2, 3, 3], &r);
    let (gi, gip) = o.f32_tensor(&[1, 2, 5, 5], &[0.0; 50]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr),
        (go, x, idx, k, s, p, d, true, gi)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMaxPool2dWithIndicesBackward", ws, e);
    assert_grad("gradInput", &read_f32(&o.t, gip, 50), &nx);
    o.finish();
}

#[test]
fn adaptive_avg_pool_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    let xs = values(2 * 5 * 7, 11);
    let r = values(2 * 3 * 4, 12);
    let (x, xp) = o.f32_tensor(&[1, 2, 5, 7], &xs);
    let (out, outp) = o.f32_tensor(&[1, 2, 3, 4], &[0.0; 24]);
    let os = o.int_array(&[3, 4]);
    let mut fwd = |o: &mut OpsTest| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
            (Ptr, Ptr, Ptr),
            (x, os, out)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnAdaptiveAvgPool2d", ws, e);
    };
    let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
    let (go, _) = o.f32_tensor(&[1, 2, 3, 4], &r);
    let (gi, gip) = o.f32_tensor(&[1, 2, 5, 7], &[0.0; 70]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (go, x, gi)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdaptiveAvgPool2dBackward", ws, e);
    assert_grad("gradInput", &read_f32(&o.t, gip, 70), &nx);
    o.finish();
}

#[test]
fn bicubic_backward_matches_finite_differences() {
    let mut o = OpsTest::new();
    // 3x4 -> 7x5 (down and up), both align settings; and explicit scales
    for (align, sh, sw) in [(false, 0.0, 0.0), (true, 0.0, 0.0), (false, 2.4, 1.3)] {
        let xs = values(2 * 3 * 4, 13);
        let r = values(2 * 7 * 5, 14);
        let (x, xp) = o.f32_tensor(&[1, 2, 3, 4], &xs);
        let (out, outp) = o.f32_tensor(&[1, 2, 7, 5], &[0.0; 70]);
        let (os, is) = (o.int_array(&[7, 5]), o.int_array(&[1, 2, 3, 4]));
        let mut fwd = |o: &mut OpsTest| {
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnUpsampleBicubic2dGetWorkspaceSize",
                (Ptr, Ptr, bool, f64, f64, Ptr),
                (x, os, align, sh, sw, out)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnUpsampleBicubic2d", ws, e);
        };
        let nx = numeric_grad(&mut o, xp, &xs, outp, &r, 1e-2, &mut fwd);
        let (go, _) = o.f32_tensor(&[1, 2, 7, 5], &r);
        let (gi, gip) = o.f32_tensor(&[1, 2, 3, 4], &[0.0; 24]);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize",
            (Ptr, Ptr, Ptr, bool, f64, f64, Ptr),
            (go, os, is, align, sh, sw, gi)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBicubic2dBackward", ws, e);
        assert_grad("gradInput", &read_f32(&o.t, gip, 24), &nx);
    }
    o.finish();
}
