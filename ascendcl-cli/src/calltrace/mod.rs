//! `ascendcl trace`: traces of AscendCL calls (format: `docs/trace-format.md`
//! of the repository, version 1; read and written by [`ascendcl_mock::trace`]).
//!
//! * [`summary`]: a trace in numbers — calls, errors and time per function,
//!   live buffers, streams, events… over the trace;
//! * [`record`]: runs a command with the recording shim in front of the real
//!   library, so every AscendCL call it makes lands in a trace;
//! * [`replay`](mod@replay): runs a command on the bundled mock replaying a
//!   trace, strictly (the command must make the recorded calls, in order) or
//!   leniently (the recorded facts only: devices, HBM, SoC, versions).
//!
//! ```text
//! ascendcl trace record -o train.jsonl -- python3 train.py
//! ascendcl trace summary train.jsonl
//! ascendcl trace replay train.jsonl -- python3 train.py
//! ```

mod child;
pub mod record;
pub mod replay;
pub mod summary;

use clap::Subcommand;

pub use child::{exit_status, spawn_failure_status};

/// The `trace` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum TraceCommand {
    // The help of each subcommand is the doc comment of its arguments struct.
    Summary(summary::SummaryArgs),
    Record(record::RecordArgs),
    Replay(replay::ReplayArgs),
}

/// Runs a `trace` subcommand; returns the exit status.
pub fn run(command: &TraceCommand) -> u8 {
    match command {
        TraceCommand::Summary(args) => summary::run(args).print(),
        TraceCommand::Record(args) => record::run(args),
        TraceCommand::Replay(args) => replay::run(args),
    }
}
