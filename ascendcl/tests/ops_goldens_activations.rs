//! The third operator set's activations against PyTorch: each case of
//! `tests/goldens/activations` (written by
//! `scripts/goldens/make_op_goldens_activations.py` with PyTorch on the CPU)
//! runs through the safe layer on the mock's operator libraries and must
//! meet the case's tolerance; every case `CASES.txt` lists must run.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{self, GeluApproximate, Prepared};
use ops_goldens_common::{Case, Uploaded, counts, run_goldens, set_root, split};

/// The case's `int approximate`: 0 "none" (erf), 1 "tanh".
fn approximate(case: &Case) -> GeluApproximate {
    match case.ints["approximate"] {
        0 => GeluApproximate::None,
        1 => GeluApproximate::Tanh,
        other => panic!("{}: approximate {other} is neither 0 nor 1", case.name),
    }
}

/// Phase 1 of the case's operator over the uploaded tensors.
fn prepare<'a>(case: &Case, up: &'a mut Uploaded) -> ascendcl::Result<Prepared<'a>> {
    let (ins, mut outs) = split(case, up)?;
    let mut out = |role: &str| {
        outs.remove(role)
            .unwrap_or_else(|| panic!("{}: no output {role}", case.name))
    };
    let i = |role: &str| {
        ins.get(role)
            .unwrap_or_else(|| panic!("{}: no input {role}", case.name))
    };
    Ok(match case.op.as_str() {
        "Softmax" => ops::softmax(i("self"), case.ints["dim"], out("out"))?,
        "SoftmaxBackward" => {
            ops::softmax_backward(i("gradOutput"), i("output"), case.ints["dim"], out("out"))?
        }
        "Sigmoid" => ops::sigmoid(i("self"), out("out"))?,
        "SigmoidBackward" => ops::sigmoid_backward(i("gradOutput"), i("output"), out("gradInput"))?,
        "Tanh" => ops::tanh(i("self"), out("out"))?,
        "TanhBackward" => ops::tanh_backward(i("gradOutput"), i("output"), out("gradInput"))?,
        "Silu" => ops::silu(i("self"), out("out"))?,
        "SiluBackward" => ops::silu_backward(i("gradOutput"), i("self"), out("gradInput"))?,
        "Gelu" => ops::gelu(i("self"), out("out"))?,
        "GeluBackward" => ops::gelu_backward(i("gradOutput"), i("self"), out("gradInput"))?,
        "GeluV2" => ops::gelu_v2(i("x"), approximate(case), out("y"))?,
        "GeluBackwardV2" => ops::gelu_backward_v2(
            i("gradOutput"),
            i("self"),
            approximate(case),
            out("gradInput"),
        )?,
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_activation_matches_its_pytorch_goldens_within_the_real_ops_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ran = run_goldens(&ctx, "activations", prepare)?;
        let listed = counts::check_counts(&set_root("activations")).expect("CASES.txt");
        assert_eq!(ran, listed, "every case CASES.txt lists ran");
        Ok(())
    });
}
