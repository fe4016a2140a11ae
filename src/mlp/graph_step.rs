//! The MLP's training step captured into a graph (`train_mlp --graph`):
//! the same operators as [`Trainer::gradients`](super::trainer::Trainer::gradients)
//! followed by [`Trainer::sgd_step`](super::trainer::Trainer::sgd_step) (a
//! step after the first: momentum already holds a gradient), in the same
//! order with the same arguments, so a replay computes what an eager step
//! computes, bit for bit. The batch's upload and the loss's download are
//! captured too: a replay is one `aclmdlRIExecuteAsync`, and the host writes
//! the next batch into the graph's pinned input between replays.
//!
//! What differs from the eager step is only where memory comes from: the
//! intermediates live in [`StepBuffers`], allocated once before the capture
//! and bound to it, instead of fresh blocks per step.

use ascendcl::alloc::{Block, CachingAllocator};
use ascendcl::graph::{Bound, Capture, CaptureMode, Views};

pub use crate::captured_step::CapturedStep;
use ascendcl::ops::{self, CubeMath, DType, Prepared, Reduction};
use ascendcl::prelude::*;

use super::trainer::{Layer, Model, Trainer};
use super::{BATCH, C, D, H, LR, MOMENTUM};

/// The device memory a captured step uses besides the model: the batch and
/// every intermediate, for `BATCH` rows.
#[derive(Debug)]
pub struct StepBuffers {
    x: Block<f32>,
    labels: Block<i64>,
    pre: Block<f32>,
    hidden: Block<f32>,
    logits: Block<f32>,
    logp: Block<f32>,
    loss: Block<f32>,
    total: Block<f32>,
    g_logp: Block<f32>,
    g_logits: Block<f32>,
    g_hidden: Block<f32>,
    g_pre: Block<f32>,
}

impl StepBuffers {
    /// Allocates every buffer from the trainer's allocator.
    pub fn new(tr: &Trainer<'_>) -> ascendcl::Result<StepBuffers> {
        let f = |len: usize| tr.alloc.alloc::<f32>(tr.stream, len);
        Ok(StepBuffers {
            x: f(BATCH * D)?,
            labels: tr.alloc.alloc::<i64>(tr.stream, BATCH)?,
            pre: f(BATCH * H)?,
            hidden: f(BATCH * H)?,
            logits: f(BATCH * C)?,
            logp: f(BATCH * C)?,
            loss: f(1)?,
            total: f(1)?,
            g_logp: f(BATCH * C)?,
            g_logits: f(BATCH * C)?,
            g_hidden: f(BATCH * H)?,
            g_pre: f(BATCH * H)?,
        })
    }
}

/// One layer's bound parameters, gradients and momentum.
#[derive(Clone, Copy)]
struct BoundLayer {
    w: Bound<f32>,
    b: Bound<f32>,
}

fn bind_layer<'g>(cap: &mut Capture<'g>, layer: &'g mut Layer) -> ascendcl::Result<BoundLayer> {
    Ok(BoundLayer {
        w: cap.bind(&mut layer.w)?,
        b: cap.bind(&mut layer.b)?,
    })
}

/// `out = x @ wᵀ + b` for `BATCH` rows, as `Trainer::linear`.
fn linear<'v>(
    v: &'v Views<'v>,
    x: Bound<f32>,
    l: BoundLayer,
    inputs: usize,
    outputs: usize,
    out: Bound<f32>,
) -> ascendcl::Result<Prepared<'v>> {
    ops::addmm(
        &v.view(l.b, &[outputs])?,
        &v.view(x, &[BATCH, inputs])?,
        &v.view(l.w, &[outputs, inputs])?.t()?,
        1.0f32,
        1.0f32,
        v.view_mut(out, &[BATCH, outputs])?,
        CubeMath::KeepDtype,
    )
}

/// Captures one training step on `tr.stream` (which must not be a
/// default stream). `model` and `bufs` are bound to the graph until it
/// is dropped; workspaces come from `tr.alloc` (warm it up with an eager
/// step first, so the capture takes them from its cache).
pub fn capture<'g>(
    tr: &Trainer<'g>,
    model: &'g mut Model,
    bufs: &'g mut StepBuffers,
) -> ascendcl::Result<CapturedStep<'g>> {
    let ctx = tr.stream.context();
    let mut cap = Capture::begin(tr.stream, CaptureMode::Global)?;
    let Model {
        layers: [l1, l2],
        grads: [g1, g2],
        moms: [m1, m2],
        weight,
        one,
    } = model;
    let (l1, l2) = (bind_layer(&mut cap, l1)?, bind_layer(&mut cap, l2)?);
    let (g1, g2) = (bind_layer(&mut cap, g1)?, bind_layer(&mut cap, g2)?);
    let (m1, m2) = (bind_layer(&mut cap, m1)?, bind_layer(&mut cap, m2)?);
    let (weight, one) = (cap.bind(weight)?, cap.bind(one)?);
    let StepBuffers {
        x,
        labels,
        pre,
        hidden,
        logits,
        logp,
        loss,
        total,
        g_logp,
        g_logits,
        g_hidden,
        g_pre,
    } = bufs;
    let (x, labels) = (cap.bind(x)?, cap.bind(labels)?);
    let (pre, hidden, logits, logp) = (
        cap.bind(pre)?,
        cap.bind(hidden)?,
        cap.bind(logits)?,
        cap.bind(logp)?,
    );
    let (loss, total) = (cap.bind(loss)?, cap.bind(total)?);
    let (g_logp, g_logits, g_hidden, g_pre) = (
        cap.bind(g_logp)?,
        cap.bind(g_logits)?,
        cap.bind(g_hidden)?,
        cap.bind(g_pre)?,
    );
    let x_in = cap.host_input(HostBuffer::<f32>::zeroed(ctx, BATCH * D)?);
    let labels_in = cap.host_input(HostBuffer::<i64>::zeroed(ctx, BATCH)?);
    let loss_out = cap.host_output(HostBuffer::<f32>::zeroed(ctx, 1)?);
    cap.upload(&x_in, x)?;
    cap.upload(&labels_in, labels)?;

    let alloc: &'g CachingAllocator = tr.alloc;
    let mut op = |build: &dyn for<'v> Fn(&'v Views<'v>) -> ascendcl::Result<Prepared<'v>>| {
        cap.launch(build, alloc)
    };
    // Forward, as Trainer::forward.
    op(&|v| linear(v, x, l1, D, H, pre))?;
    op(&|v| ops::relu(&v.view(pre, &[BATCH, H])?, v.view_mut(hidden, &[BATCH, H])?))?;
    op(&|v| linear(v, hidden, l2, H, C, logits))?;
    // Loss and backward, as Trainer::gradients.
    op(&|v| {
        ops::log_softmax(
            &v.view(logits, &[BATCH, C])?,
            1,
            v.view_mut(logp, &[BATCH, C])?,
        )
    })?;
    op(&|v| {
        ops::nll_loss(
            &v.view(logp, &[BATCH, C])?,
            &v.view(labels, &[BATCH])?,
            &v.view(weight, &[C])?,
            Reduction::Mean,
            -100,
            v.view_mut(loss, &[])?,
            v.view_mut(total, &[])?,
        )
    })?;
    op(&|v| {
        ops::nll_loss_backward(
            &v.view(one, &[])?,
            &v.view(logp, &[BATCH, C])?,
            &v.view(labels, &[BATCH])?,
            &v.view(weight, &[C])?,
            Reduction::Mean,
            -100,
            &v.view(total, &[])?,
            v.view_mut(g_logp, &[BATCH, C])?,
        )
    })?;
    op(&|v| {
        ops::log_softmax_backward(
            &v.view(g_logp, &[BATCH, C])?,
            &v.view(logp, &[BATCH, C])?,
            1,
            v.view_mut(g_logits, &[BATCH, C])?,
        )
    })?;
    op(&|v| {
        ops::mm(
            &v.view(g_logits, &[BATCH, C])?.t()?,
            &v.view(hidden, &[BATCH, H])?,
            v.view_mut(g2.w, &[C, H])?,
            CubeMath::KeepDtype,
        )
    })?;
    op(&|v| {
        let gl = v.view(g_logits, &[BATCH, C])?;
        ops::reduce_sum(&gl, &[0], false, DType::F32, v.view_mut(g2.b, &[C])?)
    })?;
    op(&|v| {
        ops::mm(
            &v.view(g_logits, &[BATCH, C])?,
            &v.view(l2.w, &[C, H])?,
            v.view_mut(g_hidden, &[BATCH, H])?,
            CubeMath::KeepDtype,
        )
    })?;
    op(&|v| {
        ops::threshold_backward(
            &v.view(g_hidden, &[BATCH, H])?,
            &v.view(hidden, &[BATCH, H])?,
            0.0f32,
            v.view_mut(g_pre, &[BATCH, H])?,
        )
    })?;
    op(&|v| {
        ops::mm(
            &v.view(g_pre, &[BATCH, H])?.t()?,
            &v.view(x, &[BATCH, D])?,
            v.view_mut(g1.w, &[H, D])?,
            CubeMath::KeepDtype,
        )
    })?;
    op(&|v| {
        let gp = v.view(g_pre, &[BATCH, H])?;
        ops::reduce_sum(&gp, &[0], false, DType::F32, v.view_mut(g1.b, &[H])?)
    })?;
    // SGD with momentum, as Trainer::sgd_step after the first step.
    for (p, g, m, n) in [
        (l1.w, g1.w, m1.w, H * D),
        (l1.b, g1.b, m1.b, H),
        (l2.w, g2.w, m2.w, C * H),
        (l2.b, g2.b, m2.b, C),
    ] {
        op(&|v| ops::inplace_muls(v.view_mut(m, &[n])?, MOMENTUM))?;
        op(&|v| ops::inplace_add(v.view_mut(m, &[n])?, &v.view(g, &[n])?, 1.0f32))?;
        op(&|v| ops::inplace_add(v.view_mut(p, &[n])?, &v.view(m, &[n])?, -LR))?;
    }
    cap.download(loss, &loss_out)?;
    Ok(CapturedStep::new(cap.end()?, x_in, labels_in, loss_out))
}
