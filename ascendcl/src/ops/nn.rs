//! Matrix products, activations and losses (the ops-nn library).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Scalar, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// How matrix products may trade precision for speed (`cubeMathType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CubeMath {
    /// Compute in the inputs' dtype (0). Older Atlas training parts reject
    /// it for f32.
    #[default]
    KeepDtype,
    /// Allow f32 to run as HF32 (A2/A3) or f16 (older parts) (1).
    AllowFp32DownPrecision,
    /// Compute in f16 (2).
    UseFp16,
    /// Compute in HF32 (3).
    UseHf32,
}

impl CubeMath {
    pub(crate) fn raw(self) -> i8 {
        match self {
            CubeMath::KeepDtype => 0,
            CubeMath::AllowFp32DownPrecision => 1,
            CubeMath::UseFp16 => 2,
            CubeMath::UseHf32 => 3,
        }
    }
}

/// How a loss is reduced over the batch (`reduction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// One value per sample (0).
    None,
    /// Weighted mean: Σ w·loss / Σ w over non-ignored targets (1).
    #[default]
    Mean,
    /// Sum (2).
    Sum,
}

impl Reduction {
    fn raw(self) -> i64 {
        match self {
            Reduction::None => 0,
            Reduction::Mean => 1,
            Reduction::Sum => 2,
        }
    }
}

/// `out = self @ mat2`, 2-D (`aclnnMm`).
pub fn mm<'a>(
    self_: &Tensor<'a>,
    mat2: &Tensor<'a>,
    out: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Mm", self_.storage.ctx)?;
    let (s, m, out) = (
        p.input("self", self_)?,
        p.input("mat2", mat2)?,
        p.output("out", out)?,
    );
    let c = math.raw();
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnMm, |l, ws, ex| unsafe {
        l.aclnnMmGetWorkspaceSize(s, m, out, c, ws, ex)
    })
}

/// `out = beta * self + alpha * (mat1 @ mat2)`, `self` broadcast (a 1-D bias
/// works, as `torch.nn.Linear` passes it) (`aclnnAddmm`).
#[allow(clippy::too_many_arguments)]
pub fn addmm<'a>(
    self_: &Tensor<'a>,
    mat1: &Tensor<'a>,
    mat2: &Tensor<'a>,
    beta: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
    out: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Addmm", self_.storage.ctx)?;
    let (s, m1, m2) = (
        p.input("self", self_)?,
        p.input("mat1", mat1)?,
        p.input("mat2", mat2)?,
    );
    let (b, a, out) = (
        p.scalar(beta.into())?,
        p.scalar(alpha.into())?,
        p.output("out", out)?,
    );
    let c = math.raw();
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnAddmm, |l, ws, ex| unsafe {
        l.aclnnAddmmGetWorkspaceSize(s, m1, m2, b, a, out, c, ws, ex)
    })
}

/// `self_ref = beta * self_ref + alpha * (mat1 @ mat2)` in place
/// (`aclnnInplaceAddmm`); `self_ref` has the product's 2-D shape. With
/// `beta = 1` this accumulates a linear layer's weight gradient
/// (`grad_w += grad_out^T @ x`) without a temporary.
pub fn inplace_addmm<'a>(
    self_ref: TensorMut<'a>,
    mat1: &Tensor<'a>,
    mat2: &Tensor<'a>,
    beta: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceAddmm", self_ref.storage.ctx)?;
    let (s, m1, m2) = (
        p.in_place("selfRef", self_ref)?,
        p.input("mat1", mat1)?,
        p.input("mat2", mat2)?,
    );
    let (b, a) = (p.scalar(beta.into())?, p.scalar(alpha.into())?);
    let c = math.raw();
    // SAFETY: as in `mm` (CANN declares selfRef const; the operator writes it).
    p.run(Aclnn::aclnnInplaceAddmm, |l, ws, ex| unsafe {
        l.aclnnInplaceAddmmGetWorkspaceSize(s, m1, m2, b, a, c, ws, ex)
    })
}

/// `out = torch.matmul(self, mat2)`: 1-D to 6-D with batch broadcasting
/// (`aclnnMatmul`).
pub fn matmul<'a>(
    self_: &Tensor<'a>,
    mat2: &Tensor<'a>,
    out: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Matmul", self_.storage.ctx)?;
    let (s, m, out) = (
        p.input("self", self_)?,
        p.input("mat2", mat2)?,
        p.output("out", out)?,
    );
    let c = math.raw();
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnMatmul, |l, ws, ex| unsafe {
        l.aclnnMatmulGetWorkspaceSize(s, m, out, c, ws, ex)
    })
}

/// `out = max(self, 0)` (`aclnnRelu`).
pub fn relu<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Relu", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `mm` (CANN declares `out` const here).
    p.run(Aclnn::aclnnRelu, |l, ws, ex| unsafe {
        l.aclnnReluGetWorkspaceSize(s, out, ws, ex)
    })
}

/// `out = grad_output where self > threshold, else 0`; for ReLU pass the
/// forward input or output and threshold 0 (`aclnnThresholdBackward`).
pub fn threshold_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    threshold: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("ThresholdBackward", grad_output.storage.ctx)?;
    let (g, s, t, out) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.scalar(threshold.into())?,
        p.output("out", out)?,
    );
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnThresholdBackward, |l, ws, ex| unsafe {
        l.aclnnThresholdBackwardGetWorkspaceSize(g, s, t, out, ws, ex)
    })
}

/// `out = log_softmax(self, dim)` (`aclnnLogSoftmax`).
pub fn log_softmax<'a>(self_: &Tensor<'a>, dim: i64, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("LogSoftmax", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnLogSoftmax, |l, ws, ex| unsafe {
        l.aclnnLogSoftmaxGetWorkspaceSize(s, dim, out, ws, ex)
    })
}

/// The gradient of `log_softmax` given its forward `output`
/// (`aclnnLogSoftmaxBackward`).
pub fn log_softmax_backward<'a>(
    grad_output: &Tensor<'a>,
    output: &Tensor<'a>,
    dim: i64,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("LogSoftmaxBackward", grad_output.storage.ctx)?;
    let (g, o, out) = (
        p.input("gradOutput", grad_output)?,
        p.input("output", output)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnLogSoftmaxBackward, |l, ws, ex| unsafe {
        l.aclnnLogSoftmaxBackwardGetWorkspaceSize(g, o, dim, out, ws, ex)
    })
}

/// Weighted negative log likelihood of log-probabilities `self` (N×C or C)
/// for class indices `target`; `total_weight_out` receives Σ w over the
/// non-ignored targets (`aclnnNLLLoss`). Pass a weight of ones for the
/// unweighted loss, as torch_npu does.
///
/// # Hazard
///
/// Targets must be in `[0, C)` or equal `ignore_index`; out-of-range is
/// undefined on a card. The targets are device data, so nothing can check
/// them before the kernel runs, and the kernel indexes `weight` and `self`
/// with them (it may read out of bounds: hicann/ops-nn v8.5.0
/// `loss/nll_loss/docs/aclnnNLLLoss.md:106`,
/// `op_kernel/arch35/nll_loss_simt.h:46-48, 78-80`). The mock counts each
/// launch with such a target as misuse (`OUT_OF_BOUNDS`;
/// `ASCENDCL_MOCK_ABORT_ON_MISUSE=1` aborts) and gives NaN for it.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss<'a>(
    self_: &Tensor<'a>,
    target: &Tensor<'a>,
    weight: &Tensor<'a>,
    reduction: Reduction,
    ignore_index: i64,
    out: TensorMut<'a>,
    total_weight_out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("NLLLoss", self_.storage.ctx)?;
    let (s, t, w) = (
        p.input("self", self_)?,
        p.input("target", target)?,
        p.input("weight", weight)?,
    );
    let (out, tw) = (
        p.output("out", out)?,
        p.output("totalWeightOut", total_weight_out)?,
    );
    let r = reduction.raw();
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnNLLLoss, |l, ws, ex| unsafe {
        l.aclnnNLLLossGetWorkspaceSize(s, t, w, r, ignore_index, out, tw, ws, ex)
    })
}

/// The gradient of [`nll_loss`] with respect to `self`
/// (`aclnnNLLLossBackward`).
///
/// # Hazard
///
/// As for [`nll_loss`]: targets must be in `[0, C)` or equal
/// `ignore_index`; out-of-range is undefined on a card (the kernel may read
/// or write out of bounds). The mock counts it as misuse and leaves that
/// sample's gradient zero.
#[allow(clippy::too_many_arguments)]
pub fn nll_loss_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    target: &Tensor<'a>,
    weight: &Tensor<'a>,
    reduction: Reduction,
    ignore_index: i64,
    total_weight: &Tensor<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("NLLLossBackward", grad_output.storage.ctx)?;
    let (g, s, t) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.input("target", target)?,
    );
    let (w, tw, out) = (
        p.input("weight", weight)?,
        p.input("totalWeight", total_weight)?,
        p.output("out", out)?,
    );
    let r = reduction.raw();
    // SAFETY: as in `mm`.
    p.run(Aclnn::aclnnNLLLossBackward, |l, ws, ex| unsafe {
        l.aclnnNLLLossBackwardGetWorkspaceSize(g, s, t, w, r, ignore_index, tw, out, ws, ex)
    })
}
