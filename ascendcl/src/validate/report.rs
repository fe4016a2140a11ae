//! [`Report`]: the result of [`compare`](super::compare), as data, as a
//! human-readable table (`Display`) and as JSON ([`Report::to_json`]).

use std::fmt::{self, Write as _};

use super::verdict::{Metric, Thresholds, Verdict};

/// How many elements exceed each threshold, by the chosen metric (NaN/Inf
/// mismatches exceed all three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThresholdCounts {
    /// Elements with error `> thresholds.clean()`.
    pub clean: usize,
    /// Elements with error `> thresholds.acceptable()`.
    pub acceptable: usize,
    /// Elements with error `> thresholds.investigate()`.
    pub investigate: usize,
}

/// One of the worst elements.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstElement {
    /// Multi-dimensional index (C order), one entry per dimension.
    pub index: Vec<usize>,
    /// Flat (C-order) position.
    pub flat_index: usize,
    /// The reference value.
    pub expected: f64,
    /// The value under test.
    pub actual: f64,
    /// `|actual − expected|` (+∞ for a NaN/Inf mismatch).
    pub abs_error: f64,
    /// `abs_error / max(|expected|, relative_floor)` (+∞ for a mismatch).
    pub rel_error: f64,
}

/// The result of comparing two tensors; see [`compare`](super::compare) for
/// how NaN and Inf are counted. Metrics cover the pairs where both values
/// are finite; for zero such pairs they are 0 (and the cosine similarity 1).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// The (common) shape.
    pub shape: Vec<usize>,
    /// Number of elements.
    pub elements: usize,
    /// Largest `|actual − expected|`.
    pub max_abs_error: f64,
    /// Where the largest absolute error first occurs (`None` if it is 0).
    pub max_abs_error_index: Option<Vec<usize>>,
    /// Largest `|actual − expected| / max(|expected|, relative_floor)`.
    pub max_rel_error: f64,
    /// Where the largest relative error first occurs (`None` if it is 0).
    pub max_rel_error_index: Option<Vec<usize>>,
    /// Mean of `|actual − expected|`.
    pub mean_abs_error: f64,
    /// Root mean square of `actual − expected`.
    pub rmse: f64,
    /// `Σ e·a / (‖e‖ ‖a‖)`; 1 if both tensors are all zeros, 0 if only one is.
    pub cosine_similarity: f64,
    /// Elements where NaN or ±Inf appears in one tensor only (or the
    /// infinities have opposite signs).
    pub nonfinite_mismatches: usize,
    /// Elements that are NaN in both tensors, or the same infinity: equal.
    pub matched_nonfinite: usize,
    /// Elements over each threshold, by [`metric`](Report::metric).
    pub over_threshold: ThresholdCounts,
    /// The worst elements by absolute error (ties: lower flat index first),
    /// worst first; at most `top_k`, and only elements that differ.
    pub worst: Vec<WorstElement>,
    /// The metric the verdict was computed from.
    pub metric: Metric,
    /// The thresholds the verdict was computed with.
    pub thresholds: Thresholds,
    /// The relative error floor used.
    pub relative_floor: f64,
    /// The value the verdict was computed from: the maximum error by
    /// [`metric`](Report::metric).
    pub verdict_error: f64,
    /// The verdict.
    pub verdict: Verdict,
}

impl Report {
    /// Why the verdict is what it is, in one sentence.
    pub fn reason(&self) -> String {
        if self.nonfinite_mismatches > 0 {
            return format!(
                "{} element(s) are NaN/Inf in one tensor but not the other",
                self.nonfinite_mismatches
            );
        }
        let t = &self.thresholds;
        let (clean, acceptable, investigate) = (t.clean(), t.acceptable(), t.investigate());
        let name = format!(
            "max {} error {}",
            self.metric.short_name(),
            t.format_error(self.verdict_error)
        );
        match self.verdict {
            Verdict::Clean => format!("{name} <= {clean:e}"),
            Verdict::Acceptable => format!("{name} is in ({clean:e}, {acceptable:e}]"),
            Verdict::Investigate => format!("{name} is in ({acceptable:e}, {investigate:e}]"),
            Verdict::FindTheOperator => format!("{name} > {investigate:e}"),
        }
    }

    /// The report as one JSON object (no trailing newline). Non-finite
    /// numbers are written as the strings `"NaN"`, `"inf"`, `"-inf"`.
    pub fn to_json(&self) -> String {
        format!("{{{}}}", self.json_fields())
    }

    /// The members of [`to_json`](Report::to_json)'s object, without braces.
    pub(crate) fn json_fields(&self) -> String {
        let t = &self.thresholds;
        let index = |i: &Option<Vec<usize>>| i.as_deref().map_or("null".to_owned(), json_index);
        let mut out = format!(
            "\"shape\":{},\"elements\":{},\"metric\":{},\"relative_floor\":{},\
             \"thresholds\":{{\"clean\":{},\"acceptable\":{},\"investigate\":{}}},\
             \"max_abs_error\":{},\"max_abs_error_index\":{},\
             \"max_rel_error\":{},\"max_rel_error_index\":{},\
             \"mean_abs_error\":{},\"rmse\":{},\"cosine_similarity\":{},\
             \"nonfinite_mismatches\":{},\"matched_nonfinite\":{},\
             \"over_clean\":{},\"over_acceptable\":{},\"over_investigate\":{},\"worst\":[",
            json_index(&self.shape),
            self.elements,
            json_string(self.metric.short_name()),
            json_number(self.relative_floor),
            json_number(t.clean()),
            json_number(t.acceptable()),
            json_number(t.investigate()),
            json_number(self.max_abs_error),
            index(&self.max_abs_error_index),
            json_number(self.max_rel_error),
            index(&self.max_rel_error_index),
            json_number(self.mean_abs_error),
            json_number(self.rmse),
            json_number(self.cosine_similarity),
            self.nonfinite_mismatches,
            self.matched_nonfinite,
            self.over_threshold.clean,
            self.over_threshold.acceptable,
            self.over_threshold.investigate,
        );
        for (i, w) in self.worst.iter().enumerate() {
            let _ = write!(
                out,
                "{}{{\"index\":{},\"flat_index\":{},\"expected\":{},\"actual\":{},\"abs_error\":{},\"rel_error\":{}}}",
                if i == 0 { "" } else { "," },
                json_index(&w.index),
                w.flat_index,
                json_number(w.expected),
                json_number(w.actual),
                json_number(w.abs_error),
                json_number(w.rel_error),
            );
        }
        let _ = write!(
            out,
            "],\"verdict\":{},\"verdict_error\":{},\"passes\":{},\"reason\":{},\"meaning\":{},\"next_step\":{}",
            json_string(self.verdict.as_str()),
            json_number(self.verdict_error),
            self.verdict.passes(),
            json_string(&self.reason()),
            json_string(self.verdict.meaning()),
            json_string(self.verdict.next_step()),
        );
        out
    }
}

impl fmt::Display for Report {
    /// A table of the metrics, the worst elements and the verdict.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at =
            |i: &Option<Vec<usize>>| i.as_ref().map_or(String::new(), |i| format!("  at {i:?}"));
        let t = &self.thresholds;
        // errors keep enough digits to stay on their side of every limit
        let sci = |x: f64| t.format_error(x);
        let by = self.metric.short_name();
        const W: usize = 28;
        let shape = &self.shape;
        writeln!(f, "{:<W$}{} (shape {shape:?})", "elements", self.elements)?;
        let max_abs = sci(self.max_abs_error);
        let at_abs = at(&self.max_abs_error_index);
        writeln!(f, "{:<W$}{max_abs}{at_abs}", "max abs error")?;
        let max_rel = sci(self.max_rel_error);
        let at_rel = at(&self.max_rel_error_index);
        let floor = self.relative_floor;
        writeln!(
            f,
            "{:<W$}{max_rel}{at_rel}  (floor {floor:e})",
            "max rel error"
        )?;
        writeln!(f, "{:<W$}{}", "mean abs error", sci(self.mean_abs_error))?;
        writeln!(f, "{:<W$}{}", "rmse", sci(self.rmse))?;
        writeln!(
            f,
            "{:<W$}{:.10}",
            "cosine similarity", self.cosine_similarity
        )?;
        let (mismatches, matched) = (self.nonfinite_mismatches, self.matched_nonfinite);
        writeln!(
            f,
            "{:<W$}{mismatches}  (NaN/Inf equal in both: {matched})",
            "NaN/Inf mismatches"
        )?;
        let over = &self.over_threshold;
        for (label, limit, count) in [
            ("clean", t.clean(), over.clean),
            ("acceptable", t.acceptable(), over.acceptable),
            ("investigate", t.investigate(), over.investigate),
        ] {
            let head = format!("over {limit:e} ({label})");
            writeln!(f, "{head:<W$}{count} of {} by {by} error", self.elements)?;
        }
        writeln!(f)?;
        if self.worst.is_empty() {
            if self.max_abs_error > 0.0 || self.nonfinite_mismatches > 0 {
                writeln!(f, "worst elements: none requested")?;
            } else {
                writeln!(f, "no element differs")?;
            }
        } else {
            let indices: Vec<String> = self
                .worst
                .iter()
                .map(|w| format!("{:?}", w.index))
                .collect();
            let width = indices.iter().map(String::len).max().unwrap_or(0).max(5);
            writeln!(
                f,
                "worst {} element(s) by absolute error:",
                self.worst.len()
            )?;
            writeln!(
                f,
                "  {:>4}  {:<width$}  {:>16}  {:>16}  {:>10}  {:>10}",
                "rank", "index", "expected", "actual", "abs error", "rel error"
            )?;
            for (rank, (w, index)) in self.worst.iter().zip(&indices).enumerate() {
                writeln!(
                    f,
                    "  {:>4}  {index:<width$}  {:>16}  {:>16}  {:>10}  {:>10}",
                    rank + 1,
                    value(w.expected),
                    value(w.actual),
                    sci(w.abs_error),
                    sci(w.rel_error)
                )?;
            }
        }
        writeln!(f)?;
        writeln!(
            f,
            "verdict: {} ({})",
            self.verdict.as_str().to_uppercase(),
            self.reason()
        )?;
        writeln!(f, "  meaning: {}", self.verdict.meaning())?;
        write!(f, "  next:    {}", self.verdict.next_step())
    }
}

/// A tensor value with 9 significant digits (enough to tell `f32`s apart).
fn value(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.8e}")
    } else {
        format!("{x}")
    }
}

/// A JSON number; non-finite values become the strings `"NaN"`, `"inf"`, `"-inf"`.
pub(crate) fn json_number(x: f64) -> String {
    if x.is_nan() {
        "\"NaN\"".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "\"inf\"" } else { "\"-inf\"" }.to_owned()
    } else {
        // `Debug` prints the shortest representation that reads back
        // exactly, and its forms (`0.1`, `1e-5`, `3.0`) are valid JSON.
        format!("{x:?}")
    }
}

/// A JSON array of indices or dimensions.
pub(crate) fn json_index(index: &[usize]) -> String {
    let items: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(","))
}

/// A JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
