//! The second set's kernels honour the strides and offsets of every tensor:
//! each op run on column-major inputs (with an element offset) writing to
//! outputs spaced two elements apart gives bit for bit what it gives on
//! contiguous tensors; and f16 / bf16 results are the f32 results rounded
//! once to nearest even.

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

const OFF: i64 = 2;

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

fn numel(dims: &[i64]) -> usize {
    dims.iter().product::<i64>() as usize
}

/// A column-major view of the row-major values `v`, `OFF` elements into its storage.
fn cm_view(o: &mut OpsTest, dims: &[i64], v: &[f32]) -> Ptr {
    let n = numel(dims);
    let mut strides = vec![1i64; dims.len()];
    for i in 1..dims.len() {
        strides[i] = strides[i - 1] * dims[i - 1];
    }
    let rm = contiguous_strides(dims);
    let mut store = vec![f32::NAN; n + OFF as usize];
    for (k, x) in v.iter().enumerate() {
        let mut rest = k as i64;
        let mut at = OFF;
        for d in 0..dims.len() {
            let idx = rest / rm[d];
            rest %= rm[d];
            at += idx * strides[d];
        }
        store[at as usize] = *x;
    }
    let p = o.buf(&f32_bytes(&store));
    o.view(dims, &strides, OFF, ACL_FLOAT, &[n as i64 + OFF], p)
}

/// An output view whose elements sit two apart, one element into its storage.
fn spaced(o: &mut OpsTest, dims: &[i64], dtype: i32) -> (Ptr, Ptr) {
    let n = numel(dims);
    let strides: Vec<i64> = contiguous_strides(dims).iter().map(|s| s * 2).collect();
    let size = if dtype == ACL_INT32 || dtype == ACL_FLOAT {
        4
    } else {
        8
    };
    let p = o.buf(&vec![0u8; (2 * n + 1) * size]);
    (o.view(dims, &strides, 1, dtype, &[2 * n as i64 + 1], p), p)
}

fn read_spaced(o: &OpsTest, p: Ptr, n: usize) -> Vec<f32> {
    read_f32(&o.t, p, 2 * n + 1)
        .into_iter()
        .skip(1)
        .step_by(2)
        .collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn batch_norm_forward_and_backward_on_views() {
    let mut o = OpsTest::new();
    let dims = [2i64, 3, 2, 3];
    let n = numel(&dims);
    let xs = values(n, 1);
    let gs = values(n, 2);
    let (w, b) = (values(3, 3), values(3, 4));
    let run = |o: &mut OpsTest,
               x: Ptr,
               out: Ptr,
               go: Ptr,
               gi: Ptr,
               chan: &mut dyn FnMut(&mut OpsTest, &[f32]) -> Ptr| {
        let (wt, bt) = (chan(o, &w), chan(o, &b));
        let (rm, rv) = (chan(o, &[0.0; 3]), chan(o, &[1.0; 3]));
        let (sm, sv) = (chan(o, &[0.0; 3]), chan(o, &[0.0; 3]));
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnBatchNormGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, f64, Ptr, Ptr, Ptr),
            (x, wt, bt, rm, rv, true, 0.1, 1e-5, out, sm, sv)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnBatchNorm", ws, e);
        let mask = o.bool_array(&[true, false, false]);
        let null = std::ptr::null_mut();
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnBatchNormBackwardGetWorkspaceSize",
            (
                Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, f64, Ptr, Ptr, Ptr, Ptr
            ),
            (go, x, wt, rm, rv, sm, sv, true, 1e-5, mask, gi, null, null)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnBatchNormBackward", ws, e);
    };
    let (x, _) = o.f32_tensor(&dims, &xs);
    let (out, outp) = o.f32_tensor(&dims, &vec![0.0; n]);
    let (go, _) = o.f32_tensor(&dims, &gs);
    let (gi, gip) = o.f32_tensor(&dims, &vec![0.0; n]);
    run(&mut o, x, out, go, gi, &mut |o, v| o.f32_tensor(&[3], v).0);
    let (want_out, want_gi) = (read_f32(&o.t, outp, n), read_f32(&o.t, gip, n));
    let x = cm_view(&mut o, &dims, &xs);
    let go = cm_view(&mut o, &dims, &gs);
    let (out, outp) = spaced(&mut o, &dims, ACL_FLOAT);
    let (gi, gip) = spaced(&mut o, &dims, ACL_FLOAT);
    // per-channel tensors two apart as well
    run(&mut o, x, out, go, gi, &mut |o, v| {
        let store: Vec<f32> = v.iter().flat_map(|x| [*x, -9.0]).collect();
        let p = o.buf(&f32_bytes(&store));
        o.view(&[3], &[2], 0, ACL_FLOAT, &[6], p)
    });
    assert_eq!(bits(&read_spaced(&o, outp, n)), bits(&want_out));
    assert_eq!(bits(&read_spaced(&o, gip, n)), bits(&want_gi));
    o.finish();
}

#[test]
fn pools_on_views() {
    let mut o = OpsTest::new();
    let dims = [2i64, 2, 5, 5];
    let od = [2i64, 2, 3, 3];
    let (n, m) = (numel(&dims), numel(&od));
    let xs = values(n, 5);
    let gs = values(m, 6);
    let (k, s, p, d) = (
        o.int_array(&[3, 3]),
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
    );
    let os = o.int_array(&[3, 3]);
    let run =
        |o: &mut OpsTest, x: Ptr, out: Ptr, idx: Ptr, go: Ptr, gi: Ptr, aout: Ptr, agi: Ptr| {
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnMaxPool2dWithIndicesGetWorkspaceSize",
                (Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, Ptr),
                (x, k, s, p, d, false, out, idx)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnMaxPool2dWithIndices", ws, e);
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize",
                (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr),
                (go, x, idx, k, s, p, d, false, gi)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnMaxPool2dWithIndicesBackward", ws, e);
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnAdaptiveAvgPool2dGetWorkspaceSize",
                (Ptr, Ptr, Ptr),
                (x, os, aout)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnAdaptiveAvgPool2d", ws, e);
            let (rc, ws, e) = phase1!(
                o.ops,
                "aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize",
                (Ptr, Ptr, Ptr),
                (go, x, agi)
            );
            assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
            o.run("aclnnAdaptiveAvgPool2dBackward", ws, e);
        };
    let (x, _) = o.f32_tensor(&dims, &xs);
    let (out, outp) = o.f32_tensor(&od, &vec![0.0; m]);
    let (idx, idxp) = o.raw_tensor(&od, ACL_INT32, &i32_bytes(&vec![0; m]));
    let (go, _) = o.f32_tensor(&od, &gs);
    let (gi, gip) = o.f32_tensor(&dims, &vec![0.0; n]);
    let (aout, aoutp) = o.f32_tensor(&od, &vec![0.0; m]);
    let (agi, agip) = o.f32_tensor(&dims, &vec![0.0; n]);
    run(&mut o, x, out, idx, go, gi, aout, agi);
    let want = [
        read_f32(&o.t, outp, m),
        read_f32(&o.t, gip, n),
        read_f32(&o.t, aoutp, m),
        read_f32(&o.t, agip, n),
    ];
    let want_idx = read_i32(&o.t, idxp, m);
    let x = cm_view(&mut o, &dims, &xs);
    let go = cm_view(&mut o, &od, &gs);
    let (out, outp) = spaced(&mut o, &od, ACL_FLOAT);
    let (idx, idxp) = spaced(&mut o, &od, ACL_INT32);
    let (gi, gip) = spaced(&mut o, &dims, ACL_FLOAT);
    let (aout, aoutp) = spaced(&mut o, &od, ACL_FLOAT);
    let (agi, agip) = spaced(&mut o, &dims, ACL_FLOAT);
    run(&mut o, x, out, idx, go, gi, aout, agi);
    assert_eq!(bits(&read_spaced(&o, outp, m)), bits(&want[0]));
    let got_idx: Vec<i32> = read_i32(&o.t, idxp, 2 * m + 1)
        .into_iter()
        .skip(1)
        .step_by(2)
        .collect();
    assert_eq!(got_idx, want_idx);
    assert_eq!(bits(&read_spaced(&o, gip, n)), bits(&want[1]));
    assert_eq!(bits(&read_spaced(&o, aoutp, m)), bits(&want[2]));
    assert_eq!(bits(&read_spaced(&o, agip, n)), bits(&want[3]));
    o.finish();
}

#[test]
fn upsampling_and_conv_backward_on_views() {
    let mut o = OpsTest::new();
    let dims = [1i64, 2, 3, 4];
    let od = [1i64, 2, 5, 7];
    let (n, m) = (numel(&dims), numel(&od));
    let xs = values(n, 7);
    let gs = values(m, 8);
    let (os, is) = (o.int_array(&[5, 7]), o.int_array(&[1, 2, 3, 4]));
    let run = |o: &mut OpsTest, x: Ptr, bc: Ptr, go: Ptr, gi: Ptr, bl: Ptr| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBicubic2dGetWorkspaceSize",
            (Ptr, Ptr, bool, f64, f64, Ptr),
            (x, os, false, 0.0, 0.0, bc)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBicubic2d", ws, e);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize",
            (Ptr, Ptr, Ptr, bool, f64, f64, Ptr),
            (go, os, is, true, 0.0, 0.0, gi)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBicubic2dBackward", ws, e);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBilinear2dGetWorkspaceSize",
            (Ptr, Ptr, bool, f64, f64, Ptr),
            (x, os, false, 0.0, 0.0, bl)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBilinear2d", ws, e);
    };
    let (x, _) = o.f32_tensor(&dims, &xs);
    let (bc, bcp) = o.f32_tensor(&od, &vec![0.0; m]);
    let (go, _) = o.f32_tensor(&od, &gs);
    let (gi, gip) = o.f32_tensor(&dims, &vec![0.0; n]);
    let (bl, blp) = o.f32_tensor(&od, &vec![0.0; m]);
    run(&mut o, x, bc, go, gi, bl);
    let want = [
        read_f32(&o.t, bcp, m),
        read_f32(&o.t, gip, n),
        read_f32(&o.t, blp, m),
    ];
    let x = cm_view(&mut o, &dims, &xs);
    let go = cm_view(&mut o, &od, &gs);
    let (bc, bcp) = spaced(&mut o, &od, ACL_FLOAT);
    let (gi, gip) = spaced(&mut o, &dims, ACL_FLOAT);
    let (bl, blp) = spaced(&mut o, &od, ACL_FLOAT);
    run(&mut o, x, bc, go, gi, bl);
    assert_eq!(bits(&read_spaced(&o, bcp, m)), bits(&want[0]));
    assert_eq!(bits(&read_spaced(&o, gip, n)), bits(&want[1]));
    assert_eq!(bits(&read_spaced(&o, blp, m)), bits(&want[2]));
    // convolution backward: column-major gradOutput, input and weight; spaced gradients
    let (cx, cw, cg) = (
        values(2 * 4 * 4 * 4, 9),
        values(4 * 2 * 3 * 3, 10),
        values(2 * 4 * 2 * 2, 11),
    );
    let (xd, wd, gd) = ([2i64, 4, 4, 4], [4i64, 2, 3, 3], [2i64, 4, 2, 2]);
    let (st, pa, di, op) = (
        o.int_array(&[2, 2]),
        o.int_array(&[1, 1]),
        o.int_array(&[1, 1]),
        o.int_array(&[0, 0]),
    );
    let mask = o.bool_array(&[true, true, true]);
    let conv_bwd = |o: &mut OpsTest, a: [Ptr; 6]| {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnConvolutionBackwardGetWorkspaceSize",
            (
                Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, bool, Ptr, i32, Ptr, i8, Ptr, Ptr, Ptr
            ),
            (
                a[0],
                a[1],
                a[2],
                std::ptr::null_mut(),
                st,
                pa,
                di,
                false,
                op,
                2,
                mask,
                0,
                a[3],
                a[4],
                a[5]
            )
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnConvolutionBackward", ws, e);
    };
    let (g, _) = o.f32_tensor(&gd, &cg);
    let (x, _) = o.f32_tensor(&xd, &cx);
    let (w, _) = o.f32_tensor(&wd, &cw);
    let (gi, gip) = o.f32_tensor(&xd, &vec![0.0; 128]);
    let (gw, gwp) = o.f32_tensor(&wd, &[0.0; 72]);
    let (gb, gbp) = o.f32_tensor(&[4], &[0.0; 4]);
    conv_bwd(&mut o, [g, x, w, gi, gw, gb]);
    let want = [
        read_f32(&o.t, gip, 128),
        read_f32(&o.t, gwp, 72),
        read_f32(&o.t, gbp, 4),
    ];
    let g = cm_view(&mut o, &gd, &cg);
    let x = cm_view(&mut o, &xd, &cx);
    let w = cm_view(&mut o, &wd, &cw);
    let (gi, gip) = spaced(&mut o, &xd, ACL_FLOAT);
    let (gw, gwp) = spaced(&mut o, &wd, ACL_FLOAT);
    let (gb, gbp) = spaced(&mut o, &[4], ACL_FLOAT);
    conv_bwd(&mut o, [g, x, w, gi, gw, gb]);
    assert_eq!(bits(&read_spaced(&o, gip, 128)), bits(&want[0]));
    assert_eq!(bits(&read_spaced(&o, gwp, 72)), bits(&want[1]));
    assert_eq!(bits(&read_spaced(&o, gbp, 4)), bits(&want[2]));
    o.finish();
}

/// f32 -> f16 bits, round to nearest even (normal range only, as the tests use).
fn f16_rne(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    if v == 0.0 {
        return sign;
    }
    assert!((1..31).contains(&exp), "normal f16 only: {v}");
    let man = b & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    sign | h as u16
}

fn bf16_rne(v: f32) -> u16 {
    let b = v.to_bits();
    let rest = b & 0xffff;
    let mut h = b >> 16;
    if rest > 0x8000 || (rest == 0x8000 && (h & 1) == 1) {
        h += 1;
    }
    h as u16
}

fn f16_to_f32(h: u16) -> f32 {
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    if exp == 0 {
        return s * man * 2f32.powi(-24);
    }
    s * (1.0 + man / 1024.0) * 2f32.powi(exp - 15)
}

#[test]
fn half_precision_results_are_the_wide_result_rounded_once() {
    let mut o = OpsTest::new();
    // inputs exactly representable in f16 and bf16 (multiples of 1/64 below 2)
    let dims = [1i64, 2, 3, 4];
    let od = [1i64, 2, 5, 7];
    let (n, m) = (numel(&dims), numel(&od));
    let xs: Vec<f32> = values(n, 12)
        .iter()
        .map(|v| (v * 64.0).round() / 64.0)
        .collect();
    let os = o.int_array(&[5, 7]);
    let bicubic = |o: &mut OpsTest, dtype: i32, bytes: &[u8]| -> Ptr {
        let (x, _) = o.raw_tensor(&dims, dtype, bytes);
        let (out, outp) = o.raw_tensor(&od, dtype, &vec![0u8; m * 4]);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnUpsampleBicubic2dGetWorkspaceSize",
            (Ptr, Ptr, bool, f64, f64, Ptr),
            (x, os, true, 0.0, 0.0, out)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnUpsampleBicubic2d", ws, e);
        outp
    };
    let wide = bicubic(&mut o, ACL_FLOAT, &f32_bytes(&xs));
    let wide = read_f32(&o.t, wide, m);
    let h: Vec<u16> = xs.iter().map(|v| f16_rne(*v)).collect();
    assert!(h.iter().zip(&xs).all(|(a, b)| f16_to_f32(*a) == *b));
    let hp = bicubic(&mut o, ACL_FLOAT16, &u16_bytes(&h));
    let bf: Vec<u16> = xs.iter().map(|v| bf16_rne(*v)).collect();
    let bp = bicubic(&mut o, ACL_BF16, &u16_bytes(&bf));
    // the kernel sums in double; its f32 result rounded to f16 can differ from
    // the double rounded to f16 only on a double-rounding tie, which these
    // values do not hit
    let want_h: Vec<u16> = wide.iter().map(|v| f16_rne(*v)).collect();
    let want_b: Vec<u16> = wide.iter().map(|v| bf16_rne(*v)).collect();
    assert_eq!(read_u16(&o.t, hp, m), want_h);
    assert_eq!(read_u16(&o.t, bp, m), want_b);
    o.finish();
}
