//! The embedding lookup and its dense gradient (the ops-nn library).

use crate::error::{Error, Result};
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out = weight[indices, :]` (`aclnnEmbedding`, PyTorch's
/// `F.embedding(indices, weight)`; note CANN's argument order, weight
/// first). `weight` is `[num_embeddings, dim]` of any of f32, f16, bf16,
/// f64, i64, i32, i16, i8, u8 or bool (copied, not converted); `indices` is
/// int32 or int64 of any shape (at most 7 dims); `out` has `weight`'s dtype
/// and shape `[*indices.shape, dim]` (ops-nn v8.5.0
/// `index/gather_v2/op_host/op_api/aclnn_embedding.cpp:51-56, :96-113`).
///
/// Unlike PyTorch, an index outside `[0, num_embeddings)` is not an error
/// the op reports: on a card the gather reads out of bounds. The mock counts
/// it as misuse and leaves that row of `out` unwritten.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let w = DeviceBuffer::from_host(&ctx, &[0.0f32, 1.0, 10.0, 11.0, 20.0, 21.0])?;
/// let i = DeviceBuffer::from_host(&ctx, &[2i64, 0, 2])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
/// ops::embedding(&Tensor::new(&w, &[3, 2])?, &Tensor::new(&i, &[3])?, TensorMut::new(&mut y, &[3, 2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![20.0, 21.0, 0.0, 1.0, 20.0, 21.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn embedding<'a>(
    weight: &Tensor<'a>,
    indices: &Tensor<'a>,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Embedding", weight.storage.ctx)?;
    let (w, i, o) = (
        p.input("weight", weight)?,
        p.input("indices", indices)?,
        p.output("out", out)?,
    );
    // SAFETY: live descriptors and valid out-pointers (closure contract);
    // `out` is const in CANN's prototype but written.
    p.run(Aclnn::aclnnEmbedding, |l, ws, ex| unsafe {
        l.aclnnEmbeddingGetWorkspaceSize(w, i, o, ws, ex)
    })
}

/// The gradient of [`embedding`] with respect to `weight`
/// (`aclnnEmbeddingDenseBackward`, PyTorch's `embedding_dense_backward`):
/// `out[w, :]` is the sum of the rows of `grad` (flattened to `[rows, D]`)
/// whose index is `w`, each divided by the number of times `w` occurs in
/// `indices` when `scale_grad_by_freq`; rows whose index is `padding_idx`
/// add nothing. `out` is `[num_weights, D]`.
///
/// `grad` is f32, f16 or bf16; `out` is f32, f16 or bf16, not necessarily
/// `grad`'s dtype (CANN sums in f32 and casts the result, ops-nn v8.5.0
/// `index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.cpp:341-345, :398`);
/// `indices` may be any of int64, int32, int16, int8, uint8, bool, f64,
/// f32 or f16 (CANN casts a non-integer one to int32, truncating: `:387-391`;
/// PyTorch takes integer indices only). `padding_idx` `None` is CANN's
/// negative `paddingIdx` (PyTorch's `-1`); `Some(i)` needs `i <= i64::MAX`.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let i = DeviceBuffer::from_host(&ctx, &[2i32, 0, 2])?;
/// let mut dw = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
/// let (gt, it) = (Tensor::new(&g, &[3, 2])?, Tensor::new(&i, &[3])?);
/// ops::embedding_dense_backward(&gt, &it, 3, None, false, TensorMut::new(&mut dw, &[3, 2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dw.to_vec()?, vec![3.0, 4.0, 0.0, 0.0, 6.0, 8.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn embedding_dense_backward<'a>(
    grad: &Tensor<'a>,
    indices: &Tensor<'a>,
    num_weights: u64,
    padding_idx: Option<u64>,
    scale_grad_by_freq: bool,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let padding = match padding_idx {
        // CANN reads paddingIdx as signed: negative means none
        // (docs/aclnnEmbeddingDenseBackward.md:97-98).
        None => u64::MAX,
        Some(i) if i <= i64::MAX as u64 => i,
        Some(i) => {
            return Err(Error::invalid(format!(
                "aclnnEmbeddingDenseBackward: padding_idx {i} is above i64::MAX, which CANN reads \
                 as negative (no padding); pass None for no padding"
            )));
        }
    };
    let mut p = Phase1::new("EmbeddingDenseBackward", grad.storage.ctx)?;
    let (g, i, o) = (
        p.input("grad", grad)?,
        p.input("indices", indices)?,
        p.output("out", out)?,
    );
    // SAFETY: as in `embedding`.
    p.run(Aclnn::aclnnEmbeddingDenseBackward, |l, ws, ex| unsafe {
        l.aclnnEmbeddingDenseBackwardGetWorkspaceSize(
            g,
            i,
            num_weights,
            padding,
            scale_grad_by_freq,
            o,
            ws,
            ex,
        )
    })
}
