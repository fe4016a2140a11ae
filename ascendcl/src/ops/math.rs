//! Element-wise, reduction and data operators (the ops-math library).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{DType, Prepared, Scalar, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = self + alpha * other`, broadcast (`aclnnAdd`).
pub fn add<'a>(
    self_: &Tensor<'a>,
    other: &Tensor<'a>,
    alpha: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Add", self_.storage.ctx)?;
    let (s, o, a, out) = (
        p.input("self", self_)?,
        p.input("other", other)?,
        p.scalar(alpha.into())?,
        p.output("out", out)?,
    );
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnAdd, |l, ws, ex| unsafe {
        l.aclnnAddGetWorkspaceSize(s, o, a, out, ws, ex)
    })
}

/// `out = self + alpha * other` for a scalar `other` (`aclnnAdds`).
pub fn adds<'a>(
    self_: &Tensor<'a>,
    other: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Adds", self_.storage.ctx)?;
    let (s, o, a, out) = (
        p.input("self", self_)?,
        p.scalar(other.into())?,
        p.scalar(alpha.into())?,
        p.output("out", out)?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnAdds, |l, ws, ex| unsafe {
        l.aclnnAddsGetWorkspaceSize(s, o, a, out, ws, ex)
    })
}

/// `self_ref += alpha * other`, broadcast (`aclnnInplaceAdd`).
pub fn inplace_add<'a>(
    self_ref: TensorMut<'a>,
    other: &Tensor<'a>,
    alpha: impl Into<Scalar>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceAdd", self_ref.storage.ctx)?;
    let (s, o, a) = (
        p.in_place("selfRef", self_ref)?,
        p.input("other", other)?,
        p.scalar(alpha.into())?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceAdd, |l, ws, ex| unsafe {
        l.aclnnInplaceAddGetWorkspaceSize(s, o, a, ws, ex)
    })
}

/// `out = self * other`, broadcast (`aclnnMul`).
pub fn mul<'a>(self_: &Tensor<'a>, other: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Mul", self_.storage.ctx)?;
    let (s, o, out) = (
        p.input("self", self_)?,
        p.input("other", other)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnMul, |l, ws, ex| unsafe {
        l.aclnnMulGetWorkspaceSize(s, o, out, ws, ex)
    })
}

/// `out = self * other` for a scalar `other` (`aclnnMuls`).
pub fn muls<'a>(
    self_: &Tensor<'a>,
    other: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Muls", self_.storage.ctx)?;
    let (s, o, out) = (
        p.input("self", self_)?,
        p.scalar(other.into())?,
        p.output("out", out)?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnMuls, |l, ws, ex| unsafe {
        l.aclnnMulsGetWorkspaceSize(s, o, out, ws, ex)
    })
}

/// `self_ref *= other` (`aclnnInplaceMuls`).
pub fn inplace_muls<'a>(self_ref: TensorMut<'a>, other: impl Into<Scalar>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceMuls", self_ref.storage.ctx)?;
    let (s, o) = (p.in_place("selfRef", self_ref)?, p.scalar(other.into())?);
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceMuls, |l, ws, ex| unsafe {
        l.aclnnInplaceMulsGetWorkspaceSize(s, o, ws, ex)
    })
}

/// `out = self - alpha * other`, broadcast (`aclnnSub`).
pub fn sub<'a>(
    self_: &Tensor<'a>,
    other: &Tensor<'a>,
    alpha: impl Into<Scalar>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Sub", self_.storage.ctx)?;
    let (s, o, a, out) = (
        p.input("self", self_)?,
        p.input("other", other)?,
        p.scalar(alpha.into())?,
        p.output("out", out)?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnSub, |l, ws, ex| unsafe {
        l.aclnnSubGetWorkspaceSize(s, o, a, out, ws, ex)
    })
}

/// `self_ref -= alpha * other`, `other` broadcast to `self_ref`'s shape
/// (`aclnnInplaceSub`).
pub fn inplace_sub<'a>(
    self_ref: TensorMut<'a>,
    other: &Tensor<'a>,
    alpha: impl Into<Scalar>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceSub", self_ref.storage.ctx)?;
    let (s, o, a) = (
        p.in_place("selfRef", self_ref)?,
        p.input("other", other)?,
        p.scalar(alpha.into())?,
    );
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceSub, |l, ws, ex| unsafe {
        l.aclnnInplaceSubGetWorkspaceSize(s, o, a, ws, ex)
    })
}

/// Sum over `dims` (negative dims count from the end) into `dtype`
/// (`aclnnReduceSum`).
pub fn reduce_sum<'a>(
    self_: &Tensor<'a>,
    dims: &[i64],
    keep_dims: bool,
    dtype: DType,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("ReduceSum", self_.storage.ctx)?;
    let (s, d, out) = (
        p.input("self", self_)?,
        p.ints(dims)?,
        p.output("out", out)?,
    );
    let dt = dtype.raw();
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnReduceSum, |l, ws, ex| unsafe {
        l.aclnnReduceSumGetWorkspaceSize(s, d, keep_dims, dt, out, ws, ex)
    })
}

/// `out = self` converted to `dtype` (`aclnnCast`).
pub fn cast<'a>(self_: &Tensor<'a>, dtype: DType, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Cast", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    let dt = dtype.raw();
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnCast, |l, ws, ex| unsafe {
        l.aclnnCastGetWorkspaceSize(s, dt, out, ws, ex)
    })
}

/// `self_ref = src`, broadcast and converted (`aclnnInplaceCopy`); also makes
/// a non-contiguous view contiguous.
pub fn inplace_copy<'a>(self_ref: TensorMut<'a>, src: &Tensor<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceCopy", self_ref.storage.ctx)?;
    let (s, o) = (p.in_place("selfRef", self_ref)?, p.input("src", src)?);
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceCopy, |l, ws, ex| unsafe {
        l.aclnnInplaceCopyGetWorkspaceSize(s, o, ws, ex)
    })
}

/// `self_ref = 0` (`aclnnInplaceZero`).
pub fn inplace_zero(self_ref: TensorMut<'_>) -> Result<Prepared<'_>> {
    let mut p = Phase1::new("InplaceZero", self_ref.storage.ctx)?;
    let s = p.in_place("selfRef", self_ref)?;
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceZero, |l, ws, ex| unsafe {
        l.aclnnInplaceZeroGetWorkspaceSize(s, ws, ex)
    })
}

/// `self_ref = value` (`aclnnInplaceFillScalar`).
pub fn inplace_fill_scalar(
    self_ref: TensorMut<'_>,
    value: impl Into<Scalar>,
) -> Result<Prepared<'_>> {
    let mut p = Phase1::new("InplaceFillScalar", self_ref.storage.ctx)?;
    let (s, v) = (p.in_place("selfRef", self_ref)?, p.scalar(value.into())?);
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnInplaceFillScalar, |l, ws, ex| unsafe {
        l.aclnnInplaceFillScalarGetWorkspaceSize(s, v, ws, ex)
    })
}

/// Index of the maximum along `dim` (`aclnnArgMax`; `out` int32 or int64).
pub fn argmax<'a>(
    self_: &Tensor<'a>,
    dim: i64,
    keepdim: bool,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("ArgMax", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: as in `add`.
    p.run(Aclnn::aclnnArgMax, |l, ws, ex| unsafe {
        l.aclnnArgMaxGetWorkspaceSize(s, dim, keepdim, out, ws, ex)
    })
}
