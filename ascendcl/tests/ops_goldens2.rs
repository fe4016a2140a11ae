//! The second operator set against PyTorch: each case of
//! `tests/goldens/ops2` (written by `scripts/goldens/make_op_goldens2.py`
//! with PyTorch on the CPU) runs through the safe layer on the mock's
//! operator libraries and must meet the case's tolerance.

mod common;
mod ops_goldens_common;

use ascendcl::ops::{self, ConvGrads, CubeMath, GradMask, Prepared, Resize, RunningStats, Window};
use ops_goldens_common::{Case, Exceptions, Uploaded, counts, run_goldens_except, set_root, split};

/// Valid in PyTorch, refused by the real operator on the default SoC
/// (Atlas A2/A3): max pooling takes dilation 1 only, and its backward int32
/// indices only (hicann/ops-nn v8.5.0 pooling op_api checks, cited in the
/// mock's `op_pool.c`). The runner checks they are refused.
const REFUSED_ON_A2: &[&str] = &[
    "maxpool2dwithindices_f32_dilation2",
    "maxpool2dwithindicesbackward_f32_k3s2p1_overlap_i64",
    "maxpool2dwithindicesbackward_f32_ties_i64",
];

fn window(case: &Case) -> Window {
    let list = |name: &str| case.int_lists.get(name).cloned().unwrap_or_default();
    Window {
        stride: list("stride"),
        padding: list("padding"),
        dilation: list("dilation"),
    }
}

fn pair(case: &Case, name: &str) -> [i64; 2] {
    let v = &case.int_lists[name];
    [v[0], v[1]]
}

fn mask(case: &Case) -> GradMask {
    let m = &case.bool_lists["outputMask"];
    GradMask {
        input: m[0],
        weight: m[1],
        bias: m[2],
    }
}

fn resize(case: &Case) -> Resize {
    Resize {
        align_corners: case.bools["alignCorners"],
        scales_h: case.doubles.get("scalesH").copied().unwrap_or(0.0),
        scales_w: case.doubles.get("scalesW").copied().unwrap_or(0.0),
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
    let math = CubeMath::KeepDtype;
    let groups = case.ints.get("groups").copied().unwrap_or(1);
    Ok(match case.op.as_str() {
        "Convolution" if case.bools.get("transposed") == Some(&true) => {
            let out = outs.remove("output").expect("output");
            let op = &case.int_lists["outputPadding"];
            ops::convolution_transposed(
                need("input"),
                need("weight"),
                i("bias"),
                &window(case),
                op,
                groups,
                out,
                math,
            )?
        }
        "ConvolutionBackward" if case.bools.get("transposed") == Some(&true) => {
            let bias_sizes = case.int_lists.get("biasSizes").filter(|v| !v.is_empty());
            let grads = ConvGrads {
                input: outs.remove("gradInput"),
                weight: outs.remove("gradWeight"),
                bias: outs.remove("gradBias"),
            };
            ops::convolution_transposed_backward(
                need("gradOutput"),
                need("input"),
                need("weight"),
                bias_sizes.map(|v| v.as_slice()),
                &window(case),
                &case.int_lists["outputPadding"],
                groups,
                mask(case),
                grads,
                math,
            )?
        }
        "Convolution" => {
            let out = outs.remove("output").expect("output");
            ops::convolution(
                need("input"),
                need("weight"),
                i("bias"),
                &window(case),
                groups,
                out,
                math,
            )?
        }
        "ConvolutionBackward" => {
            let bias_sizes = case.int_lists.get("biasSizes").filter(|v| !v.is_empty());
            ops::convolution_backward(
                need("gradOutput"),
                need("input"),
                need("weight"),
                bias_sizes.map(|v| v.as_slice()),
                &window(case),
                groups,
                mask(case),
                outs.remove("gradInput"),
                outs.remove("gradWeight"),
                outs.remove("gradBias"),
                math,
            )?
        }
        "BatchNorm" => {
            let running = match (outs.remove("runningMean"), outs.remove("runningVar")) {
                (Some(mean), Some(var)) => Some(RunningStats { mean, var }),
                _ => None,
            };
            ops::batch_norm(
                need("input"),
                i("weight"),
                i("bias"),
                running,
                case.bools["training"],
                case.doubles["momentum"],
                case.doubles["eps"],
                outs.remove("output").expect("output"),
                outs.remove("saveMean").expect("saveMean"),
                outs.remove("saveInvstd").expect("saveInvstd"),
            )?
        }
        "BatchNormBackward" => ops::batch_norm_backward(
            need("gradOut"),
            need("input"),
            i("weight"),
            i("runningMean"),
            i("runningVar"),
            i("saveMean"),
            i("saveInvstd"),
            case.bools["training"],
            case.doubles["eps"],
            mask(case),
            outs.remove("gradInput"),
            outs.remove("gradWeight"),
            outs.remove("gradBias"),
        )?,
        "MaxPool2dWithIndices" => ops::max_pool2d_with_indices(
            need("self"),
            pair(case, "kernelSize"),
            &window(case),
            case.bools["ceilMode"],
            outs.remove("out").expect("out"),
            outs.remove("indices").expect("indices"),
        )?,
        "MaxPool2dWithIndicesBackward" => ops::max_pool2d_with_indices_backward(
            need("gradOutput"),
            need("self"),
            need("indices"),
            pair(case, "kernelSize"),
            &window(case),
            case.bools["ceilMode"],
            outs.remove("gradInput").expect("gradInput"),
        )?,
        "AdaptiveAvgPool2d" => ops::adaptive_avg_pool2d(
            need("self"),
            pair(case, "outputSize"),
            outs.remove("out").expect("out"),
        )?,
        "AdaptiveAvgPool2dBackward" => ops::adaptive_avg_pool2d_backward(
            need("gradOutput"),
            need("self"),
            outs.remove("out").expect("out"),
        )?,
        "UpsampleBicubic2d" => ops::upsample_bicubic2d(
            need("self"),
            pair(case, "outputSize"),
            resize(case),
            outs.remove("out").expect("out"),
        )?,
        "UpsampleBicubic2dBackward" => {
            let size = &case.int_lists["inputSize"];
            ops::upsample_bicubic2d_backward(
                need("gradOut"),
                pair(case, "outputSize"),
                [size[0], size[1], size[2], size[3]],
                resize(case),
                outs.remove("gradInput").expect("gradInput"),
            )?
        }
        "UpsampleBilinear2d" => ops::upsample_bilinear2d(
            need("self"),
            pair(case, "outputSize"),
            resize(case),
            outs.remove("out").expect("out"),
        )?,
        other => panic!("{}: unknown op {other}", case.name),
    })
}

#[test]
fn every_second_set_operator_matches_its_pytorch_goldens_within_the_real_ops_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let exceptions = Exceptions {
            refused: REFUSED_ON_A2,
            not_modelled: &[],
        };
        let ran = run_goldens_except(&ctx, "ops2", prepare, &exceptions)?;
        let listed = counts::check_counts(&set_root("ops2")).expect("CASES.txt");
        assert_eq!(
            ran,
            listed - exceptions.not_modelled.len(),
            "every case CASES.txt lists ran, but the ones not modelled"
        );
        Ok(())
    });
}
