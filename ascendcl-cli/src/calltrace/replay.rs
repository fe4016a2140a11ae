//! `ascendcl trace replay TRACE [--lenient] [--report FILE] [--json] -- CMD
//! [ARG…]`: runs CMD on the bundled mock replaying TRACE.
//!
//! The command gets the mock as its AscendCL library (`ASCENDCL_LIBRARY` for
//! programs built on ascendcl-sys; the mock's directory first in
//! `LD_LIBRARY_PATH` for programs that load `libascendcl.so` by name) and
//! the replay variables the mock reads: `ASCENDCL_MOCK_REPLAY`,
//! `ASCENDCL_MOCK_REPLAY_MODE`, `ASCENDCL_MOCK_REPLAY_REPORT`. What strict
//! and lenient replay take from the trace is in `docs/trace-format.md`.
//!
//! A strict replay is honest about failure: the exit status is 86
//! ([`crate::EXIT_REPLAY_FAILED`]) when the mock reports it failed (the trace
//! could not be loaded, a call diverged, recorded calls were not made), and
//! also when the command never loaded the mock (nothing was replayed), or
//! ended before the mock could write its report. Otherwise it is the
//! command's own status.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use ascendcl_mock::{ReplayState, ReplayStatus};
use clap::Args;

use crate::EXIT_REPLAY_FAILED;

const EXIT_HELP: &str = "\
Exit status:
  86   the strict replay failed: the trace could not be loaded, a call diverged from it
       (the report on stderr names both sides), recorded calls were not made, or the
       command never loaded the mock
  otherwise the command's own status (128 + N if signal N ended it)
  2    usage error
  3    the bundled mock could not be written to its cache directory
  126  the command could not be executed; 127 it was not found";

/// Run a command on the bundled mock, replaying a trace (strict: the calls must match).
///
/// Strict (the default): the command must make the recorded calls in the
/// recorded order, per thread; results, out-values, error texts and the
/// point where memory ran out come from the trace, and the first call that
/// differs fails with a report naming both sides. Lenient: only the recorded
/// facts (device count, SoC, HBM, granularity, versions) are used, so any
/// program runs on a mock that looks like the recorded card.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct ReplayArgs {
    /// The trace to replay.
    pub trace: PathBuf,
    /// Use only the recorded facts, not the recorded call sequence.
    #[arg(long)]
    pub lenient: bool,
    /// Also keep the replay status (JSON) in FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Print the replay status as one JSON object on stdout when the command ends.
    #[arg(long)]
    pub json: bool,
    /// The command to run, and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Runs `ascendcl trace replay`; returns the exit status.
pub fn run(args: &ReplayArgs) -> u8 {
    let mock = match crate::bundled::mock_library() {
        Ok(mock) => mock,
        Err(error) => {
            eprintln!("trace replay: {error}");
            return crate::EXIT_FAILED;
        }
    };
    let Some(program) = args.command.first() else {
        eprintln!("trace replay: no command to run");
        return crate::EXIT_USAGE;
    };
    let absolute = |path: &PathBuf| std::env::current_dir().map_or(path.clone(), |d| d.join(path));
    let report = match &args.report {
        Some(path) => absolute(path),
        None => std::env::temp_dir().join(format!(
            "ascendcl-replay-report-{}.json",
            std::process::id()
        )),
    };
    let _ = std::fs::remove_file(&report);
    let mut library_path = mock
        .parent()
        .map(|dir| dir.as_os_str().to_os_string())
        .unwrap_or_default();
    if let Some(existing) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        library_path.push(":");
        library_path.push(existing);
    }
    let mut command = Command::new(program);
    command
        .args(&args.command[1..])
        .env(ascendcl_sys::LIBRARY_ENV_VAR, &mock)
        .env("LD_LIBRARY_PATH", library_path)
        .env("ASCENDCL_MOCK_REPLAY", absolute(&args.trace))
        .env(
            "ASCENDCL_MOCK_REPLAY_MODE",
            if args.lenient { "lenient" } else { "strict" },
        )
        .env("ASCENDCL_MOCK_REPLAY_REPORT", &report);
    // A recording shim left in the environment would sit between the
    // command and the mock.
    for var in [
        "LD_PRELOAD",
        "ASCENDCL_RECORD_TRACE",
        "ASCENDCL_RECORD_TARGET",
    ] {
        command.env_remove(var);
    }
    let status = match super::child::run("trace replay", command, program) {
        Ok(status) => status,
        Err(status) => {
            if args.json {
                println!("{{\"state\":\"not-started\",\"exit_code\":{status}}}");
            }
            return status;
        }
    };
    let text = std::fs::read_to_string(&report).ok();
    if args.report.is_none() {
        let _ = std::fs::remove_file(&report);
    }
    let replay = text.as_deref().map(ReplayStatus::parse);
    if args.json {
        match &replay {
            Some(Ok(replay)) => println!("{}", replay.json),
            _ => println!(
                "{{\"state\":\"no-report\",\"exit_code\":{}}}",
                verdict(args.lenient, status, None).0
            ),
        }
    }
    let replay = replay.and_then(Result::ok);
    let (code, message) = verdict(args.lenient, status, replay.as_ref());
    eprintln!("trace replay: {message}");
    code
}

/// The exit status and the closing line, from the command's status and the
/// mock's report (`None`: none was written).
pub fn verdict(lenient: bool, status: u8, replay: Option<&ReplayStatus>) -> (u8, String) {
    let failed = |why: String| (EXIT_REPLAY_FAILED, format!("replay failed: {why}"));
    match replay {
        None if lenient => (
            status,
            format!("the command exited with {status}; it wrote no replay report"),
        ),
        None => failed(format!(
            "the command (exit status {status}) left no replay report: it never loaded the mock \
             through ASCENDCL_LIBRARY or libascendcl.so, or a signal ended it"
        )),
        Some(r) if r.state == ReplayState::Error => failed(format!(
            "the trace could not be loaded: {}",
            r.error.as_deref().unwrap_or(&r.text)
        )),
        Some(r) if !lenient && !r.is_complete() => failed(if r.text.is_empty() {
            format!("{} of {} calls matched", r.matched, r.calls)
        } else {
            r.text.clone()
        }),
        Some(_) if lenient => (
            status,
            format!("lenient replay; the command exited with {status}"),
        ),
        Some(r) => (
            status,
            format!(
                "complete: all {} calls matched; the command exited with {status}",
                r.calls
            ),
        ),
    }
}
