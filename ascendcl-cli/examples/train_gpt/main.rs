//! Trains a small decoder-only transformer (GPT) entirely on the device,
//! from Rust, in f32: token and position embeddings, two pre-LayerNorm
//! blocks of causal self-attention (`aclnnFlashAttentionScore`) and a GELU
//! MLP, a final LayerNorm, the output projection tied to the token
//! embedding, cross-entropy; the whole backward written out by hand
//! (FlashAttentionScoreGrad, LayerNorm, GELU and embedding backwards); the
//! fused AdamW step (`aclnnApplyAdamWV2`).
//!
//! It starts from the initial weights a PyTorch run saved
//! (`examples/reference/train_gpt/init.safetensors`, written by
//! `scripts/goldens/train_gpt_reference.py`, which trains the same model on
//! the same batches) and checks every step's loss against PyTorch's within
//! 1e-5 relative, and the loss of batch 0 under the final weights; it exits
//! non-zero otherwise. `--save-grads DIR` writes step 1's gradients as one
//! `.npy` per parameter, for `ascendcl validate` against PyTorch's autograd
//! (`examples/reference/train_gpt/grads/`); `--save FILE` the final weights
//! as safetensors, by PyTorch's names. `--accumulate K` computes each step's
//! gradients from K micro-batches of 4/K sequences, accumulated in place,
//! which gives the one-batch update up to f32 rounding (the same PyTorch
//! check applies). `--batch N` (a multiple of 4) trains on each reference
//! batch repeated N/4 times: the mean loss and its gradients are the same,
//! so the PyTorch check still applies, on activations N/4 times larger.
//! `--record-trace FILE` records every request the caching allocator serves
//! as an allocation trace for `ascendcl alloc-replay --trace FILE` (which is
//! why this is an example of ascendcl-cli, like `train_resnet`; `cargo run
//! --example train_gpt` at the root finds it all the same). On the mock by
//! default; unchanged on an Atlas card.
//!
//! `--bf16` trains in bf16 mixed precision instead: the matrix products
//! (linear layers, attention, output projection) in bf16 as PyTorch's CPU
//! autocast runs them, f32 master weights and AdamW state, dynamic loss
//! scaling with overflow skip as `torch.amp.GradScaler` does; every loss is
//! checked against the script's `--bf16` run within three times that run's
//! own distance from f32 (`ascendcl_examples::gpt::mixed` says why), every
//! scale exactly, and a second run with an overflow injected at step 3 must
//! skip that step and halve the scale, as PyTorch's does.
//!
//! `cargo run --example train_gpt [-- --save-grads DIR] [--save FILE] [--accumulate K] [--batch N] [--record-trace FILE]`
//! `cargo run --example train_gpt -- --bf16`

mod bf16;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::DeviceTensor;
use ascendcl::prelude::*;
use ascendcl_examples::gpt::forward::Consts;
use ascendcl_examples::gpt::model::{Gpt, Params, Precision};
use ascendcl_examples::gpt::reference::Reference;
use ascendcl_examples::gpt::{B, STEPS, parameters, step};

/// Every step's loss within this of PyTorch's, relative.
const LOSS_TOLERANCE: f64 = 1e-5;

fn main() -> ExitCode {
    let arg = |name: &str| {
        std::env::args()
            .skip_while(|a| a != name)
            .nth(1)
            .map(PathBuf::from)
    };
    if std::env::args().any(|a| a == "--bf16") {
        if std::env::args().count() > 2 {
            eprintln!("--bf16 takes no other option");
            return ExitCode::from(2);
        }
        let result = ascendcl_examples::runtime().and_then(|(rt, backend)| {
            println!("backend: {backend}");
            bf16::run(&rt)
        });
        return match result {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        };
    }
    let micro = match arg("--accumulate").map(|k| k.to_string_lossy().parse::<usize>()) {
        None => 1,
        Some(Ok(k)) if k > 0 && B % k == 0 => k,
        Some(_) => {
            eprintln!("--accumulate K: K must divide the batch of {B} sequences");
            return ExitCode::from(2);
        }
    };
    let batch = match arg("--batch").map(|n| n.to_string_lossy().parse::<usize>()) {
        None => B,
        Some(Ok(n)) if n > 0 && n % B == 0 && n % micro == 0 => n,
        Some(_) => {
            eprintln!("--batch N: N must be a multiple of {B} (and of --accumulate)");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        save_grads: arg("--save-grads"),
        save: arg("--save"),
        record: arg("--record-trace"),
        micro,
        batch,
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> ascendcl::Error {
    ascendcl::Error::InvalidState(e.to_string())
}

/// Every gradient as `<dir>/<name>.npy`.
fn save_grads(dir: &Path, params: &Params) -> ascendcl::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
    for ((name, shape), grad) in parameters().iter().zip(&params.grads) {
        let path = dir.join(format!("{name}.npy"));
        ascendcl::tensor_file::write_npy_slice(&path, shape, &grad.to_vec()?).map_err(invalid)?;
    }
    Ok(())
}

/// The parameters as a safetensors file, by PyTorch's names.
fn save_weights(path: &Path, ctx: &Context, params: &Params) -> ascendcl::Result<()> {
    let tensors = parameters()
        .iter()
        .zip(&params.values)
        .map(|((_, shape), value)| DeviceTensor::from_host(ctx, &value.to_vec()?, shape))
        .collect::<ascendcl::Result<Vec<DeviceTensor<f32>>>>()?;
    let names = parameters();
    let named: Vec<(&str, &dyn ascendcl::weights::Saveable)> = names
        .iter()
        .zip(&tensors)
        .map(|((name, _), t)| (name.as_str(), t as &dyn ascendcl::weights::Saveable))
        .collect();
    ascendcl::weights::save(path, &named).map_err(invalid)
}

/// The command line.
struct Options {
    save_grads: Option<PathBuf>,
    save: Option<PathBuf>,
    record: Option<PathBuf>,
    micro: usize,
    batch: usize,
}

/// Step `k`'s batch repeated to `batch` sequences.
fn tiled(reference: &Reference, k: usize, batch: usize) -> (Vec<i64>, Vec<i64>) {
    let (inputs, targets) = reference.batch(k);
    (inputs.repeat(batch / B), targets.repeat(batch / B))
}

/// Writes the allocator's recorded requests as an allocation trace.
fn write_trace(path: &Path, alloc: &CachingAllocator, batch: usize) -> ascendcl::Result<()> {
    let requests = alloc.take_recording();
    let trace =
        ascendcl_cli::alloc_trace::recorded::from_requests("train_gpt", &requests, batch as u32);
    trace
        .check()
        .map_err(|e| invalid(format!("recorded trace: {e}")))?;
    let file =
        std::fs::File::create(path).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    trace
        .to_json_lines(std::io::BufWriter::new(file))
        .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    println!(
        "recorded {} allocator requests to {}",
        trace.ops.len(),
        path.display()
    );
    Ok(())
}

fn run(options: &Options) -> ascendcl::Result<bool> {
    let (save_grads_to, save_to, micro, batch) = (
        &options.save_grads,
        &options.save,
        options.micro,
        options.batch,
    );
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    if batch != B {
        println!(
            "batch of {batch} sequences: each reference batch {} times",
            batch / B
        );
    }
    if micro > 1 {
        println!(
            "gradients of {micro} micro-batches of {} sequences, accumulated in place",
            batch / micro
        );
    }
    let reference = Reference::read().map_err(invalid)?;
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    if options.record.is_some() {
        alloc.start_recording(); // step 0: setup
    }
    let gpt = Gpt {
        stream: &stream,
        alloc: &alloc,
        batch,
        precision: Precision::F32,
        loss_seed: None,
    };
    let consts = Consts::new(&gpt)?;
    let mut params = gpt.params(&reference.init)?;
    let (mut all_match, mut worst) = (true, 0f64);
    for k in 0..STEPS {
        alloc.set_recording_step(k as u32 + 1);
        let (inputs, targets) = tiled(&reference, k, batch);
        let loss = step::gradients(
            &stream,
            &alloc,
            &consts,
            &mut params,
            &inputs,
            &targets,
            micro,
        )?;
        if k == 0 {
            if let Some(dir) = save_grads_to {
                save_grads(dir, &params)?;
                println!("wrote step 1's gradients to {}", dir.display());
            }
        }
        gpt.adamw(&mut params)?;
        let expected = reference.losses[k];
        let rel = (loss - expected).abs() / expected.abs();
        worst = worst.max(rel);
        let ok = rel <= LOSS_TOLERANCE;
        all_match &= ok;
        println!(
            "step {} loss {loss:.9} (PyTorch {expected:.9}){}",
            k + 1,
            if ok { "" } else { "  MISMATCH" }
        );
    }
    let (inputs, targets) = tiled(&reference, 0, batch);
    let final_loss = f64::from(
        gpt.forward(&params, &consts, &inputs, &targets)?
            .loss
            .to_vec()?[0],
    );
    let rel = (final_loss - reference.final_loss).abs() / reference.final_loss.abs();
    let final_ok = rel <= LOSS_TOLERANCE;
    all_match &= final_ok;
    println!(
        "loss of batch 0 under the final weights {final_loss:.9} (PyTorch {:.9}){}",
        reference.final_loss,
        if final_ok { "" } else { "  MISMATCH" }
    );
    if let Some(path) = save_to {
        save_weights(path, &ctx, &params)?;
        println!("wrote the final weights to {}", path.display());
    }
    drop((params, consts)); // the trailing frees of the persistent tensors
    if let Some(path) = &options.record {
        write_trace(path, &alloc, batch)?;
    }
    let stats = alloc.stats();
    println!(
        "allocator: reserved peak {} KiB for {} KiB of live tensors at peak",
        stats.reserved.peak >> 10,
        stats.allocated.peak >> 10
    );
    if all_match {
        println!(
            "matches the PyTorch reference: every step's loss within {LOSS_TOLERANCE:e} relative \
             (largest {worst:.2e}), and the final weights' loss"
        );
    } else {
        println!("DOES NOT match the PyTorch reference (largest relative difference {worst:.2e})");
    }
    Ok(all_match)
}
