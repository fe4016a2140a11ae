//! GELU and its gradient (the ops-nn library), both approximations.
//!
//! CANN has two pairs: `aclnnGelu`/`aclnnGeluBackward`, which are **always
//! the tanh approximation** (ops-nn v8.5.0 `activation/gelu/docs/aclnnGelu.md:18`,
//! kernel `activation/gelu/op_kernel/arch35/gelu_dag.h:28-29`; the gradient
//! kernel's constants in `activation/gelu_grad/op_kernel/arch35/gelu_grad_dag.h:30-33`),
//! so they equal PyTorch's `F.gelu(x, approximate="tanh")`, not its default;
//! and `aclnnGeluV2`/`aclnnGeluBackwardV2`, which take the approximation
//! ([`GeluApproximate`]): [`GeluApproximate::None`] is PyTorch's default erf
//! form. Both gradients take the forward's input, as PyTorch's
//! `gelu_backward` does.

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// Which GELU `aclnnGeluV2` and `aclnnGeluBackwardV2` compute (PyTorch's
/// `approximate` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeluApproximate {
    /// `0.5 x (1 + erf(x / √2))`, PyTorch's default (`approximate="none"`).
    None,
    /// `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))` (`approximate="tanh"`).
    Tanh,
}

impl GeluApproximate {
    /// `aclnnGeluV2`'s integer: 0 none, 1 tanh. CANN reads every value
    /// other than 1 as none (ops-nn v8.5.0
    /// `activation/gelu_v2/op_host/op_api/aclnn_gelu_v2.cpp:29-36`); this
    /// enum only passes the two.
    pub fn code(self) -> i64 {
        match self {
            GeluApproximate::None => 0,
            GeluApproximate::Tanh => 1,
        }
    }

    /// `aclnnGeluBackwardV2`'s string, NUL-terminated.
    fn c_name(self) -> [u8; 5] {
        match self {
            GeluApproximate::None => *b"none\0",
            GeluApproximate::Tanh => *b"tanh\0",
        }
    }
}

/// `out = gelu_tanh(self) = 0.5 self (1 + tanh(√(2/π) (self + 0.044715 self³)))`
/// (`aclnnGelu`). **Unlike PyTorch's `F.gelu(x)` (erf) this is the tanh
/// approximation**, `F.gelu(x, approximate="tanh")` (ops-nn v8.5.0
/// `activation/gelu/docs/aclnnGelu.md:18`); for the erf form use
/// [`gelu_v2`] with [`GeluApproximate::None`]. `self` is f32, f16 or bf16,
/// at most 8 dims; `out` has its dtype and shape.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 10.0, -10.0, 1.0])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// ops::gelu(&Tensor::new(&x, &[4])?, TensorMut::new(&mut y, &[4])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// let y = y.to_vec()?;
/// assert_eq!(&y[..2], &[0.0, 10.0]);
/// assert!(y[2].abs() < 1e-6);
/// assert!((y[3] - 0.841192).abs() < 1e-6); // tanh form; erf would be 0.841345
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn gelu<'a>(self_: &Tensor<'a>, out: TensorMut<'a>) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("Gelu", self_.storage.ctx)?;
    let (s, out) = (p.input("self", self_)?, p.output("out", out)?);
    // SAFETY: live descriptors and valid out-pointers (closure contract).
    p.run(Aclnn::aclnnGelu, |l, ws, ex| unsafe {
        l.aclnnGeluGetWorkspaceSize(s, out, ws, ex)
    })
}

/// The gradient of [`gelu`] (the tanh approximation) given the forward
/// input `self_`: `grad_input = grad_output · d gelu_tanh / d self`
/// (`aclnnGeluBackward`, PyTorch's `gelu_backward(..., approximate="tanh")`;
/// CANN's doc writes the erf derivative, its kernel computes the tanh one:
/// ops-nn `activation/gelu_grad/op_kernel/arch35/gelu_grad_dag.h:30-33`).
/// `grad_output` and `self_` broadcast to `grad_input`'s shape; their
/// promoted dtype must be f32, f16 or bf16, and the result is cast into
/// `grad_input`'s dtype (which CANN does not check, ops-nn v8.5.0
/// `activation/gelu_grad/op_host/op_api/aclnn_gelu_backward.cpp:193`).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[2.0f32])?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 10.0, -10.0])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
/// ops::gelu_backward(&Tensor::new(&g, &[1])?, &Tensor::new(&x, &[3])?, TensorMut::new(&mut dx, &[3])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![1.0, 2.0, 0.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn gelu_backward<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("GeluBackward", grad_output.storage.ctx)?;
    let (g, s, gi) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.output("gradInput", grad_input)?,
    );
    // SAFETY: as in `gelu` (gradInput is const in CANN's prototype).
    p.run(Aclnn::aclnnGeluBackward, |l, ws, ex| unsafe {
        l.aclnnGeluBackwardGetWorkspaceSize(g, s, gi, ws, ex)
    })
}

/// `y = gelu(x)` in the form `approximate` names (`aclnnGeluV2`, PyTorch's
/// `F.gelu(x, approximate=...)`). `x` is f32, f16 or bf16; `y` has its
/// dtype and shape.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, GeluApproximate, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let x = DeviceBuffer::from_host(&ctx, &[1.0f32])?;
/// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
/// ops::gelu_v2(&Tensor::new(&x, &[1])?, GeluApproximate::None, TensorMut::new(&mut y, &[1])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert!((y.to_vec()?[0] - 0.841345).abs() < 1e-6); // 0.5 (1 + erf(1/√2))
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn gelu_v2<'a>(
    x: &Tensor<'a>,
    approximate: GeluApproximate,
    y: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("GeluV2", x.storage.ctx)?;
    let (xd, yd) = (p.input("x", x)?, p.output("y", y)?);
    let code = approximate.code();
    // SAFETY: as in `gelu`.
    p.run(Aclnn::aclnnGeluV2, |l, ws, ex| unsafe {
        l.aclnnGeluV2GetWorkspaceSize(xd, code, yd, ws, ex)
    })
}

/// The gradient of [`gelu_v2`] given the forward input `self_`
/// (`aclnnGeluBackwardV2`, PyTorch's `gelu_backward`). `grad_output` and
/// `self_` broadcast to `grad_input`'s shape; their promoted dtype (f32,
/// f16 or bf16) must be `grad_input`'s.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, GeluApproximate, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 1.0])?;
/// let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 10.0])?;
/// let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let (gt, xt) = (Tensor::new(&g, &[2])?, Tensor::new(&x, &[2])?);
/// ops::gelu_backward_v2(&gt, &xt, GeluApproximate::None, TensorMut::new(&mut dx, &[2])?)?
///     .launch(&stream, Workspace::none())?
///     .wait()?;
/// assert_eq!(dx.to_vec()?, vec![0.5, 1.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn gelu_backward_v2<'a>(
    grad_output: &Tensor<'a>,
    self_: &Tensor<'a>,
    approximate: GeluApproximate,
    grad_input: TensorMut<'a>,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("GeluBackwardV2", grad_output.storage.ctx)?;
    let (g, s, gi) = (
        p.input("gradOutput", grad_output)?,
        p.input("self", self_)?,
        p.output("gradInput", grad_input)?,
    );
    // A copy of our own: CANN's prototype takes a mutable pointer.
    let mut name = approximate.c_name();
    let name_ptr = name.as_mut_ptr().cast::<std::ffi::c_char>();
    // SAFETY: as in `gelu`; `name` is a NUL-terminated string that outlives
    // the call (phase 1 reads it; the executor keeps its own attribute).
    p.run(Aclnn::aclnnGeluBackwardV2, |l, ws, ex| unsafe {
        l.aclnnGeluBackwardV2GetWorkspaceSize(g, s, name_ptr, gi, ws, ex)
    })
}
