//! The command line of `cargo run --example doctor [-- --json] [-- --no-mock]`.

use std::ffi::OsString;

use super::{EXIT_OK, EXIT_USAGE, Report, gather};

/// The usage text.
pub const USAGE: &str = "usage: doctor [--json] [--no-mock]
  --json      print one JSON object instead of text
  --no-mock   do not fall back to the mock when no AscendCL library is found
              (a missing library is then always a problem)
exit status: 0 no problem found, 1 problems found, 2 usage error";

/// What the command line prints and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status: [`EXIT_OK`], [`EXIT_PROBLEMS`](super::EXIT_PROBLEMS) or [`EXIT_USAGE`].
    pub exit_code: u8,
}

/// Runs the doctor with command-line arguments (without the program name).
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let (mut json, mut fallback) = (false, true);
    for arg in args {
        let arg: OsString = arg.into();
        match arg.to_str() {
            Some("--json") => json = true,
            Some("--no-mock") => fallback = false,
            Some("-h" | "--help") => {
                return Output {
                    stdout: format!("{USAGE}\n"),
                    stderr: String::new(),
                    exit_code: EXIT_OK,
                };
            }
            _ => {
                return Output {
                    stdout: String::new(),
                    stderr: format!("doctor: unknown argument {arg:?}\n{USAGE}\n"),
                    exit_code: EXIT_USAGE,
                };
            }
        }
    }
    let report = Report::new(gather(fallback));
    let stdout = if json {
        format!("{}\n", report.to_json())
    } else {
        report.to_text()
    };
    Output {
        stdout,
        stderr: String::new(),
        exit_code: report.exit_code(),
    }
}
