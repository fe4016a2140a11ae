//! `train_gpt --bf16`: bf16 mixed precision with dynamic loss scaling,
//! against PyTorch's CPU bf16-autocast + GradScaler run of the same script
//! (`scripts/goldens/train_gpt_reference.py --bf16`): every loss within
//! the tolerance that run's own distance from f32 gives, the scales
//! exactly, and an injected overflow skipping its step and halving the
//! scale as PyTorch does.

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::gpt::mixed::{self, Bf16Reference, OVERFLOW_STEP};
use ascendcl_examples::gpt::reference::Reference;

fn check_losses(steps: &[mixed::Bf16Step], want: &[mixed::Bf16Line], tolerance: f64) {
    for (k, (got, want)) in steps.iter().zip(want).enumerate() {
        let rel = (got.loss - want.loss).abs() / want.loss.abs();
        assert!(
            rel <= tolerance,
            "step {}: loss {} against PyTorch's {} ({rel:.2e} > {tolerance:.2e})",
            k + 1,
            got.loss,
            want.loss
        );
        assert_eq!(
            (got.scale, got.next),
            (want.scale, want.next),
            "step {}: the scale",
            k + 1
        );
    }
}

#[test]
fn bf16_losses_stay_within_pytorch_autocasts_own_distance_from_f32_and_the_scales_match() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).unwrap();
    let ctx = Device::open(&rt, 0).unwrap().default_context();
    let stream = Stream::new(&ctx).unwrap();
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable()).unwrap();
    let reference = Reference::read().unwrap();
    let bf16 = Bf16Reference::read().unwrap();
    let (steps, _) = mixed::train(&stream, &alloc, &reference, None, |_, _, _| {}).unwrap();
    check_losses(&steps, &bf16.plain, bf16.tolerance());
    assert!(steps.iter().all(|s| !s.skipped));
    // bf16 is really used: the losses leave the f32 ones (PyTorch's f32
    // run, which train_gpt matches within 1e-7).
    let moved = steps
        .iter()
        .zip(&reference.losses)
        .map(|(s, f)| (s.loss - f).abs() / f)
        .fold(0f64, f64::max);
    assert!(
        moved > 1e-5,
        "the bf16 losses are the f32 ones ({moved:.2e})"
    );
    assert!(session.misuse_log().is_empty(), "{}", session.misuse_log());
}

#[test]
fn an_injected_overflow_skips_its_step_bit_for_bit_and_halves_the_scale_as_grad_scaler_does() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).unwrap();
    let ctx = Device::open(&rt, 0).unwrap().default_context();
    let stream = Stream::new(&ctx).unwrap();
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable()).unwrap();
    let reference = Reference::read().unwrap();
    let bf16 = Bf16Reference::read().unwrap();
    let mut snapshots = Vec::new();
    let (steps, _) = mixed::train(
        &stream,
        &alloc,
        &reference,
        Some(OVERFLOW_STEP),
        |_, _, params| {
            let values: Vec<Vec<u32>> = params
                .values
                .iter()
                .map(|v| v.to_vec().unwrap().iter().map(|x| x.to_bits()).collect())
                .collect();
            snapshots.push(values);
        },
    )
    .unwrap();
    check_losses(&steps, &bf16.overflow, bf16.tolerance());
    let skipped: Vec<usize> = (0..steps.len()).filter(|&k| steps[k].skipped).collect();
    assert_eq!(
        skipped,
        [OVERFLOW_STEP - 1],
        "only the injected step is skipped"
    );
    assert_eq!(
        snapshots[OVERFLOW_STEP - 1],
        snapshots[OVERFLOW_STEP - 2],
        "a skipped step leaves every weight as it was"
    );
    assert_ne!(snapshots[OVERFLOW_STEP], snapshots[OVERFLOW_STEP - 1]);
    assert_eq!(
        steps[OVERFLOW_STEP - 1].next,
        steps[OVERFLOW_STEP - 1].scale / 2.0
    );
}
