//! The mock's element-wise operators of the third set (issue 20, batch
//! `elementwise`): the integer paths and argument checks the PyTorch goldens
//! (ascendcl's ops_goldens_elementwise.rs) cannot show, each as the real
//! op (hicann/ops-math v8.5.0, cited in the mock's sources).

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

#[test]
fn div_of_two_integer_tensors_into_an_integer_out_truncates_the_float_quotient() {
    let mut o = OpsTest::new();
    let (a, _) = o.raw_tensor(&[4], ACL_INT32, &i32_bytes(&[7, -7, 9, 1]));
    let (b, _) = o.raw_tensor(&[4], ACL_INT32, &i32_bytes(&[2, 2, 4, 3]));
    let (out, outp) = o.raw_tensor(&[4], ACL_INT32, &i32_bytes(&[0; 4]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnDivGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, b, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnDiv", ws, e);
    assert_eq!(read_i32(&o.t, outp, 4), [3, -3, 2, 0]);
    // into f32: the true quotient
    let (fout, foutp) = o.f32_tensor(&[4], &[0.0; 4]);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnDivGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, b, fout)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnDiv", ws, e);
    assert_eq!(read_f32(&o.t, foutp, 4), [3.5, -3.5, 2.25, 1.0 / 3.0]);
    o.finish();
}

#[test]
fn div_refuses_null_bool_a_float_quotient_into_an_integer_out_and_a_wrong_out_shape() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 3], &[1.0; 6]);
    let (row, _) = o.f32_tensor(&[3], &[2.0; 3]);
    let (col, _) = o.f32_tensor(&[4], &[2.0; 4]);
    let (flags, _) = o.raw_tensor(&[2, 3], ACL_BOOL, &[1; 6]);
    let (iout, _) = o.raw_tensor(&[2, 3], ACL_INT32, &i32_bytes(&[0; 6]));
    let (small, _) = o.f32_tensor(&[3], &[0.0; 3]);
    let (out, _) = o.f32_tensor(&[2, 3], &[0.0; 6]);
    let null = std::ptr::null_mut();
    let div = |o: &OpsTest, a: Ptr, b: Ptr, out: Ptr| {
        phase1!(
            o.ops,
            "aclnnDivGetWorkspaceSize",
            (Ptr, Ptr, Ptr),
            (a, b, out)
        )
        .0
    };
    assert_eq!(div(&o, x, row, null), NULLPTR);
    assert_eq!(div(&o, null, row, out), NULLPTR);
    assert_eq!(
        div(&o, x, col, out),
        INVALID,
        "[2,3] and [4] do not broadcast"
    );
    assert_eq!(
        div(&o, x, row, small),
        INVALID,
        "out must have the broadcast shape"
    );
    assert_eq!(div(&o, x, flags, out), INVALID, "BOOL is not emulated");
    assert_eq!(
        div(&o, x, row, iout),
        INVALID,
        "an f32 quotient cannot go into INT32"
    );
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("cannot be cast"), "{msg}");
    o.finish();
}

const ACL_INT16: i32 = 6;

/// Phase 1 of a `(self, out)` operator: its status.
fn unary(o: &OpsTest, name: &str, x: Ptr, out: Ptr) -> (i32, u64, Ptr) {
    let mut ws: u64 = 0;
    let mut exec: Ptr = std::ptr::null_mut();
    let symbol = format!("{name}GetWorkspaceSize");
    // SAFETY: the (self, out) parameter list of ops-math v8.5.0's
    // aclnn_sqrt.h:51, aclnn_rsqrt.h:33, aclnn_exp.h:54, aclnn_log.h:50,
    // aclnn_neg.h:47, aclnn_isfinite.h:50, then the two standard out-pointers.
    let f = unsafe {
        o.ops
            .op::<unsafe extern "C" fn(Ptr, Ptr, *mut u64, *mut Ptr) -> i32>(&symbol)
    };
    // SAFETY: the arguments match the declared types; out-pointers are locals.
    let rc = unsafe { f(x, out, &mut ws, &mut exec) };
    (rc, ws, exec)
}

#[test]
fn integer_inputs_of_sqrt_exp_and_log_become_float_results_and_exp_takes_only_int64_and_bool() {
    let mut o = OpsTest::new();
    let (i32s, _) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[4, 9, 1]));
    let (i64s, _) = o.raw_tensor(&[3], ACL_INT64, &i64_bytes(&[0, 1, 2]));
    let (bools, _) = o.raw_tensor(&[3], ACL_BOOL, &[1, 0, 1]);
    let (out, outp) = o.f32_tensor(&[3], &[0.0; 3]);
    let (iout, _) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[0; 3]));
    for (op, x, want) in [
        ("aclnnSqrt", i32s, [2.0f32, 3.0, 1.0]),
        ("aclnnLog", i32s, [4.0f32.ln(), 9.0f32.ln(), 0.0]),
        ("aclnnExp", i64s, [1.0, 1.0f32.exp(), 2.0f32.exp()]),
        ("aclnnExp", bools, [1.0f32.exp(), 1.0, 1.0f32.exp()]),
        ("aclnnRsqrt", i32s, [0.5, 1.0 / 3.0, 1.0]),
    ] {
        let (rc, ws, e) = unary(&o, op, x, out);
        assert_eq!(rc, OK, "{op}: {:?}", o.t.recent_msg());
        o.run(op, ws, e);
        assert_close(&read_f32(&o.t, outp, 3), &want, 1e-6);
    }
    // the same real ops refuse these
    assert_eq!(
        unary(&o, "aclnnExp", i32s, out).0,
        INVALID,
        "Exp takes no INT32"
    );
    assert_eq!(
        unary(&o, "aclnnSqrt", i32s, iout).0,
        INVALID,
        "a float root into INT32"
    );
    assert_eq!(
        unary(&o, "aclnnRsqrt", i32s, iout).0,
        INVALID,
        "Rsqrt's out is floating"
    );
    assert_eq!(
        unary(&o, "aclnnLog", i32s, iout).0,
        INVALID,
        "Log's out is floating"
    );
    o.finish();
}

#[test]
fn neg_computes_in_the_integer_dtype_wrapping_and_refuses_uint8_int16_and_bool() {
    let mut o = OpsTest::new();
    let (x, _) = o.raw_tensor(&[4], ACL_INT8, &[5u8, 0xFB, 0x80, 0]);
    let (out, outp) = o.raw_tensor(&[4], ACL_INT8, &[0; 4]);
    let (rc, ws, e) = unary(&o, "aclnnNeg", x, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnNeg", ws, e);
    // -5, 5, -(-128) wraps to -128, 0
    assert_eq!(o.t.download(outp, 4), [0xFB, 5, 0x80, 0]);
    let (u8s, _) = o.raw_tensor(&[4], ACL_UINT8, &[1; 4]);
    let (i16s, _) = o.raw_tensor(&[4], ACL_INT16, &[0; 8]);
    let (bools, _) = o.raw_tensor(&[4], ACL_BOOL, &[1; 4]);
    for (what, t) in [("UINT8", u8s), ("INT16", i16s), ("BOOL", bools)] {
        assert_eq!(unary(&o, "aclnnNeg", t, t).0, INVALID, "Neg of {what}");
    }
    o.finish();
}

#[test]
fn unary_ops_refuse_a_null_argument_and_an_out_of_another_shape() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2, 3], &[1.0; 6]);
    let (flat, _) = o.f32_tensor(&[6], &[0.0; 6]);
    let null = std::ptr::null_mut();
    for op in [
        "aclnnSqrt",
        "aclnnRsqrt",
        "aclnnExp",
        "aclnnLog",
        "aclnnNeg",
    ] {
        assert_eq!(unary(&o, op, null, x).0, NULLPTR, "{op}: null self");
        assert_eq!(unary(&o, op, x, null).0, NULLPTR, "{op}: null out");
        assert_eq!(
            unary(&o, op, x, flat).0,
            INVALID,
            "{op}: out [6] for self [2,3]"
        );
    }
    o.finish();
}

#[test]
fn pow_tensor_scalar_raises_integers_in_int64_takes_a_negative_exponent_on_910b_and_checks_its_casts()
 {
    let mut o = OpsTest::new();
    let (x, _) = o.raw_tensor(&[4], ACL_INT64, &i64_bytes(&[3, -2, 1, -1]));
    let (out, outp) = o.raw_tensor(&[4], ACL_INT64, &i64_bytes(&[0; 4]));
    let pow = |o: &OpsTest, x: Ptr, e: Ptr, out: Ptr| {
        phase1!(
            o.ops,
            "aclnnPowTensorScalarGetWorkspaceSize",
            (Ptr, Ptr, Ptr),
            (x, e, out)
        )
    };
    let three = o.scalar_i64(3);
    let (rc, ws, e) = pow(&o, x, three, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnPowTensorScalar", ws, e);
    assert_eq!(read_i64(&o.t, outp, 4), [27, -8, 1, -1]);
    // a negative integer exponent: refused only on ASCEND910_95 (aclnn_pow.cpp:389-395)
    let minus = o.scalar_i64(-1);
    let (rc, ws, e) = pow(&o, x, minus, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnPowTensorScalar", ws, e);
    assert_eq!(read_i64(&o.t, outp, 4), [0, 0, 1, -1]);
    // an integer self with a float exponent computes in FLOAT: not into INT64
    let half = o.scalar_f32(0.5);
    assert_eq!(pow(&o, x, half, out).0, INVALID);
    let (flags, _) = o.raw_tensor(&[4], ACL_BOOL, &[1; 4]);
    let (fout, _) = o.f32_tensor(&[4], &[0.0; 4]);
    let yes = o.ops.scalar_raw((&true as *const bool).cast(), ACL_BOOL);
    assert_eq!(pow(&o, flags, yes, fout).0, INVALID, "BOOL ** BOOL");
    assert_eq!(o.ops.destroy_scalar(yes), OK);
    assert_eq!(pow(&o, x, std::ptr::null_mut(), out).0, NULLPTR);
    let (short, _) = o.raw_tensor(&[3], ACL_INT64, &i64_bytes(&[0; 3]));
    assert_eq!(pow(&o, x, three, short).0, INVALID, "out of another shape");
    o.finish();
}

#[test]
fn clamp_computes_in_outs_dtype_truncating_a_fractional_bound_and_refuses_no_bound_bool_and_a_float_into_an_integer_out()
 {
    let mut o = OpsTest::new();
    let (x, _) = o.raw_tensor(&[4], ACL_INT64, &i64_bytes(&[-3, 1, 2, 9]));
    let (out, outp) = o.raw_tensor(&[4], ACL_INT64, &i64_bytes(&[0; 4]));
    let clamp = |o: &OpsTest, x: Ptr, lo: Ptr, hi: Ptr, out: Ptr| {
        phase1!(
            o.ops,
            "aclnnClampGetWorkspaceSize",
            (Ptr, Ptr, Ptr, Ptr),
            (x, lo, hi, out)
        )
    };
    let null = std::ptr::null_mut();
    // min 1.5 into an INT64 out: the bound becomes 1 (aclnn_clamp.cpp:352-366),
    // where torch.clamp would promote to float
    let lo = o.scalar_f32(1.5);
    let hi = o.scalar_i64(5);
    let (rc, ws, e) = clamp(&o, x, lo, hi, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnClamp", ws, e);
    assert_eq!(read_i64(&o.t, outp, 4), [1, 1, 2, 5]);
    // only max
    let (rc, ws, e) = clamp(&o, x, null, hi, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnClamp", ws, e);
    assert_eq!(read_i64(&o.t, outp, 4), [-3, 1, 2, 5]);
    // neither bound: 161001 (:132-135)
    assert_eq!(clamp(&o, x, null, null, out).0, NULLPTR);
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("at least one bound"), "{msg}");
    assert_eq!(clamp(&o, null, lo, hi, out).0, NULLPTR);
    assert_eq!(clamp(&o, x, lo, hi, null).0, NULLPTR);
    // BOOL is not in the 910B list (:35-37)
    let (flags, _) = o.raw_tensor(&[4], ACL_BOOL, &[1; 4]);
    assert_eq!(clamp(&o, flags, lo, hi, out).0, INVALID, "BOOL self");
    // an f32 self cannot be cast to an INT64 out (:213-223)
    let (f, _) = o.f32_tensor(&[4], &[0.5; 4]);
    assert_eq!(clamp(&o, f, lo, hi, out).0, INVALID, "f32 into INT64");
    let (short, _) = o.raw_tensor(&[3], ACL_INT64, &i64_bytes(&[0; 3]));
    assert_eq!(
        clamp(&o, x, lo, hi, short).0,
        INVALID,
        "out of another shape"
    );
    o.finish();
}

#[test]
fn isfinite_gives_true_for_integers_and_refuses_a_non_bool_out_another_shape_and_null() {
    let mut o = OpsTest::new();
    let (x, _) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[i32::MIN, 0, i32::MAX]));
    let (out, outp) = o.raw_tensor(&[3], ACL_BOOL, &[7; 3]);
    let (rc, ws, e) = unary(&o, "aclnnIsFinite", x, out);
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnIsFinite", ws, e);
    assert_eq!(
        o.t.download(outp, 3),
        [1, 1, 1],
        "integers are finite (aclnn_is_finite.cpp:122-124)"
    );
    let (f, _) = o.f32_tensor(&[3], &[1.0, f32::NAN, f32::INFINITY]);
    let (fout, _) = o.f32_tensor(&[3], &[0.0; 3]);
    assert_eq!(
        unary(&o, "aclnnIsFinite", f, fout).0,
        INVALID,
        "out must be BOOL (:53-54)"
    );
    let (short, _) = o.raw_tensor(&[2], ACL_BOOL, &[0; 2]);
    assert_eq!(unary(&o, "aclnnIsFinite", f, short).0, INVALID);
    let null = std::ptr::null_mut();
    assert_eq!(unary(&o, "aclnnIsFinite", null, out).0, NULLPTR);
    assert_eq!(unary(&o, "aclnnIsFinite", f, null).0, NULLPTR);
    o.finish();
}
