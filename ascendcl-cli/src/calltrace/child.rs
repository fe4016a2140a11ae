//! Running the command of `trace record` and `trace replay`, and turning how
//! it ended into this binary's exit status.

use std::ffi::OsString;
use std::process::{Command, ExitStatus};

/// The exit status that tells how a child ended: its own status, or 128 + N
/// when signal N ended it (as shells report it).
pub fn exit_status(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        // An exit status is 0 to 255 on Unix: the cast keeps it.
        (Some(code), _) => code as u8,
        (None, Some(signal)) => 128u8.saturating_add(signal.clamp(0, 127) as u8),
        (None, None) => crate::EXIT_FAILED,
    }
}

/// The exit status when a command could not be started, as shells use it:
/// 127 when it was not found, 126 when it could not be executed.
pub fn spawn_failure_status(error: &std::io::Error) -> u8 {
    match error.kind() {
        std::io::ErrorKind::NotFound => 127,
        _ => 126,
    }
}

/// Runs `command` (whose program is `program`), standard streams inherited.
/// Returns its exit status (see [`exit_status`]), or `Err` with the status
/// of a command that could not be started (see [`spawn_failure_status`]),
/// reported on stderr as `tool: cannot run …`.
pub(super) fn run(tool: &str, mut command: Command, program: &OsString) -> Result<u8, u8> {
    match command.status() {
        Ok(status) => Ok(exit_status(status)),
        Err(error) => {
            eprintln!("{tool}: cannot run {}: {error}", program.to_string_lossy());
            Err(spawn_failure_status(&error))
        }
    }
}
