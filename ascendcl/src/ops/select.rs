//! Selecting elements by a condition: `aclnnSWhere` (`torch.where`) and the
//! in-place masked fills (`Tensor.masked_fill_`); third operator set.

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Scalar, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = condition ? self_ : other`, element-wise with broadcasting
/// (`aclnnSWhere`, `torch.where(condition, self_, other)`).
///
/// `condition` is bool or u8 (nonzero is true); `self_`, `other` and `out`
/// are f32, f16, bf16, f64, bool or any 8/16/32/64-bit integer on 910B.
/// `self_`, `other` and `condition` broadcast together to exactly `out`'s
/// shape. Bool tensors are written through byte buffers
/// ([`Tensor::with_dtype`] with [`DType::Bool`](crate::ops::DType::Bool)).
///
/// **CANN against PyTorch** (hicann/ops-math v8.5.0
/// `math/select/op_api/aclnn_s_where.cpp`): the selected value is taken in
/// the promoted dtype of `self_` and `other` and then cast into `out`
/// with no cast rule (`:141`, `:167-176`): a float into an integer `out`
/// truncates, where PyTorch refuses it. PyTorch's `where` also takes a
/// u8 condition only with a deprecation; CANN takes it (`:48-49`). With an
/// empty input nothing is written (`:122-127`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let c = DeviceBuffer::from_host(&ctx, &[1u8, 0, 0, 1])?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let o = DeviceBuffer::from_host(&ctx, &[-1.0f32])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// let cond = Tensor::with_dtype(&c, &[4], DType::Bool)?;
/// ops::s_where(&cond, &Tensor::new(&x, &[4])?, &Tensor::new(&o, &[1])?, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![1.0, -1.0, -1.0, 4.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn s_where<'a>(
    condition: &Tensor<'a>,
    self_: &Tensor<'a>,
    other: &Tensor<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SWhere", self_.storage.ctx)?;
    let c = p.input("condition", condition)?;
    let (s, o) = (p.input("self", self_)?, p.input("other", other)?);
    let out = p.output("out", out)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnSWhere, |l, ws, ex| unsafe {
        l.aclnnSWhereGetWorkspaceSize(c, s, o, out, ws, ex)
    })
}

/// `self_ref[mask] = value` in place, for a scalar `value`
/// (`aclnnInplaceMaskedFillScalar`, `Tensor.masked_fill_(mask, value)`).
///
/// `self_ref` is f32, f16, bf16, i8, i32, i64 or bool; `mask` is bool and
/// broadcasts to exactly `self_ref`'s shape; `value` is converted to
/// `self_ref`'s dtype (an integer `self_ref` takes it truncated, where
/// PyTorch refuses a fractional value for an integer tensor). An empty
/// `self_ref` or `mask` writes nothing (hicann/ops-math v8.5.0
/// `aclnn_masked_fill_scalar.cpp:136-141`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let m = DeviceBuffer::from_host(&ctx, &[0u8, 1])?;
/// let mut x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let mask = Tensor::with_dtype(&m, &[2], DType::Bool)?;
/// ops::inplace_masked_fill_scalar(TensorMut::new(&mut x, &[2, 2])?, &mask, f32::NEG_INFINITY)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(x.to_vec()?, vec![1.0, f32::NEG_INFINITY, 3.0, f32::NEG_INFINITY]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn inplace_masked_fill_scalar<'a>(
    self_ref: TensorMut<'a>,
    mask: &Tensor<'a>,
    value: impl Into<Scalar>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceMaskedFillScalar", self_ref.storage.ctx)?;
    let s = p.in_place("selfRef", self_ref)?;
    let (m, v) = (p.input("mask", mask)?, p.scalar(value.into())?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnInplaceMaskedFillScalar, |l, ws, ex| unsafe {
        l.aclnnInplaceMaskedFillScalarGetWorkspaceSize(s, m, v, ws, ex)
    })
}

/// `self_ref[mask] = value` in place, for a 0-d tensor `value` in device
/// memory (`aclnnInplaceMaskedFillTensor`, `Tensor.masked_fill_` with a
/// 0-d tensor).
///
/// `self_ref` and `value` are f32, f16, bf16, i8, i32, i64 or bool
/// (`value` is cast to `self_ref`'s dtype); `mask` is bool and broadcasts to
/// `self_ref`'s shape (hicann/ops-math v8.5.0
/// `aclnn_masked_fill_tensor.cpp:53-99`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let m = DeviceBuffer::from_host(&ctx, &[1u8, 0, 1])?;
/// let v = DeviceBuffer::from_host(&ctx, &[9.5f32])?;
/// let mut x = DeviceBuffer::from_host(&ctx, &[1i32, 2, 3])?;
/// let mask = Tensor::with_dtype(&m, &[3], DType::Bool)?;
/// ops::inplace_masked_fill_tensor(TensorMut::new(&mut x, &[3])?, &mask, &Tensor::new(&v, &[])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(x.to_vec()?, vec![9, 2, 9]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn inplace_masked_fill_tensor<'a>(
    self_ref: TensorMut<'a>,
    mask: &Tensor<'a>,
    value: &Tensor<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("InplaceMaskedFillTensor", self_ref.storage.ctx)?;
    let s = p.in_place("selfRef", self_ref)?;
    let (m, v) = (p.input("mask", mask)?, p.input("value", value)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnInplaceMaskedFillTensor, |l, ws, ex| unsafe {
        l.aclnnInplaceMaskedFillTensorGetWorkspaceSize(s, m, v, ws, ex)
    })
}
