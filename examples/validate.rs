//! Compare two saved tensors (a GPU run and an NPU run) and print a verdict
//! from the migration checklist.
//!
//! ```text
//! cargo run --example validate -- EXPECTED ACTUAL [--dtype f32|f16|bf16|f64]
//!     [--shape 2,3,4] [--top 10] [--metric abs|rel] [--rel-floor 1e-12]
//!     [--thresholds 1e-5,1e-4,1e-3] [--json]
//! ```
//!
//! `.npy` files are recognized by extension or magic; raw little-endian dumps
//! need `--dtype` and `--shape`. Exit status: 0 clean/acceptable,
//! 1 investigate/find-the-operator, 2 usage error, unreadable file or shape
//! mismatch. Pure Rust: no device or AscendCL library is needed. The logic
//! lives in `ascendcl::validate::cli`.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let output = ascendcl::validate::cli::run(std::env::args_os().skip(1));
    // A closed pipe (`| head`) is not worth a panic.
    let _ = std::io::stdout().write_all(output.stdout.as_bytes());
    let _ = std::io::stderr().write_all(output.stderr.as_bytes());
    ExitCode::from(output.exit_code)
}
