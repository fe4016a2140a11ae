//! The model of `train_resnet`: parameters, the forward pass (keeping what
//! the backward needs), the backward pass and the SGD step.

use ascendcl::alloc::Block;
use ascendcl::ops::{self, CubeMath, DType, Reduction, Tensor, TensorMut, Window};
use ascendcl::prelude::*;

use super::trainer::{Act, Bn, BnSaved, Conv, LossConsts, Net, Tr};
use super::{BATCH, C, CONVS, Task};

/// The committed PyTorch losses, if present.
#[derive(Debug)]
pub struct Reference;

impl Reference {
    pub fn read() -> Option<Vec<f64>> {
        let path = std::path::Path::new(crate::REFERENCE_DIR).join("train_resnet_losses.txt");
        let text = std::fs::read_to_string(path).ok()?;
        let losses: Vec<f64> = text
            .lines()
            .filter(|l| l.starts_with("step "))
            .filter_map(|l| l.split_whitespace().nth(3)?.parse().ok())
            .collect();
        (!losses.is_empty()).then_some(losses)
    }
}

/// Whether the generator's data and initial parameters equal the PyTorch
/// script's `.npy` files bit for bit.
pub fn generator_matches(task: &Task) -> bool {
    let dir = std::path::Path::new(crate::REFERENCE_DIR).join("train_resnet");
    let names = ["conv1", "convA1", "convA2", "convB1", "convB2", "convS"];
    let mut pairs: Vec<(String, &[f32])> = names
        .iter()
        .zip(&task.convs)
        .map(|(n, w)| (format!("{n}.npy"), w.as_slice()))
        .collect();
    pairs.push(("fc_W.npy".into(), &task.fc_w));
    pairs.push(("fc_b.npy".into(), &task.fc_b));
    pairs.push(("batch0_x.npy".into(), &task.x[..BATCH * 3 * 16 * 16]));
    pairs.iter().all(
        |(name, ours)| match ascendcl::tensor_file::read_npy(dir.join(name)) {
            Ok(t) => {
                let theirs = t.values().to_f64_vec();
                theirs.len() == ours.len()
                    && theirs
                        .iter()
                        .zip(ours.iter())
                        .all(|(a, b)| (*a as f32).to_bits() == b.to_bits())
            }
            Err(_) => false,
        },
    )
}

/// Parameters from the task's initial values; batch norms start at
/// weight 1, bias 0, running mean 0, running variance 1.
pub fn build(tr: &Tr<'_>, task: &Task) -> ascendcl::Result<Net> {
    let mut convs = Vec::new();
    for (&(out, inp, k, stride, padding), w) in CONVS.iter().zip(&task.convs) {
        convs.push(Conv {
            w: tr.param(w)?,
            shape: [out, inp, k, k],
            window: Window::square(stride, padding),
        });
    }
    // bn1, bnA1, bnA2, bnB1, bnB2, bnS: one per convolution.
    let mut bns = Vec::new();
    for &(channels, ..) in &CONVS {
        bns.push(Bn {
            gamma: tr.param(&vec![1.0; channels])?,
            beta: tr.param(&vec![0.0; channels])?,
            mean: tr.block(&vec![0.0; channels])?,
            var: tr.block(&vec![1.0; channels])?,
            channels,
        });
    }
    Ok(Net {
        convs,
        bns,
        fc_w: tr.param(&task.fc_w)?,
        fc_b: tr.param(&task.fc_b)?,
    })
}

/// Everything the forward pass produced.
#[derive(Debug)]
pub struct Forward {
    pub logits: Act,
    pub stem: Act,
    pub features: Act,
    saved: Saved,
}

/// What the backward needs.
#[derive(Debug)]
struct Saved {
    x: Act,
    c1: BnSaved,
    r1: Act,
    idx: Block<i32>,
    a1: BnSaved,
    ar1: Act,
    a2: BnSaved,
    ao: Act,
    b1: BnSaved,
    br1: Act,
    b2: BnSaved,
    sc: BnSaved,
    bo: Act,
}

pub fn forward(tr: &Tr<'_>, net: &mut Net, x: Act, training: bool) -> ascendcl::Result<Forward> {
    let (s, a) = (tr.stream, tr.alloc);
    let n = x.shape[0];
    // Stem: conv, bn, relu, max pool 2x2.
    let c1 = tr.conv(&x, &net.convs[0])?;
    let (b1, c1) = tr.bn(c1, &mut net.bns[0], training)?;
    let r1 = tr.relu(&b1)?;
    let side = r1.shape[2] / 2;
    let mut p1 = tr.act(&[n, 8, side, side])?;
    // int32 indices: the backward on Atlas A2/A3 takes no other.
    let mut idx = a.alloc::<i32>(s, n * 8 * side * side)?;
    let shape = p1.shape.clone();
    ops::max_pool2d_with_indices(
        &r1.view()?,
        [2, 2],
        &Window::square(2, 0),
        false,
        TensorMut::new(&mut p1.t, &shape)?,
        TensorMut::new(&mut idx, &shape)?,
    )?
    .launch(s, a)?
    .detach();
    // Block A (identity shortcut).
    let a1 = tr.conv(&p1, &net.convs[1])?;
    let (ab1, a1) = tr.bn(a1, &mut net.bns[1], training)?;
    let ar1 = tr.relu(&ab1)?;
    let a2 = tr.conv(&ar1, &net.convs[2])?;
    let (ab2, a2) = tr.bn(a2, &mut net.bns[2], training)?;
    let ao = tr.relu(&tr.add(&ab2, &p1)?)?;
    // Block B (stride 2, projection shortcut).
    let b1c = tr.conv(&ao, &net.convs[3])?;
    let (bb1, b1) = tr.bn(b1c, &mut net.bns[3], training)?;
    let br1 = tr.relu(&bb1)?;
    let b2c = tr.conv(&br1, &net.convs[4])?;
    let (bb2, b2) = tr.bn(b2c, &mut net.bns[4], training)?;
    let scc = tr.conv(&ao, &net.convs[5])?;
    let (sb, sc) = tr.bn(scc, &mut net.bns[5], training)?;
    let bo = tr.relu(&tr.add(&bb2, &sb)?)?;
    // Global average pool, linear.
    let mut pooled = tr.act(&[n, 16, 1, 1])?;
    ops::adaptive_avg_pool2d(
        &bo.view()?,
        [1, 1],
        TensorMut::new(&mut pooled.t, &[n, 16, 1, 1])?,
    )?
    .launch(s, a)?
    .detach();
    let features = Act {
        t: pooled.t,
        shape: vec![n, 16],
    };
    let mut logits = tr.act(&[n, C])?;
    let wt = Tensor::new(&net.fc_w.value, &[C, 16])?.t()?;
    ops::addmm(
        &Tensor::new(&net.fc_b.value, &[C])?,
        &features.view()?,
        &wt,
        1.0f32,
        1.0f32,
        TensorMut::new(&mut logits.t, &[n, C])?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    let stem = Act {
        t: p1.t,
        shape: p1.shape,
    };
    let saved = Saved {
        x,
        c1,
        r1,
        idx,
        a1,
        ar1,
        a2,
        ao,
        b1,
        br1,
        b2,
        sc,
        bo,
    };
    Ok(Forward {
        logits,
        stem,
        features,
        saved,
    })
}

/// One training step; returns the loss of its forward pass.
pub fn step(
    tr: &Tr<'_>,
    net: &mut Net,
    consts: &LossConsts,
    x: Act,
    labels: &Block<i64>,
    first: bool,
) -> ascendcl::Result<f32> {
    let loss = submit_step(tr, net, consts, x, labels, first)?;
    let mut value = [0f32];
    loss.copy_to_host(&mut value)?;
    Ok(value[0])
}

/// Queues one training step; returns its loss, 0-d, still being computed
/// (reading it waits).
pub fn submit_step(
    tr: &Tr<'_>,
    net: &mut Net,
    consts: &LossConsts,
    x: Act,
    labels: &Block<i64>,
    first: bool,
) -> ascendcl::Result<Block<f32>> {
    let (s, a) = (tr.stream, tr.alloc);
    let f = forward(tr, net, x, true)?;
    let n = BATCH;
    let (ones, one) = (&consts.ones, &consts.one);
    let mut logp = tr.act(&[n, C])?;
    ops::log_softmax(&f.logits.view()?, 1, TensorMut::new(&mut logp.t, &[n, C])?)?
        .launch(s, a)?
        .detach();
    let (mut loss, mut total) = (tr.act(&[1])?.t, tr.act(&[1])?.t);
    let (target, weight) = (Tensor::new(labels, &[n])?, Tensor::new(ones, &[C])?);
    ops::nll_loss(
        &logp.view()?,
        &target,
        &weight,
        Reduction::Mean,
        -100,
        TensorMut::new(&mut loss, &[])?,
        TensorMut::new(&mut total, &[])?,
    )?
    .launch(s, a)?
    .detach();
    let mut g_logp = tr.act(&[n, C])?;
    ops::nll_loss_backward(
        &Tensor::new(one, &[])?,
        &logp.view()?,
        &target,
        &weight,
        Reduction::Mean,
        -100,
        &Tensor::new(&total, &[])?,
        TensorMut::new(&mut g_logp.t, &[n, C])?,
    )?
    .launch(s, a)?
    .detach();
    let mut g_logits = tr.act(&[n, C])?;
    ops::log_softmax_backward(
        &g_logp.view()?,
        &logp.view()?,
        1,
        TensorMut::new(&mut g_logits.t, &[n, C])?,
    )?
    .launch(s, a)?
    .detach();
    // Linear.
    let gl = g_logits.view()?;
    ops::mm(
        &gl.clone().t()?,
        &f.features.view()?,
        TensorMut::new(&mut net.fc_w.grad, &[C, 16])?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    ops::reduce_sum(
        &gl,
        &[0],
        false,
        DType::F32,
        TensorMut::new(&mut net.fc_b.grad, &[C])?,
    )?
    .launch(s, a)?
    .detach();
    let mut g_feat = tr.act(&[n, 16, 1, 1])?;
    ops::mm(
        &gl,
        &Tensor::new(&net.fc_w.value, &[C, 16])?,
        TensorMut::new(&mut g_feat.t, &[n, 16])?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    let sv = &f.saved;
    let mut g_bo = tr.act(&sv.bo.shape)?;
    let shape = g_bo.shape.clone();
    ops::adaptive_avg_pool2d_backward(
        &g_feat.view()?,
        &sv.bo.view()?,
        TensorMut::new(&mut g_bo.t, &shape)?,
    )?
    .launch(s, a)?
    .detach();
    // Block B.
    let g_bs = tr.relu_back(&g_bo, &sv.bo)?;
    let g_b2c = tr.bn_back(&g_bs, &sv.b2, &mut net.bns[4])?;
    let g_br1 = tr
        .conv_back(&g_b2c, &sv.br1, &mut net.convs[4], true)?
        .expect("input gradient");
    let g_bb1 = tr.relu_back(&g_br1, &sv.br1)?;
    let g_b1c = tr.bn_back(&g_bb1, &sv.b1, &mut net.bns[3])?;
    let g_main = tr
        .conv_back(&g_b1c, &sv.ao, &mut net.convs[3], true)?
        .expect("input gradient");
    let g_sc = tr.bn_back(&g_bs, &sv.sc, &mut net.bns[5])?;
    let g_short = tr
        .conv_back(&g_sc, &sv.ao, &mut net.convs[5], true)?
        .expect("input gradient");
    let g_ao = tr.add(&g_main, &g_short)?;
    // Block A.
    let g_as = tr.relu_back(&g_ao, &sv.ao)?;
    let g_a2 = tr.bn_back(&g_as, &sv.a2, &mut net.bns[2])?;
    let g_ar1 = tr
        .conv_back(&g_a2, &sv.ar1, &mut net.convs[2], true)?
        .expect("input gradient");
    let g_ab1 = tr.relu_back(&g_ar1, &sv.ar1)?;
    let g_a1 = tr.bn_back(&g_ab1, &sv.a1, &mut net.bns[1])?;
    let g_p1_main = tr
        .conv_back(&g_a1, &f.stem, &mut net.convs[1], true)?
        .expect("input gradient");
    let g_p1 = tr.add(&g_p1_main, &g_as)?;
    // Stem.
    let mut g_r1 = tr.act(&sv.r1.shape)?;
    let shape = g_r1.shape.clone();
    ops::max_pool2d_with_indices_backward(
        &g_p1.view()?,
        &sv.r1.view()?,
        &Tensor::new(&sv.idx, &g_p1.shape)?,
        [2, 2],
        &Window::square(2, 0),
        false,
        TensorMut::new(&mut g_r1.t, &shape)?,
    )?
    .launch(s, a)?
    .detach();
    let g_b1 = tr.relu_back(&g_r1, &sv.r1)?;
    let g_c1 = tr.bn_back(&g_b1, &sv.c1, &mut net.bns[0])?;
    tr.conv_back(&g_c1, &sv.x, &mut net.convs[0], false)?;
    // SGD on every parameter.
    for conv in &mut net.convs {
        tr.sgd(&mut conv.w, first)?;
    }
    for bn in &mut net.bns {
        tr.sgd(&mut bn.gamma, first)?;
        tr.sgd(&mut bn.beta, first)?;
    }
    tr.sgd(&mut net.fc_w, first)?;
    tr.sgd(&mut net.fc_b, first)?;
    Ok(loss)
}
