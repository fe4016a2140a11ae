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
