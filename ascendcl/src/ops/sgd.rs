//! Stochastic gradient descent (`torch.optim.SGD`'s step) composed from the
//! element-wise operators: CANN 8.5.0 has no fused SGD operator in the
//! aclnn API this crate declares, so one step is one to five launches of
//! [`add`](crate::ops::add), [`sub`](crate::ops::sub), [`muls`](crate::ops::muls),
//! [`inplace_add`](crate::ops::inplace_add), [`inplace_muls`](crate::ops::inplace_muls)
//! and [`inplace_copy`](crate::ops::inplace_copy), queued in order on one stream.

use crate::error::{Error, Result};
use crate::ops::{self, Prepared, Tensor, TensorMut, Workspace};
use crate::stream::Stream;

/// The hyper-parameters of [`sgd_step`], as `torch.optim.SGD` names them;
/// [`Default`] is PyTorch's (lr 1e-3, everything else 0 or off). The
/// operators take them as f32 scalars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sgd {
    /// The learning rate (at least 0).
    pub lr: f32,
    /// The momentum factor μ (at least 0; 0 is plain SGD, no buffer).
    pub momentum: f32,
    /// The dampening τ of the gradient added to the momentum buffer after
    /// the first step.
    pub dampening: f32,
    /// The L2 penalty λ (at least 0): `λ·param` is added to the gradient.
    pub weight_decay: f32,
    /// Nesterov momentum (needs a momentum above 0 and dampening 0).
    pub nesterov: bool,
    /// Ascend the objective (the gradient is negated).
    pub maximize: bool,
}

impl Default for Sgd {
    fn default() -> Self {
        Sgd {
            lr: 1e-3,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        }
    }
}

impl Sgd {
    /// Whether [`sgd_step`] needs a scratch tensor: with weight decay or
    /// Nesterov momentum.
    pub fn needs_scratch(&self) -> bool {
        self.weight_decay != 0.0 || self.nesterov
    }

    /// The checks of `torch.optim.SGD`'s constructor (lr, momentum and
    /// weight decay not negative; Nesterov needs momentum and no
    /// dampening), and finite values.
    fn check(&self) -> Result<()> {
        let values = [
            ("lr", self.lr),
            ("momentum", self.momentum),
            ("dampening", self.dampening),
            ("weight_decay", self.weight_decay),
        ];
        for (name, value) in values {
            if !value.is_finite() {
                return Err(Error::invalid(format!(
                    "SGD {name} is {value}: pass a finite value"
                )));
            }
        }
        for (name, value) in values {
            if value < 0.0 && name != "dampening" {
                return Err(Error::invalid(format!(
                    "SGD {name} is {value}: it must not be negative"
                )));
            }
        }
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(Error::invalid(format!(
                "Nesterov momentum needs a momentum above 0 and dampening 0, not momentum {} and \
                 dampening {}",
                self.momentum, self.dampening
            )));
        }
        Ok(())
    }
}

/// The momentum buffer of one parameter, and whether a step has written it.
#[derive(Debug)]
pub enum MomentumBuffer<'a> {
    /// No step has written it yet (PyTorch's missing `momentum_buffer`
    /// state): this step sets it to the (decayed) gradient, without
    /// dampening, as PyTorch does. Its contents are not read.
    Empty(TensorMut<'a>),
    /// Written by an earlier step: this step computes `μ·buf + (1 − τ)·g`.
    Filled(TensorMut<'a>),
}

/// Queues one `torch.optim.SGD` step for one parameter on `stream`, in
/// place, with PyTorch's single-tensor algorithm: with `g = ±grad`
/// (negated when maximizing), `g += λ·param` (weight decay); with momentum,
/// `buf = g` on the first step (the buffer is [`MomentumBuffer::Empty`]) or
/// `buf = μ·buf + (1 − τ)·g` later, and then `g = buf`, or `g += μ·buf` with
/// Nesterov; finally `param -= lr·g`. `grad` is never written.
///
/// * `momentum_buffer` is required when `hyper.momentum` is not 0 and left
///   untouched (as is `scratch`) when it is not used;
/// * `scratch` holds `g` when it differs from both `grad` and the buffer
///   (weight decay, Nesterov; [`Sgd::needs_scratch`]). It is the caller's
///   rather than an allocator's, so a training loop keeps one per parameter
///   (or one of the largest shape, viewed smaller) and a step allocates
///   nothing; its contents afterwards are unspecified;
/// * `param`, `grad`, the buffer and `scratch` must have one shape and one
///   dtype: f32 (checked against PyTorch), f16 or bf16 (through the same
///   operators, each rounding to the dtype, unlike a fused kernel computing
///   in f32). f64 and integers are refused up front: the step's `Muls` and
///   `InplaceMuls` launches take neither on the mock (its scalar forms do not
///   emulate DOUBLE), and a refusal half-way would leave the step half
///   applied. The views cannot overlap (the buffer
///   and `scratch` are mutable views, `grad` a shared one of other memory);
/// * every operator's workspace comes from `workspace`.
///
/// The hyper-parameters, shapes and dtypes are checked before anything is
/// queued. An operator failing after the first launch leaves the step half
/// applied (the operators queued before it stay queued): rerun it from a
/// saved copy, as a failed fused step would need too.
///
/// # Launches and runtime calls
///
/// Each operator is one launch, and a launch makes `2 + 2·n` runtime calls
/// for its `n` tensor and scalar arguments (create and destroy each
/// descriptor, phase 1 and phase 2; no event and, with
/// [`Workspace::none`], no allocation). Counted from the mock's journal by
/// `tests/ops_sgd_calls.rs`, per step:
///
/// | configuration | first step | later steps |
/// |---|---|---|
/// | no momentum (maximize or not) | 1 launch, 8 calls | the same |
/// | no momentum, weight decay (maximize or not) | 2 launches, 18 calls | the same |
/// | momentum | 2 launches, 14 calls | 3 launches, 22 calls |
/// | momentum, maximize | 2 launches, 16 calls | 3 launches, 22 calls |
/// | momentum, weight decay | 2 launches, 18 calls | 4 launches, 32 calls |
/// | momentum, weight decay, maximize | 3 launches, 24 calls | 4 launches, 32 calls |
/// | Nesterov | 3 launches, 24 calls | 4 launches, 32 calls |
/// | Nesterov, maximize | 3 launches, 26 calls | 4 launches, 32 calls |
/// | Nesterov, weight decay | 3 launches, 28 calls | 5 launches, 40 calls |
/// | Nesterov, weight decay, maximize | 4 launches, 34 calls | 5 launches, 40 calls |
///
/// Dampening changes nothing here (it is a scalar either way).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::ops::{self, MomentumBuffer, Sgd, Tensor, TensorMut, Workspace};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let mut param = DeviceBuffer::from_host(&ctx, &[1.0f32, -1.0])?;
/// let grad = DeviceBuffer::from_host(&ctx, &[0.5f32, -2.0])?;
/// let mut buf = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
/// let hyper = Sgd { lr: 0.1, momentum: 0.9, ..Sgd::default() };
/// for step in 0..2 {
///     let b = TensorMut::new(&mut buf, &[2])?;
///     let b = if step == 0 { MomentumBuffer::Empty(b) } else { MomentumBuffer::Filled(b) };
///     let p = TensorMut::new(&mut param, &[2])?;
///     ops::sgd_step(&stream, Workspace::none(), p, &Tensor::new(&grad, &[2])?, Some(b), None, &hyper)?;
/// }
/// // buf = g, then 0.9·g + g; param = 1 − 0.1·0.5 − 0.1·0.95 for the first weight
/// let (param, buf) = (param.to_vec()?, buf.to_vec()?);
/// assert!((buf[0] - 0.95).abs() < 1e-6 && (buf[1] + 3.8).abs() < 1e-6);
/// assert!((param[0] - 0.855).abs() < 1e-6 && (param[1] + 0.42).abs() < 1e-6);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn sgd_step<'w>(
    stream: &Stream,
    workspace: impl Into<Workspace<'w>>,
    param: TensorMut<'_>,
    grad: &Tensor<'_>,
    momentum_buffer: Option<MomentumBuffer<'_>>,
    scratch: Option<TensorMut<'_>>,
    hyper: &Sgd,
) -> Result<()> {
    hyper.check()?;
    if !matches!(
        param.dtype(),
        ops::DType::F32 | ops::DType::F16 | ops::DType::BF16
    ) {
        return Err(Error::invalid(format!(
            "SGD steps parameters of f32, f16 or bf16, not {:?}: keep an f32 master copy of \
             the parameter and step that",
            param.dtype()
        )));
    }
    let mut ws = workspace.into();
    let same = |what: &str, shape: Vec<usize>, dtype: ops::DType| -> Result<()> {
        if shape != param.shape() || dtype != param.dtype() {
            return Err(Error::invalid(format!(
                "SGD {what} is {dtype:?} {shape:?} but the parameter {:?} {:?}: give it the \
                 parameter's shape and dtype",
                param.dtype(),
                param.shape()
            )));
        }
        Ok(())
    };
    same("gradient", grad.shape(), grad.dtype())?;
    let momentum = hyper.momentum != 0.0;
    let buffer = match momentum_buffer {
        Some(b) if momentum => {
            let (MomentumBuffer::Empty(t) | MomentumBuffer::Filled(t)) = &b;
            same("momentum buffer", t.shape(), t.dtype())?;
            Some(b)
        }
        None if momentum => {
            return Err(Error::invalid(format!(
                "SGD momentum {} needs a momentum buffer: pass one shaped like the parameter",
                hyper.momentum
            )));
        }
        _ => None,
    };
    let mut scratch = match scratch {
        Some(t) if hyper.needs_scratch() => {
            same("scratch", t.shape(), t.dtype())?;
            Some(t)
        }
        None if hyper.needs_scratch() => {
            return Err(Error::invalid(
                "SGD with weight decay or Nesterov momentum needs a scratch tensor: pass one \
                 shaped like the parameter",
            ));
        }
        _ => None,
    };
    let mut run = |op: Result<Prepared<'_>>| -> Result<()> {
        op?.launch(stream, ws.reborrow())?.detach();
        Ok(())
    };
    let (lr, mu, wd) = (hyper.lr, hyper.momentum, hyper.weight_decay);
    // `sign·grad` is PyTorch's g before weight decay.
    let sign = if hyper.maximize { -1.0f32 } else { 1.0 };
    let Some(buffer) = buffer else {
        let Some(tmp) = scratch.as_mut() else {
            return run(ops::inplace_add(param, grad, -lr * sign));
        };
        let sigma = decayed_gradient(&mut run, tmp, grad, &param, hyper)?;
        return run(ops::inplace_add(param, &tmp.as_tensor(), -lr * sigma));
    };
    let (mut buf, first) = match buffer {
        MomentumBuffer::Empty(t) => (t, true),
        MomentumBuffer::Filled(t) => (t, false),
    };
    // `sigma·scratch` is g after weight decay, when the scratch holds it.
    let mut sigma = 1.0f32;
    if first {
        let p = param.as_tensor();
        match (wd != 0.0, hyper.maximize) {
            (false, false) => run(ops::inplace_copy(buf.reborrow(), grad))?,
            (false, true) => run(ops::muls(grad, -1.0f32, buf.reborrow()))?,
            (true, false) => run(ops::add(grad, &p, wd, buf.reborrow()))?,
            (true, true) => {
                run(ops::muls(grad, -1.0f32, buf.reborrow()))?;
                run(ops::inplace_add(buf.reborrow(), &p, wd))?;
            }
        }
    } else {
        let keep = 1.0 - hyper.dampening;
        match scratch.as_mut().filter(|_| wd != 0.0) {
            None => {
                run(ops::inplace_muls(buf.reborrow(), mu))?;
                run(ops::inplace_add(buf.reborrow(), grad, sign * keep))?;
            }
            Some(tmp) => {
                sigma = decayed_gradient(&mut run, tmp, grad, &param, hyper)?;
                run(ops::inplace_muls(buf.reborrow(), mu))?;
                run(ops::inplace_add(
                    buf.reborrow(),
                    &tmp.as_tensor(),
                    sigma * keep,
                ))?;
            }
        }
    }
    let Some(tmp) = scratch.as_mut().filter(|_| hyper.nesterov) else {
        return run(ops::inplace_add(param, &buf.as_tensor(), -lr));
    };
    let b = buf.as_tensor();
    if first {
        // buf is g: g + μ·buf, as PyTorch computes it
        run(ops::add(&b, &b, mu, tmp.reborrow()))?;
        sigma = 1.0;
    } else if wd != 0.0 {
        run(ops::inplace_add(tmp.reborrow(), &b, sigma * mu))?;
    } else {
        // sign·(sign·grad + μ·buf)
        run(ops::add(grad, &b, sign * mu, tmp.reborrow()))?;
        sigma = sign;
    }
    run(ops::inplace_add(param, &tmp.as_tensor(), -lr * sigma))
}

/// Writes `σ·(sign·grad + λ·param)` into `tmp` in one launch and returns
/// σ: `grad + λ·param` (σ = 1), or `grad − λ·param` (σ = −1) when
/// maximizing, which is exactly the negated `−grad + λ·param` (IEEE
/// rounding is symmetric).
fn decayed_gradient(
    run: &mut impl FnMut(Result<Prepared<'_>>) -> Result<()>,
    tmp: &mut TensorMut<'_>,
    grad: &Tensor<'_>,
    param: &TensorMut<'_>,
    hyper: &Sgd,
) -> Result<f32> {
    let p = param.as_tensor();
    if hyper.maximize {
        run(ops::sub(grad, &p, hyper.weight_decay, tmp.reborrow()))?;
        Ok(-1.0)
    } else {
        run(ops::add(grad, &p, hyper.weight_decay, tmp.reborrow()))?;
        Ok(1.0)
    }
}
