//! Dropout as CANN splits it (third operator set): a random bit mask
//! (`aclnnDropoutGenMask`, `aclnnDropoutGenMaskV2`), applying it
//! (`aclnnDropoutDoMask`) and the gradient (`aclnnDropoutBackward`).
//!
//! **The mask.** One bit per element, bit `i % 8` of byte `i / 8` for
//! element `i` (set: kept), [`dropout_mask_len`] bytes of u8: the element
//! count rounded up to 128 bits (hicann/ops-math v8.5.0
//! `aclnn_dropout_gen_mask.cpp:90-108`). PyTorch keeps a bool per element
//! instead.
//!
//! **What decides what.** CANN's generator is the DSA hardware unit
//! (Philox, seeded by `seed` and positioned by `offset`), which is not in
//! the source: on a card the same `(seed, offset)` gives the same mask, but
//! its bits are the hardware's. The mock generates with Philox4x32-10 keyed
//! by `seed`, element `i` drawing word `offset + i` and kept when
//! `word / 2^32 >= prob`: the same `(seed, offset)` gives the same mask on
//! every run, `offset + k` gives the same stream shifted by `k` elements,
//! and the fraction kept is `1 - prob` within binomial noise. No golden can
//! say which bits a card sets, so the tests check those properties; the
//! do-mask and the backward are checked against PyTorch given a mask.

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{DType, Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Bytes of the dropout bit mask of `elements` elements: rounded up to 128
/// bits, 8 bits a byte (what [`dropout_gen_mask`]'s `out` must hold and
/// [`dropout_do_mask`] reads).
pub fn dropout_mask_len(elements: usize) -> usize {
    elements.div_ceil(128) * 16
}

/// A dropout bit mask for a tensor of `shape`: each element dropped with
/// probability `prob` (`aclnnDropoutGenMask`); `out` is u8 with exactly
/// [`dropout_mask_len`] elements (any shape). `prob` 0 sets every bit, 1
/// none; `prob` must be in `[0, 1]`.
///
/// **The mask.** One bit per element, bit `i % 8` of byte `i / 8` for
/// element `i` (set: kept), the element count rounded up to 128 bits
/// (hicann/ops-math v8.5.0 `aclnn_dropout_gen_mask.cpp:90-108`); PyTorch
/// keeps a bool per element instead.
///
/// **What decides what.** CANN's generator is the DSA hardware unit
/// (Philox, seeded by `seed` and positioned by `offset`), which is not in
/// the source: on a card the same `(seed, offset)` gives the same mask, but
/// its bits are the hardware's. The mock generates with Philox4x32-10 keyed
/// by `seed`, element `i` drawing word `offset + i` and kept when
/// `word / 2^32 >= prob`: the same `(seed, offset)` gives the same mask on
/// every run, `offset + k` gives the same stream shifted by `k` elements,
/// and the fraction kept is `1 - prob` within binomial noise. No golden can
/// say which bits a card sets: the tests check those properties, and the
/// do-mask and backward against PyTorch given a mask.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let n = ops::dropout_mask_len(1000); // 128 bytes: 1024 bits
/// let (mut a, mut b) = (DeviceBuffer::<u8>::zeroed(&ctx, n)?, DeviceBuffer::<u8>::zeroed(&ctx, n)?);
/// for m in [&mut a, &mut b] {
///     ops::dropout_gen_mask(&[10, 100], 0.25, 42, 0, TensorMut::new(m, &[n])?)?
///         .launch(&stream, Workspace::none())?
///         .wait()?;
/// }
/// assert_eq!(a.to_vec()?, b.to_vec()?); // the same seed and offset, the same mask
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn dropout_gen_mask<'a>(
    shape: &[i64],
    prob: f64,
    seed: i64,
    offset: i64,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("DropoutGenMask", out.storage.ctx)?;
    let (sh, out) = (p.ints(shape)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnDropoutGenMask, |l, ws, ex| unsafe {
        l.aclnnDropoutGenMaskGetWorkspaceSize(sh, prob, seed, offset, out, ws, ex)
    })
}

/// As [`dropout_gen_mask`], with `prob` rounded to `prob_dtype` (f16, bf16
/// or f32; another dtype fails in phase 1 unless `prob` is 0 or 1, where no
/// probability is made) before the generator compares with it
/// (`aclnnDropoutGenMaskV2`, hicann/ops-math v8.5.0
/// `aclnn_dropout_gen_mask.cpp:145-165, :340-347`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, DType, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let mut m = DeviceBuffer::<u8>::zeroed(&ctx, 16)?;
/// ops::dropout_gen_mask_v2(&[100], 0.0, 1, 0, DType::F16, TensorMut::new(&mut m, &[16])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(m.to_vec()?, vec![0xFF; 16]); // prob 0 keeps everything
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn dropout_gen_mask_v2<'a>(
    shape: &[i64],
    prob: f64,
    seed: i64,
    offset: i64,
    prob_dtype: DType,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("DropoutGenMaskV2", out.storage.ctx)?;
    let (sh, out) = (p.ints(shape)?, p.output("out", out)?);
    let dt = prob_dtype.raw();
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnDropoutGenMaskV2, |l, ws, ex| unsafe {
        l.aclnnDropoutGenMaskV2GetWorkspaceSize(sh, prob, seed, offset, dt, out, ws, ex)
    })
}

/// `out = self_ * mask / (1 - prob)`: the elements whose mask bit is set,
/// scaled, the others 0 (`aclnnDropoutDoMask`; the training forward of
/// `torch.nn.functional.dropout` given its mask).
///
/// `self_` is f32, f16 or bf16 on 910B and castable to `out` (of
/// `self_`'s shape); `mask` is u8 with at least [`dropout_mask_len`]
/// elements; `prob` in `[0, 1]` (0 copies `self_`, 1 gives zeros).
///
/// **CANN against PyTorch** (hicann/ops-math v8.5.0
/// `aclnn_dropout_do_mask.cpp:150-152`, `drop_out_do_mask.h:225`):
/// `1 - prob` is rounded to `self_`'s dtype, and the kernel multiplies by
/// its f32 reciprocal; PyTorch multiplies by `1 / (1 - prob)` rounded to
/// the input's dtype. For f16/bf16 the two differ by up to an ulp of the
/// scale.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// let mut mask = vec![0u8; 16];
/// mask[0] = 0b0101; // keep elements 0 and 2
/// let m = DeviceBuffer::from_host(&ctx, &mask)?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// ops::dropout_do_mask(&Tensor::new(&x, &[4])?, &Tensor::new(&m, &[16])?, 0.5, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(y.to_vec()?, vec![2.0, 0.0, 6.0, 0.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn dropout_do_mask<'a>(
    self_: &Tensor<'a>,
    mask: &Tensor<'a>,
    prob: f64,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("DropoutDoMask", self_.storage.ctx)?;
    let (s, m) = (p.input("self", self_)?, p.input("mask", mask)?);
    let out = p.output("out", out)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnDropoutDoMask, |l, ws, ex| unsafe {
        l.aclnnDropoutDoMaskGetWorkspaceSize(s, m, prob, out, ws, ex)
    })
}

/// The gradient of dropout: `out = grad_output * mask * scale`
/// (`aclnnDropoutBackward`, `torch.ops.aten.native_dropout_backward`), with
/// `scale = 1 / (1 - p)` of the forward. `scale` is 0 (everything dropped)
/// or at least 1; `mask` has exactly [`dropout_mask_len`] elements (the
/// forward's [`dropout_do_mask`] takes more). The kernel is the do-mask
/// one with `p = 1 - 1 / scale` (hicann/ops-math v8.5.0
/// `aclnn_dropout_backward.cpp:89-92`), so `1 / scale` is rounded to
/// `grad_output`'s dtype, where PyTorch rounds `scale`.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 1.0, 1.0])?;
/// let mut mask = vec![0u8; 16];
/// mask[0] = 0b110;
/// let m = DeviceBuffer::from_host(&ctx, &mask)?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
/// ops::dropout_backward(&Tensor::new(&g, &[3])?, &Tensor::new(&m, &[16])?, 4.0, TensorMut::new(&mut dx, &[3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![0.0, 4.0, 4.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn dropout_backward<'a>(
    grad_output: &Tensor<'a>,
    mask: &Tensor<'a>,
    scale: f64,
    out: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("DropoutBackward", grad_output.storage.ctx)?;
    let (g, m) = (p.input("gradOutput", grad_output)?, p.input("mask", mask)?);
    let out = p.output("out", out)?;
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnDropoutBackward, |l, ws, ex| unsafe {
        l.aclnnDropoutBackwardGetWorkspaceSize(g, m, scale, out, ws, ex)
    })
}
