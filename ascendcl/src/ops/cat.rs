//! Concatenation of a list of tensors (`aclnnCat`, third operator set).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Concatenates `tensors` along `dim` (negative counts from the end) into
/// `out` (`aclnnCat`, `torch.cat`).
///
/// On 910B every tensor and `out` are f32, f16, bf16, f64, u8, i8, i16, i32,
/// i64 or bool; the tensors' dtypes are promoted to one (as
/// `torch.result_type`), which must be castable to `out`'s (a float never
/// into an integer). All tensors have the same number of dims (at most 8)
/// and equal sizes outside `dim`; `out` has the concatenated shape. Any
/// number of tensors is taken (CANN concatenates them 32 at a time).
///
/// **CANN against PyTorch** (hicann/ops-math v8.5.0
/// `conversion/concat_d/op_api/aclnn_cat.cpp`): as `torch.cat`, 1-d tensors
/// of size 0 are skipped whatever the others' shapes (`:267-281`); a list of
/// only those (or an empty list, which `torch.cat` refuses) succeeds and
/// leaves `out` alone, without looking at it (`:290-294`). A 0-d tensor cannot be concatenated (`dim` must be in
/// `[-n, n)`, `:143-152`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let b = DeviceBuffer::from_host(&ctx, &[5.0f32, 6.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
/// let (a_t, b_t) = (Tensor::new(&a, &[2, 2])?, Tensor::new(&b, &[2, 1])?);
/// ops::cat(&[&a_t, &b_t], -1, TensorMut::new(&mut y, &[2, 3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn cat<'a>(tensors: &[&Tensor<'a>], dim: i64, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Cat", out.storage.ctx)?;
    let list = p.input_list("tensors", tensors)?;
    let out = p.output("out", out)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnCat, |l, ws, ex| unsafe {
        l.aclnnCatGetWorkspaceSize(list, dim, out, ws, ex)
    })
}
