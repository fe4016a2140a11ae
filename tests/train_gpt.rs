//! `train_gpt` against the committed PyTorch run
//! (`scripts/goldens/train_gpt_reference.py`): the hand-written backward's
//! step-1 gradients against PyTorch's autograd, tensor by tensor, and every
//! step's loss.
//!
//! Gradient tolerance: `|ours − PyTorch| ≤ 1e-4 · max(|PyTorch|, 1e-3)` per
//! element. The floor is there because a gradient element is a sum over the
//! 64 rows of the batch of products near 0.1: both sides round such sums in
//! f32 to a few 1e-8 absolute whatever the result's size (measured: at most
//! 4.5e-8 over every tensor), so a near-zero element is held to 1e-7
//! absolute instead of a relative bound it cannot meet.

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl::validate::{self, CompareOptions, Metric, Thresholds};
use ascendcl_examples::gpt::forward::Consts;
use ascendcl_examples::gpt::model::{Gpt, Precision};
use ascendcl_examples::gpt::reference::{self, Reference};
use ascendcl_examples::gpt::{B, STEPS, parameters, step};

/// Trains `steps` steps on the mock, each from `micro` micro-batches;
/// calls `after_backward(step, grads)`.
fn train(
    steps: usize,
    micro: usize,
    after_backward: &mut dyn FnMut(usize, &[Vec<f32>]),
) -> ascendcl::Result<(Vec<f64>, f64)> {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library())?;
    let reference = Reference::read().map_err(ascendcl::Error::InvalidState)?;
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let gpt = Gpt {
        stream: &stream,
        alloc: &alloc,
        batch: B,
        precision: Precision::F32,
        loss_seed: None,
    };
    let consts = Consts::new(&gpt)?;
    let mut params = gpt.params(&reference.init)?;
    let mut losses = Vec::new();
    for k in 0..steps {
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
        losses.push(loss);
        let grads = params
            .grads
            .iter()
            .map(|g| g.to_vec())
            .collect::<ascendcl::Result<Vec<_>>>()?;
        after_backward(k, &grads);
        gpt.adamw(&mut params)?;
    }
    let (inputs, targets) = reference.batch(0);
    let last = gpt.forward(&params, &consts, &inputs, &targets)?;
    let final_loss = f64::from(last.loss.to_vec()?[0]);
    drop(last);
    drop(params);
    assert_eq!(session.misuse_total(), 0, "{}", session.misuse_log());
    Ok((losses, final_loss))
}

#[test]
fn step_one_gradients_equal_pytorchs_autograd_tensor_by_tensor() {
    let mut grads = Vec::new();
    train(1, 1, &mut |_, g| grads = g.to_vec()).expect("one step on the mock");
    let options = CompareOptions {
        metric: Metric::Relative,
        thresholds: Thresholds::new(1e-5, 1e-4, 1e-3).expect("thresholds"),
        relative_floor: 1e-3,
        top_k: 3,
    };
    let mut failures = Vec::new();
    for ((name, shape), ours) in parameters().iter().zip(grads) {
        let path = reference::dir().join("grads").join(format!("{name}.npy"));
        let theirs = ascendcl::tensor_file::read_npy(&path).expect("a committed gradient");
        let ours = validate::Tensor::from_f32(shape.clone(), ours).expect("shape");
        let report = validate::compare(&theirs, &ours, &options).expect("same shape");
        if report.max_rel_error > 1e-4 {
            failures.push(format!("{name}: {}", report.max_rel_error));
        }
    }
    assert!(failures.is_empty(), "gradients off PyTorch's: {failures:?}");
}

#[test]
fn every_steps_loss_and_the_final_weights_loss_equal_pytorchs_within_1e_5_relative() {
    let reference = Reference::read().expect("the committed reference");
    let (losses, final_loss) = train(STEPS, 1, &mut |_, _| {}).expect("training on the mock");
    for (k, (ours, theirs)) in losses.iter().zip(&reference.losses).enumerate() {
        let rel = (ours - theirs).abs() / theirs.abs();
        assert!(
            rel <= 1e-5,
            "step {}: {ours} against {theirs} ({rel:e})",
            k + 1
        );
    }
    let rel = (final_loss - reference.final_loss).abs() / reference.final_loss;
    assert!(
        rel <= 1e-5,
        "final: {final_loss} against {}",
        reference.final_loss
    );
}

#[test]
fn two_or_four_accumulated_micro_batches_give_the_one_batch_losses_and_gradients() {
    let mut whole = Vec::new();
    let (losses, final_loss) = train(STEPS, 1, &mut |k, g| {
        if k == 0 {
            whole = g.to_vec()
        }
    })
    .expect("one batch");
    for micro in [2, 4] {
        let mut split = Vec::new();
        let (micro_losses, micro_final) = train(STEPS, micro, &mut |k, g| {
            if k == 0 {
                split = g.to_vec()
            }
        })
        .expect("micro-batches");
        for (k, (a, b)) in micro_losses.iter().zip(&losses).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * b.abs(),
                "{micro}: step {}: {a} vs {b}",
                k + 1
            );
        }
        assert!((micro_final - final_loss).abs() <= 1e-5 * final_loss.abs());
        for ((name, _), (a, b)) in parameters().iter().zip(split.iter().zip(&whole)) {
            for (x, y) in a.iter().zip(b) {
                assert!(
                    (x - y).abs() <= 1e-4 * y.abs().max(1e-3),
                    "{micro}: {name}: {x} vs {y}"
                );
            }
        }
    }
}
