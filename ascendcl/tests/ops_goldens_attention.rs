//! The attention batch of the third operator set against PyTorch: each case
//! of `tests/goldens/attention` (written by
//! `scripts/goldens/make_op_goldens_attention.py` from
//! `scaled_dot_product_attention` and its autograd on the CPU) runs through
//! the safe layer on the mock's operator libraries and must meet the case's
//! tolerance; the cases present are exactly those the set's `CASES.txt` lists.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{
    self, AttentionLayout, AttentionSaved, AttentionStats, FlashAttention, Prepared, SparseMode,
};
use ops_goldens_common::{Case, Uploaded, counts, run_goldens, set_root, split};

fn attrs(case: &Case) -> FlashAttention {
    let layout = match case.ints["inputLayout"] {
        0 => AttentionLayout::Bsh,
        1 => AttentionLayout::Sbh,
        2 => AttentionLayout::Bsnd,
        3 => AttentionLayout::Bnsd,
        other => panic!("{}: layout code {other}", case.name),
    };
    let sparse_mode = match case.ints["sparseMode"] {
        0 => SparseMode::Default,
        1 => SparseMode::AllMask,
        2 => SparseMode::LeftUpCausal,
        3 => SparseMode::RightDownCausal,
        other => panic!("{}: sparse mode {other}", case.name),
    };
    FlashAttention {
        head_num: case.ints["headNum"],
        layout,
        scale: case.doubles["scaleValue"],
        keep_prob: case.doubles["keepProb"],
        sparse_mode,
        pre_tokens: case.ints["preTokens"],
        next_tokens: case.ints["nextTokens"],
        inner_precise: case.ints["innerPrecise"],
    }
}

/// Phase 1 of the case's operator over the uploaded tensors.
fn prepare<'a>(case: &Case, up: &'a mut Uploaded) -> ascendcl::Result<Prepared<'a>> {
    let (ins, mut outs) = split(case, up)?;
    let need = |role: &str| {
        ins.get(role)
            .unwrap_or_else(|| panic!("{}: no input {role}", case.name))
    };
    let mask = ins.get("attenMaskOptional");
    let a = attrs(case);
    let mut out = |role: &str| {
        outs.remove(role)
            .unwrap_or_else(|| panic!("{}: no output {role}", case.name))
    };
    Ok(match case.op.as_str() {
        "FlashAttentionScore" => {
            let stats = AttentionStats {
                softmax_max: out("softmaxMaxOut"),
                softmax_sum: out("softmaxSumOut"),
            };
            ops::flash_attention_score(
                need("query"),
                need("key"),
                need("value"),
                mask,
                &a,
                stats,
                out("attentionOutOut"),
            )?
        }
        "FlashAttentionScoreGrad" => ops::flash_attention_score_grad(
            need("query"),
            need("key"),
            need("value"),
            need("dy"),
            mask,
            AttentionSaved {
                softmax_max: need("softmaxMaxOptional"),
                softmax_sum: need("softmaxSumOptional"),
                out: need("attentionInOptional"),
            },
            &a,
            out("dqOut"),
            out("dkOut"),
            out("dvOut"),
        )?,
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_attention_operator_matches_its_pytorch_goldens_within_the_real_ops_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "attention", prepare)?;
        let listed = counts::check_counts(&set_root("attention")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
