//! The model of `train_resnet`: its memory (activations, parameters with
//! their gradients and momentum, batch norms) and the operators of one step
//! on one stream, each a method of [`Tr`].

use ascendcl::alloc::{Block, CachingAllocator};
use ascendcl::ops::{self, CubeMath, GradMask, RunningStats, Tensor, TensorMut, Window};
use ascendcl::prelude::*;

use super::{BN_EPS, BN_MOMENTUM, C, LR, MOMENTUM};

/// An activation: device memory and its NCHW (or 2-D) shape.
#[derive(Debug)]
pub struct Act {
    pub t: Block<f32>,
    pub shape: Vec<usize>,
}

impl Act {
    pub fn view(&self) -> ascendcl::Result<Tensor<'_>> {
        Tensor::new(&self.t, &self.shape)
    }
}

/// A trained tensor with its gradient and momentum buffer.
#[derive(Debug)]
pub struct Param {
    pub value: Block<f32>,
    pub grad: Block<f32>,
    pub mom: Block<f32>,
}

#[derive(Debug)]
pub struct Conv {
    pub w: Param,
    pub shape: [usize; 4],
    pub window: Window,
}

#[derive(Debug)]
pub struct Bn {
    pub gamma: Param,
    pub beta: Param,
    pub mean: Block<f32>,
    pub var: Block<f32>,
    pub channels: usize,
}

/// What the backward of a batch norm needs from its forward.
#[derive(Debug)]
pub struct BnSaved {
    pub input: Act,
    pub save_mean: Block<f32>,
    pub save_invstd: Block<f32>,
}

#[derive(Debug)]
pub struct Net {
    pub convs: Vec<Conv>,
    pub bns: Vec<Bn>,
    pub fc_w: Param,
    pub fc_b: Param,
}

#[derive(Debug)]
pub struct Tr<'a> {
    pub stream: &'a Stream,
    pub alloc: &'a CachingAllocator,
}

impl<'a> Tr<'a> {
    pub fn block(&self, data: &[f32]) -> ascendcl::Result<Block<f32>> {
        let mut b = self.alloc.alloc::<f32>(self.stream, data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    pub fn act(&self, shape: &[usize]) -> ascendcl::Result<Act> {
        let t = self
            .alloc
            .alloc::<f32>(self.stream, shape.iter().product())?;
        Ok(Act {
            t,
            shape: shape.to_vec(),
        })
    }

    pub fn param(&self, data: &[f32]) -> ascendcl::Result<Param> {
        let zeros = vec![0.0; data.len()];
        Ok(Param {
            value: self.block(data)?,
            grad: self.block(&zeros)?,
            mom: self.block(&zeros)?,
        })
    }

    pub fn conv(&self, x: &Act, l: &Conv) -> ascendcl::Result<Act> {
        let [cout, _, k, _] = l.shape;
        let (s, p) = (l.window.stride[0] as usize, l.window.padding[0] as usize);
        let side = (x.shape[2] + 2 * p - k) / s + 1;
        let mut out = self.act(&[x.shape[0], cout, side, side])?;
        let (w, shape) = (Tensor::new(&l.w.value, &l.shape)?, out.shape.clone());
        ops::convolution(
            &x.view()?,
            &w,
            None,
            &l.window,
            1,
            TensorMut::new(&mut out.t, &shape)?,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    pub fn bn(&self, x: Act, l: &mut Bn, training: bool) -> ascendcl::Result<(Act, BnSaved)> {
        let mut out = self.act(&x.shape)?;
        let (mut save_mean, mut save_invstd) =
            (self.act(&[l.channels])?.t, self.act(&[l.channels])?.t);
        let c = l.channels;
        let running = RunningStats {
            mean: TensorMut::new(&mut l.mean, &[c])?,
            var: TensorMut::new(&mut l.var, &[c])?,
        };
        let (gamma, beta) = (
            Tensor::new(&l.gamma.value, &[c])?,
            Tensor::new(&l.beta.value, &[c])?,
        );
        let shape = out.shape.clone();
        ops::batch_norm(
            &x.view()?,
            Some(&gamma),
            Some(&beta),
            Some(running),
            training,
            BN_MOMENTUM,
            BN_EPS,
            TensorMut::new(&mut out.t, &shape)?,
            TensorMut::new(&mut save_mean, &[c])?,
            TensorMut::new(&mut save_invstd, &[c])?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok((
            out,
            BnSaved {
                input: x,
                save_mean,
                save_invstd,
            },
        ))
    }

    pub fn relu(&self, x: &Act) -> ascendcl::Result<Act> {
        let mut out = self.act(&x.shape)?;
        let shape = out.shape.clone();
        ops::relu(&x.view()?, TensorMut::new(&mut out.t, &shape)?)?
            .launch(self.stream, self.alloc)?
            .detach();
        Ok(out)
    }

    pub fn add(&self, a: &Act, b: &Act) -> ascendcl::Result<Act> {
        let mut out = self.act(&a.shape)?;
        let shape = out.shape.clone();
        ops::add(
            &a.view()?,
            &b.view()?,
            1.0f32,
            TensorMut::new(&mut out.t, &shape)?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    pub fn relu_back(&self, g: &Act, out: &Act) -> ascendcl::Result<Act> {
        let mut gi = self.act(&g.shape)?;
        let shape = gi.shape.clone();
        ops::threshold_backward(
            &g.view()?,
            &out.view()?,
            0.0f32,
            TensorMut::new(&mut gi.t, &shape)?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    /// The gradient of the input (when `need_input`), and the weight's into `l.w.grad`.
    pub fn conv_back(
        &self,
        g: &Act,
        x: &Act,
        l: &mut Conv,
        need_input: bool,
    ) -> ascendcl::Result<Option<Act>> {
        let mut gi = if need_input {
            Some(self.act(&x.shape)?)
        } else {
            None
        };
        let shape = x.shape.clone();
        let gi_view = match gi.as_mut() {
            Some(a) => Some(TensorMut::new(&mut a.t, &shape)?),
            None => None,
        };
        let mask = GradMask {
            input: need_input,
            weight: true,
            bias: false,
        };
        let w = Tensor::new(&l.w.value, &l.shape)?;
        ops::convolution_backward(
            &g.view()?,
            &x.view()?,
            &w,
            None,
            &l.window,
            1,
            mask,
            gi_view,
            Some(TensorMut::new(&mut l.w.grad, &l.shape)?),
            None,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    pub fn bn_back(&self, g: &Act, saved: &BnSaved, l: &mut Bn) -> ascendcl::Result<Act> {
        let c = l.channels;
        let mut gi = self.act(&g.shape)?;
        let shape = gi.shape.clone();
        let (mean, invstd) = (
            Tensor::new(&saved.save_mean, &[c])?,
            Tensor::new(&saved.save_invstd, &[c])?,
        );
        let (rm, rv, gamma) = (
            Tensor::new(&l.mean, &[c])?,
            Tensor::new(&l.var, &[c])?,
            Tensor::new(&l.gamma.value, &[c])?,
        );
        ops::batch_norm_backward(
            &g.view()?,
            &saved.input.view()?,
            Some(&gamma),
            Some(&rm),
            Some(&rv),
            Some(&mean),
            Some(&invstd),
            true,
            BN_EPS,
            GradMask::ALL,
            Some(TensorMut::new(&mut gi.t, &shape)?),
            Some(TensorMut::new(&mut l.gamma.grad, &[c])?),
            Some(TensorMut::new(&mut l.beta.grad, &[c])?),
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    /// PyTorch's SGD with momentum (dampening 0): `m = g` on the first step,
    /// else `m = μ·m + g`; then `p -= lr·m`.
    pub fn sgd(&self, p: &mut Param, first: bool) -> ascendcl::Result<()> {
        let n = p.value.len();
        let (s, a) = (self.stream, self.alloc);
        if first {
            ops::inplace_copy(
                TensorMut::new(&mut p.mom, &[n])?,
                &Tensor::new(&p.grad, &[n])?,
            )?
            .launch(s, a)?
            .detach();
        } else {
            ops::inplace_muls(TensorMut::new(&mut p.mom, &[n])?, MOMENTUM)?
                .launch(s, a)?
                .detach();
            ops::inplace_add(
                TensorMut::new(&mut p.mom, &[n])?,
                &Tensor::new(&p.grad, &[n])?,
                1.0f32,
            )?
            .launch(s, a)?
            .detach();
        }
        ops::inplace_add(
            TensorMut::new(&mut p.value, &[n])?,
            &Tensor::new(&p.mom, &[n])?,
            -LR,
        )?
        .launch(s, a)?
        .detach();
        Ok(())
    }
}

/// The loss's constants, uploaded once: class weights (ones, as torch_npu
/// passes them to nll_loss) and dLoss/dLoss = 1.
#[derive(Debug)]
pub struct LossConsts {
    /// `[C]` ones.
    pub ones: Block<f32>,
    /// 1, 0-d.
    pub one: Block<f32>,
}

impl LossConsts {
    /// Uploads the constants.
    pub fn new(tr: &Tr<'_>) -> ascendcl::Result<LossConsts> {
        Ok(LossConsts {
            ones: tr.block(&[1.0; C])?,
            one: tr.block(&[1.0])?,
        })
    }
}
