//! `ascendcl trace summary FILE [--json] [--width N]`: a recorded trace in
//! numbers, from [`ascendcl_mock::summary`].
//!
//! FILE is a trace of AscendCL calls: one recorded on a card (`ascendcl
//! trace record`), a golden trace (`ascendcl-mock/traces/` of the
//! repository), or the mock's `ASCENDCL_MOCK_TRACE`.

use std::path::PathBuf;

use ascendcl_mock::summary::summarize;
use ascendcl_mock::trace::Trace;
use clap::Args;

use crate::Output;

const EXIT_HELP: &str = "\
Exit status:
  0  the summary was printed
  2  usage error, or a file that is not a readable trace";

/// Summarize a trace of AscendCL calls: calls, failures and time per function, live resources.
///
/// Prints, for every function, its calls, failures and the total, mean, p50
/// and p99 of its duration; the failures by return code; the live buffers,
/// streams, events, contexts… over the trace (peak, where the peak was first
/// reached, the end, and a sparkline); per aclnn operator, the calls and the
/// total and mean host time of each phase, the workspace bytes and the
/// failures; and per stream, the operators launched on it and the device time
/// measured between events recorded on it (where the trace has any).
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct SummaryArgs {
    /// The trace (JSON lines, docs/trace-format.md).
    pub file: PathBuf,
    /// Print one JSON object (resources with every change) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Width of the sparklines, in columns.
    #[arg(long, value_name = "N", default_value_t = 48, value_parser = clap::value_parser!(u16).range(1..))]
    pub width: u16,
}

/// Runs `ascendcl trace summary`.
pub fn run(args: &SummaryArgs) -> Output {
    let name = args.file.display();
    match Trace::read(&args.file) {
        Ok(trace) => {
            let summary = summarize(&trace);
            let stdout = if args.json {
                summary.to_json() + "\n"
            } else {
                format!("trace: {name}\n{}", summary.to_text(args.width.into()))
            };
            Output {
                stdout,
                stderr: String::new(),
                exit_code: crate::EXIT_OK,
            }
        }
        Err(error) => Output {
            stdout: String::new(),
            stderr: format!("error: {name}: {error}\n"),
            exit_code: crate::EXIT_USAGE,
        },
    }
}
