//! The element-wise operators of the third set against PyTorch: each case of
//! `tests/goldens/elementwise` (written by
//! `scripts/goldens/make_op_goldens_elementwise.py` with PyTorch on the CPU)
//! runs through the safe layer on the mock's operator libraries and must
//! meet the case's tolerance.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{self, Prepared, Scalar};
use ops_goldens_common::{Case, Uploaded, counts, run_goldens, set_root, split};

/// A `scalar` line's value in its dtype.
fn scalar(case: &Case, role: &str) -> Scalar {
    let (dtype, value) = &case.scalars[role];
    match dtype.as_str() {
        "f32" => Scalar::F32(value.parse().expect("f32 scalar")),
        "f64" => Scalar::F64(value.parse().expect("f64 scalar")),
        "i64" => Scalar::I64(value.parse().expect("i64 scalar")),
        other => panic!("{}: scalar dtype {other}", case.name),
    }
}

/// Phase 1 of the case's operator over the uploaded tensors.
fn prepare<'a>(case: &Case, up: &'a mut Uploaded) -> ascendcl::Result<Prepared<'a>> {
    let (ins, mut outs) = split(case, up)?;
    let need = |role: &str| {
        ins.get(role)
            .unwrap_or_else(|| panic!("{}: no input {role}", case.name))
    };
    let mut out = || outs.remove("out").expect("out");
    Ok(match case.op.as_str() {
        "Div" => ops::div(need("self"), need("other"), out())?,
        "Sqrt" => ops::sqrt(need("self"), out())?,
        "Rsqrt" => ops::rsqrt(need("self"), out())?,
        "Exp" => ops::exp(need("self"), out())?,
        "Log" => ops::log(need("self"), out())?,
        "Neg" => ops::neg(need("self"), out())?,
        "IsFinite" => ops::isfinite(need("self"), out())?,
        "PowTensorScalar" => ops::pow_tensor_scalar(need("self"), scalar(case, "exponent"), out())?,
        "Clamp" => {
            let bound = |role: &str| case.scalars.contains_key(role).then(|| scalar(case, role));
            ops::clamp(need("self"), bound("min"), bound("max"), out())?
        }
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_elementwise_operator_matches_its_pytorch_goldens_within_the_stated_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "elementwise", prepare)?;
        let listed = counts::check_counts(&set_root("elementwise")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
