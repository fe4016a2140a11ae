//! The norm_shape batch's backward operators against central finite
//! differences of their own forward (the method of `ops_gradcheck.rs`): for
//! a random direction `v` and output weights `w`, `(L(x + h·v) − L(x −
//! h·v)) / 2h` with `L = Σ w·forward` must equal `Σ v·backward(x, w)`
//! within `2e-3·(1 + |Σ v·grad|)` (f32, `h = 1e-2`). A negated gradient is
//! shown to fail the same check, so the check can fail.

mod common;

use ascendcl::ops::{self, GradMask, LayerNormStats, Tensor, TensorMut};
use ascendcl::prelude::*;

const H: f32 = 1e-2;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

fn shifted(x: &[f32], v: &[f32], by: f32) -> Vec<f32> {
    x.iter().zip(v).map(|(a, d)| a + by * d).collect()
}

/// Numeric and analytic directional derivatives, and whether they agree.
fn agrees(
    x: &[f32],
    w: &[f32],
    forward: &dyn Fn(&[f32]) -> ascendcl::Result<Vec<f32>>,
    grad: &[f32],
) -> ascendcl::Result<(f64, f64, bool)> {
    let v = values(x.len(), 11);
    let numeric = (dot(&forward(&shifted(x, &v, H))?, w) - dot(&forward(&shifted(x, &v, -H))?, w))
        / (2.0 * f64::from(H));
    let analytic = dot(grad, &v);
    Ok((
        numeric,
        analytic,
        (numeric - analytic).abs() <= 2e-3 * (1.0 + analytic.abs()),
    ))
}

/// A gradient to check: its name, the point, the gradient, the forward as a
/// function of that argument.
type Check<'f> = (
    &'static str,
    &'f [f32],
    &'f [f32],
    Box<dyn Fn(&[f32]) -> ascendcl::Result<Vec<f32>> + 'f>,
);

const SHAPE: [usize; 3] = [2, 3, 8];
const NORM: [i64; 1] = [8];
const N: usize = 48;

struct Rig {
    ctx: Context,
    stream: Stream,
}

impl Rig {
    fn run(&self, p: ops::Prepared<'_>) -> ascendcl::Result<()> {
        p.launch(&self.stream, ops::Workspace::none())?.wait()
    }

    /// LayerNorm of x with weight, bias: out, mean, rstd.
    fn forward(
        &self,
        x: &[f32],
        weight: &[f32],
        bias: &[f32],
    ) -> ascendcl::Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        let (xb, wb, bb) = (
            DeviceBuffer::from_host(&self.ctx, x)?,
            DeviceBuffer::from_host(&self.ctx, weight)?,
            DeviceBuffer::from_host(&self.ctx, bias)?,
        );
        let mut out = DeviceBuffer::<f32>::zeroed(&self.ctx, N)?;
        let (mut mean, mut rstd) = (
            DeviceBuffer::<f32>::zeroed(&self.ctx, 6)?,
            DeviceBuffer::<f32>::zeroed(&self.ctx, 6)?,
        );
        self.run(ops::layer_norm(
            &Tensor::new(&xb, &SHAPE)?,
            &NORM,
            Some(&Tensor::new(&wb, &[8])?),
            Some(&Tensor::new(&bb, &[8])?),
            1e-5,
            TensorMut::new(&mut out, &SHAPE)?,
            Some(LayerNormStats {
                mean: TensorMut::new(&mut mean, &[2, 3, 1])?,
                rstd: TensorMut::new(&mut rstd, &[2, 3, 1])?,
            }),
        )?)?;
        Ok((out.to_vec()?, mean.to_vec()?, rstd.to_vec()?))
    }

    /// The three gradients for output weights g.
    fn backward(
        &self,
        x: &[f32],
        weight: &[f32],
        bias: &[f32],
        g: &[f32],
    ) -> ascendcl::Result<[Vec<f32>; 3]> {
        let (_, mean, rstd) = self.forward(x, weight, bias)?;
        let up = |d: &[f32]| DeviceBuffer::from_host(&self.ctx, d);
        let (gb, xb, mb, rb, wb, bb) = (
            up(g)?,
            up(x)?,
            up(&mean)?,
            up(&rstd)?,
            up(weight)?,
            up(bias)?,
        );
        let mut gi = DeviceBuffer::<f32>::zeroed(&self.ctx, N)?;
        let mut gw = DeviceBuffer::<f32>::zeroed(&self.ctx, 8)?;
        let mut gbias = DeviceBuffer::<f32>::zeroed(&self.ctx, 8)?;
        self.run(ops::layer_norm_backward(
            &Tensor::new(&gb, &SHAPE)?,
            &Tensor::new(&xb, &SHAPE)?,
            &NORM,
            &Tensor::new(&mb, &[2, 3, 1])?,
            &Tensor::new(&rb, &[2, 3, 1])?,
            Some(&Tensor::new(&wb, &[8])?),
            Some(&Tensor::new(&bb, &[8])?),
            GradMask::ALL,
            Some(TensorMut::new(&mut gi, &SHAPE)?),
            Some(TensorMut::new(&mut gw, &[8])?),
            Some(TensorMut::new(&mut gbias, &[8])?),
        )?)?;
        Ok([gi.to_vec()?, gw.to_vec()?, gbias.to_vec()?])
    }
}

fn rig(env: &common::Env) -> ascendcl::Result<Rig> {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx)?;
    Ok(Rig { ctx, stream })
}

#[test]
fn layer_norm_backward_matches_finite_differences_for_input_weight_and_bias_and_a_negated_gradient_does_not()
 {
    common::check(|env| {
        let r = rig(env)?;
        let x: Vec<f32> = values(N, 3).iter().map(|v| 2.0 * v).collect();
        let weight: Vec<f32> = values(8, 5).iter().map(|v| 1.0 + 0.5 * v).collect();
        let bias = values(8, 7);
        let w = values(N, 23);
        let [gi, gw, gb] = r.backward(&x, &weight, &bias, &w)?;
        let out = |x: &[f32], wt: &[f32], b: &[f32]| Ok(r.forward(x, wt, b)?.0);
        let checks: [Check<'_>; 3] = [
            (
                "input",
                &x,
                &gi,
                Box::new(|p: &[f32]| out(p, &weight, &bias)),
            ),
            (
                "weight",
                &weight,
                &gw,
                Box::new(|p: &[f32]| out(&x, p, &bias)),
            ),
            (
                "bias",
                &bias,
                &gb,
                Box::new(|p: &[f32]| out(&x, &weight, p)),
            ),
        ];
        for (what, at, grad, forward) in &checks {
            let (numeric, analytic, ok) = agrees(at, &w, forward.as_ref(), grad)?;
            assert!(
                ok,
                "{what}: finite differences give {numeric}, the backward {analytic}"
            );
            let flipped: Vec<f32> = grad.iter().map(|g| -g).collect();
            let (_, _, flipped_ok) = agrees(at, &w, forward.as_ref(), &flipped)?;
            assert!(!flipped_ok, "{what}: a negated gradient passed the check");
        }
        Ok(())
    });
}
