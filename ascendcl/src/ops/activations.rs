//! Smooth activations and softmax (the ops-nn and ops-math libraries):
//! softmax, sigmoid, tanh, GELU and SiLU with their gradients.
//!
//! Each forward takes `self` and writes `out` of the same shape; each
//! gradient takes the upstream gradient and either the forward's output
//! (softmax, sigmoid, tanh: what PyTorch's autograd saves) or its input
//! (GELU, SiLU), as CANN's operators do.

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = softmax(self, dim)` (`aclnnSoftmax`): f32, f16, bf16 (and f64) on
/// 910B; `dim` may be negative; a row of `-inf` gives NaN, as in PyTorch.
/// `out` may have another float dtype than `self` (CANN casts the result into
/// it; PyTorch's `softmax(x, dtype=...)` casts the input first).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 0.0, 1.0, 1.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// ops::softmax(&Tensor::new(&x, &[2, 2])?, -1, TensorMut::new(&mut y, &[2, 2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![0.5; 4]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn softmax<'a>(self_: &Tensor<'a>, dim: i64, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Softmax", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnSoftmax, |l, ws, ex| unsafe {
        l.aclnnSoftmaxGetWorkspaceSize(s, dim, out, ws, ex)
    })
}

/// The gradient of `softmax` given its forward `output` (the
/// probabilities): `out = output * (grad_output - sum(grad_output * output,
/// dim))` (`aclnnSoftmaxBackward`, PyTorch's `_softmax_backward_data`).
/// `grad_output` and `output` share one dtype (f32, f16, bf16) and shape.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 0.0])?;
/// let y = DeviceBuffer::from_host(&ctx, &[0.5f32, 0.5])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// ops::softmax_backward(&Tensor::new(&g, &[2])?, &Tensor::new(&y, &[2])?, 0, TensorMut::new(&mut dx, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![0.25, -0.25]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn softmax_backward<'a>(
    grad_output: &Tensor<'a>,
    output: &Tensor<'a>,
    dim: i64,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SoftmaxBackward", grad_output.storage.ctx)?;
    let (g, o, out) = (
        p.input("gradOutput", grad_output)?,
        p.input("output", output)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnSoftmaxBackward, |l, ws, ex| unsafe {
        l.aclnnSoftmaxBackwardGetWorkspaceSize(g, o, dim, out, ws, ex)
    })
}

/// `out = sigmoid(self) = 1 / (1 + exp(-self))` (`aclnnSigmoid`). `self`
/// may be f32, f16, bf16, f64 or an integer/bool tensor; `out` is f32, f16,
/// bf16 or f64 of `self`'s shape. Unlike `torch.sigmoid(x, out=y)`, CANN
/// takes an `out` of another float dtype than `self` (the result is cast).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 100.0, -100.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
/// ops::sigmoid(&Tensor::new(&x, &[3])?, TensorMut::new(&mut y, &[3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// let y = y.to_vec()?;
/// assert_eq!(&y[..2], &[0.5, 1.0]);
/// assert!(y[2] < 1e-40);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn sigmoid<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Sigmoid", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnSigmoid, |l, ws, ex| unsafe {
        l.aclnnSigmoidGetWorkspaceSize(s, out, ws, ex)
    })
}

/// The gradient of `sigmoid` given its forward `output`:
/// `grad_input = grad_output * output * (1 - output)`
/// (`aclnnSigmoidBackward`, PyTorch's `sigmoid_backward`). `grad_output` and
/// `output` broadcast to `grad_input`'s shape and may have different float
/// dtypes (promoted as PyTorch does, then cast into `grad_input`'s).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[2.0f32])?;
/// let y = DeviceBuffer::from_host(&ctx, &[0.5f32, 0.25])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// ops::sigmoid_backward(&Tensor::new(&g, &[1])?, &Tensor::new(&y, &[2])?, TensorMut::new(&mut dx, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![0.5, 0.375]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn sigmoid_backward<'a>(
    grad_output: &Tensor<'a>,
    output: &Tensor<'a>,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SigmoidBackward", grad_output.storage.ctx)?;
    let (g, o, gi) = (
        p.input("gradOutput", grad_output)?,
        p.input("output", output)?,
        p.output("gradInput", grad_input)?,
    );
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnSigmoidBackward, |l, ws, ex| unsafe {
        l.aclnnSigmoidBackwardGetWorkspaceSize(g, o, gi, ws, ex)
    })
}

/// `out = tanh(self)` (`aclnnTanh`). `self` may be f32, f16, bf16 or an
/// integer/bool tensor (computed in f32); `out` is f32, f16 or bf16 of
/// `self`'s shape (an integer `out` is refused: the float result cannot be
/// cast into it). f64 is not taken on 910B, unlike PyTorch; and unlike
/// `torch.tanh(x, out=y)`, `out` may have another float dtype than `self`.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 100.0, -100.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
/// ops::tanh(&Tensor::new(&x, &[3])?, TensorMut::new(&mut y, &[3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![0.0, 1.0, -1.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn tanh<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Tanh", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnTanh, |l, ws, ex| unsafe {
        l.aclnnTanhGetWorkspaceSize(s, out, ws, ex)
    })
}

/// The gradient of `tanh` given its forward `output`:
/// `grad_input = grad_output * (1 - output²)` (`aclnnTanhBackward`,
/// PyTorch's `tanh_backward`). `grad_output`, `output` and `grad_input`
/// have one dtype (f32, f16, bf16 or f64; PyTorch would promote mixed ones);
/// `grad_output` and `output` broadcast to `grad_input`'s shape.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[2.0f32])?;
/// let y = DeviceBuffer::from_host(&ctx, &[0.5f32, 0.0])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// ops::tanh_backward(&Tensor::new(&g, &[1])?, &Tensor::new(&y, &[2])?, TensorMut::new(&mut dx, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![1.5, 2.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn tanh_backward<'a>(
    grad_output: &Tensor<'a>,
    output: &Tensor<'a>,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("TanhBackward", grad_output.storage.ctx)?;
    let (g, o, gi) = (
        p.input("gradOutput", grad_output)?,
        p.input("output", output)?,
        p.output("gradInput", grad_input)?,
    );
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnTanhBackward, |l, ws, ex| unsafe {
        l.aclnnTanhBackwardGetWorkspaceSize(g, o, gi, ws, ex)
    })
}

/// `out = silu(self) = self * sigmoid(self)` (`aclnnSilu`, PyTorch's
/// `F.silu`). `self` is f32, f16 or bf16 and `out` has its dtype and shape.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 100.0, -100.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
/// ops::silu(&Tensor::new(&x, &[3])?, TensorMut::new(&mut y, &[3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// let y = y.to_vec()?;
/// assert_eq!(&y[..2], &[0.0, 100.0]);
/// assert!(y[2].abs() < 1e-40);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn silu<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Silu", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnSilu, |l, ws, ex| unsafe {
        l.aclnnSiluGetWorkspaceSize(s, out, ws, ex)
    })
}

/// The gradient of `silu` given its forward input `self_`:
/// `grad_input = grad_output * s * (1 + self * (1 - s))` with
/// `s = sigmoid(self)` (`aclnnSiluBackward`, PyTorch's `silu_backward`).
/// On 910B all three tensors have one dtype (f32, f16 or bf16) and one shape:
/// unlike PyTorch, `grad_output` does not broadcast.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[2.0f32, 1.0])?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 100.0])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// ops::silu_backward(&Tensor::new(&g, &[2])?, &Tensor::new(&x, &[2])?, TensorMut::new(&mut dx, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![1.0, 1.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn silu_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SiluBackward", grad_output.storage.ctx)?;
    let (g, s, gi) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.output("gradInput", grad_input)?,
    );
    // SAFETY: as in `softmax`.
    p.run(Aclnn::aclnnSiluBackward, |l, ws, ex| unsafe {
        l.aclnnSiluBackwardGetWorkspaceSize(g, s, gi, ws, ex)
    })
}
