//! The `validate` command line, as a function: the `validate` example is a
//! thin wrapper around [`run`], and tests call [`run`] directly.
//!
//! ```text
//! validate EXPECTED_DIR ACTUAL_DIR [--json]   (every .npy by name, layer by layer)
//! validate EXPECTED ACTUAL [--dtype f32|f16|bf16|f64] [--shape 2,3,4]
//!          [--top 10] [--metric abs|rel] [--rel-floor 1e-12]
//!          [--thresholds 1e-5,1e-4,1e-3] [--json]
//! ```
//!
//! Exit codes: [`EXIT_PASS`] (0) for clean/acceptable, [`EXIT_FAIL`] (1) for
//! investigate/find-the-operator, [`EXIT_ERROR`] (2) for usage errors,
//! unreadable files and shape mismatches.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::compare::{CompareOptions, DEFAULT_RELATIVE_FLOOR, DEFAULT_TOP_K, compare};
use super::npy::{is_npy_file, read_npy};
use super::raw::read_raw;
use super::report::json_string;
use super::tensor::{DType, Tensor};
use super::verdict::{Metric, Thresholds};

/// Exit code when the verdict is clean or acceptable.
pub const EXIT_PASS: u8 = 0;
/// Exit code when the verdict is investigate or find-the-operator.
pub const EXIT_FAIL: u8 = 1;
/// Exit code for usage errors, unreadable files and shape mismatches.
pub const EXIT_ERROR: u8 = 2;

/// The usage text.
pub const USAGE: &str = "\
usage: validate EXPECTED ACTUAL [options]

Compares two saved tensors (e.g. a GPU run and an NPU run) and gives a verdict
from the migration checklist: max error <= 1e-5 clean, <= 1e-4 acceptable,
<= 1e-3 investigate, above (or NaN/Inf in one run only) find the operator.

EXPECTED and ACTUAL are .npy files (detected by the .npy extension or the
\\x93NUMPY magic) or raw little-endian dumps, which need --dtype and --shape.
When both are directories, every .npy file of EXPECTED is compared with the
file of the same name in ACTUAL: one verdict line each, and the first file
(in name order: number your layers) that drifts is named.

options:
  --dtype f32|f16|bf16|f64     element type of raw files
  --shape 2,3,4                shape of raw files (\"\" for a scalar)
  --top N                      how many worst elements to list (default 10)
  --metric abs|rel             error the verdict uses (default abs)
  --rel-floor X                relative error = |a-e| / max(|e|, X) (default 1e-12)
  --thresholds C,A,I           clean, acceptable, investigate limits
                               (default 1e-5,1e-4,1e-3)
  --json                       print one JSON object instead of a table
  -h, --help                   print this text

exit status: 0 clean/acceptable, 1 investigate/find-the-operator,
             2 usage error, unreadable file or shape mismatch
";

/// What [`run`] printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliOutput {
    /// [`EXIT_PASS`], [`EXIT_FAIL`] or [`EXIT_ERROR`].
    pub exit_code: u8,
    /// The table, the JSON object, or the usage text for `--help`.
    pub stdout: String,
    /// Error messages (and the usage text for usage errors).
    pub stderr: String,
}

/// Runs the command line on `args` (without the program name).
pub fn run<I, T>(args: I) -> CliOutput
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let json = args.iter().any(|a| a == "--json");
    let parsed = match parse(args) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return output(EXIT_PASS, USAGE.to_owned(), String::new()),
        Err(message) => {
            let stderr = format!("error: {message}\n\n{USAGE}");
            return failure(json, &message, stderr);
        }
    };
    match execute(&parsed) {
        Ok(out) => out,
        Err(message) => failure(json, &message, format!("error: {message}\n")),
    }
}

fn output(exit_code: u8, stdout: String, stderr: String) -> CliOutput {
    CliOutput {
        exit_code,
        stdout,
        stderr,
    }
}

/// An [`EXIT_ERROR`] outcome; with `--json`, stdout also gets `{"error": ...}`.
fn failure(json: bool, message: &str, stderr: String) -> CliOutput {
    let stdout = if json {
        format!(
            "{{\"error\":{},\"exit_code\":{EXIT_ERROR}}}\n",
            json_string(message)
        )
    } else {
        String::new()
    };
    output(EXIT_ERROR, stdout, stderr)
}

/// Parsed arguments.
#[derive(Debug)]
struct Args {
    expected: PathBuf,
    actual: PathBuf,
    dtype: Option<DType>,
    shape: Option<Vec<usize>>,
    options: CompareOptions,
    json: bool,
}

/// `Ok(None)` for `--help`.
fn parse(args: Vec<OsString>) -> Result<Option<Args>, String> {
    if args.is_empty() {
        return Err("EXPECTED and ACTUAL are required".to_owned());
    }
    let mut positional = Vec::new();
    let mut dtype = None;
    let mut shape = None;
    let mut options = CompareOptions::default();
    let mut json = false;
    let mut only_positional = false;
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let text = arg.to_str().unwrap_or("");
        if only_positional || !text.starts_with('-') || text == "-" {
            positional.push(PathBuf::from(arg));
            continue;
        }
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (text, None),
        };
        match name {
            "--" => only_positional = true,
            "-h" | "--help" => return Ok(None),
            "--json" => json = true,
            "--dtype" | "--shape" | "--top" | "--metric" | "--rel-floor" | "--thresholds" => {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .and_then(|v| v.into_string().ok())
                        .ok_or_else(|| format!("{name} needs a value"))?,
                };
                let bad = |what: &str| format!("{name} {value:?}: {what}");
                match name {
                    "--dtype" => {
                        dtype = Some(
                            DType::from_name(&value)
                                .ok_or_else(|| bad("expected f32, f16, bf16 or f64"))?,
                        )
                    }
                    "--shape" => {
                        shape = Some(
                            parse_shape(&value).ok_or_else(|| bad("expected sizes like 2,3,4"))?,
                        )
                    }
                    "--top" => {
                        options.top_k = value.parse().map_err(|_| bad("expected a count"))?
                    }
                    "--metric" => {
                        options.metric =
                            Metric::from_name(&value).ok_or_else(|| bad("expected abs or rel"))?
                    }
                    "--rel-floor" => {
                        options.relative_floor = value
                            .parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite() && *x > 0.0)
                            .ok_or_else(|| bad("expected a positive number"))?
                    }
                    _ => {
                        let limits: Option<Vec<f64>> =
                            value.split(',').map(|x| x.trim().parse().ok()).collect();
                        options.thresholds = match limits.as_deref() {
                            Some(&[c, a, i]) => {
                                Thresholds::new(c, a, i).map_err(|e| bad(&e.to_string()))?
                            }
                            _ => return Err(bad("expected three numbers like 1e-5,1e-4,1e-3")),
                        };
                    }
                }
            }
            _ => return Err(format!("unknown option {text:?}")),
        }
    }
    let [expected, actual] = <[PathBuf; 2]>::try_from(positional)
        .map_err(|p| format!("expected two files (EXPECTED ACTUAL), got {}", p.len()))?;
    Ok(Some(Args {
        expected,
        actual,
        dtype,
        shape,
        options,
        json,
    }))
}

/// `2,3,4` (spaces, `[..]`/`(..)` and a trailing comma allowed); empty is a scalar.
fn parse_shape(text: &str) -> Option<Vec<usize>> {
    let inner = text
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')']);
    inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect()
}

/// How an input was read.
struct Loaded {
    tensor: Tensor,
    format: &'static str,
}

fn execute(args: &Args) -> Result<CliOutput, String> {
    if args.expected.is_dir() || args.actual.is_dir() {
        if !(args.expected.is_dir() && args.actual.is_dir()) {
            return Err("compare a directory with a directory, or a file with a file".to_owned());
        }
        let (exit_code, stdout) =
            super::dir::compare_dirs(&args.expected, &args.actual, &args.options, args.json)?;
        return Ok(output(exit_code, stdout, String::new()));
    }
    let expected_is_npy = is_npy_file(&args.expected).map_err(|e| e.to_string())?;
    let actual_is_npy = is_npy_file(&args.actual).map_err(|e| e.to_string())?;
    if expected_is_npy && actual_is_npy && (args.dtype.is_some() || args.shape.is_some()) {
        return Err("--dtype and --shape describe raw files, but both inputs are .npy".to_owned());
    }
    let expected = load(&args.expected, expected_is_npy, args)?;
    let actual = load(&args.actual, actual_is_npy, args)?;
    let report =
        compare(&expected.tensor, &actual.tensor, &args.options).map_err(|e| e.to_string())?;
    let exit_code = if report.verdict.passes() {
        EXIT_PASS
    } else {
        EXIT_FAIL
    };

    let describe = |path: &Path, l: &Loaded| {
        (
            path.to_string_lossy().into_owned(),
            format!("{}, {}", l.format, l.tensor.dtype()),
        )
    };
    let (e_path, e_desc) = describe(&args.expected, &expected);
    let (a_path, a_desc) = describe(&args.actual, &actual);
    let stdout = if args.json {
        let file = |path: &str, l: &Loaded| {
            format!(
                "{{\"path\":{},\"format\":{},\"dtype\":{}}}",
                json_string(path),
                json_string(l.format),
                json_string(l.tensor.dtype().name())
            )
        };
        format!(
            "{{\"expected\":{},\"actual\":{},{},\"exit_code\":{exit_code}}}\n",
            file(&e_path, &expected),
            file(&a_path, &actual),
            report.json_fields()
        )
    } else {
        format!("expected: {e_path}  ({e_desc})\nactual:   {a_path}  ({a_desc})\n\n{report}\n")
    };
    Ok(output(exit_code, stdout, String::new()))
}

fn load(path: &Path, is_npy: bool, args: &Args) -> Result<Loaded, String> {
    if is_npy {
        let tensor = read_npy(path).map_err(|e| e.to_string())?;
        return Ok(Loaded {
            tensor,
            format: "npy",
        });
    }
    match (args.dtype, args.shape.as_deref()) {
        (Some(dtype), Some(shape)) => {
            let tensor = read_raw(path, dtype, shape).map_err(|e| e.to_string())?;
            Ok(Loaded {
                tensor,
                format: "raw",
            })
        }
        _ => Err(format!(
            "{} is not a .npy file, so it is read as raw little-endian data: \
             give its element type and shape with --dtype and --shape",
            path.display()
        )),
    }
}

/// Keeps the defaults quoted in [`USAGE`] honest.
const _: () = assert!(DEFAULT_TOP_K == 10 && DEFAULT_RELATIVE_FLOOR == 1e-12);
