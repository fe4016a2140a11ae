//! Running `ascendcl validate`: reading both inputs, comparing them with
//! [`ascendcl::validate::compare`], and printing the table or the JSON
//! object. Directories go to [`super::dir`].

use std::path::Path;

use ascendcl::tensor_file::{Tensor, is_npy_file, read_npy, read_raw};
use ascendcl::validate::compare;

use super::{EXIT_ERROR, EXIT_FAIL, EXIT_PASS, ValidateArgs};
use crate::Output;
use crate::json::quote as json_string;

/// Runs `ascendcl validate` on parsed arguments.
pub fn run(args: &ValidateArgs) -> Output {
    match execute(args) {
        Ok(out) => out,
        Err(message) => failure(args.json, &message, format!("error: {message}\n")),
    }
}

fn output(exit_code: u8, stdout: String, stderr: String) -> Output {
    Output {
        exit_code,
        stdout,
        stderr,
    }
}

/// An [`EXIT_ERROR`] outcome; with `--json`, stdout also gets `{"error": ...}`.
fn failure(json: bool, message: &str, stderr: String) -> Output {
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

/// How an input was read.
struct Loaded {
    tensor: Tensor,
    format: &'static str,
}

fn execute(args: &ValidateArgs) -> Result<Output, String> {
    if args.expected.is_dir() || args.actual.is_dir() {
        if !(args.expected.is_dir() && args.actual.is_dir()) {
            return Err("compare a directory with a directory, or a file with a file".to_owned());
        }
        let (exit_code, stdout) =
            super::dir::compare_dirs(&args.expected, &args.actual, &args.options(), args.json)?;
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
        compare(&expected.tensor, &actual.tensor, &args.options()).map_err(|e| e.to_string())?;
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
        // The report's own object, with the two files first and the exit
        // status last.
        let report = report.to_json();
        let fields = report
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .unwrap_or(&report);
        format!(
            "{{\"expected\":{},\"actual\":{},{fields},\"exit_code\":{exit_code}}}\n",
            file(&e_path, &expected),
            file(&a_path, &actual),
        )
    } else {
        format!("expected: {e_path}  ({e_desc})\nactual:   {a_path}  ({a_desc})\n\n{report}\n")
    };
    Ok(output(exit_code, stdout, String::new()))
}

fn load(path: &Path, is_npy: bool, args: &ValidateArgs) -> Result<Loaded, String> {
    if is_npy {
        let tensor = read_npy(path).map_err(|e| e.to_string())?;
        return Ok(Loaded {
            tensor,
            format: "npy",
        });
    }
    match (args.dtype, args.shape.as_ref().map(|s| &s.0[..])) {
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
