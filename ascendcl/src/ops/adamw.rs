//! The fused AdamW optimizer step (the ops-nn library).

use crate::error::Result;
use crate::ops::phase1::Phase1;
use crate::ops::{Prepared, Tensor, TensorMut};
use ascendcl_sys::Aclnn;

/// The hyper-parameters of [`apply_adam_w_v2`], as `torch.optim.AdamW`
/// names them; [`Default`] is PyTorch's (lr 1e-3, betas (0.9, 0.999), eps
/// 1e-8, weight decay 1e-2, no amsgrad, no maximize). CANN takes them as
/// f32.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamW {
    /// The learning rate.
    pub lr: f32,
    /// The decay of the first moment `m`.
    pub beta1: f32,
    /// The decay of the second moment `v`.
    pub beta2: f32,
    /// The decoupled weight decay: `var *= 1 - lr * weight_decay` first.
    pub weight_decay: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// Use the running maximum of `v` (then `max_grad_norm` is required).
    pub amsgrad: bool,
    /// Ascend the objective (the gradient is negated).
    pub maximize: bool,
}

impl Default for AdamW {
    fn default() -> Self {
        AdamW {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            weight_decay: 1e-2,
            eps: 1e-8,
            amsgrad: false,
            maximize: false,
        }
    }
}

/// One AdamW step in place (`aclnnApplyAdamWV2`, PyTorch's
/// `torch.optim.AdamW` single-tensor step): with `t = step + 1` and
/// `g = ±grad`, `var *= 1 - lr·wd`; `m += (g - m)(1 - β1)`;
/// `v = β2 v + (1 - β2) g²`; with amsgrad `max_grad_norm = max(max_grad_norm, v)`
/// replaces `v` below; `var -= lr / (1 - β1ᵗ) · m / (√v / √(1 - β2ᵗ) + eps)`.
///
/// **`step` holds the number of steps taken so far** (PyTorch's
/// `state["step"]` *before* its increment): the kernel adds 1 and does not
/// write `step` back (ops-nn v8.5.0
/// `optim/apply_adam_w_v2/op_kernel/apply_adam_w_v2_fp.h:96, :114`), so pass
/// 0 for the first step and increment it yourself. It is one f32 or int64
/// element. `var`, `m`, `v`, `max_grad_norm` and `grad` have one shape and
/// are each f32, f16 or bf16 (mixed dtypes are computed in f32; an f32
/// master copy with an f16/bf16 `grad` is the fused case,
/// `optim/apply_adam_w_v2/op_host/op_api/aclnn_apply_adam_w_v2.cpp:121-135`).
/// `max_grad_norm` is required with `amsgrad` (`:48-50`) and, when given
/// without it, left as it is.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, AdamW, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let mut var = DeviceBuffer::from_host(&ctx, &[1.0f32, -1.0])?;
/// let mut m = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let mut v = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let grad = DeviceBuffer::from_host(&ctx, &[0.5f32, -2.0])?;
/// let step = DeviceBuffer::from_host(&ctx, &[0.0f32])?; // no step taken yet
/// let hyper = AdamW { lr: 0.1, weight_decay: 0.0, ..AdamW::default() };
/// ops::apply_adam_w_v2(
///     TensorMut::new(&mut var, &[2])?,
///     TensorMut::new(&mut m, &[2])?,
///     TensorMut::new(&mut v, &[2])?,
///     None,
///     &Tensor::new(&grad, &[2])?,
///     &Tensor::new(&step, &[1])?,
///     hyper,
/// )?
/// .launch(&stream, Workspace::none())?
/// .wait()?;
/// // the first step moves each weight by about lr against its gradient's sign
/// let var = var.to_vec()?;
/// assert!((var[0] - 0.9).abs() < 1e-5 && (var[1] + 0.9).abs() < 1e-5);
/// let m = m.to_vec()?; // (1 - β1) g
/// assert!((m[0] - 0.05).abs() < 1e-6 && (m[1] + 0.2).abs() < 1e-6);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn apply_adam_w_v2<'a>(
    var: TensorMut<'a>,
    m: TensorMut<'a>,
    v: TensorMut<'a>,
    max_grad_norm: Option<TensorMut<'a>>,
    grad: &Tensor<'a>,
    step: &Tensor<'a>,
    hyper: AdamW,
) -> Result<Prepared<'a>> {
    let mut p = Phase1::new("ApplyAdamWV2", var.storage.ctx)?;
    let (vr, mr, sr) = (
        p.in_place("varRef", var)?,
        p.in_place("mRef", m)?,
        p.in_place("vRef", v)?,
    );
    let xr = match max_grad_norm {
        Some(t) => p.in_place("maxGradNormOptionalRef", t)?,
        None => std::ptr::null_mut(),
    };
    let (g, st) = (p.input("grad", grad)?, p.input("step", step)?);
    let h = hyper;
    // SAFETY: live descriptors (a null maxGradNormOptionalRef is allowed
    // without amsgrad, and refused by CANN with it) and valid out-pointers
    // (closure contract).
    p.run(Aclnn::aclnnApplyAdamWV2, |l, ws, ex| unsafe {
        l.aclnnApplyAdamWV2GetWorkspaceSize(
            vr,
            mr,
            sr,
            xr,
            g,
            st,
            h.lr,
            h.beta1,
            h.beta2,
            h.weight_decay,
            h.eps,
            h.amsgrad,
            h.maximize,
            ws,
            ex,
        )
    })
}
