//! The layers of `train_resnet`'s captured step: the memory a capture
//! binds (parameters) or owns (activations, in scratch memory), and each
//! layer's operators captured as [`Tr`](super::trainer::Tr) launches them
//! eagerly, with the same arguments.

use ascendcl::alloc::CachingAllocator;
use ascendcl::graph::{Bound, Capture, Views};
use ascendcl::ops::{self, CubeMath, GradMask, Prepared, RunningStats, Window};
use ascendcl::prelude::*;

use super::trainer::{Bn, Conv, Net, Param};
use super::{BN_EPS, BN_MOMENTUM, LR, MOMENTUM};

/// An activation of the captured step: scratch memory and its shape.
#[derive(Clone)]
pub(super) struct GAct {
    pub(super) b: Bound<f32>,
    pub(super) shape: Vec<usize>,
}

#[derive(Clone, Copy)]
pub(super) struct GParam {
    pub(super) value: Bound<f32>,
    pub(super) grad: Bound<f32>,
    pub(super) mom: Bound<f32>,
    pub(super) len: usize,
}

pub(super) struct GConv {
    pub(super) w: GParam,
    pub(super) shape: [usize; 4],
    pub(super) window: Window,
}

pub(super) struct GBn {
    pub(super) gamma: GParam,
    pub(super) beta: GParam,
    pub(super) mean: Bound<f32>,
    pub(super) var: Bound<f32>,
    pub(super) channels: usize,
}

pub(super) struct GBnSaved {
    pub(super) input: GAct,
    pub(super) save_mean: Bound<f32>,
    pub(super) save_invstd: Bound<f32>,
}

pub(super) type Build<'f> = &'f dyn for<'v> Fn(&'v Views<'v>) -> ascendcl::Result<Prepared<'v>>;

/// Captures operators, with scratch memory from one allocator.
pub(super) struct GTr<'c, 'g> {
    pub(super) cap: &'c mut Capture<'g>,
    pub(super) alloc: &'g CachingAllocator,
}

pub(super) fn bind_param<'g>(cap: &mut Capture<'g>, p: &'g mut Param) -> ascendcl::Result<GParam> {
    Ok(GParam {
        len: p.value.len(),
        value: cap.bind(&mut p.value)?,
        grad: cap.bind(&mut p.grad)?,
        mom: cap.bind(&mut p.mom)?,
    })
}

impl GTr<'_, '_> {
    pub(super) fn op(&mut self, build: Build<'_>) -> ascendcl::Result<()> {
        self.cap.launch(build, self.alloc)
    }

    pub(super) fn act(&mut self, shape: &[usize]) -> ascendcl::Result<GAct> {
        Ok(GAct {
            b: self.cap.scratch(self.alloc, shape.iter().product())?,
            shape: shape.to_vec(),
        })
    }

    pub(super) fn conv(&mut self, x: &GAct, l: &GConv) -> ascendcl::Result<GAct> {
        let [cout, _, k, _] = l.shape;
        let (s, p) = (l.window.stride[0] as usize, l.window.padding[0] as usize);
        let side = (x.shape[2] + 2 * p - k) / s + 1;
        let out = self.act(&[x.shape[0], cout, side, side])?;
        self.op(&|v| {
            ops::convolution(
                &v.view(x.b, &x.shape)?,
                &v.view(l.w.value, &l.shape)?,
                None,
                &l.window,
                1,
                v.view_mut(out.b, &out.shape)?,
                CubeMath::KeepDtype,
            )
        })?;
        Ok(out)
    }

    pub(super) fn bn(&mut self, x: GAct, l: &GBn) -> ascendcl::Result<(GAct, GBnSaved)> {
        let out = self.act(&x.shape)?;
        let c = l.channels;
        let (save_mean, save_invstd) = (self.act(&[c])?.b, self.act(&[c])?.b);
        self.op(&|v| {
            let running = RunningStats {
                mean: v.view_mut(l.mean, &[c])?,
                var: v.view_mut(l.var, &[c])?,
            };
            ops::batch_norm(
                &v.view(x.b, &x.shape)?,
                Some(&v.view(l.gamma.value, &[c])?),
                Some(&v.view(l.beta.value, &[c])?),
                Some(running),
                true,
                BN_MOMENTUM,
                BN_EPS,
                v.view_mut(out.b, &out.shape)?,
                v.view_mut(save_mean, &[c])?,
                v.view_mut(save_invstd, &[c])?,
            )
        })?;
        let saved = GBnSaved {
            input: x,
            save_mean,
            save_invstd,
        };
        Ok((out, saved))
    }

    pub(super) fn relu(&mut self, x: &GAct) -> ascendcl::Result<GAct> {
        let out = self.act(&x.shape)?;
        self.op(&|v| ops::relu(&v.view(x.b, &x.shape)?, v.view_mut(out.b, &out.shape)?))?;
        Ok(out)
    }

    pub(super) fn add(&mut self, a: &GAct, b: &GAct) -> ascendcl::Result<GAct> {
        let out = self.act(&a.shape)?;
        self.op(&|v| {
            ops::add(
                &v.view(a.b, &a.shape)?,
                &v.view(b.b, &b.shape)?,
                1.0f32,
                v.view_mut(out.b, &out.shape)?,
            )
        })?;
        Ok(out)
    }

    pub(super) fn relu_back(&mut self, g: &GAct, out: &GAct) -> ascendcl::Result<GAct> {
        let gi = self.act(&g.shape)?;
        self.op(&|v| {
            ops::threshold_backward(
                &v.view(g.b, &g.shape)?,
                &v.view(out.b, &out.shape)?,
                0.0f32,
                v.view_mut(gi.b, &gi.shape)?,
            )
        })?;
        Ok(gi)
    }

    pub(super) fn conv_back(
        &mut self,
        g: &GAct,
        x: &GAct,
        l: &GConv,
        need_input: bool,
    ) -> ascendcl::Result<Option<GAct>> {
        let gi = if need_input {
            Some(self.act(&x.shape)?)
        } else {
            None
        };
        let mask = GradMask {
            input: need_input,
            weight: true,
            bias: false,
        };
        self.op(&|v| {
            let gi_view = match &gi {
                Some(a) => Some(v.view_mut(a.b, &x.shape)?),
                None => None,
            };
            ops::convolution_backward(
                &v.view(g.b, &g.shape)?,
                &v.view(x.b, &x.shape)?,
                &v.view(l.w.value, &l.shape)?,
                None,
                &l.window,
                1,
                mask,
                gi_view,
                Some(v.view_mut(l.w.grad, &l.shape)?),
                None,
                CubeMath::KeepDtype,
            )
        })?;
        Ok(gi)
    }

    pub(super) fn bn_back(
        &mut self,
        g: &GAct,
        saved: &GBnSaved,
        l: &GBn,
    ) -> ascendcl::Result<GAct> {
        let c = l.channels;
        let gi = self.act(&g.shape)?;
        self.op(&|v| {
            ops::batch_norm_backward(
                &v.view(g.b, &g.shape)?,
                &v.view(saved.input.b, &saved.input.shape)?,
                Some(&v.view(l.gamma.value, &[c])?),
                Some(&v.view(l.mean, &[c])?),
                Some(&v.view(l.var, &[c])?),
                Some(&v.view(saved.save_mean, &[c])?),
                Some(&v.view(saved.save_invstd, &[c])?),
                true,
                BN_EPS,
                GradMask::ALL,
                Some(v.view_mut(gi.b, &gi.shape)?),
                Some(v.view_mut(l.gamma.grad, &[c])?),
                Some(v.view_mut(l.beta.grad, &[c])?),
            )
        })?;
        Ok(gi)
    }

    /// SGD with momentum after the first step: `m = μ·m + g`, `p -= lr·m`.
    pub(super) fn sgd(&mut self, p: GParam) -> ascendcl::Result<()> {
        let n = p.len;
        self.op(&|v| ops::inplace_muls(v.view_mut(p.mom, &[n])?, MOMENTUM))?;
        self.op(&|v| ops::inplace_add(v.view_mut(p.mom, &[n])?, &v.view(p.grad, &[n])?, 1.0f32))?;
        self.op(&|v| ops::inplace_add(v.view_mut(p.value, &[n])?, &v.view(p.mom, &[n])?, -LR))
    }
}

/// The network's memory, bound to a capture.
pub(super) struct GNet {
    pub(super) convs: Vec<GConv>,
    pub(super) bns: Vec<GBn>,
    pub(super) fc_w: GParam,
    pub(super) fc_b: GParam,
}

pub(super) fn bind_net<'g>(cap: &mut Capture<'g>, net: &'g mut Net) -> ascendcl::Result<GNet> {
    let mut convs = Vec::new();
    for Conv { w, shape, window } in &mut net.convs {
        convs.push(GConv {
            w: bind_param(cap, w)?,
            shape: *shape,
            window: window.clone(),
        });
    }
    let mut bns = Vec::new();
    for Bn {
        gamma,
        beta,
        mean,
        var,
        channels,
    } in &mut net.bns
    {
        bns.push(GBn {
            gamma: bind_param(cap, gamma)?,
            beta: bind_param(cap, beta)?,
            mean: cap.bind(mean)?,
            var: cap.bind(var)?,
            channels: *channels,
        });
    }
    Ok(GNet {
        convs,
        bns,
        fc_w: bind_param(cap, &mut net.fc_w)?,
        fc_b: bind_param(cap, &mut net.fc_b)?,
    })
}
