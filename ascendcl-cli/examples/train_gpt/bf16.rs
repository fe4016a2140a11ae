//! `train_gpt --bf16`: the same training in bf16 mixed precision
//! (`ascendcl_examples::gpt::mixed`), checked against PyTorch's CPU
//! bf16-autocast + GradScaler run, then again with an overflow injected at
//! step 3, which must be skipped with the scale halved.

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::gpt::mixed::{self, Bf16Line, Bf16Reference, Bf16Step, OVERFLOW_STEP};
use ascendcl_examples::gpt::reference::Reference;

/// One run's lines against PyTorch's (and, for the plain run, how far each
/// loss is from the f32 run's); whether every loss is within `tolerance`
/// and every scale equal.
fn report(
    steps: &[Bf16Step],
    want: &[Bf16Line],
    f32_losses: Option<&[f64]>,
    tolerance: f64,
) -> bool {
    let mut ok = true;
    for (k, (s, w)) in steps.iter().zip(want).enumerate() {
        let rel = (s.loss - w.loss).abs() / w.loss.abs();
        let from_f32 = f32_losses.map_or(String::new(), |f| {
            format!("; f32 {:.1e} away", (s.loss - f[k]).abs() / f[k].abs())
        });
        let good = rel <= tolerance && (s.scale, s.next) == (w.scale, w.next);
        ok &= good;
        println!(
            "step {} loss {:.9} (PyTorch bf16 {:.9}, {rel:.1e}{}) scale {} -> {}{}{}",
            k + 1,
            s.loss,
            w.loss,
            from_f32,
            s.scale,
            s.next,
            if s.skipped {
                ", overflow: step skipped"
            } else {
                ""
            },
            if good { "" } else { "  MISMATCH" }
        );
    }
    ok
}

/// Both bf16 runs; whether they match PyTorch's.
pub fn run(rt: &Runtime) -> ascendcl::Result<bool> {
    let invalid = |e: String| ascendcl::Error::InvalidState(e);
    let reference = Reference::read().map_err(invalid)?;
    let bf16 = Bf16Reference::read().map_err(invalid)?;
    let tolerance = bf16.tolerance();
    println!(
        "bf16 mixed precision: bf16 matrix products, f32 weights and AdamW state, loss scaling from {}",
        ascendcl_examples::gpt::grad_scaler::INIT_SCALE
    );
    println!(
        "tolerance {tolerance:.2e} relative: {} x PyTorch's own bf16-vs-f32 distance ({:.2e})",
        mixed::GAP_FACTOR,
        bf16.gap
    );
    let ctx = Device::open(rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let (plain, _) = mixed::train(&stream, &alloc, &reference, None, |_, _, _| {})?;
    let mut ok = report(&plain, &bf16.plain, Some(&reference.losses), tolerance);
    println!("with an overflow injected at step {OVERFLOW_STEP} (wte's gradient set to inf):");
    let (overflow, _) = mixed::train(
        &stream,
        &alloc,
        &reference,
        Some(OVERFLOW_STEP),
        |_, _, _| {},
    )?;
    ok &= report(&overflow, &bf16.overflow, None, tolerance);
    let skipped: Vec<usize> = (0..overflow.len())
        .filter(|&k| overflow[k].skipped)
        .map(|k| k + 1)
        .collect();
    let as_pytorch = skipped == [OVERFLOW_STEP];
    ok &= as_pytorch;
    println!(
        "skipped steps: {skipped:?} (PyTorch: [{OVERFLOW_STEP}]){}",
        if as_pytorch { "" } else { "  MISMATCH" }
    );
    if ok {
        println!(
            "matches PyTorch's bf16-autocast run: every loss within {tolerance:.2e}, every scale equal, the overflow step skipped"
        );
    } else {
        println!("DOES NOT match PyTorch's bf16-autocast run");
    }
    Ok(ok)
}
