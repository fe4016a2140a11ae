//! The activations batch's pointwise backward operators (sigmoid, tanh,
//! SiLU, GELU in both approximations) against central finite differences of their own forward on the
//! mock (the method of `ops_gradcheck.rs`): for a random direction `v` and
//! output weights `w`, `(L(x + h·v) − L(x − h·v)) / 2h` with
//! `L = Σ w·forward` must equal `Σ v·backward` within
//! `2e-3·(1 + |Σ v·grad|)` (f32, `h = 1e-2`). A negated gradient is shown to
//! fail the same check, so the check can fail.

mod common;

use ascendcl::ops::{self, Prepared, Tensor, TensorMut};
use ascendcl::prelude::*;

const H: f32 = 1e-2;
const N: usize = 24;
const SHAPE: [usize; 2] = [4, 6];

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

type Forward = for<'a> fn(&Tensor<'a>, TensorMut<'a>) -> ascendcl::Result<Prepared<'a>>;
type Backward =
    for<'a> fn(&Tensor<'a>, &Tensor<'a>, TensorMut<'a>) -> ascendcl::Result<Prepared<'a>>;

struct Rig {
    ctx: Context,
    stream: Stream,
}

impl Rig {
    fn forward(&self, f: Forward, x: &[f32]) -> ascendcl::Result<Vec<f32>> {
        let xb = DeviceBuffer::from_host(&self.ctx, x)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&self.ctx, x.len())?;
        f(&Tensor::new(&xb, &SHAPE)?, TensorMut::new(&mut y, &SHAPE)?)?
            .launch(&self.stream, ops::Workspace::none())?
            .wait()?;
        y.to_vec()
    }

    /// The backward for output weights w, given the tensor it saves (the
    /// forward's input or output).
    fn backward(&self, b: Backward, w: &[f32], saved: &[f32]) -> ascendcl::Result<Vec<f32>> {
        let (wb, sb) = (
            DeviceBuffer::from_host(&self.ctx, w)?,
            DeviceBuffer::from_host(&self.ctx, saved)?,
        );
        let mut dx = DeviceBuffer::<f32>::zeroed(&self.ctx, w.len())?;
        b(
            &Tensor::new(&wb, &SHAPE)?,
            &Tensor::new(&sb, &SHAPE)?,
            TensorMut::new(&mut dx, &SHAPE)?,
        )?
        .launch(&self.stream, ops::Workspace::none())?
        .wait()?;
        dx.to_vec()
    }
}

/// Numeric and analytic directional derivatives, and whether they agree.
fn agrees(
    r: &Rig,
    f: Forward,
    x: &[f32],
    w: &[f32],
    grad: &[f32],
) -> ascendcl::Result<(f64, f64, bool)> {
    let v = values(x.len(), 11);
    let numeric = (dot(&r.forward(f, &shifted(x, &v, H))?, w)
        - dot(&r.forward(f, &shifted(x, &v, -H))?, w))
        / (2.0 * f64::from(H));
    let analytic = dot(grad, &v);
    Ok((
        numeric,
        analytic,
        (numeric - analytic).abs() <= 2e-3 * (1.0 + analytic.abs()),
    ))
}

#[test]
fn sigmoid_tanh_and_silu_backwards_match_finite_differences_and_a_negated_gradient_does_not() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let r = Rig { ctx, stream };
        let x: Vec<f32> = values(N, 3).iter().map(|v| 3.0 * v).collect();
        let w = values(N, 23);
        // name, forward, backward, whether the backward takes the forward's
        // output (else its input)
        let ops: [(&str, Forward, Backward, bool); 3] = [
            ("sigmoid", ops::sigmoid, ops::sigmoid_backward, true),
            ("tanh", ops::tanh, ops::tanh_backward, true),
            ("silu", ops::silu, ops::silu_backward, false),
        ];
        for (what, f, b, takes_output) in ops {
            let saved = if takes_output {
                r.forward(f, &x)?
            } else {
                x.clone()
            };
            let grad = r.backward(b, &w, &saved)?;
            let (numeric, analytic, ok) = agrees(&r, f, &x, &w, &grad)?;
            assert!(
                ok,
                "{what}: finite differences give {numeric}, the backward {analytic}"
            );
            let flipped: Vec<f32> = grad.iter().map(|g| -g).collect();
            let (_, _, flipped_ok) = agrees(&r, f, &x, &w, &flipped)?;
            assert!(!flipped_ok, "{what}: a negated gradient passed the check");
        }
        Ok(())
    });
}

fn gelu_erf<'a>(x: &Tensor<'a>, y: TensorMut<'a>) -> ascendcl::Result<Prepared<'a>> {
    ops::gelu_v2(x, ops::GeluApproximate::None, y)
}

fn gelu_erf_backward<'a>(
    g: &Tensor<'a>,
    x: &Tensor<'a>,
    dx: TensorMut<'a>,
) -> ascendcl::Result<Prepared<'a>> {
    ops::gelu_backward_v2(g, x, ops::GeluApproximate::None, dx)
}

fn gelu_tanh_v2<'a>(x: &Tensor<'a>, y: TensorMut<'a>) -> ascendcl::Result<Prepared<'a>> {
    ops::gelu_v2(x, ops::GeluApproximate::Tanh, y)
}

fn gelu_tanh_backward_v2<'a>(
    g: &Tensor<'a>,
    x: &Tensor<'a>,
    dx: TensorMut<'a>,
) -> ascendcl::Result<Prepared<'a>> {
    ops::gelu_backward_v2(g, x, ops::GeluApproximate::Tanh, dx)
}

#[test]
fn gelu_backwards_of_both_approximations_match_finite_differences_and_a_negated_gradient_does_not()
{
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let r = Rig { ctx, stream };
        let x: Vec<f32> = values(N, 5).iter().map(|v| 3.0 * v).collect();
        let w = values(N, 29);
        // each backward against the forward of the same approximation; both
        // take the forward's input
        let ops: [(&str, Forward, Backward); 3] = [
            ("gelu (tanh)", ops::gelu, ops::gelu_backward),
            ("gelu_v2 none", gelu_erf, gelu_erf_backward),
            ("gelu_v2 tanh", gelu_tanh_v2, gelu_tanh_backward_v2),
        ];
        for (what, f, b) in ops {
            let grad = r.backward(b, &w, &x)?;
            let (numeric, analytic, ok) = agrees(&r, f, &x, &w, &grad)?;
            assert!(
                ok,
                "{what}: finite differences give {numeric}, the backward {analytic}"
            );
            let flipped: Vec<f32> = grad.iter().map(|g| -g).collect();
            let (_, _, flipped_ok) = agrees(&r, f, &x, &w, &flipped)?;
            assert!(!flipped_ok, "{what}: a negated gradient passed the check");
        }
        // the two approximations are distinct functions: aclnnGeluBackward
        // is the tanh one, not PyTorch's default erf
        let erf_grad = r.backward(gelu_erf_backward, &w, &x)?;
        let tanh_grad = r.backward(ops::gelu_backward, &w, &x)?;
        assert_ne!(
            erf_grad, tanh_grad,
            "the erf and tanh gradients are distinct"
        );
        Ok(())
    });
}
