//! `ascendcl`: the command-line tools of the ascendcl crates, in one binary.
//!
//! ```text
//! cargo install ascendcl-cli            # or, in a clone: cargo install --path ascendcl-cli
//! ascendcl doctor                       # what AscendCL setup this machine has, what is wrong
//! ascendcl validate gpu.npy npu.npy     # compare two saved tensors: a verdict
//! ascendcl trace record -o t.jsonl -- python3 train.py   # record every AscendCL call
//! ascendcl trace summary t.jsonl        # calls, errors, time, live resources
//! ascendcl trace replay t.jsonl -- ./my-program          # replay it on the mock
//! ascendcl alloc-replay                 # a ResNet-50 allocation trace, four allocator strategies
//! ascendcl bench-report                 # the benchmark report (after `cargo bench`)
//! ```
//!
//! Every command and subcommand answers `--help`; commands whose output a
//! script would read have `--json`. Commands that run for more than a couple
//! of seconds (`alloc-replay`, `bench-report`) show their progress on stderr
//! (`--quiet` silences it); their results go to stdout.
//!
//! # Which library: this machine's, or `--mock`
//!
//! The binary diagnoses and measures the machine it runs on: `doctor`,
//! `alloc-replay` and `bench-report` load this machine's AscendCL library the
//! way every program built on ascendcl-sys does (`ASCENDCL_LIBRARY`, then
//! the CANN roots, then the system loader) and never fall back to anything
//! else: on a machine without CANN, `doctor` says so and exits 1, and the
//! others fail with the list of places tried. `--mock` runs them on the
//! behavioural mock of ascendcl-mock instead, which is bundled into the
//! binary and written to a cache directory on first use ([`bundled`]): the
//! same results on any machine, for trying the tools out and for CI.
//! `trace replay` always runs its command on the bundled mock (that is what
//! a replay is), and `trace record --mock` records calls made to it.
//!
//! # Exit status
//!
//! | status | meaning |
//! |---|---|
//! | 0 ([`EXIT_OK`]) | success: no problem found, tensors match (clean or acceptable) |
//! | 1 ([`EXIT_FINDINGS`]) | the check ran and found something: `doctor` found problems, `validate`'s verdict is investigate or find-the-operator |
//! | 2 ([`EXIT_USAGE`]) | usage error, or an input that cannot be used: unknown option, unreadable or malformed file, shapes that differ |
//! | 3 ([`EXIT_FAILED`]) | the command could not do its work: no AscendCL library, a runtime call failed, an output could not be written |
//! | 86 ([`EXIT_REPLAY_FAILED`]) | `trace replay`: the strict replay failed (the trace could not be loaded, the command's calls diverged from it, or it did not make them all) |
//!
//! `trace record` and `trace replay` otherwise end with their command's own
//! status (128 + N when a signal N ended it, 127 when it could not be
//! started).
//!
//! # The library
//!
//! Each command is a module: its `clap` arguments and the function that
//! runs it. [`doctor`] (facts, diagnosis, text and JSON), [`validate`] (the
//! command line over [`ascendcl::validate`]), [`calltrace`] (`trace summary`,
//! `record`, `replay`), [`alloc_replay`] with the allocation traces
//! ([`alloc_trace`]) and their replay ([`replay`]), [`report`] (the benchmark
//! report). [`cli`] holds the top-level parser and the dispatch.

pub mod alloc_replay;
pub mod alloc_trace;
pub mod backend;
pub mod bundled;
pub mod calltrace;
pub mod cli;
pub mod doctor;
mod json;
pub mod progress;
pub mod replay;
pub mod report;
pub mod validate;

pub use backend::{Backend, runtime};
pub use cli::{Cli, Command, parse_from};

/// Exit status of a success.
pub const EXIT_OK: u8 = 0;
/// Exit status when the check ran and found something (doctor problems, a
/// failing validate verdict).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status of a usage error or an unusable input.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when the command could not do its work (no library, a failed
/// runtime call, an output that could not be written).
pub const EXIT_FAILED: u8 = 3;
/// Exit status of a failed strict replay (`trace replay`), the mock's own
/// ([`ascendcl_mock::REPLAY_FAILED_EXIT`]).
pub const EXIT_REPLAY_FAILED: u8 = 86;

const _: () = assert!(ascendcl_mock::REPLAY_FAILED_EXIT == EXIT_REPLAY_FAILED as i32);

/// The exit status table, for `--help`.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0   success: no problem found, tensors match
  1   the check found something (doctor problems, a failing validate verdict)
  2   usage error, or an input that cannot be used
  3   the command could not do its work (no AscendCL library, a failed call)
  86  trace replay: the strict replay failed
  trace record/replay otherwise end with their command's status";

/// What a command printed and how it ended, for commands whose output is a
/// report (doctor, validate, trace summary) and for parse errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit status (see the crate docs).
    pub exit_code: u8,
}

impl Output {
    /// Writes both streams (a closed pipe, `| head`, is not worth a panic)
    /// and returns the exit status.
    pub fn print(&self) -> u8 {
        use std::io::Write;
        let _ = std::io::stdout().write_all(self.stdout.as_bytes());
        let _ = std::io::stderr().write_all(self.stderr.as_bytes());
        self.exit_code
    }
}
