//! The batched matrix product (the ops-nn library).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{CubeMath, Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// `out[b] = self[b] @ mat2[b]` (`aclnnBatchMatMul`, PyTorch's `torch.bmm`):
/// `self` `[B1, M, K]`, `mat2` `[B2, K, N]`, `out` `[max(B1, B2), M, N]`,
/// all exactly 3-D. Unlike `torch.bmm`, a batch dim of 1 on either side is
/// broadcast (B1 = B2, or one of them 1; ops-nn v8.5.0
/// `matmul/batch_mat_mul_v3/op_host/op_api/aclnn_batch_matmul.cpp:222-229`);
/// for general broadcasting use [`matmul`](crate::ops::matmul). Each of the
/// three is f32, f16 or bf16, and mixed dtypes are promoted (CANN's cube
/// table, `matmul/common/op_host/op_api/matmul_util.cpp:2215-2225`);
/// `math` may let a card compute f32 as HF32 or f16 (the mock always
/// accumulates in f32).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// // two 1x2 rows times one shared 2x1 column (mat2's batch of 1 broadcasts)
/// let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let b = DeviceBuffer::from_host(&ctx, &[10.0f32, 1.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let (at, bt) = (Tensor::new(&a, &[2, 1, 2])?, Tensor::new(&b, &[1, 2, 1])?);
/// ops::batch_matmul(&at, &bt, TensorMut::new(&mut y, &[2, 1, 1])?, CubeMath::KeepDtype)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![12.0, 34.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn batch_matmul<'a>(
    self_: &Tensor<'a>,
    mat2: &Tensor<'a>,
    out: TensorMut<'a>,
    math: CubeMath,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("BatchMatMul", self_.storage.ctx)?;
    let (a, b, o) = (
        p.input("self", self_)?,
        p.input("mat2", mat2)?,
        p.output("out", out)?,
    );
    let c = math.raw();
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnBatchMatMul, |l, ws, ex| unsafe {
        l.aclnnBatchMatMulGetWorkspaceSize(a, b, o, c, ws, ex)
    })
}
