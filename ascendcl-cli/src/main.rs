//! The `ascendcl` binary: see the crate docs of `ascendcl_cli` for the
//! commands, the exit status and how the library is chosen.

use std::process::ExitCode;

fn main() -> ExitCode {
    match ascendcl_cli::parse_from(std::env::args_os()) {
        Ok(cli) => ExitCode::from(ascendcl_cli::cli::run(cli)),
        Err(output) => ExitCode::from(output.print()),
    }
}
