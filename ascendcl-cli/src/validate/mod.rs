//! `ascendcl validate`: compare two saved tensors (a GPU run and an NPU run)
//! and give a verdict from the migration checklist, with
//! [`ascendcl::validate`] doing the reading and the comparison.
//!
//! ```text
//! ascendcl validate EXPECTED_DIR ACTUAL_DIR [--json]   (every .npy by name, layer by layer)
//! ascendcl validate EXPECTED ACTUAL [--dtype f32|f16|bf16|f64] [--shape 2,3,4]
//!          [--top 10] [--metric abs|rel] [--rel-floor 1e-12]
//!          [--thresholds 1e-5,1e-4,1e-3] [--json]
//! ```
//!
//! Exit status: [`EXIT_PASS`] (0) for clean/acceptable, [`EXIT_FAIL`] (1) for
//! investigate/find-the-operator, [`EXIT_ERROR`] (2) for usage errors,
//! unreadable files and shape mismatches. Pure Rust: no device or AscendCL
//! library is needed.

mod cli;
mod dir;

use std::path::PathBuf;

use ascendcl::validate::{
    CompareOptions, DEFAULT_RELATIVE_FLOOR, DEFAULT_TOP_K, DType, Metric, Thresholds,
};
use clap::Args;

pub use cli::run;

/// Exit status when the verdict is clean or acceptable.
pub const EXIT_PASS: u8 = crate::EXIT_OK;
/// Exit status when the verdict is investigate or find-the-operator.
pub const EXIT_FAIL: u8 = crate::EXIT_FINDINGS;
/// Exit status for usage errors, unreadable files and shape mismatches.
pub const EXIT_ERROR: u8 = crate::EXIT_USAGE;

const EXIT_HELP: &str = "\
Verdict (on the --metric error): <= 1e-5 clean, <= 1e-4 acceptable, <= 1e-3 investigate,
above (or NaN/Inf in one run only) find the operator.

Exit status:
  0  clean or acceptable (every tensor, for directories)
  1  investigate or find-the-operator
  2  usage error, unreadable file or shape mismatch";

/// Compare two saved tensors (or two directories of .npy files): a verdict from the migration checklist.
///
/// EXPECTED and ACTUAL are .npy files (detected by the .npy extension or the
/// \x93NUMPY magic) or raw little-endian dumps, which need --dtype and
/// --shape. When both are directories, every .npy file of EXPECTED is
/// compared with the file of the same name in ACTUAL: one verdict line each,
/// and the first file (in name order: number your layers) that drifts is
/// named.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct ValidateArgs {
    /// The reference tensor (e.g. the GPU run), or a directory of .npy files.
    pub expected: PathBuf,
    /// The tensor to check (e.g. the NPU run), or a directory of .npy files.
    pub actual: PathBuf,
    /// Element type of raw files: f32, f16, bf16 or f64.
    #[arg(long, value_name = "f32|f16|bf16|f64", value_parser = parse_dtype)]
    pub dtype: Option<DType>,
    /// Shape of raw files, like 2,3,4 ("" for a scalar).
    #[arg(long, value_name = "2,3,4", value_parser = parse_shape)]
    pub shape: Option<Shape>,
    /// How many of the worst elements to list (at most the element count).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TOP_K)]
    pub top: usize,
    /// The error the verdict uses: abs or rel.
    #[arg(long, value_name = "abs|rel", default_value = "abs", value_parser = parse_metric)]
    pub metric: Metric,
    /// Relative error = |a-e| / max(|e|, X).
    #[arg(long, value_name = "X", default_value_t = DEFAULT_RELATIVE_FLOOR, value_parser = parse_floor)]
    pub rel_floor: f64,
    /// Clean, acceptable and investigate limits, like 1e-5,1e-4,1e-3.
    #[arg(long, value_name = "C,A,I", value_parser = parse_thresholds)]
    pub thresholds: Option<Thresholds>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The shape of a raw file (a newtype: clap reads a `Vec` as many values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape(pub Vec<usize>);

impl ValidateArgs {
    /// The comparison options these arguments ask for.
    pub fn options(&self) -> CompareOptions {
        CompareOptions {
            metric: self.metric,
            thresholds: self.thresholds.unwrap_or_default(),
            relative_floor: self.rel_floor,
            top_k: self.top,
        }
    }
}

fn parse_dtype(value: &str) -> Result<DType, String> {
    DType::from_name(value).ok_or_else(|| "expected f32, f16, bf16 or f64".to_owned())
}

/// `2,3,4` (spaces, `[..]`/`(..)` and a trailing comma allowed); empty is a scalar.
fn parse_shape(text: &str) -> Result<Shape, String> {
    let inner = text
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')']);
    inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect::<Option<Vec<usize>>>()
        .map(Shape)
        .ok_or_else(|| "expected sizes like 2,3,4".to_owned())
}

fn parse_metric(value: &str) -> Result<Metric, String> {
    Metric::from_name(value).ok_or_else(|| "expected abs or rel".to_owned())
}

fn parse_floor(value: &str) -> Result<f64, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| "expected a positive number".to_owned())
}

fn parse_thresholds(value: &str) -> Result<Thresholds, String> {
    let limits: Option<Vec<f64>> = value.split(',').map(|x| x.trim().parse().ok()).collect();
    match limits.as_deref() {
        Some(&[c, a, i]) => Thresholds::new(c, a, i).map_err(|e| e.to_string()),
        _ => Err("expected three numbers like 1e-5,1e-4,1e-3".to_owned()),
    }
}
