//! Batch normalization, pooling and resizing (the second operator set:
//! what a ResNet needs).

use crate::error::Result;
use crate::ops::conv::{GradMask, Window, check_mask};
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Running statistics of a batch normalization, updated in place when
/// training.
#[derive(Debug)]
pub struct RunningStats<'a> {
    /// Running mean, `[C]`.
    pub mean: TensorMut<'a>,
    /// Running (unbiased) variance, `[C]`.
    pub var: TensorMut<'a>,
}

/// Batch normalization over axis 1 (`aclnnBatchNorm`). In training the
/// batch statistics are used and `running` is updated with `momentum`
/// (PyTorch's convention, unbiased variance); `save_mean` and `save_invstd`
/// receive what the backward needs. On Atlas A2/A3 (Ascend910B/910_93)
/// `save_invstd` holds the biased batch **variance**, on Ascend 950 1/std:
/// hand it back to [`batch_norm_backward`] unchanged.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm<'a>(
    input: &Tensor<'a>,
    weight: Option<&Tensor<'a>>,
    bias: Option<&Tensor<'a>>,
    running: Option<RunningStats<'a>>,
    training: bool,
    momentum: f64,
    eps: f64,
    output: TensorMut<'a>,
    save_mean: TensorMut<'a>,
    save_invstd: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("BatchNorm", input.storage.ctx)?;
    let (i, w, b) = (
        p.input("input", input)?,
        p.input_opt("weight", weight)?,
        p.input_opt("bias", bias)?,
    );
    let (rm, rv) = match running {
        Some(r) => (
            p.in_place("runningMean", r.mean)?,
            p.in_place("runningVar", r.var)?,
        ),
        None => (std::ptr::null_mut(), std::ptr::null_mut()),
    };
    let out = p.output("output", output)?;
    let (sm, si) = (
        p.output("saveMean", save_mean)?,
        p.output("saveInvstd", save_invstd)?,
    );
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnBatchNorm, |l, ws, ex| unsafe {
        l.aclnnBatchNormGetWorkspaceSize(
            i, w, b, rm, rv, training, momentum, eps, out, sm, si, ws, ex,
        )
    })
}

/// Batch normalization's gradients (`aclnnBatchNormBackward`), from the
/// forward's `save_mean`/`save_invstd` (training) or running statistics
/// (eval).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_backward<'a>(
    grad_out: &Tensor<'a>,
    input: &Tensor<'a>,
    weight: Option<&Tensor<'a>>,
    running_mean: Option<&Tensor<'a>>,
    running_var: Option<&Tensor<'a>>,
    save_mean: Option<&Tensor<'a>>,
    save_invstd: Option<&Tensor<'a>>,
    training: bool,
    eps: f64,
    mask: GradMask,
    grad_input: Option<TensorMut<'a>>,
    grad_weight: Option<TensorMut<'a>>,
    grad_bias: Option<TensorMut<'a>>,
) -> Result<Prepared<'a>> {
    check_mask(
        "BatchNormBackward",
        mask,
        [
            grad_input.is_some(),
            grad_weight.is_some(),
            grad_bias.is_some(),
        ],
    )?;
    let mut p = Phase1::new("BatchNormBackward", grad_out.storage.ctx)?;
    let (g, i, w) = (
        p.input("gradOut", grad_out)?,
        p.input("input", input)?,
        p.input_opt("weight", weight)?,
    );
    let (rm, rv) = (
        p.input_opt("runningMean", running_mean)?,
        p.input_opt("runningVar", running_var)?,
    );
    let (sm, si) = (
        p.input_opt("saveMean", save_mean)?,
        p.input_opt("saveInvstd", save_invstd)?,
    );
    let m = p.bools(&mask.array())?;
    let gi = p.output_opt("gradInput", grad_input)?;
    let gw = p.output_opt("gradWeight", grad_weight)?;
    let gb = p.output_opt("gradBias", grad_bias)?;
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnBatchNormBackward, |l, ws, ex| unsafe {
        l.aclnnBatchNormBackwardGetWorkspaceSize(
            g, i, w, rm, rv, sm, si, training, eps, m, gi, gw, gb, ws, ex,
        )
    })
}

/// 2-D max pooling with the argmax of each window (`aclnnMaxPool2dWithIndices`;
/// `indices` int32 or int64, PyTorch's flat `h * W + w` per plane). An empty
/// `window.stride` means the kernel size.
pub fn max_pool2d_with_indices<'a>(
    self_: &Tensor<'a>,
    kernel: [i64; 2],
    window: &Window,
    ceil_mode: bool,
    out: TensorMut<'a>,
    indices: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("MaxPool2dWithIndices", self_.storage.ctx)?;
    let (s, k) = (p.input("self", self_)?, p.ints(&kernel)?);
    let (st, pd, d) = (
        p.ints(&window.stride)?,
        p.ints(&window.padding)?,
        p.ints(&window.dilation)?,
    );
    let (o, ix) = (p.output("out", out)?, p.output("indices", indices)?);
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnMaxPool2dWithIndices, |l, ws, ex| unsafe {
        l.aclnnMaxPool2dWithIndicesGetWorkspaceSize(s, k, st, pd, d, ceil_mode, o, ix, ws, ex)
    })
}

/// Max pooling's gradient: `grad_output` scattered to `indices`
/// (`aclnnMaxPool2dWithIndicesBackward`).
///
/// On Ascend 910B/910_93 it takes narrower dtypes than the forward makes:
/// `self`, `grad_output` and `grad_input` f32 only, `indices` i32 (hicann/ops-nn
/// v8.5.0, `pooling/max_pool3d_grad_with_argmax/op_host/op_api/`
/// `aclnn_max_pool2d_with_indices_backward.cpp:130-147`). Pool f16/bf16 data
/// for training in f32, or cast it, and ask the forward for i32 indices.
///
/// # Hazard
///
/// `indices` must be those [`max_pool2d_with_indices`] made for this input
/// (each in `[0, H * W)` of its plane); out-of-range is undefined on a card:
/// the indices are device data, so nothing checks them before the kernel,
/// which adds the gradient where they point (it may write out of bounds).
/// The mock counts each launch with such an index as misuse
/// (`OUT_OF_BOUNDS`; `ASCENDCL_MOCK_ABORT_ON_MISUSE=1` aborts) and skips it.
#[allow(clippy::too_many_arguments)]
pub fn max_pool2d_with_indices_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    indices: &Tensor<'a>,
    kernel: [i64; 2],
    window: &Window,
    ceil_mode: bool,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("MaxPool2dWithIndicesBackward", grad_output.storage.ctx)?;
    let (g, s, ix) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.input("indices", indices)?,
    );
    let k = p.ints(&kernel)?;
    let (st, pd, d) = (
        p.ints(&window.stride)?,
        p.ints(&window.padding)?,
        p.ints(&window.dilation)?,
    );
    let gi = p.output("gradInput", grad_input)?;
    // SAFETY: as in `conv_forward`.
    p.run(
        Aclnn::aclnnMaxPool2dWithIndicesBackward,
        |l, ws, ex| unsafe {
            l.aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                g, s, ix, k, st, pd, d, ceil_mode, gi, ws, ex,
            )
        },
    )
}

/// Average pooling to `output_size` `[H, W]` (`aclnnAdaptiveAvgPool2d`).
pub fn adaptive_avg_pool2d<'a>(
    self_: &Tensor<'a>,
    output_size: [i64; 2],
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("AdaptiveAvgPool2d", self_.storage.ctx)?;
    let (s, size, o) = (
        p.input("self", self_)?,
        p.ints(&output_size)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnAdaptiveAvgPool2d, |l, ws, ex| unsafe {
        l.aclnnAdaptiveAvgPool2dGetWorkspaceSize(s, size, o, ws, ex)
    })
}

/// Adaptive average pooling's gradient (`aclnnAdaptiveAvgPool2dBackward`).
pub fn adaptive_avg_pool2d_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("AdaptiveAvgPool2dBackward", grad_output.storage.ctx)?;
    let (g, s, o) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnAdaptiveAvgPool2dBackward, |l, ws, ex| unsafe {
        l.aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(g, s, o, ws, ex)
    })
}

/// How a resize maps output pixels to input pixels. `Resize::default()` is
/// PyTorch's default (`align_corners=False`, scales from the sizes), so
/// `Resize { align_corners: true, ..Default::default() }` sets one field.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Resize {
    /// Corner pixels aligned (scale `(in-1)/(out-1)`).
    pub align_corners: bool,
    /// Explicit scale factors (> 0), or 0 for `in/out`.
    pub scales_h: f64,
    /// As `scales_h`, for the width.
    pub scales_w: f64,
}

/// Bicubic resize to `output_size` `[H, W]` (`aclnnUpsampleBicubic2d`;
/// cubic coefficient −0.75, as PyTorch).
pub fn upsample_bicubic2d<'a>(
    self_: &Tensor<'a>,
    output_size: [i64; 2],
    resize: Resize,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("UpsampleBicubic2d", self_.storage.ctx)?;
    let (s, size, o) = (
        p.input("self", self_)?,
        p.ints(&output_size)?,
        p.output("out", out)?,
    );
    let Resize {
        align_corners: a,
        scales_h: h,
        scales_w: w,
    } = resize;
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnUpsampleBicubic2d, |l, ws, ex| unsafe {
        l.aclnnUpsampleBicubic2dGetWorkspaceSize(s, size, a, h, w, o, ws, ex)
    })
}

/// The bicubic resize's gradient (`aclnnUpsampleBicubic2dBackward`);
/// `input_size` is `[N, C, H, W]` of the forward's input.
pub fn upsample_bicubic2d_backward<'a>(
    grad_out: &Tensor<'a>,
    output_size: [i64; 2],
    input_size: [i64; 4],
    resize: Resize,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("UpsampleBicubic2dBackward", grad_out.storage.ctx)?;
    let (g, os, is) = (
        p.input("gradOut", grad_out)?,
        p.ints(&output_size)?,
        p.ints(&input_size)?,
    );
    let gi = p.output("gradInput", grad_input)?;
    let Resize {
        align_corners: a,
        scales_h: h,
        scales_w: w,
    } = resize;
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnUpsampleBicubic2dBackward, |l, ws, ex| unsafe {
        l.aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(g, os, is, a, h, w, gi, ws, ex)
    })
}

/// Bilinear resize to `output_size` `[H, W]` (`aclnnUpsampleBilinear2d`).
pub fn upsample_bilinear2d<'a>(
    self_: &Tensor<'a>,
    output_size: [i64; 2],
    resize: Resize,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("UpsampleBilinear2d", self_.storage.ctx)?;
    let (s, size, o) = (
        p.input("self", self_)?,
        p.ints(&output_size)?,
        p.output("out", out)?,
    );
    let Resize {
        align_corners: a,
        scales_h: h,
        scales_w: w,
    } = resize;
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnUpsampleBilinear2d, |l, ws, ex| unsafe {
        l.aclnnUpsampleBilinear2dGetWorkspaceSize(s, size, a, h, w, o, ws, ex)
    })
}
