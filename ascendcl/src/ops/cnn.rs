//! Convolution, batch normalization, pooling and resizing (the second
//! operator set: what a ResNet needs).

use crate::error::{Error, Result};
use crate::ops::nn::CubeMath;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Stride, padding and dilation of a convolution or pooling, one value per
/// spatial dimension (2 for images).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Step between windows.
    pub stride: Vec<i64>,
    /// Implicit zero padding on both sides.
    pub padding: Vec<i64>,
    /// Spacing between kernel taps.
    pub dilation: Vec<i64>,
}

impl Window {
    /// Stride `s`, padding `p`, dilation 1, in two dimensions.
    pub fn square(stride: i64, padding: i64) -> Window {
        Window {
            stride: vec![stride; 2],
            padding: vec![padding; 2],
            dilation: vec![1; 2],
        }
    }
}

/// Which gradients a backward computes: input, weight, bias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GradMask {
    /// The input's gradient.
    pub input: bool,
    /// The weight's gradient.
    pub weight: bool,
    /// The bias's gradient.
    pub bias: bool,
}

impl GradMask {
    /// All three.
    pub const ALL: GradMask = GradMask {
        input: true,
        weight: true,
        bias: true,
    };

    fn array(self) -> [bool; 3] {
        [self.input, self.weight, self.bias]
    }
}

/// Checks that a requested gradient has an output, and that an output is
/// requested, before any FFI call.
fn check_mask(op: &str, mask: GradMask, outs: [bool; 3]) -> Result<()> {
    for ((want, have), name) in mask
        .array()
        .into_iter()
        .zip(outs)
        .zip(["input", "weight", "bias"])
    {
        if want != have {
            return Err(Error::invalid(format!(
                "aclnn{op}: the {name} gradient is {} but its output is {}",
                if want { "requested" } else { "not requested" },
                if have { "given" } else { "missing" }
            )));
        }
    }
    Ok(())
}

/// N-d convolution (`aclnnConvolution`): NCL/NCHW input, `[out, in/groups,
/// k..]` weight, optional bias, no transposition.
#[allow(clippy::too_many_arguments)]
pub fn convolution<'a>(
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias: Option<&Tensor<'a>>,
    window: &Window,
    groups: i64,
    output: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let zeros = vec![0; window.stride.len()];
    conv_forward(
        input,
        weight,
        bias,
        window,
        (false, &zeros),
        groups,
        output,
        math,
    )
}

/// Transposed convolution (`aclnnConvolution` with `transposed`): the
/// gradient of a convolution with respect to its input, as an operator;
/// weight `[in, out/groups, k..]`; `output_padding` adds to one side of
/// each output dimension.
#[allow(clippy::too_many_arguments)]
pub fn convolution_transposed<'a>(
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias: Option<&Tensor<'a>>,
    window: &Window,
    output_padding: &[i64],
    groups: i64,
    output: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    conv_forward(
        input,
        weight,
        bias,
        window,
        (true, output_padding),
        groups,
        output,
        math,
    )
}

#[allow(clippy::too_many_arguments)]
fn conv_forward<'a>(
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias: Option<&Tensor<'a>>,
    window: &Window,
    (transposed, output_padding): (bool, &[i64]),
    groups: i64,
    output: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Convolution", input.storage.ctx)?;
    let (i, w, b) = (
        p.input("input", input)?,
        p.input("weight", weight)?,
        p.input_opt("bias", bias)?,
    );
    let (s, pd, d) = (
        p.ints(&window.stride)?,
        p.ints(&window.padding)?,
        p.ints(&window.dilation)?,
    );
    let op = p.ints(output_padding)?;
    let (out, c) = (p.output("output", output)?, math.raw());
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnConvolution, |l, ws, ex| unsafe {
        l.aclnnConvolutionGetWorkspaceSize(
            i, w, b, s, pd, d, transposed, op, groups, out, c, ws, ex,
        )
    })
}

/// The gradient outputs of a convolution backward.
#[derive(Debug, Default)]
pub struct ConvGrads<'a> {
    /// The input's gradient.
    pub input: Option<TensorMut<'a>>,
    /// The weight's gradient.
    pub weight: Option<TensorMut<'a>>,
    /// The bias's gradient.
    pub bias: Option<TensorMut<'a>>,
}

/// The convolution's gradients (`aclnnConvolutionBackward`). `groups` is a
/// 32-bit `int` in this C function (unlike the forward's `int64_t`): a value
/// that does not fit is refused before the call. `bias_sizes` is the bias
/// shape (`[out_channels]`) when the bias gradient is wanted.
#[allow(clippy::too_many_arguments)]
pub fn convolution_backward<'a>(
    grad_output: &Tensor<'a>,
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias_sizes: Option<&[i64]>,
    window: &Window,
    groups: i64,
    mask: GradMask,
    grad_input: Option<TensorMut<'a>>,
    grad_weight: Option<TensorMut<'a>>,
    grad_bias: Option<TensorMut<'a>>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let zeros = vec![0; window.stride.len()];
    let grads = ConvGrads {
        input: grad_input,
        weight: grad_weight,
        bias: grad_bias,
    };
    conv_backward(
        grad_output,
        input,
        weight,
        bias_sizes,
        window,
        (false, &zeros),
        groups,
        mask,
        grads,
        math,
    )
}

/// The gradients of a [`convolution_transposed`].
#[allow(clippy::too_many_arguments)]
pub fn convolution_transposed_backward<'a>(
    grad_output: &Tensor<'a>,
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias_sizes: Option<&[i64]>,
    window: &Window,
    output_padding: &[i64],
    groups: i64,
    mask: GradMask,
    grads: ConvGrads<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    conv_backward(
        grad_output,
        input,
        weight,
        bias_sizes,
        window,
        (true, output_padding),
        groups,
        mask,
        grads,
        math,
    )
}

#[allow(clippy::too_many_arguments)]
fn conv_backward<'a>(
    grad_output: &Tensor<'a>,
    input: &Tensor<'a>,
    weight: &Tensor<'a>,
    bias_sizes: Option<&[i64]>,
    window: &Window,
    (transposed, output_padding): (bool, &[i64]),
    groups: i64,
    mask: GradMask,
    grads: ConvGrads<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let groups = i32::try_from(groups).map_err(|_| {
        Error::invalid(format!(
            "groups {groups} does not fit the C int of aclnnConvolutionBackward"
        ))
    })?;
    check_mask(
        "ConvolutionBackward",
        mask,
        [
            grads.input.is_some(),
            grads.weight.is_some(),
            grads.bias.is_some(),
        ],
    )?;
    let mut p = Phase1::new("ConvolutionBackward", grad_output.storage.ctx)?;
    let (g, i, w) = (
        p.input("gradOutput", grad_output)?,
        p.input("input", input)?,
        p.input("weight", weight)?,
    );
    let bs = match bias_sizes {
        Some(sizes) => p.ints(sizes)?,
        None => std::ptr::null(),
    };
    let (s, pd, d) = (
        p.ints(&window.stride)?,
        p.ints(&window.padding)?,
        p.ints(&window.dilation)?,
    );
    let op = p.ints(output_padding)?;
    let m = p.bools(&mask.array())?;
    let gi = p.output_opt("gradInput", grads.input)?;
    let gw = p.output_opt("gradWeight", grads.weight)?;
    let gb = p.output_opt("gradBias", grads.bias)?;
    let c = math.raw();
    // SAFETY: as in `conv_forward`.
    p.run(Aclnn::aclnnConvolutionBackward, |l, ws, ex| unsafe {
        l.aclnnConvolutionBackwardGetWorkspaceSize(
            g, i, w, bs, s, pd, d, transposed, op, groups, m, c, gi, gw, gb, ws, ex,
        )
    })
}

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

/// How a resize maps output pixels to input pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
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
