//! The in-place forms of Sub and Addmm (`aclnnInplaceSub`, `aclnnInplaceAddmm`):
//! values hand-computed (selfRef - alpha*other; beta*selfRef + alpha*mat1@mat2),
//! and the phase-1 argument checks they share with Sub and Addmm (CANN
//! passes selfRef as out: ops-math v8.5.0 aclnn_sub.cpp:516-525, ops-nn
//! v8.5.0 aclnn_addmm.cpp:684-690).

mod common;
#[macro_use]
mod ops_support;

use ops_support::params::*;
use ops_support::*;

#[test]
fn inplace_sub_subtracts_alpha_times_a_broadcast_other_from_self_ref() {
    let mut o = OpsTest::new();
    let (a, ap) = o.f32_tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let (row, _) = o.f32_tensor(&[3], &[0.5, 1.0, -2.0]);
    let alpha = o.scalar_f32(2.0);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceSubGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, row, alpha)
    );
    assert_eq!(rc, common::OK, "{:?}", o.t.recent_msg());
    o.run("aclnnInplaceSub", ws, e);
    // a[i][j] - 2 * row[j]
    assert_eq!(read_f32(&o.t, ap, 6), [0.0, 0.0, 7.0, 3.0, 3.0, 10.0]);
    o.finish();
}

#[test]
fn inplace_sub_computes_integers_in_integers() {
    let mut o = OpsTest::new();
    let (a, ap) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[10, -4, 7]));
    let (b, _) = o.raw_tensor(&[3], ACL_INT32, &i32_bytes(&[3, 3, -3]));
    let three = o.scalar_i64(3);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceSubGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, b, three)
    );
    assert_eq!(rc, common::OK, "{:?}", o.t.recent_msg());
    o.run("aclnnInplaceSub", ws, e);
    assert_eq!(read_i32(&o.t, ap, 3), [1, -13, 16]);
    o.finish();
}

#[test]
fn inplace_addmm_with_beta_one_accumulates_the_product_into_self_ref() {
    let mut o = OpsTest::new();
    // a weight gradient already holding one step's contribution
    let (g, gp) = o.f32_tensor(&[2, 2], &[1.0, 1.0, 1.0, 1.0]);
    // mat1 = grad_out^T as a transposed view of a stored [3,2] grad_out
    let gop = o.buf(&f32_bytes(&[1.0, 0.0, 2.0, 1.0, 0.0, 3.0]));
    let mat1 = o.view(&[2, 3], &[1, 2], 0, ACL_FLOAT, &[3, 2], gop);
    let (x, _) = o.f32_tensor(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let beta = o.scalar_f64(1.0);
    let alpha = o.scalar_f64(0.5);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceAddmmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, i8),
        (g, mat1, x, beta, alpha, 0)
    );
    assert_eq!(rc, common::OK, "{:?}", o.t.recent_msg());
    assert!(ws > 0, "Addmm's workspace is asked for in place too");
    o.run("aclnnInplaceAddmm", ws, e);
    // grad_out^T = [[1,2,0],[0,1,3]]; @ x = [[7,10],[18,22]]; 1 + 0.5 * that
    assert_eq!(read_f32(&o.t, gp, 4), [4.5, 6.0, 10.0, 12.0]);
    o.finish();
}

#[test]
fn inplace_addmm_scales_self_ref_by_beta_and_ignores_it_when_beta_is_zero() {
    let mut o = OpsTest::new();
    let (s, sp) = o.f32_tensor(&[1, 2], &[4.0, f32::NAN]);
    let (m1, _) = o.f32_tensor(&[1, 1], &[2.0]);
    let (m2, _) = o.f32_tensor(&[1, 2], &[3.0, -1.0]);
    let zero = o.scalar_f64(0.0);
    let one = o.scalar_f64(1.0);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceAddmmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, i8),
        (s, m1, m2, zero, one, 0)
    );
    assert_eq!(rc, common::OK, "{:?}", o.t.recent_msg());
    o.run("aclnnInplaceAddmm", ws, e);
    assert_eq!(read_f32(&o.t, sp, 2), [6.0, -2.0]);
    let half = o.scalar_f64(0.5);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceAddmmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, i8),
        (s, m1, m2, half, one, 0)
    );
    assert_eq!(rc, common::OK);
    o.run("aclnnInplaceAddmm", ws, e);
    assert_eq!(read_f32(&o.t, sp, 2), [9.0, -3.0]);
    o.finish();
}

#[test]
fn in_place_sub_and_addmm_refuse_what_sub_and_addmm_refuse() {
    let mut o = OpsTest::new();
    let m23 = f32t(&mut o, &[2, 3]);
    let m32 = f32t(&mut o, &[3, 2]);
    let m22 = f32t(&mut o, &[2, 2]);
    let m33 = f32t(&mut o, &[3, 3]);
    let v2 = f32t(&mut o, &[2]);
    let v3 = f32t(&mut o, &[3]);
    let t3d = f32t(&mut o, &[1, 2, 3]);
    let i23 = typed(&mut o, &[2, 3], ACL_INT32);
    let i22 = typed(&mut o, &[2, 2], ACL_INT32);
    let s = o.scalar_f32(1.0);
    check(
        &o,
        &Case {
            op: "aclnnInplaceSub",
            ptrs: vec![m23, v3, s],
            knobs: vec![],
            call: |o, p, _| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnInplaceSubGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2])
                );
                (rc, e)
            },
            // aclnn_sub.cpp:130-137
            required: vec![(0, "selfRef"), (1, "other"), (2, "alpha")],
            bad_ptrs: vec![
                // the broadcast shape must be selfRef's own (out's, :239)
                ("other broadcasts beyond selfRef", 1, t3d),
                ("other does not broadcast", 1, v2),
                // a float result cannot be stored in an integer selfRef (:228)
                ("float other into an int selfRef", 0, i23),
            ],
            bad_knobs: vec![],
        },
    );
    check(
        &o,
        &Case {
            op: "aclnnInplaceAddmm",
            ptrs: vec![m22, m23, m32, s, s],
            knobs: vec![0.0],
            call: |o, p, k| {
                let (rc, _, e) = phase1!(
                    o.ops,
                    "aclnnInplaceAddmmGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, i8),
                    (p[0], p[1], p[2], p[3], p[4], k[0] as i8)
                );
                (rc, e)
            },
            // aclnn_addmm.cpp:56-64
            required: vec![
                (0, "selfRef"),
                (1, "mat1"),
                (2, "mat2"),
                (3, "beta"),
                (4, "alpha"),
            ],
            bad_ptrs: vec![
                // selfRef is out, so it has the product's shape (CheckOutShape, :128-144)
                ("a 1-D selfRef (a bias broadcasts, an out does not)", 0, v2),
                ("selfRef of another shape", 0, m33),
                ("inner dimensions differ", 2, m23),
                ("int selfRef", 0, i22),
            ],
            bad_knobs: vec![("cubeMathType 5", 0, 5.0)],
        },
    );
    o.finish();
}
