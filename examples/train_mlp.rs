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
//! `--graph` trains the same way through a graph: the first step runs
//! eagerly (it warms the allocator up and starts the momentum), then each
//! epoch captures one step (forward, loss, backward, update, the batch's
//! upload and the loss's download) and replays it once per batch, one
//! `aclmdlRIExecuteAsync` each; the graph is dropped at the end of the epoch
//! so the accuracy pass can read the parameters. Its losses are those of the
//! eager run, bit for bit (`tests/train_mlp_graph.rs`), so the same PyTorch
//! check applies.
//!
//! `cargo run --example train_mlp [-- --graph]`

use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::mlp::graph_step::{self, StepBuffers};
use ascendcl_examples::mlp::reference::{self, Reference};
use ascendcl_examples::mlp::trainer::Trainer;
use ascendcl_examples::mlp::{BATCH, D, EPOCHS, N, Task};

fn main() -> ExitCode {
    let graph = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => false,
        [flag] if flag == "--graph" => true,
        _ => {
            eprintln!("usage: train_mlp [--graph]");
            return ExitCode::from(2);
        }
    };
    match run(graph) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
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

fn run(graph: bool) -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!(
        "backend: {backend}{}",
        if graph {
            ", one graph replay per step"
        } else {
            ""
        }
    );
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
    let mut model = tr.model(&task)?;
    let x_all = tr.block(&task.x)?;

    // Pinned staging buffers for the copy stream.
    let mut x_host = HostBuffer::<f32>::zeroed(&ctx, BATCH * D)?;
    let mut labels_host = HostBuffer::<i64>::zeroed(&ctx, BATCH)?;
    // Largest relative difference while the loss is above 1e-3; below that
    // the losses sit at the f32 quantum and only the absolute bound means much.
    let (mut worst, mut worst_abs) = (0f64, 0f64);
    let mut all_match = generator_ok;
    let steps_per_epoch = N / BATCH;
    // Graph mode: the buffers a captured step uses besides the model.
    let mut step_buffers = if graph {
        Some(StepBuffers::new(&tr)?)
    } else {
        None
    };
    for epoch in 0..EPOCHS {
        let first = epoch * steps_per_epoch;
        let mut losses = Vec::with_capacity(steps_per_epoch);
        let mut eager_step = |model: &mut _, k_step: usize| -> ascendcl::Result<f32> {
            let rows = (k_step - first) * BATCH..(k_step - first + 1) * BATCH;
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
            let loss = tr.gradients(&x, &labels, model, BATCH)?;
            tr.sgd_step(model, k_step == 0)?;
            let mut value = [0f32];
            loss.copy_to_host(&mut value)?; // waits for the forward's loss
            Ok(value[0])
        };
        let mut steps = first..first + steps_per_epoch;
        match step_buffers.as_mut() {
            None => {
                for k_step in steps {
                    losses.push(eager_step(&mut model, k_step)?);
                }
            }
            Some(bufs) => {
                if epoch == 0 {
                    // Eager: it starts the momentum and warms the allocator up.
                    losses.push(eager_step(&mut model, steps.next().unwrap_or(0))?);
                }
                let mut captured = graph_step::capture(&tr, &mut model, bufs)?;
                for k_step in steps {
                    let rows = (k_step - first) * BATCH..(k_step - first + 1) * BATCH;
                    losses.push(captured.step(
                        &compute,
                        &task.x[rows.start * D..rows.end * D],
                        &task.labels[rows],
                    )?);
                }
                // Dropping the graph (end of this block) gives the model back.
            }
        }
        for (s, &loss) in losses.iter().enumerate() {
            let k_step = first + s;
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
        let acc = tr.accuracy(&x_all, &task.labels, &model.layers, N)?;
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
