//! `embedding_dense_backward` against central finite differences of
//! `embedding` on the mock (the method of `ops_gradcheck.rs`): for a random
//! direction `v` of the weight and output weights `w`,
//! `(L(W + h·v) − L(W − h·v)) / 2h` with `L = Σ w·embedding(W, indices)`
//! must equal `Σ v·backward(w)` within `2e-3·(1 + |Σ v·grad|)` (f32,
//! `h = 1e-2`), with repeated indices so rows accumulate. A negated gradient
//! is shown to fail the same check, so the check can fail.

mod common;

use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

const H: f32 = 1e-2;
const ROWS: usize = 5;
const DIM: usize = 3;
/// 7 lookups with repeats; row 3 is never looked up (its gradient is 0).
const INDICES: [i64; 7] = [0, 4, 1, 4, 2, 0, 4];

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

fn lookup(ctx: &Context, stream: &Stream, weight: &[f32]) -> ascendcl::Result<Vec<f32>> {
    let (wb, ib) = (
        DeviceBuffer::from_host(ctx, weight)?,
        DeviceBuffer::from_host(ctx, &INDICES)?,
    );
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, INDICES.len() * DIM)?;
    ops::embedding(
        &Tensor::new(&wb, &[ROWS, DIM])?,
        &Tensor::new(&ib, &[INDICES.len()])?,
        TensorMut::new(&mut y, &[INDICES.len(), DIM])?,
    )?
    .launch(stream, Workspace::none())?
    .wait()?;
    y.to_vec()
}

#[test]
fn embedding_dense_backward_matches_finite_differences_and_a_negated_gradient_does_not() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let weight = values(ROWS * DIM, 3);
        let w = values(INDICES.len() * DIM, 23);
        let v = values(ROWS * DIM, 11);
        let (gb, ib) = (
            DeviceBuffer::from_host(&ctx, &w)?,
            DeviceBuffer::from_host(&ctx, &INDICES)?,
        );
        let mut dw = DeviceBuffer::<f32>::zeroed(&ctx, ROWS * DIM)?;
        ops::embedding_dense_backward(
            &Tensor::new(&gb, &[INDICES.len(), DIM])?,
            &Tensor::new(&ib, &[INDICES.len()])?,
            ROWS as u64,
            None,
            false,
            TensorMut::new(&mut dw, &[ROWS, DIM])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        let grad = dw.to_vec()?;
        assert!(
            grad[3 * DIM..4 * DIM].iter().all(|g| *g == 0.0),
            "a row never looked up has no gradient"
        );
        let shifted =
            |by: f32| -> Vec<f32> { weight.iter().zip(&v).map(|(a, d)| a + by * d).collect() };
        let numeric = (dot(&lookup(&ctx, &stream, &shifted(H))?, &w)
            - dot(&lookup(&ctx, &stream, &shifted(-H))?, &w))
            / (2.0 * f64::from(H));
        let agrees = |g: &[f32]| {
            let analytic = dot(g, &v);
            (
                analytic,
                (numeric - analytic).abs() <= 2e-3 * (1.0 + analytic.abs()),
            )
        };
        let (analytic, ok) = agrees(&grad);
        assert!(
            ok,
            "finite differences give {numeric}, the backward {analytic}"
        );
        let flipped: Vec<f32> = grad.iter().map(|g| -g).collect();
        assert!(!agrees(&flipped).1, "a negated gradient passed the check");
        Ok(())
    });
}
