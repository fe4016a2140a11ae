//! Materialized permutation of a tensor's dims (the ops-math library).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = self.permute(dims)`, written out contiguously (or into any view
/// `out` is): `out`'s dim `d` is `self`'s dim `dims[d]` (`aclnnPermute`,
/// PyTorch's `x.permute(dims).contiguous()`). `dims` has one entry per dim
/// of `self` (at most 8), each in `[-n, n - 1]`, negative ones counted from
/// the end, none naming a dim twice; `out` has `self`'s dtype (any) and the
/// permuted shape (ops-math v8.5.0 `conversion/transpose/op_api/aclnn_permute.cpp:72-138, :233`).
///
/// Only to materialize: a permuted *view* costs no copy
/// ([`Tensor::transpose`] and strided views), and the op wrappers take
/// strided views directly.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1i32, 2, 3, 4, 5, 6])?; // [2, 3]
/// let mut y = DeviceBuffer::<i32>::zeroed(&ctx, 6)?;
/// ops::permute(&Tensor::new(&x, &[2, 3])?, &[-1, 0], TensorMut::new(&mut y, &[3, 2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![1, 4, 2, 5, 3, 6]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn permute<'a>(self_: &Tensor<'a>, dims: &[i64], out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Permute", self_.storage.ctx)?;
    let (s, o) = (p.input("self", self_)?, p.output("out", out)?);
    let d = p.ints(dims)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnPermute, |l, ws, ex| unsafe {
        l.aclnnPermuteGetWorkspaceSize(s, d, o, ws, ex)
    })
}
