//! Numeric checks of the mock's operator kernels against hand-computed
//! values: views (strides, offset, transposes), broadcasting, dtypes
//! (f32, f16, bf16 rounded to nearest even, integers), reductions and the
//! loss ops. (The PyTorch golden comparison lives with the safe layer.)

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

const EXACT: f32 = 0.0;
const TIGHT: f32 = 1e-6;

#[test]
fn addmm_broadcasts_a_1d_bias_over_a_transposed_mat2_view() {
    let mut o = OpsTest::new();
    let (mat1, _) = o.f32_tensor(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // W is stored [3,2]; mat2 = W^T, a [2,3] view with strides [1,2]
    let wp = o.buf(&f32_bytes(&[1.0, 2.0, 0.0, 1.0, 1.0, 0.0]));
    let mat2 = o.view(&[2, 3], &[1, 2], 0, ACL_FLOAT, &[3, 2], wp);
    let (bias, _) = o.f32_tensor(&[3], &[0.5, -1.0, 2.0]);
    let (out, outp) = o.f32_tensor(&[3, 3], &[0.0; 9]);
    let beta = o.scalar_f64(2.0);
    let alpha = o.scalar_f64(0.5);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddmmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, i8),
        (bias, mat1, mat2, beta, alpha, out, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAddmm", ws, e);
    assert_close(
        &read_f32(&o.t, outp, 9),
        &[3.5, -1.0, 4.5, 6.5, 0.0, 5.5, 9.5, 1.0, 6.5],
        EXACT,
    );
    o.finish();
}

#[test]
fn mm_reads_a_view_with_an_element_offset() {
    let mut o = OpsTest::new();
    let sp = o.buf(&f32_bytes(&[9.0, 9.0, 1.0, 2.0, 3.0, 4.0]));
    let a = o.view(&[2, 2], &[2, 1], 2, ACL_FLOAT, &[6], sp);
    let (b, _) = o.f32_tensor(&[2, 2], &[2.0, 0.0, 0.0, 2.0]);
    let (out, outp) = o.f32_tensor(&[2, 2], &[0.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i8),
        (a, b, out, 1)
    );
    assert_eq!((rc, ws), (OK, 0));
    o.run("aclnnMm", ws, e);
    assert_eq!(read_f32(&o.t, outp, 4), [2.0, 4.0, 6.0, 8.0]);
    o.finish();
}

#[test]
fn matmul_broadcasts_batches_and_handles_1d_operands() {
    let mut o = OpsTest::new();
    let (a, _) = o.f32_tensor(&[2, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (b, _) = o.f32_tensor(&[2, 1], &[1.0, 1.0]);
    let (out, outp) = o.f32_tensor(&[2, 1, 1], &[0.0; 2]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMatmulGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i8),
        (a, b, out, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMatmul", ws, e);
    assert_eq!(read_f32(&o.t, outp, 2), [3.0, 7.0]);
    // 1-D . 1-D is a 0-dim dot product; 2-D . 1-D a vector
    let (u, _) = o.f32_tensor(&[3], &[1.0, 2.0, 3.0]);
    let (v, _) = o.f32_tensor(&[3], &[4.0, 5.0, 6.0]);
    let (dot, dotp) = o.f32_tensor(&[], &[0.0]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMatmulGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i8),
        (u, v, dot, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMatmul", ws, e);
    assert_eq!(read_f32(&o.t, dotp, 1), [32.0]);
    let (m, _) = o.f32_tensor(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let (ones, _) = o.f32_tensor(&[2], &[1.0, 1.0]);
    let (mv, mvp) = o.f32_tensor(&[2], &[0.0; 2]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMatmulGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i8),
        (m, ones, mv, 0)
    );
    assert_eq!(rc, OK);
    o.run("aclnnMatmul", ws, e);
    assert_eq!(read_f32(&o.t, mvp, 2), [3.0, 7.0]);
    o.finish();
}

#[test]
fn add_sub_mul_broadcast_with_alpha() {
    let mut o = OpsTest::new();
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (a, _) = o.f32_tensor(&[2, 3], &x);
    let (b, _) = o.f32_tensor(&[3], &[10.0, 20.0, 30.0]);
    let two = o.scalar_i64(2);
    let (out, outp) = o.f32_tensor(&[2, 3], &[0.0; 6]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, two, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdd", ws, e);
    assert_eq!(
        read_f32(&o.t, outp, 6),
        [21.0, 42.0, 63.0, 24.0, 45.0, 66.0]
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnSubGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, two, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnSub", ws, e);
    assert_eq!(
        read_f32(&o.t, outp, 6),
        [-19.0, -38.0, -57.0, -16.0, -35.0, -54.0]
    );
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMulGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, b, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnMul", ws, e);
    assert_eq!(
        read_f32(&o.t, outp, 6),
        [10.0, 40.0, 90.0, 40.0, 100.0, 180.0]
    );
    o.finish();
}

#[test]
fn scalar_ops_and_in_place_updates_use_the_scalar_value_copied_at_creation() {
    let mut o = OpsTest::new();
    let (a, ap) = o.f32_tensor(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let mut three = 3.0f64;
    let s = o.ops.scalar_raw((&three as *const f64).cast(), ACL_DOUBLE);
    three = 100.0;
    assert_eq!(three, 100.0);
    let half = o.scalar_f32(0.5);
    let (out, outp) = o.f32_tensor(&[4], &[0.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddsGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, s, half, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnAdds", ws, e);
    assert_eq!(
        read_f32(&o.t, outp, 4),
        [2.5, 3.5, 4.5, 5.5],
        "other = 3 as created, alpha 0.5"
    );
    let m2 = o.scalar_f32(-2.0);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMulsGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, m2, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnMuls", ws, e);
    assert_eq!(read_f32(&o.t, outp, 4), [-2.0, -4.0, -6.0, -8.0]);
    // momentum-style in-place updates: a *= 0.5; a += -2 * out
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceMulsGetWorkspaceSize",
        (Ptr, Ptr),
        (a, half)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceMuls", ws, e);
    assert_eq!(read_f32(&o.t, ap, 4), [0.5, 1.0, 1.5, 2.0]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, out, m2)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceAdd", ws, e);
    assert_eq!(read_f32(&o.t, ap, 4), [4.5, 9.0, 13.5, 18.0]);
    assert_eq!(o.ops.destroy_scalar(s), OK);
    o.finish();
}

#[test]
fn integer_add_computes_in_integers() {
    let mut o = OpsTest::new();
    let (a, _) = o.raw_tensor(&[2], ACL_INT32, &i32_bytes(&[1, 2]));
    let (b, _) = o.raw_tensor(&[2], ACL_INT32, &i32_bytes(&[3, 4]));
    let (out, outp) = o.raw_tensor(&[2], ACL_INT32, &i32_bytes(&[0, 0]));
    let two = o.scalar_i64(2);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, two, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdd", ws, e);
    assert_eq!(read_i32(&o.t, outp, 2), [7, 10]);
    o.finish();
}

#[test]
fn f16_and_bf16_results_round_to_nearest_even() {
    let mut o = OpsTest::new();
    let one = o.scalar_f32(1.0);
    // f16: 1 + 2^-11 is a tie (rounds to 1.0), 1 + 3*2^-11 a tie rounding up to 0x3c02
    let (a, _) = o.raw_tensor(&[2], ACL_FLOAT16, &u16_bytes(&[0x3c00, 0x3c00]));
    let (b, _) = o.raw_tensor(&[2], ACL_FLOAT16, &u16_bytes(&[0x1000, 0x1600]));
    let (out, outp) = o.raw_tensor(&[2], ACL_FLOAT16, &u16_bytes(&[0, 0]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, one, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdd", ws, e);
    assert_eq!(read_u16(&o.t, outp, 2), [0x3c00, 0x3c02]);
    // bf16: 1 + 2^-8 ties to 1.0, 1 + 3*2^-8 ties up to 0x3f82
    let (a, _) = o.raw_tensor(&[2], ACL_BF16, &u16_bytes(&[0x3f80, 0x3f80]));
    let (b, _) = o.raw_tensor(&[2], ACL_BF16, &u16_bytes(&[0x3b80, 0x3c40]));
    let (out, outp) = o.raw_tensor(&[2], ACL_BF16, &u16_bytes(&[0, 0]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, one, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnAdd", ws, e);
    assert_eq!(read_u16(&o.t, outp, 2), [0x3f80, 0x3f82]);
    o.finish();
}

#[test]
fn threshold_backward_passes_the_gradient_where_self_exceeds_the_threshold() {
    let mut o = OpsTest::new();
    let (g, _) = o.f32_tensor(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let (x, _) = o.f32_tensor(&[4], &[-1.0, 0.0, 0.5, 2.0]);
    let zero = o.scalar_f64(0.0);
    let (out, outp) = o.f32_tensor(&[4], &[9.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnThresholdBackwardGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (g, x, zero, out)
    );
    assert_eq!(rc, OK);
    o.run("aclnnThresholdBackward", ws, e);
    assert_eq!(read_f32(&o.t, outp, 4), [0.0, 0.0, 3.0, 4.0]);
    o.finish();
}

#[test]
fn log_softmax_and_its_backward_match_hand_computed_values() {
    let mut o = OpsTest::new();
    let l3 = 3.0f32.ln();
    let (x, _) = o.f32_tensor(&[2, 2], &[0.0, l3, 2.0, 2.0]);
    let (y, yp) = o.f32_tensor(&[2, 2], &[0.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnLogSoftmaxGetWorkspaceSize",
        (Ptr, i64, Ptr),
        (x, -1, y)
    );
    assert_eq!(rc, OK);
    o.run("aclnnLogSoftmax", ws, e);
    let want = [0.25f32.ln(), 0.75f32.ln(), -(2.0f32.ln()), -(2.0f32.ln())];
    assert_close(&read_f32(&o.t, yp, 4), &want, TIGHT);
    // over dim 0 of the transposed view: the same rows
    let xp2 = o.buf(&f32_bytes(&[0.0, 2.0, l3, 2.0]));
    let xt = o.view(&[2, 2], &[1, 2], 0, ACL_FLOAT, &[2, 2], xp2);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnLogSoftmaxGetWorkspaceSize",
        (Ptr, i64, Ptr),
        (xt, 1, y)
    );
    assert_eq!(rc, OK);
    o.run("aclnnLogSoftmax", ws, e);
    assert_close(&read_f32(&o.t, yp, 4), &want, TIGHT);
    let (g, _) = o.f32_tensor(&[2, 2], &[1.0, 0.0, 0.0, 0.0]);
    let (gi, gip) = o.f32_tensor(&[2, 2], &[9.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnLogSoftmaxBackwardGetWorkspaceSize",
        (Ptr, Ptr, i64, Ptr),
        (g, y, 1, gi)
    );
    assert_eq!(rc, OK);
    o.run("aclnnLogSoftmaxBackward", ws, e);
    assert_close(&read_f32(&o.t, gip, 4), &[0.75, -0.75, 0.0, 0.0], TIGHT);
    o.finish();
}

/// log-probs [[-1,-2],[-3,-4],[-5,-6]], targets [0, 1, -100 (ignored)],
/// weight [1, 2]: losses 1, 8, 0; sum 9; total weight 3; mean 3.
struct Nll {
    x: Ptr,
    t: Ptr,
    w: Ptr,
}

fn nll_inputs(o: &mut OpsTest) -> Nll {
    let (x, _) = o.f32_tensor(&[3, 2], &[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
    let (t, _) = o.raw_tensor(&[3], ACL_INT64, &i64_bytes(&[0, 1, -100]));
    let (w, _) = o.f32_tensor(&[2], &[1.0, 2.0]);
    Nll { x, t, w }
}

#[test]
fn nll_loss_weights_ignores_and_reduces_as_pytorch_and_leaves_total_weight_for_none() {
    let mut o = OpsTest::new();
    let n = nll_inputs(&mut o);
    // reduction none leaves totalWeightOut unwritten (aclnn_nll_loss.cpp v8.5.0:338)
    let (tw, twp) = o.f32_tensor(&[1], &[7.0]);
    for (reduction, dims, want, want_tw) in [
        (0i64, vec![3i64], vec![1.0f32, 8.0, 0.0], 7.0f32),
        (1, vec![], vec![3.0], 3.0),
        (2, vec![1], vec![9.0], 3.0),
    ] {
        let len = want.len();
        let (out, outp) = o.f32_tensor(&dims, &vec![7.0; len]);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnNLLLossGetWorkspaceSize",
            (Ptr, Ptr, Ptr, i64, i64, Ptr, Ptr),
            (n.x, n.t, n.w, reduction, -100, out, tw)
        );
        assert_eq!(rc, OK, "reduction {reduction}: {:?}", o.t.recent_msg());
        o.run("aclnnNLLLoss", ws, e);
        assert_eq!(read_f32(&o.t, outp, len), want, "reduction {reduction}");
        assert_eq!(
            read_f32(&o.t, twp, 1),
            [want_tw],
            "total weight, reduction {reduction}"
        );
    }
    o.finish();
}

#[test]
fn nll_loss_backward_scatters_the_weighted_gradient() {
    let mut o = OpsTest::new();
    let n = nll_inputs(&mut o);
    let (tw, _) = o.f32_tensor(&[1], &[3.0]);
    let (out, outp) = o.f32_tensor(&[3, 2], &[7.0; 6]);
    for (reduction, gdims, g, want) in [
        (
            0i64,
            vec![3i64],
            vec![1.0f32, 2.0, 3.0],
            [-1.0f32, 0.0, 0.0, -4.0, 0.0, 0.0],
        ),
        (
            1,
            vec![],
            vec![1.0],
            [-1.0 / 3.0, 0.0, 0.0, -2.0 / 3.0, 0.0, 0.0],
        ),
        (2, vec![1], vec![2.0], [-2.0, 0.0, 0.0, -4.0, 0.0, 0.0]),
    ] {
        let (gt, _) = o.f32_tensor(&gdims, &g);
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnNLLLossBackwardGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr, i64, i64, Ptr, Ptr),
            (gt, n.x, n.t, n.w, reduction, -100, tw, out)
        );
        assert_eq!(rc, OK, "reduction {reduction}: {:?}", o.t.recent_msg());
        o.run("aclnnNLLLossBackward", ws, e);
        assert_close(&read_f32(&o.t, outp, 6), &want, TIGHT);
    }
    o.finish();
}

#[test]
fn reduce_sum_over_dims_keepdims_all_and_a_transposed_view() {
    let mut o = OpsTest::new();
    let (x, xp) = o.f32_tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let xt = o.view(&[3, 2], &[1, 3], 0, ACL_FLOAT, &[2, 3], xp);
    let d0 = o.int_array(&[0]);
    let d1 = o.int_array(&[-1]);
    let all = o.int_array(&[]);
    let (cols, colsp) = o.f32_tensor(&[3], &[0.0; 3]);
    let (rows, rowsp) = o.f32_tensor(&[2, 1], &[0.0; 2]);
    let (total, totalp) = o.f32_tensor(&[], &[0.0]);
    for (src, dims, keep, out, outp, want) in [
        (x, d0, false, cols, colsp, vec![5.0f32, 7.0, 9.0]),
        (x, d1, true, rows, rowsp, vec![6.0, 15.0]),
        (x, all, false, total, totalp, vec![21.0]),
        (xt, d1, false, cols, colsp, vec![5.0, 7.0, 9.0]),
    ] {
        let (rc, ws, e) = phase1!(
            o.ops,
            "aclnnReduceSumGetWorkspaceSize",
            (Ptr, Ptr, bool, i32, Ptr),
            (src, dims, keep, ACL_FLOAT, out)
        );
        assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
        o.run("aclnnReduceSum", ws, e);
        assert_eq!(read_f32(&o.t, outp, want.len()), want);
    }
    o.finish();
}

#[test]
fn cast_converts_with_rounding_saturation_to_inf_and_truncation() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[3], &[1.0, 65520.0, 0.1]);
    let (h, hp) = o.raw_tensor(&[3], ACL_FLOAT16, &u16_bytes(&[0; 3]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnCastGetWorkspaceSize",
        (Ptr, i32, Ptr),
        (x, ACL_FLOAT16, h)
    );
    assert_eq!(rc, OK);
    o.run("aclnnCast", ws, e);
    assert_eq!(read_u16(&o.t, hp, 3), [0x3c00, 0x7c00, 0x2e66]);
    let (y, _) = o.f32_tensor(&[2], &[-2.7, 3.9]);
    let (i, ip) = o.raw_tensor(&[2], ACL_INT32, &i32_bytes(&[0; 2]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnCastGetWorkspaceSize",
        (Ptr, i32, Ptr),
        (y, ACL_INT32, i)
    );
    assert_eq!(rc, OK);
    o.run("aclnnCast", ws, e);
    assert_eq!(read_i32(&o.t, ip, 2), [-2, 3]);
    o.finish();
}

#[test]
fn inplace_copy_broadcasts_converts_and_writes_only_the_view() {
    let mut o = OpsTest::new();
    let (dst, dstp) = o.f32_tensor(&[2, 3], &[0.0; 6]);
    let (src, _) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[1, 2, 3]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceCopyGetWorkspaceSize",
        (Ptr, Ptr),
        (dst, src)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceCopy", ws, e);
    assert_eq!(read_f32(&o.t, dstp, 6), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    // a strided column of a zeroed [2,3] storage
    let sp = o.buf(&f32_bytes(&[0.0; 6]));
    let col = o.view(&[2], &[3], 1, ACL_FLOAT, &[6], sp);
    let (v, _) = o.f32_tensor(&[2], &[7.0, 8.0]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceCopyGetWorkspaceSize",
        (Ptr, Ptr),
        (col, v)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceCopy", ws, e);
    assert_eq!(read_f32(&o.t, sp, 6), [0.0, 7.0, 0.0, 0.0, 8.0, 0.0]);
    o.finish();
}

#[test]
fn inplace_zero_and_fill_scalar_touch_only_the_view_and_convert_the_value() {
    let mut o = OpsTest::new();
    let sp = o.buf(&f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let every_other = o.view(&[3], &[2], 0, ACL_FLOAT, &[6], sp);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceZeroGetWorkspaceSize",
        (Ptr),
        (every_other)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceZero", ws, e);
    assert_eq!(read_f32(&o.t, sp, 6), [0.0, 2.0, 0.0, 4.0, 0.0, 6.0]);
    let tenth = o.scalar_f64(0.1);
    let (h, hp) = o.raw_tensor(&[2], ACL_FLOAT16, &u16_bytes(&[0; 2]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceFillScalarGetWorkspaceSize",
        (Ptr, Ptr),
        (h, tenth)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceFillScalar", ws, e);
    assert_eq!(read_u16(&o.t, hp, 2), [0x2e66, 0x2e66]);
    let two = o.scalar_f64(2.0);
    let (i, ip) = o.raw_tensor(&[2], ACL_INT64, &i64_bytes(&[0; 2]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceFillScalarGetWorkspaceSize",
        (Ptr, Ptr),
        (i, two)
    );
    assert_eq!(rc, OK);
    o.run("aclnnInplaceFillScalar", ws, e);
    assert_eq!(read_i64(&o.t, ip, 2), [2, 2]);
    o.finish();
}

#[test]
fn argmax_takes_the_first_maximum_and_nan_as_maximum() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 3], &[1.0, 5.0, 5.0, 7.0, f32::NAN, 2.0]);
    let (out, outp) = o.raw_tensor(&[2, 1], ACL_INT64, &i64_bytes(&[9; 2]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnArgMaxGetWorkspaceSize",
        (Ptr, i64, bool, Ptr),
        (x, 1, true, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnArgMax", ws, e);
    assert_eq!(read_i64(&o.t, outp, 2), [1, 1]);
    let (out0, out0p) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[9; 3]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnArgMaxGetWorkspaceSize",
        (Ptr, i64, bool, Ptr),
        (x, 0, false, out0)
    );
    assert_eq!(rc, OK);
    o.run("aclnnArgMax", ws, e);
    assert_eq!(read_i32(&o.t, out0p, 3), [1, 1, 0]);
    o.finish();
}

#[test]
fn f16_mm_accumulates_in_f32_before_rounding_once() {
    let mut o = OpsTest::new();
    // 1 + 2^-11 + 2^-11: an f16 accumulator would round each tie back to 1.0,
    // an f32 one reaches 1 + 2^-10 = 0x3c01
    let (a, _) = o.raw_tensor(&[1, 3], ACL_FLOAT16, &u16_bytes(&[0x3c00; 3]));
    let (b, _) = o.raw_tensor(&[3, 1], ACL_FLOAT16, &u16_bytes(&[0x3c00, 0x1000, 0x1000]));
    let (out, outp) = o.raw_tensor(&[1, 1], ACL_FLOAT16, &u16_bytes(&[0]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i8),
        (a, b, out, 0)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMm", ws, e);
    assert_eq!(read_u16(&o.t, outp, 1), [0x3c01]);
    o.finish();
}

#[test]
fn integer_reduce_sum_accumulates_exactly_into_int64() {
    let mut o = OpsTest::new();
    let big = 1i32 << 30;
    let (x, _) = o.raw_tensor(&[4], ACL_INT32, &i32_bytes(&[big, big, big, -1]));
    let all = o.int_array(&[0]);
    let (out, outp) = o.raw_tensor(&[], ACL_INT64, &i64_bytes(&[0]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnReduceSumGetWorkspaceSize",
        (Ptr, Ptr, bool, i32, Ptr),
        (x, all, false, ACL_INT64, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnReduceSum", ws, e);
    assert_eq!(read_i64(&o.t, outp, 1), [3 * (1i64 << 30) - 1]);
    o.finish();
}
