//! Layer normalization and its gradients (the third operator set:
//! what a transformer block needs).

use crate::error::Result;
use crate::ops::conv::{GradMask, check_mask};
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// The saved statistics of a layer normalization, for its backward: `mean`
/// and `rstd` (`1/sqrt(var + eps)`, biased variance), both of the input's
/// shape with the normalized dims set to 1.
#[derive(Debug)]
pub struct LayerNormStats<'a> {
    /// Per-row mean.
    pub mean: TensorMut<'a>,
    /// Per-row reciprocal standard deviation.
    pub rstd: TensorMut<'a>,
}

/// Layer normalization over the trailing dims `normalized_shape`
/// (`aclnnLayerNorm`): `out = (x - mean) * rstd * weight + bias`, with
/// `weight` and `bias` of shape `normalized_shape` (absent: ones and zeros).
///
/// f32, f16 and bf16; `weight`/`bias` may be f32 under an f16/bf16 input
/// (both the same dtype). `stats` receives what
/// [`layer_norm_backward`] needs, or is `None` (inference).
///
/// **CANN against PyTorch.** The saved statistics mean what
/// `torch.native_layer_norm`'s second and third results mean (mean, and
/// `rstd = 1/sqrt(var_biased + eps)`, not the variance as in CANN's
/// BatchNorm on A2/A3), with the same shape `[A.., 1, ..]`. They differ in
/// what is optional and in dtype: CANN takes any of f32/f16/bf16 for them
/// and casts its f32 statistics to it (hicann/ops-nn v8.5.0
/// `aclnn_layer_norm.cpp:405-421`), whereas PyTorch on the CPU returns them
/// in the input's dtype (f32 when `weight` is f32 under an f16/bf16 input);
/// use f32 statistics under an f16/bf16 input to keep their precision. With an empty normalized axis CANN writes mean 0 and
/// rstd NaN (`aclnn_layer_norm.cpp:317-330`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, LayerNormStats, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 0.0, 0.0, 2.0, 2.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 8)?;
/// let (mut mean, mut rstd) = (DeviceBuffer::<f32>::zeroed(&ctx, 2)?, DeviceBuffer::<f32>::zeroed(&ctx, 2)?);
/// let stats = LayerNormStats {
///     mean: TensorMut::new(&mut mean, &[2, 1])?,
///     rstd: TensorMut::new(&mut rstd, &[2, 1])?,
/// };
/// let x_t = Tensor::new(&x, &[2, 4])?;
/// ops::layer_norm(&x_t, &[4], None, None, 0.0, TensorMut::new(&mut y, &[2, 4])?, Some(stats))?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(mean.to_vec()?, vec![2.5, 1.0]);
/// assert_eq!(rstd.to_vec()?[1], 1.0);
/// assert_eq!(y.to_vec()?[4..], [-1.0, -1.0, 1.0, 1.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn layer_norm<'a>(
    input: &Tensor<'a>,
    normalized_shape: &[i64],
    weight: Option<&Tensor<'a>>,
    bias: Option<&Tensor<'a>>,
    eps: f64,
    out: TensorMut<'a>,
    stats: Option<LayerNormStats<'a>>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("LayerNorm", input.storage.ctx)?;
    let (i, ns, w, b) = (
        p.input("input", input)?,
        p.ints(normalized_shape)?,
        p.input_opt("weightOptional", weight)?,
        p.input_opt("biasOptional", bias)?,
    );
    let o = p.output("out", out)?;
    let (m, r) = match stats {
        Some(s) => (
            p.output("meanOutOptional", s.mean)?,
            p.output("rstdOutOptional", s.rstd)?,
        ),
        None => (std::ptr::null_mut(), std::ptr::null_mut()),
    };
    // SAFETY: live descriptors (or null for the optional ones, which the
    // op accepts) and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnLayerNorm, |l, ws, ex| unsafe {
        l.aclnnLayerNormGetWorkspaceSize(i, ns, w, b, eps, o, m, r, ws, ex)
    })
}

/// Layer normalization's gradients (`aclnnLayerNormBackward`) from the
/// forward's `mean` and `rstd` ([`LayerNormStats`], handed back as they
/// are): `grad_input` of the input's shape, `grad_weight` and `grad_bias`
/// with one element per normalized element. `mask` says which are wanted;
/// an output is given exactly when it is requested. `bias` is only checked
/// (the gradients do not depend on it), as in CANN. The formulas are
/// PyTorch's (`torch.ops.aten.native_layer_norm_backward`).
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_backward<'a>(
    grad_out: &Tensor<'a>,
    input: &Tensor<'a>,
    normalized_shape: &[i64],
    mean: &Tensor<'a>,
    rstd: &Tensor<'a>,
    weight: Option<&Tensor<'a>>,
    bias: Option<&Tensor<'a>>,
    mask: GradMask,
    grad_input: Option<TensorMut<'a>>,
    grad_weight: Option<TensorMut<'a>>,
    grad_bias: Option<TensorMut<'a>>,
) -> Result<Prepared<'a>> {
    check_mask(
        "LayerNormBackward",
        mask,
        [
            grad_input.is_some(),
            grad_weight.is_some(),
            grad_bias.is_some(),
        ],
    )?;
    let mut p = Phase1::new("LayerNormBackward", grad_out.storage.ctx)?;
    let (g, i, ns) = (
        p.input("gradOut", grad_out)?,
        p.input("input", input)?,
        p.ints(normalized_shape)?,
    );
    let (m, r) = (p.input("mean", mean)?, p.input("rstd", rstd)?);
    let (w, b) = (
        p.input_opt("weightOptional", weight)?,
        p.input_opt("biasOptional", bias)?,
    );
    let om = p.bools(&mask.array())?;
    let gi = p.output_opt("gradInputOut", grad_input)?;
    let gw = p.output_opt("gradWeightOut", grad_weight)?;
    let gb = p.output_opt("gradBiasOut", grad_bias)?;
    // SAFETY: as in `layer_norm`.
    p.run(Aclnn::aclnnLayerNormBackward, |l, ws, ex| unsafe {
        l.aclnnLayerNormBackwardGetWorkspaceSize(g, i, ns, m, r, w, b, om, gi, gw, gb, ws, ex)
    })
}
