//! One-input element-wise operators (ops-math): square root, reciprocal
//! square root, exponential, natural logarithm, negation, finiteness. Each takes `self`
//! and an `out` of the same shape; the dtypes each takes differ (listed per
//! function, from the real op's checks).

use crate::error::Result;
use crate::ops::phase1::{AclnnPhase2, Phase1};
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::{Aclnn, SymbolError, aclOpExecutor, aclTensor, aclnnStatus};

/// Phase 1 of a CANN `(self, out)` operator.
type UnaryPhase1 = unsafe fn(
    &Aclnn,
    *const aclTensor,
    *mut aclTensor,
    *mut u64,
    *mut *mut aclOpExecutor,
) -> std::result::Result<aclnnStatus, SymbolError>;

fn unary<'a>(
    op: &'static str,
    phase1: UnaryPhase1,
    phase2: AclnnPhase2,
    self_: &Tensor<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new(op, self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract);
    // `phase1` is the loaded function of `op` with the (self, out) list.
    p.run(phase2, |l, ws, ex| unsafe { phase1(l, s, out, ws, ex) })
}

/// `out = sqrt(self)` (`aclnnSqrt`, `torch.sqrt`).
///
/// `self`: f32, f16, bf16, f64, and the integers i8, i16, i32, i64, u8 and
/// bool, whose root is taken in f32 (i64 in f64) as PyTorch does; `out`: a
/// floating dtype the result can be cast to.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[4.0f32, 9.0, 0.25, 0.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// ops::sqrt(&Tensor::new(&x, &[4])?, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![2.0, 3.0, 0.5, 0.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn sqrt<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "Sqrt",
        Aclnn::aclnnSqrtGetWorkspaceSize,
        Aclnn::aclnnSqrt,
        self_,
        out,
    )
}

/// `out = 1 / sqrt(self)` (`aclnnRsqrt`, `torch.rsqrt`).
///
/// `self`: the dtypes of [`sqrt`]; `out` must be f32, f16, bf16 or f64 (an
/// integer `self` is converted to `out`'s dtype first).
pub fn rsqrt<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "Rsqrt",
        Aclnn::aclnnRsqrtGetWorkspaceSize,
        Aclnn::aclnnRsqrt,
        self_,
        out,
    )
}

/// `out = exp(self)` (`aclnnExp`, `torch.exp`).
///
/// `self`: f32, f16, bf16, f64, and of the integers only i64 and bool
/// (computed in f32). Unlike PyTorch, CANN refuses i32, i16, i8 and u8
/// inputs: cast them first ([`cast`](crate::ops::cast)).
pub fn exp<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "Exp",
        Aclnn::aclnnExpGetWorkspaceSize,
        Aclnn::aclnnExp,
        self_,
        out,
    )
}

/// `out = ln(self)` (`aclnnLog`, `torch.log`); `ln(0) = -inf`, negative
/// inputs give NaN.
///
/// `self`: f32, f16, bf16, f64 and the integers i8, i16, i32, i64, u8,
/// bool; `out`: f32, f16, bf16 or f64 (any of them: an integer or a float
/// casts to every float dtype).
pub fn log<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "Log",
        Aclnn::aclnnLogGetWorkspaceSize,
        Aclnn::aclnnLog,
        self_,
        out,
    )
}

/// `out = -self` (`aclnnNeg`, `torch.neg`), computed in `self`'s dtype.
///
/// `self`: f32, f16, bf16, f64, i8, i32, i64. Unlike PyTorch, CANN refuses
/// i16 and u8 (and bool, as PyTorch does).
pub fn neg<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "Neg",
        Aclnn::aclnnNegGetWorkspaceSize,
        Aclnn::aclnnNeg,
        self_,
        out,
    )
}

/// `out = isfinite(self)` (`aclnnIsFinite`, `torch.isfinite`): true where an
/// element is neither infinite nor NaN; `out` is a bool tensor of `self`'s
/// shape.
///
/// `self`: f32, f16, bf16, f64, i8, i16, i32, i64, u8, bool; integers and
/// bool are always finite (CANN fills `out` with true, as PyTorch's result).
/// `out` must be bool; write it through a byte buffer with
/// [`TensorMut::with_dtype`] and [`DType::Bool`](crate::ops::DType::Bool).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, f32::INFINITY, f32::NAN, -0.0])?;
/// let mut finite = DeviceBuffer::<u8>::zeroed(&ctx, 4)?;
/// let out = TensorMut::with_dtype(&mut finite, &[4], DType::Bool)?;
/// ops::isfinite(&Tensor::new(&x, &[4])?, out)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(finite.to_vec()?, vec![1, 0, 0, 1]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn isfinite<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    unary(
        "IsFinite",
        Aclnn::aclnnIsFiniteGetWorkspaceSize,
        Aclnn::aclnnIsFinite,
        self_,
        out,
    )
}
