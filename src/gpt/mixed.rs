//! A bf16 mixed-precision training run ([`Precision::Bf16`] compute, f32
//! weights and AdamW state, [`GradScaler`] loss scaling) and what the
//! PyTorch reference's `--bf16` run wrote to check it against
//! (`examples/reference/train_gpt/bf16/`).

use ascendcl::alloc::CachingAllocator;
use ascendcl::prelude::*;

use super::forward::Consts;
use super::grad_scaler::GradScaler;
use super::model::{Gpt, Params, Precision};
use super::reference::{Reference, dir};
use super::{B, STEPS, WTE};

/// The step PyTorch's overflow run injects an infinite gradient into.
pub const OVERFLOW_STEP: usize = 3;

/// Our losses may differ from PyTorch's bf16-autocast losses by this many
/// times the largest relative difference of PyTorch's own bf16 run from its
/// f32 run (`bf16/gap.txt`, 9.8e-5 when committed). Both are bf16 runs of
/// the same model rounding at different places (our attention rounds its
/// output once, PyTorch's explicit one its scores, scaled scores,
/// probabilities and product), so each sits about one such gap from the f32
/// losses in its own direction, and two of them at most about two gaps
/// apart; three leaves room without hiding an error (a wrong gradient or a
/// step that was not skipped moves the loss by 1e-3 and more: the overflow
/// run differs from the plain one by 3e-3 from the step after the skip).
pub const GAP_FACTOR: f64 = 3.0;

/// One step of PyTorch's bf16 run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bf16Line {
    /// The loss of the step's forward.
    pub loss: f64,
    /// The scale its backward used.
    pub scale: f32,
    /// The scale after its update.
    pub next: f32,
}

/// `bf16/losses.txt`, `bf16/overflow.txt`, `bf16/gap.txt`.
#[derive(Debug, Clone)]
pub struct Bf16Reference {
    /// The plain run.
    pub plain: Vec<Bf16Line>,
    /// The run with an overflow injected at [`OVERFLOW_STEP`].
    pub overflow: Vec<Bf16Line>,
    /// PyTorch's bf16 run's largest relative difference from its f32 run.
    pub gap: f64,
}

impl Bf16Reference {
    /// Reads the three files (an error names the file).
    pub fn read() -> Result<Bf16Reference, String> {
        let read = |name: &str| {
            let path = dir().join("bf16").join(name);
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let lines = |name: &str| -> Result<Vec<Bf16Line>, String> {
            let parsed = read(name)?
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    let bad = || {
                        format!("bf16/{name}: a line is not 'step K loss L scale S next N': {l}")
                    };
                    if w.len() != 8
                        || w[0] != "step"
                        || w[2] != "loss"
                        || w[4] != "scale"
                        || w[6] != "next"
                    {
                        return Err(bad());
                    }
                    Ok(Bf16Line {
                        loss: w[3].parse().map_err(|_| bad())?,
                        scale: w[5].parse().map_err(|_| bad())?,
                        next: w[7].parse().map_err(|_| bad())?,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if parsed.len() != STEPS {
                return Err(format!(
                    "bf16/{name}: {} steps, expected {STEPS}",
                    parsed.len()
                ));
            }
            Ok(parsed)
        };
        let gap = read("gap.txt")?
            .trim()
            .parse()
            .map_err(|e| format!("bf16/gap.txt: {e}"))?;
        Ok(Bf16Reference {
            plain: lines("losses.txt")?,
            overflow: lines("overflow.txt")?,
            gap,
        })
    }

    /// The relative tolerance of a loss: [`GAP_FACTOR`] gaps.
    pub fn tolerance(&self) -> f64 {
        GAP_FACTOR * self.gap
    }
}

/// What one mixed-precision step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bf16Step {
    /// The loss of its forward (unscaled).
    pub loss: f64,
    /// The scale its backward used.
    pub scale: f32,
    /// The scale after it.
    pub next: f32,
    /// Whether it found a non-finite gradient and skipped the update.
    pub skipped: bool,
}

/// One step on `inputs`/`targets` (`B` sequences): the scaled bf16 forward
/// and backward, the unscale and overflow check, AdamW unless a gradient
/// overflowed, the scale's update. `inject_overflow` writes an infinite
/// gradient (`wte`'s first element) after the backward, as the reference's
/// overflow run does.
#[allow(clippy::too_many_arguments)]
pub fn step(
    stream: &Stream,
    alloc: &CachingAllocator,
    consts: &Consts,
    params: &mut Params,
    scaler: &mut GradScaler,
    inputs: &[i64],
    targets: &[i64],
    inject_overflow: bool,
) -> ascendcl::Result<Bf16Step> {
    let scale = scaler.scale();
    let (loss, all_finite) = {
        let gpt = Gpt {
            stream,
            alloc,
            batch: B,
            precision: Precision::Bf16,
            loss_seed: Some(scaler.seed()),
        };
        let saved = gpt.forward(params, consts, inputs, targets)?;
        gpt.backward(params, consts, &saved)?;
        if inject_overflow {
            params.grads[WTE]
                .slice_mut(..1)?
                .copy_from_host(&[f32::INFINITY])?;
        }
        let all_finite = scaler.unscale(&gpt, params)?;
        if all_finite {
            gpt.adamw(params)?;
        }
        (f64::from(saved.loss.to_vec()?[0]), all_finite)
    };
    scaler.update(all_finite)?;
    Ok(Bf16Step {
        loss,
        scale,
        next: scaler.scale(),
        skipped: !all_finite,
    })
}

/// The reference's steps in bf16 from its initial weights: every step's
/// result, and the final parameters.
pub fn train(
    stream: &Stream,
    alloc: &CachingAllocator,
    reference: &Reference,
    overflow_at: Option<usize>,
    mut each: impl FnMut(usize, &Bf16Step, &Params),
) -> ascendcl::Result<(Vec<Bf16Step>, Params)> {
    let gpt = Gpt {
        stream,
        alloc,
        batch: B,
        precision: Precision::Bf16,
        loss_seed: None,
    };
    let consts = Consts::new(&gpt)?;
    let mut params = gpt.params(&reference.init)?;
    let mut scaler = GradScaler::new(&gpt)?;
    let mut steps = Vec::with_capacity(STEPS);
    for k in 0..STEPS {
        let (inputs, targets) = reference.batch(k);
        let s = step(
            stream,
            alloc,
            &consts,
            &mut params,
            &mut scaler,
            &inputs,
            &targets,
            overflow_at == Some(k + 1),
        )?;
        each(k, &s, &params);
        steps.push(s);
    }
    Ok((steps, params))
}
