//! Reductions over a list of dims with `keep_dim` (the third operator set):
//! the mean (`aclnnMean`) and the maximum (`aclnnAmax`).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{DType, Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Mean of `self_` over `dim` (negative dims count from the end; an empty
/// list means every dim), computed in `dtype` and cast into `out`
/// (`aclnnMean`).
///
/// On 910B `self_`, `dtype` and `out` are f32, f16, bf16, f64 or the
/// integers i8/u8/i16/i32/i64 (no bool); `self_` must be castable to `dtype`
/// and `dtype` to `out` (a float never into an integer). `out` has `self_`'s
/// shape without the reduced dims (kept as 1 with `keep_dim`).
///
/// **CANN against PyTorch.** `torch.mean` refuses integer inputs; CANN
/// takes them and truncates an integer result. `dim = []` reduces every dim
/// as `torch.mean(x, dim=[])` does. An empty `self_` fills `out` with NaN
/// (hicann/ops-math v8.5.0 `aclnn_mean.cpp:218-224`), as PyTorch's mean of
/// nothing is NaN.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let x_t = Tensor::new(&x, &[2, 3])?;
/// ops::mean(&x_t, &[-1], true, DType::F32, TensorMut::new(&mut y, &[2, 1])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![2.0, 5.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn mean<'a>(
    self_: &Tensor<'a>,
    dim: &[i64],
    keep_dim: bool,
    dtype: DType,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Mean", self_.storage.ctx)?;
    let (s, d, out) = (p.input("self", self_)?, p.ints(dim)?, p.output("out", out)?);
    let dt = dtype.raw();
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnMean, |l, ws, ex| unsafe {
        l.aclnnMeanGetWorkspaceSize(s, d, keep_dim, dt, out, ws, ex)
    })
}

/// Maximum of `self_` over `dim` (negative dims count from the end; an
/// empty list means every dim) into `out` of `self_`'s dtype (`aclnnAmax`).
///
/// On 910B f32, f16, bf16, f64, u8, i8, i16, i32, i64 and bool. A reduced
/// dim must not have size 0; `out` has `self_`'s shape without the reduced
/// dims (kept as 1 with `keep_dim`). NaN propagates, as in `torch.amax`.
///
/// **CANN against PyTorch.** As `torch.amax`, except that an empty `self_`
/// (reduced over `dim = []`) is accepted and leaves `out` unwritten
/// (hicann/ops-math v8.5.0 `aclnn_amax.cpp:189-193`), where PyTorch refuses
/// it; and `out` must have `self_`'s dtype (no cast, `aclnn_amax.cpp:107`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 7.0, 3.0, -4.0, -5.0, -6.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let x_t = Tensor::new(&x, &[2, 3])?;
/// ops::amax(&x_t, &[1], false, TensorMut::new(&mut y, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![7.0, -4.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn amax<'a>(
    self_: &Tensor<'a>,
    dim: &[i64],
    keep_dim: bool,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Amax", self_.storage.ctx)?;
    let (s, d, out) = (p.input("self", self_)?, p.ints(dim)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnAmax, |l, ws, ex| unsafe {
        l.aclnnAmaxGetWorkspaceSize(s, d, keep_dim, out, ws, ex)
    })
}
