//! Element-wise arithmetic of the third operator set (ops-math): division,
//! and the unary, power, clamp and finiteness operators that follow.

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Scalar, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = self / other`, true division with broadcasting (`aclnnDiv`,
/// `torch.div` without a rounding mode).
///
/// Integer operands are divided in `f32` (`DOUBLE` operands in `f64`); `out`
/// has the broadcast shape and any dtype the promoted operand dtype can be
/// cast to. Unlike PyTorch, CANN checks the cast from the *operands'*
/// promoted dtype, not from the float quotient: two integer tensors may be
/// divided into an integer `out`, which receives the quotient truncated
/// toward zero (PyTorch refuses `out=` of an integer dtype here). `BOOL`
/// operands are refused by the mock (the real op takes them).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let d = DeviceBuffer::from_host(&ctx, &[2.0f32, 4.0, 8.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
/// // [2, 3] / [3]: each row divided by d
/// ops::div(&Tensor::new(&x, &[2, 3])?, &Tensor::new(&d, &[3])?, TensorMut::new(&mut y, &[2, 3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![0.5, 0.5, 0.375, 2.0, 1.25, 0.75]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn div<'a>(self_: &Tensor<'a>, other: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Div", self_.storage.ctx)?;
    let (s, o, out) = (
        p.input("self", self_)?,
        p.input("other", other)?,
        p.output("out", out)?,
    );
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnDiv, |l, ws, ex| unsafe {
        l.aclnnDivGetWorkspaceSize(s, o, out, ws, ex)
    })
}

/// `out = self ** exponent` for a scalar exponent (`aclnnPowTensorScalar`,
/// `torch.pow(tensor, number)`); `out` has `self`'s shape.
///
/// A floating `self` is raised in its own dtype (f16/bf16 through f32 on the
/// mock, rounded once); an integer `self` with a floating exponent in f32,
/// with an integer exponent in its integer dtype. `self` and the exponent
/// may be f32, f16, bf16, f64, i8, i16, i32, i64, u8, bool (not both bool).
/// Unlike PyTorch, CANN (on Atlas A2/A3) accepts a negative integer exponent
/// of an integer `self` (PyTorch refuses it); the mock then gives
/// `1 / self^|e|` truncated (0 unless `self` is ±1), which the device does
/// not document.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, -4.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// ops::pow_tensor_scalar(&Tensor::new(&x, &[4])?, 2.0f32, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![1.0, 4.0, 9.0, 16.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn pow_tensor_scalar<'a>(
    self_: &Tensor<'a>,
    exponent: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("PowTensorScalar", self_.storage.ctx)?;
    let (s, e, out) = (
        p.input("self", self_)?,
        p.scalar(exponent.into())?,
        p.output("out", out)?,
    );
    // SAFETY: as in `div` (CANN declares out const; the operator writes it).
    p.run(Aclnn::aclnnPowTensorScalar, |l, ws, ex| unsafe {
        l.aclnnPowTensorScalarGetWorkspaceSize(s, e, out, ws, ex)
    })
}

/// `out = min(max(self, min), max)` with optional scalar bounds
/// (`aclnnClamp`, `torch.clamp(tensor, min, max)` with numbers); `out` has
/// `self`'s shape.
///
/// `self` and `out` may be f32, f16, bf16, f64, i8, i16, i32, i64, u8 (no
/// bool), and `self` must cast to `out` (no float into an integer `out`).
/// At least one bound must be given: with both `None` CANN refuses the call
/// (`ACLNN_ERR_PARAM_NULLPTR`, 161001), where PyTorch raises. Unlike PyTorch,
/// CANN (on Atlas A2/A3) computes in `out`'s dtype: the bounds are converted
/// to it, so a fractional bound of an integer tensor is truncated
/// (`clamp(int, min = 1.5)` clamps at 1 into an integer `out`, where PyTorch
/// promotes to float). A NaN element stays NaN; with `min > max` the mock
/// gives `max` everywhere, as PyTorch (the device does not document it).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Scalar, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[-2.0f32, -0.5, 0.5, 3.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// let (min, max) = (Some(Scalar::F32(-1.0)), Some(Scalar::F32(1.0)));
/// ops::clamp(&Tensor::new(&x, &[4])?, min, max, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![-1.0, -0.5, 0.5, 1.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn clamp<'a>(
    self_: &Tensor<'a>,
    min: Option<Scalar>,
    max: Option<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Clamp", self_.storage.ctx)?;
    let s = p.input("self", self_)?;
    let lo = match min {
        Some(v) => p.scalar(v)?,
        None => std::ptr::null(),
    };
    let hi = match max {
        Some(v) => p.scalar(v)?,
        None => std::ptr::null(),
    };
    let out = p.output("out", out)?;
    // SAFETY: as in `div`; a null bound is CANN's "no bound".
    p.run(Aclnn::aclnnClamp, |l, ws, ex| unsafe {
        l.aclnnClampGetWorkspaceSize(s, lo, hi, out, ws, ex)
    })
}
