//! [`compare`]: error metrics between an expected and an actual tensor.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::error::{ValidateError, ValidateResult};
use super::report::{Report, ThresholdCounts, WorstElement};
use super::verdict::{Metric, Thresholds, Verdict};
use crate::tensor_file::{Tensor, Values, unravel_index};

/// Default [`CompareOptions::relative_floor`].
pub const DEFAULT_RELATIVE_FLOOR: f64 = 1e-12;

/// Default [`CompareOptions::top_k`].
pub const DEFAULT_TOP_K: usize = 10;

/// How to compare. `CompareOptions::default()` is: absolute metric, the
/// checklist thresholds (1e-5, 1e-4, 1e-3), relative floor 1e-12, the 10
/// worst elements.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// The error the verdict is computed from.
    pub metric: Metric,
    /// The verdict's limits.
    pub thresholds: Thresholds,
    /// Relative error is `|actual − expected| / max(|expected|, relative_floor)`.
    /// Must be finite and `> 0`. Raise it (e.g. to 1e-6) when many expected
    /// values are near zero and the relative metric reports noise.
    pub relative_floor: f64,
    /// How many of the worst elements to report. Any value is accepted: it
    /// is clamped to the number of elements (`usize::MAX` lists every element
    /// that differs), and finding them costs O(n log k) time and O(k) memory.
    pub top_k: usize,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            metric: Metric::default(),
            thresholds: Thresholds::default(),
            relative_floor: DEFAULT_RELATIVE_FLOOR,
            top_k: DEFAULT_TOP_K,
        }
    }
}

/// Compares `actual` against the reference `expected`.
///
/// Per element pair:
/// * both finite: absolute error `|a − e|` and relative error
///   `|a − e| / max(|e|, relative_floor)`; these feed every metric;
/// * both NaN, or the same infinity: equal (error 0), counted in
///   [`Report::matched_nonfinite`], left out of the metrics;
/// * otherwise (NaN or ±Inf in one tensor only, or opposite infinities): a
///   mismatch, counted in [`Report::nonfinite_mismatches`], with error +∞
///   in the threshold counts and the worst-element list, left out of the
///   other metrics. Any mismatch makes the verdict
///   [`Verdict::FindTheOperator`].
///
/// The tensors may have different dtypes (e.g. an `f32` reference and a
/// `bf16` run); all arithmetic is in `f64`.
///
/// # Errors
/// [`ValidateError::ShapeMismatch`] if the shapes differ (exactly: `[6]`
/// and `[2, 3]` differ), [`ValidateError::InvalidArgument`] if
/// `relative_floor` is not finite and positive.
pub fn compare(
    expected: &Tensor,
    actual: &Tensor,
    options: &CompareOptions,
) -> ValidateResult<Report> {
    if expected.shape() != actual.shape() {
        return Err(ValidateError::ShapeMismatch {
            expected: expected.shape().to_vec(),
            actual: actual.shape().to_vec(),
        });
    }
    let floor = options.relative_floor;
    if !(floor.is_finite() && floor > 0.0) {
        return Err(ValidateError::InvalidArgument(format!(
            "the relative error floor must be finite and > 0, got {floor}"
        )));
    }
    let scan = match (expected.values(), actual.values()) {
        (Values::F32(e), Values::F32(a)) => scan(e, a, options),
        (Values::F32(e), Values::F64(a)) => scan(e, a, options),
        (Values::F64(e), Values::F32(a)) => scan(e, a, options),
        (Values::F64(e), Values::F64(a)) => scan(e, a, options),
    };

    let shape = expected.shape();
    let worst = scan
        .worst
        .into_iter()
        .map(|Reverse(key)| {
            let e = expected.get(key.index).unwrap_or(f64::NAN);
            let a = actual.get(key.index).unwrap_or(f64::NAN);
            WorstElement {
                index: unravel_index(shape, key.index),
                flat_index: key.index,
                expected: e,
                actual: a,
                abs_error: key.error,
                rel_error: if key.error.is_finite() {
                    key.error / e.abs().max(floor)
                } else {
                    key.error
                },
            }
        })
        .collect();

    let n = scan.finite_pairs as f64;
    let (mean_abs_error, rmse) = if scan.finite_pairs == 0 {
        (0.0, 0.0)
    } else {
        (scan.sum_abs / n, (scan.sum_sq / n).sqrt())
    };
    let cosine_similarity = match (scan.norm_e > 0.0, scan.norm_a > 0.0) {
        (false, false) => 1.0,
        (true, true) => (scan.dot / (scan.norm_e.sqrt() * scan.norm_a.sqrt())).clamp(-1.0, 1.0),
        _ => 0.0,
    };
    let verdict_error = match options.metric {
        Metric::Absolute => scan.max_abs.0,
        Metric::Relative => scan.max_rel.0,
    };
    let verdict = if scan.mismatches > 0 {
        Verdict::FindTheOperator
    } else {
        options.thresholds.verdict(verdict_error)
    };
    let at = |(value, index): (f64, usize)| (value > 0.0).then(|| unravel_index(shape, index));
    Ok(Report {
        shape: shape.to_vec(),
        elements: expected.len(),
        max_abs_error: scan.max_abs.0,
        max_abs_error_index: at(scan.max_abs),
        max_rel_error: scan.max_rel.0,
        max_rel_error_index: at(scan.max_rel),
        mean_abs_error,
        rmse,
        cosine_similarity,
        nonfinite_mismatches: scan.mismatches,
        matched_nonfinite: scan.matched_nonfinite,
        over_threshold: scan.over,
        worst,
        metric: options.metric,
        thresholds: options.thresholds,
        relative_floor: floor,
        verdict_error,
        verdict,
    })
}

/// A candidate for the worst-element list: larger error is worse, and on
/// equal error the lower index is worse (so it is listed first).
#[derive(Debug, Clone, Copy)]
struct Key {
    error: f64,
    index: usize,
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.error
            .total_cmp(&other.error)
            .then_with(|| other.index.cmp(&self.index))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

/// Sums and extremes gathered in one pass.
#[derive(Default)]
struct Scan {
    finite_pairs: usize,
    mismatches: usize,
    matched_nonfinite: usize,
    max_abs: (f64, usize),
    max_rel: (f64, usize),
    sum_abs: f64,
    sum_sq: f64,
    dot: f64,
    norm_e: f64,
    norm_a: f64,
    over: ThresholdCounts,
    /// The worst elements in a min-heap (sorted worst first at the end).
    worst: Vec<Reverse<Key>>,
}

fn scan<E: Copy + Into<f64>, A: Copy + Into<f64>>(
    expected: &[E],
    actual: &[A],
    options: &CompareOptions,
) -> Scan {
    let pairs = || {
        expected
            .iter()
            .zip(actual)
            .map(|(&e, &a)| (e.into(), a.into()))
    };
    // Cosine similarity is computed on values divided by the largest finite
    // magnitude, so that squares of large f64 values cannot overflow.
    let scale = pairs()
        .filter(|(e, a): &(f64, f64)| e.is_finite() && a.is_finite())
        .fold(0.0f64, |m, (e, a)| m.max(e.abs()).max(a.abs()));
    let scale = if scale > 0.0 { scale } else { 1.0 };

    let thresholds = options.thresholds;
    // A bounded min-heap of the k worst so far: O(n log k), never O(n k);
    // k beyond the element count means "all", so memory stays O(n).
    let k = options.top_k.min(expected.len());
    let mut heap: BinaryHeap<Reverse<Key>> = BinaryHeap::with_capacity(k);
    let mut s = Scan::default();
    for (index, (e, a)) in pairs().enumerate() {
        let (abs, rel) = if e.is_finite() && a.is_finite() {
            let abs = (a - e).abs();
            let rel = abs / e.abs().max(options.relative_floor);
            s.finite_pairs += 1;
            s.sum_abs += abs;
            s.sum_sq += abs * abs;
            if abs > s.max_abs.0 {
                s.max_abs = (abs, index);
            }
            if rel > s.max_rel.0 {
                s.max_rel = (rel, index);
            }
            let (es, as_) = (e / scale, a / scale);
            s.dot += es * as_;
            s.norm_e += es * es;
            s.norm_a += as_ * as_;
            (abs, rel)
        } else if (e.is_nan() && a.is_nan()) || e == a {
            s.matched_nonfinite += 1;
            continue;
        } else {
            s.mismatches += 1;
            (f64::INFINITY, f64::INFINITY)
        };
        let chosen = match options.metric {
            Metric::Absolute => abs,
            Metric::Relative => rel,
        };
        s.over.clean += usize::from(chosen > thresholds.clean());
        s.over.acceptable += usize::from(chosen > thresholds.acceptable());
        s.over.investigate += usize::from(chosen > thresholds.investigate());
        if abs > 0.0 && k > 0 {
            let key = Key { error: abs, index };
            if heap.len() < k {
                heap.push(Reverse(key));
            } else if let Some(mut least) = heap.peek_mut() {
                if key > least.0 {
                    *least = Reverse(key); // sifts down once: O(log k)
                }
            }
        }
    }
    s.worst = heap.into_sorted_vec();
    s
}
