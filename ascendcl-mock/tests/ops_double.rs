//! Add, Sub and Mul of tensors take DOUBLE on the emulated 910B (ops-math
//! v8.5.0 math/add/op_api/aclnn_add.cpp:71-74 chosen at :89-92,
//! aclnn_sub.cpp:63-66, aclnn_mul.cpp:57-60) and compute a DOUBLE operand's
//! result in double, not in f32.

mod common;
#[macro_use]
mod ops_support;

use common::OK;
use ops_support::*;

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_f64(o: &OpsTest, p: Ptr, n: usize) -> Vec<f64> {
    o.t.download(p, n * 8)
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn add_and_sub_of_doubles_are_computed_in_double() {
    let mut o = OpsTest::new();
    let (a, _) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[0.1, 1e16]));
    let (b, _) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[0.2, 2.0]));
    let (out, outp) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[0.0; 2]));
    let one = o.scalar_f64(1.0);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, one, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdd", ws, e);
    // f32 would give 0.30000001192092896 and 1.0000000272564224e16
    assert_eq!(read_f64(&o, outp, 2), [0.1 + 0.2, 1e16 + 2.0]);
    let half = o.scalar_f64(0.5);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnSubGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (a, b, half, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnSub", ws, e);
    assert_eq!(read_f64(&o, outp, 2), [0.1 - 0.5 * 0.2, 1e16 - 1.0]);
    o.finish();
}

#[test]
fn a_float_and_a_double_promote_to_double_and_in_place_sub_keeps_double() {
    let mut o = OpsTest::new();
    let (d, dp) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[1.0, 1e-10]));
    let (f, _) = o.f32_tensor(&[2], &[0.5, 1.0]);
    let tiny = o.scalar_f64(1e-12);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnInplaceSubGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (d, f, tiny)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnInplaceSub", ws, e);
    assert_eq!(read_f64(&o, dp, 2), [1.0 - 0.5e-12, 1e-10 - 1e-12]);
    // a double result stored in a float out is rounded once, at the store
    let (out, outp) = o.f32_tensor(&[2], &[0.0; 2]);
    let one = o.scalar_f64(1.0);
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnAddGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr),
        (f, d, one, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnAdd", ws, e);
    let want = [
        (0.5 + (1.0 - 0.5e-12)) as f32,
        (1.0 + (1e-10 - 1e-12)) as f32,
    ];
    assert_eq!(read_f32(&o.t, outp, 2), want);
    o.finish();
}

#[test]
fn mul_of_doubles_is_computed_in_double() {
    let mut o = OpsTest::new();
    let (a, _) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[0.1, 3.0]));
    let (b, _) = o.raw_tensor(&[1], ACL_DOUBLE, &f64_bytes(&[0.3]));
    let (out, outp) = o.raw_tensor(&[2], ACL_DOUBLE, &f64_bytes(&[0.0; 2]));
    let (rc, ws, e) = phase1!(
        o.ops,
        "aclnnMulGetWorkspaceSize",
        (Ptr, Ptr, Ptr),
        (a, b, out)
    );
    assert_eq!(rc, OK, "{:?}", o.t.recent_msg());
    o.run("aclnnMul", ws, e);
    assert_eq!(read_f64(&o, outp, 2), [0.1 * 0.3, 3.0 * 0.3]);
    o.finish();
}
