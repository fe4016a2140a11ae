//! A recorded trace in numbers: calls, errors and time per call of every
//! function, and the live buffers, streams, events... over the trace.
//!
//! `cargo run --example trace_summary -- FILE [--json] [--width N]`
//!
//! FILE is a trace of AscendCL calls (`docs/trace-format.md`): one recorded
//! on a card (`scripts/record-on-card.sh`), a golden trace
//! (`ascendcl-mock/traces/`), or the mock's `ASCENDCL_MOCK_TRACE`. The logic
//! is `ascendcl_mock::summary`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match ascendcl_mock::summary::cli(&args) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::from(2)
        }
    }
}
