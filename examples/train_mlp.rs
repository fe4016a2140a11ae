//! Trains a two-layer MLP entirely on the device, from Rust: every step is
//! aclnn operators on a compute stream (forward, softmax cross-entropy,
//! backward, SGD with momentum), mini-batches are uploaded through pinned
//! buffers on a copy stream, and all device memory comes from the caching
//! allocator's expandable segments.
//!
//! The task and the training are specified exactly in
//! `scripts/goldens/train_mlp_reference.py`, which trains the same model in
//! PyTorch; its per-step losses are committed in
//! `examples/reference/train_mlp_losses.txt`. This example checks that its
//! data and initial parameters equal PyTorch's bit for bit, that every
//! step's loss matches within 1e-4 relative (+1e-6 absolute near the f32
//! quantum), and exits non-zero otherwise. On the mock by default; unchanged
//! on an Atlas card.
//!
//! `cargo run --example train_mlp`

use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::ops::{self, CubeMath, DType, Reduction, Tensor, TensorMut};
use ascendcl::prelude::*;
use ascendcl_examples::mlp::reference::{self, Reference};
use ascendcl_examples::mlp::{BATCH, C, D, EPOCHS, H, LR, MOMENTUM, N, Task};

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One layer's parameters (and, with the same shapes, gradients and momentum).
struct Layer {
    w: Block<f32>,
    b: Block<f32>,
}

struct Trainer<'a> {
    stream: &'a Stream,
    alloc: &'a CachingAllocator,
}

/// `[rows, cols]` view of a block.
fn t2<'b>(b: &'b Block<f32>, rows: usize, cols: usize) -> ascendcl::Result<Tensor<'b>> {
    Tensor::new(b, &[rows, cols])
}

fn m2<'b>(b: &'b mut Block<f32>, rows: usize, cols: usize) -> ascendcl::Result<TensorMut<'b>> {
    TensorMut::new(b, &[rows, cols])
}

impl<'a> Trainer<'a> {
    fn block(&self, data: &[f32]) -> ascendcl::Result<Block<f32>> {
        let mut b = self.alloc.alloc::<f32>(self.stream, data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    fn empty(&self, len: usize) -> ascendcl::Result<Block<f32>> {
        self.alloc.alloc::<f32>(self.stream, len)
    }

    /// `out = x @ wᵀ + b` for `rows` rows of `inputs` features into `outputs`.
    fn linear(
        &self,
        x: &Block<f32>,
        layer: &Layer,
        rows: usize,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<Block<f32>> {
        let mut out = self.empty(rows * outputs)?;
        let bias = Tensor::new(&layer.b, &[outputs])?;
        let wt = t2(&layer.w, outputs, inputs)?.t()?; // transposed view, no copy
        ops::addmm(
            &bias,
            &t2(x, rows, inputs)?,
            &wt,
            1.0f32,
            1.0f32,
            m2(&mut out, rows, outputs)?,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    /// Forward pass: (hidden pre-activation, hidden, logits).
    fn forward(
        &self,
        x: &Block<f32>,
        l1: &Layer,
        l2: &Layer,
        rows: usize,
    ) -> ascendcl::Result<[Block<f32>; 3]> {
        let pre = self.linear(x, l1, rows, D, H)?;
        let mut hidden = self.empty(rows * H)?;
        ops::relu(&t2(&pre, rows, H)?, m2(&mut hidden, rows, H)?)?
            .launch(self.stream, self.alloc)?
            .detach();
        let logits = self.linear(&hidden, l2, rows, H, C)?;
        Ok([pre, hidden, logits])
    }

    /// `momentum = g` (first step) or `momentum = μ·momentum + g`; then
    /// `p -= lr·momentum`: PyTorch's SGD with momentum, dampening 0.
    fn sgd(
        &self,
        p: &mut Block<f32>,
        g: &Block<f32>,
        m: &mut Block<f32>,
        first: bool,
    ) -> ascendcl::Result<()> {
        let n = p.len();
        if first {
            ops::inplace_copy(TensorMut::new(m, &[n])?, &Tensor::new(g, &[n])?)?
                .launch(self.stream, self.alloc)?
                .detach();
        } else {
            ops::inplace_muls(TensorMut::new(m, &[n])?, MOMENTUM)?
                .launch(self.stream, self.alloc)?
                .detach();
            ops::inplace_add(TensorMut::new(m, &[n])?, &Tensor::new(g, &[n])?, 1.0f32)?
                .launch(self.stream, self.alloc)?
                .detach();
        }
        ops::inplace_add(TensorMut::new(p, &[n])?, &Tensor::new(m, &[n])?, -LR)?
            .launch(self.stream, self.alloc)?
            .detach();
        Ok(())
    }
}

/// Host-side constants of the loss.
struct LossConstants {
    /// Class weights (ones), as torch_npu passes them.
    weight: Block<f32>,
    /// dLoss/dLoss = 1, 0-d.
    one: Block<f32>,
}

/// One training step on `x`/`labels` (`BATCH` rows); returns the loss.
#[allow(clippy::too_many_arguments)]
fn step(
    tr: &Trainer<'_>,
    x: &Block<f32>,
    labels: &Block<i64>,
    layers: &mut [Layer; 2],
    grads: &mut [Layer; 2],
    moms: &mut [Layer; 2],
    k: &LossConstants,
    first: bool,
) -> ascendcl::Result<f32> {
    let (s, a) = (tr.stream, tr.alloc);
    let [pre, hidden, logits] = tr.forward(x, &layers[0], &layers[1], BATCH)?;
    let mut logp = tr.empty(BATCH * C)?;
    ops::log_softmax(&t2(&logits, BATCH, C)?, 1, m2(&mut logp, BATCH, C)?)?
        .launch(s, a)?
        .detach();
    let (mut loss, mut total) = (tr.empty(1)?, tr.empty(1)?);
    let target = Tensor::new(labels, &[BATCH])?;
    let weight = Tensor::new(&k.weight, &[C])?;
    ops::nll_loss(
        &t2(&logp, BATCH, C)?,
        &target,
        &weight,
        Reduction::Mean,
        -100,
        TensorMut::new(&mut loss, &[])?,
        TensorMut::new(&mut total, &[])?,
    )?
    .launch(s, a)?
    .detach();

    // Backward: NLL, log-softmax, layer 2, ReLU, layer 1.
    let mut g_logp = tr.empty(BATCH * C)?;
    ops::nll_loss_backward(
        &Tensor::new(&k.one, &[])?,
        &t2(&logp, BATCH, C)?,
        &target,
        &weight,
        Reduction::Mean,
        -100,
        &Tensor::new(&total, &[])?,
        m2(&mut g_logp, BATCH, C)?,
    )?
    .launch(s, a)?
    .detach();
    let mut g_logits = tr.empty(BATCH * C)?;
    ops::log_softmax_backward(
        &t2(&g_logp, BATCH, C)?,
        &t2(&logp, BATCH, C)?,
        1,
        m2(&mut g_logits, BATCH, C)?,
    )?
    .launch(s, a)?
    .detach();
    let [g1, g2] = grads;
    let gl = t2(&g_logits, BATCH, C)?;
    ops::mm(
        &gl.clone().t()?,
        &t2(&hidden, BATCH, H)?,
        m2(&mut g2.w, C, H)?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    ops::reduce_sum(
        &gl,
        &[0],
        false,
        DType::F32,
        TensorMut::new(&mut g2.b, &[C])?,
    )?
    .launch(s, a)?
    .detach();
    let mut g_hidden = tr.empty(BATCH * H)?;
    ops::mm(
        &gl,
        &t2(&layers[1].w, C, H)?,
        m2(&mut g_hidden, BATCH, H)?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    let mut g_pre = tr.empty(BATCH * H)?;
    // PyTorch's ReLU backward: threshold_backward(grad, relu output, 0).
    ops::threshold_backward(
        &t2(&g_hidden, BATCH, H)?,
        &t2(&hidden, BATCH, H)?,
        0.0f32,
        m2(&mut g_pre, BATCH, H)?,
    )?
    .launch(s, a)?
    .detach();
    let gp = t2(&g_pre, BATCH, H)?;
    ops::mm(
        &gp.clone().t()?,
        &t2(x, BATCH, D)?,
        m2(&mut g1.w, H, D)?,
        CubeMath::KeepDtype,
    )?
    .launch(s, a)?
    .detach();
    ops::reduce_sum(
        &gp,
        &[0],
        false,
        DType::F32,
        TensorMut::new(&mut g1.b, &[H])?,
    )?
    .launch(s, a)?
    .detach();
    drop(pre);

    for ((layer, grad), mom) in layers.iter_mut().zip(grads.iter()).zip(moms.iter_mut()) {
        tr.sgd(&mut layer.w, &grad.w, &mut mom.w, first)?;
        tr.sgd(&mut layer.b, &grad.b, &mut mom.b, first)?;
    }
    let mut value = [0f32];
    loss.copy_to_host(&mut value)?; // waits for the forward's loss
    Ok(value[0])
}

/// Fraction of all samples classified right with the current parameters.
fn accuracy(
    tr: &Trainer<'_>,
    x_all: &Block<f32>,
    labels: &[i64],
    layers: &[Layer; 2],
) -> ascendcl::Result<f64> {
    let [_, _, logits] = tr.forward(x_all, &layers[0], &layers[1], N)?;
    let mut predicted = tr.alloc.alloc::<i64>(tr.stream, N)?;
    ops::argmax(
        &t2(&logits, N, C)?,
        1,
        false,
        TensorMut::new(&mut predicted, &[N])?,
    )?
    .launch(tr.stream, tr.alloc)?
    .detach();
    let predicted = predicted.to_vec()?;
    let right = predicted.iter().zip(labels).filter(|(p, l)| p == l).count();
    Ok(right as f64 / N as f64)
}

/// The generator against the reference's `.npy` files, bit for bit.
fn check_generator(task: &Task) -> bool {
    let pairs: [(&str, &[f32]); 6] = [
        ("centers.npy", &task.centers),
        ("W1.npy", &task.w1),
        ("b1.npy", &task.b1),
        ("W2.npy", &task.w2),
        ("b2.npy", &task.b2),
        ("batch0_x.npy", &task.x[..BATCH * D]),
    ];
    pairs
        .iter()
        .all(|(name, ours)| match reference::npy_f32(name) {
            Some(theirs) => {
                theirs.len() == ours.len()
                    && theirs
                        .iter()
                        .zip(ours.iter())
                        .all(|(a, b)| a.to_bits() == b.to_bits())
            }
            None => false,
        })
}

fn run() -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let task = Task::generate();
    let generator_ok = check_generator(&task);
    println!("data and initial parameters equal PyTorch's bit for bit: {generator_ok}");
    let reference = Reference::read().map_err(ascendcl::Error::InvalidState)?;

    let ctx = Device::open(&rt, 0)?.default_context();
    let (compute, copy) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let tr = Trainer {
        stream: &compute,
        alloc: &alloc,
    };
    let layer = |w: &[f32], b: &[f32]| -> ascendcl::Result<Layer> {
        Ok(Layer {
            w: tr.block(w)?,
            b: tr.block(b)?,
        })
    };
    let zeros = |w: usize, b: usize| layer(&vec![0.0; w], &vec![0.0; b]);
    let mut layers = [layer(&task.w1, &task.b1)?, layer(&task.w2, &task.b2)?];
    let mut grads = [zeros(H * D, H)?, zeros(C * H, C)?];
    let mut moms = [zeros(H * D, H)?, zeros(C * H, C)?];
    let k = LossConstants {
        weight: tr.block(&[1.0; C])?,
        one: tr.block(&[1.0])?,
    };
    let x_all = tr.block(&task.x)?;

    // Pinned staging buffers for the copy stream.
    let mut x_host = HostBuffer::<f32>::zeroed(&ctx, BATCH * D)?;
    let mut labels_host = HostBuffer::<i64>::zeroed(&ctx, BATCH)?;
    // Largest relative difference while the loss is above 1e-3; below that
    // the losses sit at the f32 quantum and only the absolute bound means much.
    let (mut worst, mut worst_abs) = (0f64, 0f64);
    let mut all_match = generator_ok;
    let steps_per_epoch = N / BATCH;
    for epoch in 0..EPOCHS {
        for s in 0..steps_per_epoch {
            let k_step = epoch * steps_per_epoch + s;
            let rows = s * BATCH..(s + 1) * BATCH;
            // Writing the staging buffers waits for their previous upload.
            x_host
                .as_mut_slice()?
                .copy_from_slice(&task.x[rows.start * D..rows.end * D]);
            labels_host
                .as_mut_slice()?
                .copy_from_slice(&task.labels[rows]);
            let mut x = alloc.alloc::<f32>(&compute, BATCH * D)?;
            let mut labels = alloc.alloc::<i64>(&compute, BATCH)?;
            // Uploads on the copy stream; the compute stream is ordered after
            // them by the blocks' trackers.
            copy.copy_host_to_device(&x_host, &mut x)?.detach();
            copy.copy_host_to_device(&labels_host, &mut labels)?
                .detach();
            let loss = step(
                &tr,
                &x,
                &labels,
                &mut layers,
                &mut grads,
                &mut moms,
                &k,
                k_step == 0,
            )?;
            let expected = reference.losses.get(k_step).copied().unwrap_or(f64::NAN);
            let ok = Reference::loss_matches(f64::from(loss), expected);
            let diff = (f64::from(loss) - expected).abs();
            if expected.abs() > 1e-3 {
                worst = worst.max(diff / expected.abs());
            } else {
                worst_abs = worst_abs.max(diff);
            }
            all_match &= ok;
            println!(
                "step {} loss {loss:.9} (PyTorch {expected:.9}){}",
                k_step + 1,
                if ok { "" } else { "  MISMATCH" }
            );
        }
        let acc = accuracy(&tr, &x_all, &task.labels, &layers)?;
        let expected = reference.accuracy.get(epoch).copied().unwrap_or(f64::NAN);
        all_match &= (acc - expected).abs() < 1e-9;
        println!(
            "epoch {} accuracy {acc:.6} (PyTorch {expected:.6})",
            epoch + 1
        );
    }
    compute.synchronize()?;
    let stats = alloc.stats();
    println!(
        "allocator: reserved peak {} KiB for {} KiB of live tensors at peak",
        stats.reserved.peak >> 10,
        stats.allocated.peak >> 10
    );
    if all_match {
        println!(
            "matches the PyTorch reference: every step's loss within 1e-4 relative (+1e-6 absolute); \
             largest relative difference {worst:.2e} while the loss is above 1e-3, largest absolute \
             difference {worst_abs:.2e} below; accuracy identical"
        );
    } else {
        println!(
            "DOES NOT match the PyTorch reference (largest relative difference {worst:.2e}, \
             absolute {worst_abs:.2e} below 1e-3)"
        );
    }
    Ok(all_match)
}
