//! Dynamic loss scaling with overflow skip, as `torch.amp.GradScaler` does
//! it (its defaults: initial scale 2¹⁶, growth ×2 after 2000 steps in a row
//! without overflow, backoff ×0.5).
//!
//! A step: the backward starts from dLoss/dLoss = the scale ([`seed`]), so
//! every gradient is scaled; [`unscale`] finds any non-finite gradient
//! (`aclnnIsFinite`, counted with a cast and `aclnnReduceSum`: one host
//! read for all of them) and multiplies the gradients by 1/scale (exact:
//! the scale is a power of two); the optimizer step runs only when all were
//! finite; [`update`] backs off or grows the scale. PyTorch's
//! `scaler.step(opt)` + `scaler.update()` in that order, with the same
//! arithmetic.
//!
//! [`seed`]: GradScaler::seed
//! [`unscale`]: GradScaler::unscale
//! [`update`]: GradScaler::update

use ascendcl::alloc::Block;
use ascendcl::ops::{self, DType, Tensor, TensorMut};
use ascendcl::prelude::*;

use super::model::{Gpt, Params};

/// `GradScaler`'s `init_scale`.
pub const INIT_SCALE: f32 = 65536.0;
/// Its `growth_factor`.
pub const GROWTH_FACTOR: f32 = 2.0;
/// Its `backoff_factor`.
pub const BACKOFF_FACTOR: f32 = 0.5;
/// Its `growth_interval`.
pub const GROWTH_INTERVAL: u32 = 2000;

/// The loss scale and its seed on the device.
#[derive(Debug)]
pub struct GradScaler {
    scale: f32,
    growth_tracker: u32,
    seed: Block<f32>,
}

impl GradScaler {
    /// At [`INIT_SCALE`].
    pub fn new(g: &Gpt<'_>) -> ascendcl::Result<GradScaler> {
        Ok(GradScaler {
            scale: INIT_SCALE,
            growth_tracker: 0,
            seed: g.upload(&[INIT_SCALE])?,
        })
    }

    /// The current scale.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// dLoss/dLoss for the scaled backward (`Gpt::loss_seed`), 0-d.
    pub fn seed(&self) -> &Block<f32> {
        &self.seed
    }

    /// After a scaled backward: whether every gradient is finite, and every
    /// gradient divided by the scale.
    pub fn unscale(&self, g: &Gpt<'_>, ps: &mut Params) -> ascendcl::Result<bool> {
        let mut finite_counts = g.act(ps.grads.len())?;
        for (i, grad) in ps.grads.iter().enumerate() {
            let n = [grad.len()];
            let mut finite = g.empty::<u8>(grad.len())?;
            g.run(ops::isfinite(
                &Tensor::new(grad, &n)?,
                TensorMut::with_dtype(&mut finite, &n, DType::Bool)?,
            ))?;
            let mut ones = g.act(grad.len())?;
            g.run(ops::cast(
                &Tensor::with_dtype(&finite, &n, DType::Bool)?,
                DType::F32,
                TensorMut::new(&mut ones, &n)?,
            ))?;
            g.run(ops::reduce_sum(
                &Tensor::new(&ones, &n)?,
                &[0],
                false,
                DType::F32,
                TensorMut::strided(&mut finite_counts, &[], &[], i)?,
            ))?;
        }
        let counts = finite_counts.to_vec()?;
        let all_finite = counts
            .iter()
            .zip(&ps.grads)
            .all(|(&count, grad)| count == grad.len() as f32);
        let inverse = 1.0 / self.scale;
        for grad in &mut ps.grads {
            let n = [grad.len()];
            g.run(ops::inplace_muls(TensorMut::new(grad, &n)?, inverse))?;
        }
        Ok(all_finite)
    }

    /// The scale for the next step: halved after an overflow, doubled after
    /// [`GROWTH_INTERVAL`] finite steps in a row.
    pub fn update(&mut self, all_finite: bool) -> ascendcl::Result<()> {
        if all_finite {
            self.growth_tracker += 1;
            if self.growth_tracker == GROWTH_INTERVAL {
                self.scale *= GROWTH_FACTOR;
                self.growth_tracker = 0;
            }
        } else {
            self.scale *= BACKOFF_FACTOR;
            self.growth_tracker = 0;
        }
        self.seed.copy_from_host(&[self.scale])
    }
}
