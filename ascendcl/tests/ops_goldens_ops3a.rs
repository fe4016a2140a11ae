//! The third operator set's batch `ops3a` against PyTorch: each case of
//! `tests/goldens/ops3a` (written by `scripts/goldens/make_op_goldens_ops3a.py`
//! with PyTorch on the CPU) runs through the safe layer on the mock's
//! operator libraries and must meet the case's tolerance; every case
//! `CASES.txt` lists must run.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{self, AdamW, CubeMath, Prepared};
use ops_goldens_common::{Case, Uploaded, counts, run_goldens, set_root, split};

/// Phase 1 of the case's operator over the uploaded tensors.
fn prepare<'a>(case: &Case, up: &'a mut Uploaded) -> ascendcl::Result<Prepared<'a>> {
    let (ins, mut outs) = split(case, up)?;
    // ApplyAdamWV2's optional in-place tensor (absent, or given and written)
    let max_grad_norm = outs.remove("maxGradNormOptionalRef");
    let mut out = |role: &str| {
        outs.remove(role)
            .unwrap_or_else(|| panic!("{}: no output {role}", case.name))
    };
    let i = |role: &str| {
        ins.get(role)
            .unwrap_or_else(|| panic!("{}: no input {role}", case.name))
    };
    Ok(match case.op.as_str() {
        "Embedding" => ops::embedding(i("weight"), i("indices"), out("out"))?,
        "EmbeddingDenseBackward" => {
            let padding = case.ints["paddingIdx"];
            ops::embedding_dense_backward(
                i("grad"),
                i("indices"),
                u64::try_from(case.ints["numWeights"]).expect("numWeights >= 0"),
                u64::try_from(padding).ok(),
                case.bools["scaleGradByFreq"],
                out("out"),
            )?
        }
        "BatchMatMul" => {
            let math = match case.ints["cubeMathType"] {
                0 => CubeMath::KeepDtype,
                1 => CubeMath::AllowFp32DownPrecision,
                2 => CubeMath::UseFp16,
                3 => CubeMath::UseHf32,
                other => panic!("{}: cubeMathType {other} has no CubeMath", case.name),
            };
            ops::batch_matmul(i("self"), i("mat2"), out("out"), math)?
        }
        "Permute" => ops::permute(i("self"), &case.int_lists["dims"], out("out"))?,
        "ApplyAdamWV2" => {
            let f = |k: &str| case.doubles[k] as f32;
            let hyper = AdamW {
                lr: f("lr"),
                beta1: f("beta1"),
                beta2: f("beta2"),
                weight_decay: f("weightDecay"),
                eps: f("eps"),
                amsgrad: case.bools["amsgrad"],
                maximize: case.bools["maximize"],
            };
            ops::apply_adam_w_v2(
                out("varRef"),
                out("mRef"),
                out("vRef"),
                max_grad_norm,
                i("grad"),
                i("step"),
                hyper,
            )?
        }
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_ops3a_operator_matches_its_pytorch_goldens_within_the_real_ops_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "ops3a", prepare)?;
        let listed = counts::check_counts(&set_root("ops3a")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
