//! The top-level command line: [`Cli`], its [`Command`]s, and [`run`].
//!
//! ```
//! use ascendcl_cli::{Command, parse_from};
//!
//! let cli = parse_from(["ascendcl", "validate", "gpu.npy", "npu.npy", "--json"]).unwrap();
//! assert!(matches!(cli.command, Command::Validate(_)));
//! // --help is an Output with exit status 0, not an error.
//! let help = parse_from(["ascendcl", "alloc-replay", "--help"]).unwrap_err();
//! assert_eq!(help.exit_code, 0);
//! assert!(help.stdout.contains("--trace"));
//! ```

use std::ffi::OsString;

use clap::{Parser, Subcommand};

use crate::{EXIT_OK, EXIT_STATUS_HELP, EXIT_USAGE, Output};

/// `ascendcl`: diagnose an Ascend NPU machine, compare tensors, record and
/// replay AscendCL calls, replay allocation traces, write benchmark reports.
#[derive(Debug, Parser)]
#[command(
    name = "ascendcl",
    version,
    about = "Tools for AscendCL (Huawei Ascend NPUs): diagnose a machine, compare tensors, \
             record and replay AscendCL calls, replay allocation traces, write benchmark reports",
    long_about = None,
    after_help = EXIT_STATUS_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    // The help of each command is the doc comment of its arguments struct.
    Doctor(crate::doctor::DoctorArgs),
    Validate(crate::validate::ValidateArgs),
    /// Record, replay and summarize traces of AscendCL calls.
    #[command(subcommand)]
    Trace(crate::calltrace::TraceCommand),
    AllocReplay(crate::alloc_replay::AllocReplayArgs),
    BenchReport(crate::report::command::BenchReportArgs),
}

/// Parses a command line (with the program name first).
///
/// # Errors
/// `--help` and `--version` come back as an [`Output`] with exit status 0
/// and the text on stdout; a usage error as one with exit status 2 and
/// clap's message on stderr.
pub fn parse_from<I, T>(args: I) -> Result<Cli, Output>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args).map_err(|error| {
        let text = error.render().to_string();
        if error.use_stderr() {
            Output {
                stdout: String::new(),
                stderr: text,
                exit_code: EXIT_USAGE,
            }
        } else {
            Output {
                stdout: text,
                stderr: String::new(),
                exit_code: EXIT_OK,
            }
        }
    })
}

/// Runs a parsed command line; returns the exit status.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Doctor(args) => crate::doctor::run(&args).print(),
        Command::Validate(args) => crate::validate::run(&args).print(),
        Command::Trace(command) => crate::calltrace::run(&command),
        Command::AllocReplay(args) => crate::alloc_replay::main(&args),
        Command::BenchReport(args) => crate::report::command::main(&args),
    }
}
