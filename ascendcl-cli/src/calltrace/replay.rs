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
//!
//! A command of several processes (ranks it starts) recorded as one trace
//! per process replays the same way: each process picks its own trace of
//! the set (by the launch key in the headers, `docs/trace-format.md`) and
//! reports beside the report (`REPORT.<pid>`); any of them failing makes
//! the replay fail.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
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
    let others = process_reports(&report);
    if args.report.is_none() {
        let _ = std::fs::remove_file(&report);
        for (path, _) in &others {
            let _ = std::fs::remove_file(path);
        }
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
    let (code, message) = match others_verdict(args.lenient, &others) {
        // Another process's divergence usually ends the main one early too:
        // its failure comes first.
        Some(Err(failed)) if code == EXIT_REPLAY_FAILED => (
            code,
            format!("{failed}\ntrace replay: and the main process: {message}"),
        ),
        Some(_) if code == EXIT_REPLAY_FAILED => (code, message),
        Some(Err(failed)) => (EXIT_REPLAY_FAILED, failed),
        Some(Ok(summary)) => (code, format!("{message}; {summary}")),
        None => (code, message),
    };
    eprintln!("trace replay: {message}");
    code
}

/// The reports the command's other processes wrote beside `report`
/// (`REPORT.<pid>`), with their text, in pid order.
fn process_reports(report: &Path) -> Vec<(PathBuf, String)> {
    let (Some(dir), Some(name)) = (report.parent(), report.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.", name.to_string_lossy());
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            let pid = file.strip_prefix(&prefix)?.parse().ok()?;
            Some((pid, entry.path()))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .filter_map(|(_, path)| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
        .collect()
}

/// What the other processes' reports add: `None` when there are none or the
/// replay is lenient; else a summary of them all complete, or the failure of
/// the first that is not.
fn others_verdict(lenient: bool, others: &[(PathBuf, String)]) -> Option<Result<String, String>> {
    if lenient || others.is_empty() {
        return None;
    }
    let mut calls = 0;
    for (path, text) in others {
        let process = path
            .extension()
            .map_or_else(String::new, |pid| pid.to_string_lossy().into_owned());
        let failed = |why: String| {
            Some(Err(format!(
                "replay failed in process {process} (its report: {}): {why}",
                path.display()
            )))
        };
        match ReplayStatus::parse(text) {
            Err(e) => return failed(format!("unreadable report: {e}")),
            Ok(r) if r.state == ReplayState::Error => {
                return failed(format!(
                    "the trace could not be loaded: {}",
                    r.error.as_deref().unwrap_or(&r.text)
                ));
            }
            Ok(r) if !r.is_complete() => {
                return failed(if r.text.is_empty() {
                    format!("{} of {} calls matched", r.matched, r.calls)
                } else {
                    r.text.clone()
                });
            }
            Ok(r) => calls += r.calls,
        }
    }
    Some(Ok(format!(
        "{} other processes replayed their own traces completely ({calls} calls)",
        others.len()
    )))
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
