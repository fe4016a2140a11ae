//! The migration checklist: [`Thresholds`], the [`Metric`] they apply to, and
//! the resulting [`Verdict`].

use std::fmt;

use super::error::{ValidateError, ValidateResult};

/// Which error the verdict is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Metric {
    /// Maximum absolute error `|actual − expected|` (the default: what
    /// migration checklists call "max error", and stable near zero).
    #[default]
    Absolute,
    /// Maximum relative error `|actual − expected| / max(|expected|, floor)`
    /// (see [`CompareOptions::relative_floor`](super::CompareOptions::relative_floor)).
    /// Better for tensors of large magnitude; noisy where `expected` is near 0.
    Relative,
}

impl Metric {
    /// `"abs"` or `"rel"`.
    pub fn short_name(self) -> &'static str {
        match self {
            Metric::Absolute => "abs",
            Metric::Relative => "rel",
        }
    }

    /// Parses `abs`/`absolute` or `rel`/`relative` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Metric> {
        match name.to_ascii_lowercase().as_str() {
            "abs" | "absolute" => Some(Metric::Absolute),
            "rel" | "relative" => Some(Metric::Relative),
            _ => None,
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Absolute => "absolute error",
            Metric::Relative => "relative error",
        })
    }
}

/// The three limits of the migration checklist: an error `≤ clean` is
/// [`Verdict::Clean`], `≤ acceptable` is [`Verdict::Acceptable`],
/// `≤ investigate` is [`Verdict::Investigate`], anything larger is
/// [`Verdict::FindTheOperator`]. Defaults: 1e-5, 1e-4, 1e-3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    clean: f64,
    acceptable: f64,
    investigate: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            clean: 1e-5,
            acceptable: 1e-4,
            investigate: 1e-3,
        }
    }
}

impl Thresholds {
    /// Custom limits.
    ///
    /// # Errors
    /// [`ValidateError::InvalidArgument`] unless
    /// `0 ≤ clean ≤ acceptable ≤ investigate` and all three are finite.
    pub fn new(clean: f64, acceptable: f64, investigate: f64) -> ValidateResult<Thresholds> {
        let finite = [clean, acceptable, investigate]
            .iter()
            .all(|t| t.is_finite());
        if !finite || clean < 0.0 || clean > acceptable || acceptable > investigate {
            return Err(ValidateError::InvalidArgument(format!(
                "thresholds must be finite with 0 <= clean <= acceptable <= investigate, \
                 got {clean:e}, {acceptable:e}, {investigate:e}"
            )));
        }
        Ok(Thresholds {
            clean,
            acceptable,
            investigate,
        })
    }

    /// Largest error still [`Verdict::Clean`].
    pub fn clean(&self) -> f64 {
        self.clean
    }

    /// Largest error still [`Verdict::Acceptable`].
    pub fn acceptable(&self) -> f64 {
        self.acceptable
    }

    /// Largest error still [`Verdict::Investigate`].
    pub fn investigate(&self) -> f64 {
        self.investigate
    }

    /// `error` in `1.234e-5` style (4 significant digits), with as many more
    /// as it takes to keep it on its own side of every limit: a value over a
    /// limit never prints as the limit or below it (`1.00005e-3`, not
    /// `1.000e-3`, against 1e-3), nor one under it as the limit or above.
    /// A value equal to a limit prints as it. 0 is `0`; NaN and ±∞ as
    /// `NaN`, `inf`, `-inf`.
    ///
    /// ```
    /// use ascendcl::validate::Thresholds;
    /// let t = Thresholds::default(); // 1e-5, 1e-4, 1e-3
    /// assert_eq!(t.format_error(1.00005e-3), "1.00005e-3");
    /// assert_eq!(t.format_error(9.99996e-4), "9.99996e-4");
    /// assert_eq!(t.format_error(2.5e-4), "2.500e-4");
    /// assert_eq!(t.format_error(1e-3), "1.000e-3");
    /// ```
    pub fn format_error(&self, error: f64) -> String {
        if error == 0.0 {
            return "0".to_owned();
        }
        if !error.is_finite() {
            return format!("{error}");
        }
        let limits = [self.clean, self.acceptable, self.investigate];
        // 17 significant digits read back as the same f64: the loop ends.
        for digits in 3..=16 {
            let text = format!("{error:.digits$e}");
            let shown: f64 = text.parse().unwrap_or(error);
            if limits
                .iter()
                .all(|limit| shown.partial_cmp(limit) == error.partial_cmp(limit))
            {
                return text;
            }
        }
        format!("{error:e}")
    }

    /// The verdict for a maximum error of `error`. NaN counts as the worst.
    pub fn verdict(&self, error: f64) -> Verdict {
        if error <= self.clean {
            Verdict::Clean
        } else if error <= self.acceptable {
            Verdict::Acceptable
        } else if error <= self.investigate {
            Verdict::Investigate
        } else {
            Verdict::FindTheOperator
        }
    }
}

/// The outcome of a comparison, from best to worst (the order of `Ord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Error `≤ clean` (1e-5): the runs match.
    Clean,
    /// Error `≤ acceptable` (1e-4): normal cross-device floating-point noise.
    Acceptable,
    /// Error in `(acceptable, investigate]` (1e-4 – 1e-3): larger than
    /// expected; look for a cause.
    Investigate,
    /// Error `> investigate` (1e-3), or a NaN/Inf in one tensor but not the
    /// other: the runs diverge; find the operator that causes it.
    FindTheOperator,
}

impl Verdict {
    /// `clean`, `acceptable`, `investigate` or `find-the-operator`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Acceptable => "acceptable",
            Verdict::Investigate => "investigate",
            Verdict::FindTheOperator => "find-the-operator",
        }
    }

    /// Whether a migration can go ahead ([`Clean`](Verdict::Clean) or
    /// [`Acceptable`](Verdict::Acceptable)).
    pub fn passes(self) -> bool {
        matches!(self, Verdict::Clean | Verdict::Acceptable)
    }

    /// What the verdict means.
    pub fn meaning(self) -> &'static str {
        match self {
            Verdict::Clean => "the two runs match to within the clean threshold",
            Verdict::Acceptable => {
                "the difference is ordinary floating-point noise between devices \
                 (different kernels and accumulation orders)"
            }
            Verdict::Investigate => {
                "the difference is larger than device noise explains, but not yet a clear divergence"
            }
            Verdict::FindTheOperator => {
                "the runs diverge (large error, or NaN/Inf in one run only): \
                 some operator computes something different"
            }
        }
    }

    /// What to do next.
    pub fn next_step(self) -> &'static str {
        match self {
            Verdict::Clean => "nothing; move on to the next tensor or training step",
            Verdict::Acceptable => {
                "accept it; re-check a few steps later that the error does not grow"
            }
            Verdict::Investigate => {
                "check dtypes and mixed-precision (autocast, fp16/bf16 vs fp32) settings, \
                 seeds and nondeterministic operators; compare a few intermediate tensors"
            }
            Verdict::FindTheOperator => {
                "dump the inputs and outputs of every layer/operator in both runs and compare \
                 them in execution order; the first one over the threshold is the operator to fix"
            }
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
