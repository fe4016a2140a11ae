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
//! check applies). On the mock by default; unchanged on an Atlas card.
//!
//! `cargo run --example train_gpt [-- --save-grads DIR] [--save FILE] [--accumulate K]`

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::DeviceTensor;
use ascendcl::prelude::*;
use ascendcl_examples::gpt::forward::Consts;
use ascendcl_examples::gpt::model::{Gpt, Params};
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
    let micro = match arg("--accumulate").map(|k| k.to_string_lossy().parse::<usize>()) {
        None => 1,
        Some(Ok(k)) if k > 0 && B % k == 0 => k,
        Some(_) => {
            eprintln!("--accumulate K: K must divide the batch of {B} sequences");
            return ExitCode::from(2);
        }
    };
    match run(arg("--save-grads"), arg("--save"), micro) {
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

fn run(
    save_grads_to: Option<PathBuf>,
    save_to: Option<PathBuf>,
    micro: usize,
) -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    if micro > 1 {
        println!(
            "gradients of {micro} micro-batches of {} sequences, accumulated in place",
            B / micro
        );
    }
    let reference = Reference::read().map_err(invalid)?;
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let gpt = Gpt {
        stream: &stream,
        alloc: &alloc,
        batch: B,
    };
    let consts = Consts::new(&gpt)?;
    let mut params = gpt.params(&reference.init)?;
    let (mut all_match, mut worst) = (true, 0f64);
    for k in 0..STEPS {
        let (inputs, targets) = reference.batch(k);
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
            if let Some(dir) = &save_grads_to {
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
    let (inputs, targets) = reference.batch(0);
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
    if let Some(path) = &save_to {
        save_weights(path, &ctx, &params)?;
        println!("wrote the final weights to {}", path.display());
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
