//! Convolution and its gradients (the second operator set: what a ResNet
//! needs), with the window and gradient-mask types pooling shares.

use crate::error::{Error, Result};
use crate::few::Few;
use crate::ops::nn::CubeMath;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Stride, padding and dilation of a convolution or pooling, one value per
/// spatial dimension (1 for NCL, 2 for images, 3 for NCDHW volumes). A 2-D
/// convolution also takes four padding entries `[top, bottom, left, right]`
/// (a 1-D direct one two, `[left, right]`); a 3-D one takes exactly three,
/// each padding both sides of its dimension.
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

    /// Stride `s`, padding `p`, dilation 1, in three dimensions (conv3d).
    pub fn cube(stride: i64, padding: i64) -> Window {
        Window {
            stride: vec![stride; 3],
            padding: vec![padding; 3],
            dilation: vec![1; 3],
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

    pub(crate) fn array(self) -> [bool; 3] {
        [self.input, self.weight, self.bias]
    }
}

/// Checks that a requested gradient has an output, and that an output is
/// requested, before any FFI call.
pub(crate) fn check_mask(op: &str, mask: GradMask, outs: [bool; 3]) -> Result<()> {
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

/// 1-, 2- or 3-D convolution (`aclnnConvolution`): NCL, NCHW or NCDHW input,
/// `[out, in/groups, k..]` weight of the input's rank, optional bias, no
/// transposition. f32, f16 or bf16. The operator checks the ranks and the
/// window's lengths (one entry per spatial dimension; see [`Window`]): a
/// mismatch is an [`Error`] from phase 1, before any launch.
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
    let zeros: Few<i64> = window.stride.iter().map(|_| 0).collect();
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
/// weight `[in, out/groups, k..]`; `output_padding` (one entry per spatial
/// dimension) adds to one side of each output dimension. 1-, 2- or 3-D; a
/// 2-D one also takes four padding entries, 1-D and 3-D one per dimension.
/// For 3-D, CANN also wants `(k - 1)·dilation - padding` of the last two
/// dimensions in `0..=255`.
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
/// shape (`[out_channels]`) when the bias gradient is wanted. 1-, 2- or 3-D
/// (NCL, NCHW, NCDHW), as [`convolution`].
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
    let zeros: Few<i64> = window.stride.iter().map(|_| 0).collect();
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

/// The gradients of a [`convolution_transposed`], 1-, 2- or 3-D; for 3-D,
/// CANN's backward wants each `output_padding` entry below its stride.
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
