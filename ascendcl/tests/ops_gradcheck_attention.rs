//! The attention batch's backward against central finite differences of
//! its own forward (the method of `ops_gradcheck.rs`): for a random
//! direction `v` and output weights `w`, `(L(x + h·v) − L(x − h·v)) / 2h`
//! with `L = Σ w·attention` must equal `Σ v·grad(x, w)` within
//! `2e-3·(1 + |Σ v·grad|)` (f32, `h = 1e-2`), for query, key and value of a
//! causal, grouped-query (2 query heads, 1 key/value head) BNSD attention. A
//! negated gradient is shown to fail the same check, so the check can fail.

mod common;

use ascendcl::ops::{
    self, AttentionLayout, AttentionSaved, AttentionStats, FlashAttention, Tensor, TensorMut,
};
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

const Q_SHAPE: [usize; 4] = [1, 2, 3, 4];
const KV_SHAPE: [usize; 4] = [1, 1, 3, 4];
const STAT: [usize; 4] = [1, 2, 3, 8];
const NQ: usize = 24;
const NKV: usize = 12;
/// CANN's mask: 1 = masked (j > i, causal).
const CAUSAL: [u8; 9] = [0, 1, 1, 0, 0, 1, 0, 0, 0];

struct Rig {
    ctx: Context,
    stream: Stream,
    attrs: FlashAttention,
}

impl Rig {
    fn run(&self, p: ops::Prepared<'_>) -> ascendcl::Result<()> {
        p.launch(&self.stream, ops::Workspace::none())?.wait()
    }

    /// Attention of (q, k, v): out, softmax_max, softmax_sum.
    fn forward(&self, q: &[f32], k: &[f32], v: &[f32]) -> ascendcl::Result<[Vec<f32>; 3]> {
        let up = |d: &[f32]| DeviceBuffer::from_host(&self.ctx, d);
        let (qb, kb, vb) = (up(q)?, up(k)?, up(v)?);
        let mb = DeviceBuffer::from_host(&self.ctx, &CAUSAL)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&self.ctx, NQ)?;
        let mut mx = DeviceBuffer::<f32>::zeroed(&self.ctx, 48)?;
        let mut sm = DeviceBuffer::<f32>::zeroed(&self.ctx, 48)?;
        self.run(ops::flash_attention_score(
            &Tensor::new(&qb, &Q_SHAPE)?,
            &Tensor::new(&kb, &KV_SHAPE)?,
            &Tensor::new(&vb, &KV_SHAPE)?,
            Some(&Tensor::new(&mb, &[3, 3])?),
            &self.attrs,
            AttentionStats {
                softmax_max: TensorMut::new(&mut mx, &STAT)?,
                softmax_sum: TensorMut::new(&mut sm, &STAT)?,
            },
            TensorMut::new(&mut out, &Q_SHAPE)?,
        )?)?;
        Ok([out.to_vec()?, mx.to_vec()?, sm.to_vec()?])
    }

    /// dq, dk, dv for output weights g.
    fn backward(
        &self,
        q: &[f32],
        k: &[f32],
        v: &[f32],
        g: &[f32],
    ) -> ascendcl::Result<[Vec<f32>; 3]> {
        let [out, mx, sm] = self.forward(q, k, v)?;
        let up = |d: &[f32]| DeviceBuffer::from_host(&self.ctx, d);
        let (qb, kb, vb, gb, ob, mxb, smb) = (
            up(q)?,
            up(k)?,
            up(v)?,
            up(g)?,
            up(&out)?,
            up(&mx)?,
            up(&sm)?,
        );
        let mb = DeviceBuffer::from_host(&self.ctx, &CAUSAL)?;
        let mut dq = DeviceBuffer::<f32>::zeroed(&self.ctx, NQ)?;
        let mut dk = DeviceBuffer::<f32>::zeroed(&self.ctx, NKV)?;
        let mut dv = DeviceBuffer::<f32>::zeroed(&self.ctx, NKV)?;
        let (mxt, smt, ot) = (
            Tensor::new(&mxb, &STAT)?,
            Tensor::new(&smb, &STAT)?,
            Tensor::new(&ob, &Q_SHAPE)?,
        );
        self.run(ops::flash_attention_score_grad(
            &Tensor::new(&qb, &Q_SHAPE)?,
            &Tensor::new(&kb, &KV_SHAPE)?,
            &Tensor::new(&vb, &KV_SHAPE)?,
            &Tensor::new(&gb, &Q_SHAPE)?,
            Some(&Tensor::new(&mb, &[3, 3])?),
            AttentionSaved {
                softmax_max: &mxt,
                softmax_sum: &smt,
                out: &ot,
            },
            &self.attrs,
            TensorMut::new(&mut dq, &Q_SHAPE)?,
            TensorMut::new(&mut dk, &KV_SHAPE)?,
            TensorMut::new(&mut dv, &KV_SHAPE)?,
        )?)?;
        Ok([dq.to_vec()?, dk.to_vec()?, dv.to_vec()?])
    }
}

#[test]
fn flash_attention_grad_matches_finite_differences_for_query_key_and_value_and_a_negated_gradient_does_not()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let r = Rig {
            ctx,
            stream,
            attrs: FlashAttention::new(2, AttentionLayout::Bnsd, 0.5),
        };
        let q: Vec<f32> = values(NQ, 3).iter().map(|v| 1.5 * v).collect();
        let k: Vec<f32> = values(NKV, 5).iter().map(|v| 1.5 * v).collect();
        let v = values(NKV, 7);
        let w = values(NQ, 23);
        let [dq, dk, dv] = r.backward(&q, &k, &v, &w)?;
        let out = |q: &[f32], k: &[f32], v: &[f32]| Ok(r.forward(q, k, v)?[0].clone());
        let checks: [Check<'_>; 3] = [
            ("query", &q, &dq, Box::new(|p: &[f32]| out(p, &k, &v))),
            ("key", &k, &dk, Box::new(|p: &[f32]| out(&q, p, &v))),
            ("value", &v, &dv, Box::new(|p: &[f32]| out(&q, &k, p))),
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
