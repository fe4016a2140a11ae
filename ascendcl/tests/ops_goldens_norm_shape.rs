//! The norm_shape batch of the third operator set against PyTorch: each case
//! of `tests/goldens/norm_shape` (written by
//! `scripts/goldens/make_op_goldens_norm_shape.py` with PyTorch on the CPU)
//! runs through the safe layer on the mock's operator libraries and must
//! meet the case's tolerance; the cases present are exactly those the set's
//! `CASES.txt` lists.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{self, GradMask, LayerNormStats, Prepared};
use ops_goldens_common::{Case, Uploaded, counts, op_dtype, run_goldens, set_root, split};

fn mask(case: &Case) -> GradMask {
    let m = &case.bool_lists["outputMask"];
    GradMask {
        input: m[0],
        weight: m[1],
        bias: m[2],
    }
}

/// Phase 1 of the case's operator over the uploaded tensors.
fn prepare<'a>(case: &Case, up: &'a mut Uploaded) -> ascendcl::Result<Prepared<'a>> {
    let (ins, mut outs) = split(case, up)?;
    let i = |role: &str| ins.get(role);
    let need = |role: &str| {
        ins.get(role)
            .unwrap_or_else(|| panic!("{}: no input {role}", case.name))
    };
    let ints = |name: &str| case.int_lists[name].clone();
    Ok(match case.op.as_str() {
        "LayerNorm" => {
            let stats = match (
                outs.remove("meanOutOptional"),
                outs.remove("rstdOutOptional"),
            ) {
                (Some(mean), Some(rstd)) => Some(LayerNormStats { mean, rstd }),
                _ => None,
            };
            ops::layer_norm(
                need("input"),
                &ints("normalizedShape"),
                i("weightOptional"),
                i("biasOptional"),
                case.doubles["eps"],
                outs.remove("out").expect("out"),
                stats,
            )?
        }
        "LayerNormBackward" => ops::layer_norm_backward(
            need("gradOut"),
            need("input"),
            &ints("normalizedShape"),
            need("mean"),
            need("rstd"),
            i("weightOptional"),
            i("biasOptional"),
            mask(case),
            outs.remove("gradInputOut"),
            outs.remove("gradWeightOut"),
            outs.remove("gradBiasOut"),
        )?,
        "Mean" => ops::mean(
            need("self"),
            &ints("dim"),
            case.bools["keepDim"],
            op_dtype(&case.dtypes["dtype"]),
            outs.remove("out").expect("out"),
        )?,
        "Amax" => ops::amax(
            need("self"),
            &ints("dim"),
            case.bools["keepDim"],
            outs.remove("out").expect("out"),
        )?,
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_norm_shape_operator_matches_its_pytorch_goldens_within_the_real_ops_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "norm_shape", prepare)?;
        let listed = counts::check_counts(&set_root("norm_shape")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
