//! The command line of `ascendcl doctor [--json] [--mock]`.

use clap::Args;

use super::{EXIT_OK, EXIT_PROBLEMS, Report, gather};
use crate::Output;

/// The exit status table of `ascendcl doctor --help`.
const EXIT_HELP: &str = "\
Exit status:
  0  no problem found (running on the mock with --mock is not one)
  1  problems found: each is printed with what to do
  2  usage error";

const _: () = assert!(EXIT_OK == crate::EXIT_OK && EXIT_PROBLEMS == crate::EXIT_FINDINGS);

/// What AscendCL setup this machine has, and what is wrong with it.
///
/// Prints the library loaded (and from where), the runtime's versions, SoC,
/// run mode, devices and their HBM, the CANN roots searched and their
/// layout, the environment variables that matter and the driver library;
/// then names every problem it sees, with what to do.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct DoctorArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Examine the mock bundled into this binary instead of this machine's
    /// AscendCL library (the CANN roots, driver and device nodes are still
    /// this machine's).
    #[arg(long)]
    pub mock: bool,
}

/// Runs the doctor.
pub fn run(args: &DoctorArgs) -> Output {
    let report = Report::new(gather(args.mock));
    let stdout = if args.json {
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
