//! Splitting a tensor into a list of tensors along one dim
//! (`aclnnSplitTensor`, `aclnnSplitWithSize`; third operator set).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Splits `self_` along `dim` into pieces of `split_sections` (the last
/// one shorter when the size does not divide), written into `out` in order
/// (`aclnnSplitTensor`, `torch.split(x, split_sections, dim)`).
///
/// On 910B `self_` and the outputs are f32, f16, bf16, f64, u8, i8, i16,
/// i32, i64 or bool; each piece is cast to its output's dtype. `self_` has
/// 1 to 8 dims; `split_sections` is 0 exactly when `dim`'s size is 0.
///
/// **CANN against PyTorch** (hicann/ops-math v8.5.0
/// `conversion/split_v/op_api/aclnn_split_tensor.cpp`): the outputs are
/// yours, not views of `self_` as in PyTorch: each must have its piece's
/// shape (`:140`). More outputs than pieces is accepted and the extra ones
/// are not written (`:133-137` refuses only fewer); the cast into each
/// output has no dtype rule (a float into an integer output truncates,
/// where `torch.split` returns `self_`'s dtype). An empty `self_` writes
/// nothing (`:245-249`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
/// let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let mut c = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
/// let outs = vec![
///     TensorMut::new(&mut a, &[2])?,
///     TensorMut::new(&mut b, &[2])?,
///     TensorMut::new(&mut c, &[1])?,
/// ];
/// ops::split_tensor(&Tensor::new(&x, &[5])?, 2, 0, outs)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!((a.to_vec()?, b.to_vec()?, c.to_vec()?), (vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0]));
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn split_tensor<'a>(
    self_: &Tensor<'a>,
    split_sections: u64,
    dim: i64,
    out: Vec<TensorMut<'a>>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SplitTensor", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output_list("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnSplitTensor, |l, ws, ex| unsafe {
        l.aclnnSplitTensorGetWorkspaceSize(s, split_sections, dim, out, ws, ex)
    })
}

/// Splits `self_` along `dim` into pieces of the sizes in `split_size`
/// (which sum to `dim`'s size), one per output in `out`
/// (`aclnnSplitWithSize`, `torch.split(x, split_size, dim)` with a list).
///
/// Dtypes and dims as [`split_tensor`]; `out` has exactly one tensor per
/// size, each of its piece's shape, and each piece is cast to its output's
/// dtype without a dtype rule (CANN against PyTorch: the outputs are not
/// views; hicann/ops-math v8.5.0 `aclnn_split_with_size.cpp:96-114`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// let outs = vec![TensorMut::new(&mut a, &[2, 1])?, TensorMut::new(&mut b, &[2, 2])?];
/// ops::split_with_size(&Tensor::new(&x, &[2, 3])?, &[1, 2], 1, outs)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!((a.to_vec()?, b.to_vec()?), (vec![1.0, 4.0], vec![2.0, 3.0, 5.0, 6.0]));
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn split_with_size<'a>(
    self_: &Tensor<'a>,
    split_size: &[i64],
    dim: i64,
    out: Vec<TensorMut<'a>>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("SplitWithSize", self_.storage.ctx)?;
    let s = p.input("self", self_)?;
    let sizes = p.ints(split_size)?;
    let out = p.output_list("out", out)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnSplitWithSize, |l, ws, ex| unsafe {
        l.aclnnSplitWithSizeGetWorkspaceSize(s, sizes, dim, out, ws, ex)
    })
}
