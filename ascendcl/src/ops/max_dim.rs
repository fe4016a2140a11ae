//! The maximum along one dim with its index (`aclnnMaxDim`, third operator set).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// The maximum of `self_` along `dim` (negative counts from the end) into
/// `out`, and the position of that maximum along `dim` into `indices`
/// (`aclnnMaxDim`, `torch.max(x, dim, keepdim)`).
///
/// On 910B `self_` is f32, f16, bf16, i64 or bool and `out` has its dtype;
/// `indices` is usually i64 (CANN computes int32 indices and casts them to
/// `indices`' dtype, whatever it is). Both have `self_`'s shape without
/// `dim` (kept as 1 with `keep_dim`); a 0-d `self_` takes `dim` 0 or -1.
///
/// **CANN against PyTorch** (hicann/ops-math v8.5.0
/// `math/arg_max_with_value/op_api/aclnn_max_dim.cpp`): i32, i8, u8, i16
/// and f64 inputs are refused (`:38-41`), where PyTorch takes them. An
/// empty `self_` is accepted and writes nothing, even when `dim` itself has
/// size 0 (`:138-142`), which PyTorch refuses. Which index ties and NaN give
/// is the device kernel's (not in the aclnn source); the mock gives torch's
/// CPU answer: the first maximum, and NaN wins.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 7.0, 3.0, -4.0, -5.0, -6.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let mut i = DeviceBuffer::<i64>::zeroed(&ctx, 2)?;
/// let x_t = Tensor::new(&x, &[2, 3])?;
/// ops::max_dim(&x_t, -1, false, TensorMut::new(&mut y, &[2])?, TensorMut::new(&mut i, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!((y.to_vec()?, i.to_vec()?), (vec![7.0, -4.0], vec![1, 0]));
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn max_dim<'a>(
    self_: &Tensor<'a>,
    dim: i64,
    keep_dim: bool,
    out: TensorMut<'a>,
    indices: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("MaxDim", self_.storage.ctx)?;
    let s = p.input("self", self_)?;
    let (out, indices) = (p.output("out", out)?, p.output("indices", indices)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnMaxDim, |l, ws, ex| unsafe {
        l.aclnnMaxDimGetWorkspaceSize(s, dim, keep_dim, out, indices, ws, ex)
    })
}
