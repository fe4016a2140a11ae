//! Batch ops3b of the third operator set against PyTorch: each case of
//! `tests/goldens/ops3b` (written by `scripts/goldens/make_op_goldens_ops3b.py`
//! with PyTorch on the CPU) runs through the safe layer on the mock's
//! operator libraries and must meet the case's tolerance; the cases present
//! are exactly those the set's `CASES.txt` lists. A tensor list is one role
//! per member, `<name>_<ii>`, in list order.

mod common;
mod ops_goldens_common;

use std::collections::BTreeMap;

use ascendcl::ops::{self, Prepared, Scalar, TensorMut};
use ops_goldens_common::{Case, Uploaded, counts, run_goldens, set_root, split};

/// The members of list `name` (roles `<name>_00`, `<name>_01`, ...), in order.
fn members<'m, T>(map: &'m BTreeMap<&str, T>, name: &str) -> Vec<&'m T> {
    let prefix = format!("{name}_");
    // two-digit indices: the map's order is the list's
    map.iter()
        .filter(|(role, _)| role.strip_prefix(&prefix).is_some_and(|i| i.len() == 2))
        .map(|(_, t)| t)
        .collect()
}

/// Takes the written members of list `name` out of `outs`, in order.
fn take_list<'u>(outs: &mut BTreeMap<&str, TensorMut<'u>>, name: &str) -> Vec<TensorMut<'u>> {
    let prefix = format!("{name}_");
    let roles: Vec<String> = outs
        .keys()
        .filter(|role| role.strip_prefix(&prefix).is_some_and(|i| i.len() == 2))
        .map(|role| role.to_string())
        .collect();
    roles
        .iter()
        .map(|role| outs.remove(role.as_str()).expect("a member"))
        .collect()
}

/// A `scalar` line as a [`Scalar`].
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
    Ok(match case.op.as_str() {
        "Cat" => ops::cat(
            &members(&ins, "tensors"),
            case.ints["dim"],
            outs.remove("out").expect("out"),
        )?,
        "SplitTensor" => ops::split_tensor(
            ins.get("self").expect("self"),
            case.ints["splitSections"] as u64,
            case.ints["dim"],
            take_list(&mut outs, "out"),
        )?,
        "SplitWithSize" => ops::split_with_size(
            ins.get("self").expect("self"),
            &case.int_lists["splitSize"],
            case.ints["dim"],
            take_list(&mut outs, "out"),
        )?,
        "MaxDim" => ops::max_dim(
            ins.get("self").expect("self"),
            case.ints["dim"],
            case.bools["keepdim"],
            outs.remove("out").expect("out"),
            outs.remove("indices").expect("indices"),
        )?,
        "SWhere" => ops::s_where(
            need("condition"),
            need("self"),
            need("other"),
            outs.remove("out").expect("out"),
        )?,
        "InplaceMaskedFillScalar" => ops::inplace_masked_fill_scalar(
            outs.remove("selfRef").expect("selfRef"),
            need("mask"),
            scalar(case, "value"),
        )?,
        "InplaceMaskedFillTensor" => ops::inplace_masked_fill_tensor(
            outs.remove("selfRef").expect("selfRef"),
            need("mask"),
            need("value"),
        )?,
        "DropoutDoMask" => ops::dropout_do_mask(
            need("self"),
            need("mask"),
            case.doubles["prob"],
            outs.remove("out").expect("out"),
        )?,
        "DropoutBackward" => ops::dropout_backward(
            need("gradOutput"),
            need("mask"),
            case.doubles["scale"],
            outs.remove("out").expect("out"),
        )?,
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_ops3b_operator_matches_its_pytorch_goldens_exactly_or_within_its_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "ops3b", prepare)?;
        let listed = counts::check_counts(&set_root("ops3b")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
