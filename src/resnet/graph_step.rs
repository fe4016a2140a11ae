//! `train_resnet --graph`: the training step captured into a graph. The
//! same operators as [`pass::step`](super::pass::step) after the first step (momentum already
//! started), in the same order with the same arguments, so a replay computes
//! what an eager step computes, bit for bit. The parameters are bound to the
//! graph; every intermediate is scratch memory the graph owns; the batch's
//! upload and the loss's download are captured too, so a replay is one
//! `aclmdlRIExecuteAsync`.

use ascendcl::graph::{Bound, Capture, CaptureMode};

pub use crate::captured_step::CapturedStep;
use ascendcl::ops::{self, CubeMath, DType, Reduction, Window};
use ascendcl::prelude::*;

use super::graph_layers::{GAct, GNet, GTr, bind_net};
use super::trainer::{LossConsts, Net, Tr};
use super::{BATCH, C, IMAGE};

/// Captures one training step on `tr.stream` (not a default stream):
/// `net` and `consts` are bound to the graph until it is dropped;
/// intermediates and workspaces come from `tr.alloc` (warm it up with an
/// eager step first, so the capture takes them from its cache).
pub fn capture<'g>(
    tr: &Tr<'g>,
    net: &'g mut Net,
    consts: &'g mut LossConsts,
) -> ascendcl::Result<CapturedStep<'g>> {
    let ctx = tr.stream.context();
    let mut cap = Capture::begin(tr.stream, CaptureMode::Global)?;
    let net = bind_net(&mut cap, net)?;
    let (ones, one) = (cap.bind(&mut consts.ones)?, cap.bind(&mut consts.one)?);
    let pixels: usize = IMAGE.iter().product();
    let x_in = cap.host_input(HostBuffer::<f32>::zeroed(ctx, BATCH * pixels)?);
    let labels_in = cap.host_input(HostBuffer::<i64>::zeroed(ctx, BATCH)?);
    let loss_out = cap.host_output(HostBuffer::<f32>::zeroed(ctx, 1)?);
    let mut g = GTr {
        cap: &mut cap,
        alloc: tr.alloc,
    };
    let x = g.act(&[BATCH, IMAGE[0], IMAGE[1], IMAGE[2]])?;
    let labels = g.cap.scratch::<i64>(tr.alloc, BATCH)?;
    g.cap.upload(&x_in, x.b)?;
    g.cap.upload(&labels_in, labels)?;
    let loss = g.step(&net, x, labels, ones, one)?;
    cap.download(loss, &loss_out)?;
    Ok(CapturedStep::new(cap.end()?, x_in, labels_in, loss_out))
}

impl GTr<'_, '_> {
    /// As `pass::step` (forward in training mode, loss, backward, SGD):
    /// returns the loss, 0-d.
    fn step(
        &mut self,
        net: &GNet,
        x: GAct,
        labels: Bound<i64>,
        ones: Bound<f32>,
        one: Bound<f32>,
    ) -> ascendcl::Result<Bound<f32>> {
        let n = BATCH;
        // Stem: conv, bn, relu, max pool 2x2.
        let c1 = self.conv(&x, &net.convs[0])?;
        let (b1, c1) = self.bn(c1, &net.bns[0])?;
        let r1 = self.relu(&b1)?;
        let side = r1.shape[2] / 2;
        let p1 = self.act(&[n, 8, side, side])?;
        let idx = self.cap.scratch::<i32>(self.alloc, n * 8 * side * side)?;
        self.op(&|v| {
            ops::max_pool2d_with_indices(
                &v.view(r1.b, &r1.shape)?,
                [2, 2],
                &Window::square(2, 0),
                false,
                v.view_mut(p1.b, &p1.shape)?,
                v.view_mut(idx, &p1.shape)?,
            )
        })?;
        // Block A (identity shortcut).
        let a1 = self.conv(&p1, &net.convs[1])?;
        let (ab1, a1) = self.bn(a1, &net.bns[1])?;
        let ar1 = self.relu(&ab1)?;
        let a2 = self.conv(&ar1, &net.convs[2])?;
        let (ab2, a2) = self.bn(a2, &net.bns[2])?;
        let sum = self.add(&ab2, &p1)?;
        let ao = self.relu(&sum)?;
        // Block B (stride 2, projection shortcut).
        let b1c = self.conv(&ao, &net.convs[3])?;
        let (bb1, b1) = self.bn(b1c, &net.bns[3])?;
        let br1 = self.relu(&bb1)?;
        let b2c = self.conv(&br1, &net.convs[4])?;
        let (bb2, b2) = self.bn(b2c, &net.bns[4])?;
        let scc = self.conv(&ao, &net.convs[5])?;
        let (sb, sc) = self.bn(scc, &net.bns[5])?;
        let sum = self.add(&bb2, &sb)?;
        let bo = self.relu(&sum)?;
        // Global average pool, linear.
        let pooled = self.act(&[n, 16, 1, 1])?;
        self.op(&|v| {
            ops::adaptive_avg_pool2d(
                &v.view(bo.b, &bo.shape)?,
                [1, 1],
                v.view_mut(pooled.b, &pooled.shape)?,
            )
        })?;
        let features = GAct {
            b: pooled.b,
            shape: vec![n, 16],
        };
        let logits = self.act(&[n, C])?;
        self.op(&|v| {
            ops::addmm(
                &v.view(net.fc_b.value, &[C])?,
                &v.view(features.b, &features.shape)?,
                &v.view(net.fc_w.value, &[C, 16])?.t()?,
                1.0f32,
                1.0f32,
                v.view_mut(logits.b, &logits.shape)?,
                CubeMath::KeepDtype,
            )
        })?;
        // Loss.
        let logp = self.act(&[n, C])?;
        self.op(&|v| {
            ops::log_softmax(&v.view(logits.b, &[n, C])?, 1, v.view_mut(logp.b, &[n, C])?)
        })?;
        let (loss, total) = (self.act(&[1])?.b, self.act(&[1])?.b);
        self.op(&|v| {
            ops::nll_loss(
                &v.view(logp.b, &[n, C])?,
                &v.view(labels, &[n])?,
                &v.view(ones, &[C])?,
                Reduction::Mean,
                -100,
                v.view_mut(loss, &[])?,
                v.view_mut(total, &[])?,
            )
        })?;
        let g_logp = self.act(&[n, C])?;
        self.op(&|v| {
            ops::nll_loss_backward(
                &v.view(one, &[])?,
                &v.view(logp.b, &[n, C])?,
                &v.view(labels, &[n])?,
                &v.view(ones, &[C])?,
                Reduction::Mean,
                -100,
                &v.view(total, &[])?,
                v.view_mut(g_logp.b, &[n, C])?,
            )
        })?;
        let g_logits = self.act(&[n, C])?;
        self.op(&|v| {
            ops::log_softmax_backward(
                &v.view(g_logp.b, &[n, C])?,
                &v.view(logp.b, &[n, C])?,
                1,
                v.view_mut(g_logits.b, &[n, C])?,
            )
        })?;
        // Linear.
        self.op(&|v| {
            ops::mm(
                &v.view(g_logits.b, &[n, C])?.t()?,
                &v.view(features.b, &features.shape)?,
                v.view_mut(net.fc_w.grad, &[C, 16])?,
                CubeMath::KeepDtype,
            )
        })?;
        self.op(&|v| {
            let gl = v.view(g_logits.b, &[n, C])?;
            ops::reduce_sum(
                &gl,
                &[0],
                false,
                DType::F32,
                v.view_mut(net.fc_b.grad, &[C])?,
            )
        })?;
        let g_feat = self.act(&[n, 16, 1, 1])?;
        self.op(&|v| {
            ops::mm(
                &v.view(g_logits.b, &[n, C])?,
                &v.view(net.fc_w.value, &[C, 16])?,
                v.view_mut(g_feat.b, &[n, 16])?,
                CubeMath::KeepDtype,
            )
        })?;
        let g_bo = self.act(&bo.shape)?;
        self.op(&|v| {
            ops::adaptive_avg_pool2d_backward(
                &v.view(g_feat.b, &g_feat.shape)?,
                &v.view(bo.b, &bo.shape)?,
                v.view_mut(g_bo.b, &g_bo.shape)?,
            )
        })?;
        // Block B.
        let g_bs = self.relu_back(&g_bo, &bo)?;
        let g_b2c = self.bn_back(&g_bs, &b2, &net.bns[4])?;
        let g_br1 = self
            .conv_back(&g_b2c, &br1, &net.convs[4], true)?
            .expect("input gradient");
        let g_bb1 = self.relu_back(&g_br1, &br1)?;
        let g_b1c = self.bn_back(&g_bb1, &b1, &net.bns[3])?;
        let g_main = self
            .conv_back(&g_b1c, &ao, &net.convs[3], true)?
            .expect("input gradient");
        let g_sc = self.bn_back(&g_bs, &sc, &net.bns[5])?;
        let g_short = self
            .conv_back(&g_sc, &ao, &net.convs[5], true)?
            .expect("input gradient");
        let g_ao = self.add(&g_main, &g_short)?;
        // Block A.
        let g_as = self.relu_back(&g_ao, &ao)?;
        let g_a2 = self.bn_back(&g_as, &a2, &net.bns[2])?;
        let g_ar1 = self
            .conv_back(&g_a2, &ar1, &net.convs[2], true)?
            .expect("input gradient");
        let g_ab1 = self.relu_back(&g_ar1, &ar1)?;
        let g_a1 = self.bn_back(&g_ab1, &a1, &net.bns[1])?;
        let g_p1_main = self
            .conv_back(&g_a1, &p1, &net.convs[1], true)?
            .expect("input gradient");
        let g_p1 = self.add(&g_p1_main, &g_as)?;
        // Stem.
        let g_r1 = self.act(&r1.shape)?;
        self.op(&|v| {
            ops::max_pool2d_with_indices_backward(
                &v.view(g_p1.b, &g_p1.shape)?,
                &v.view(r1.b, &r1.shape)?,
                &v.view(idx, &g_p1.shape)?,
                [2, 2],
                &Window::square(2, 0),
                false,
                v.view_mut(g_r1.b, &g_r1.shape)?,
            )
        })?;
        let g_b1 = self.relu_back(&g_r1, &r1)?;
        let g_c1 = self.bn_back(&g_b1, &c1, &net.bns[0])?;
        self.conv_back(&g_c1, &x, &net.convs[0], false)?;
        // SGD on every parameter, in pass::step's order.
        for conv in &net.convs {
            self.sgd(conv.w)?;
        }
        for bn in &net.bns {
            self.sgd(bn.gamma)?;
            self.sgd(bn.beta)?;
        }
        self.sgd(net.fc_w)?;
        self.sgd(net.fc_b)?;
        Ok(loss)
    }
}
