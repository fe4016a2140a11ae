//! What AscendCL setup does this machine have, and what is wrong with it?
//!
//! ```text
//! cargo run --example doctor [-- --json] [-- --no-mock]
//! ```
//!
//! Prints the library loaded (and from where), the runtime's versions, SoC,
//! run mode, devices and their HBM, the CANN roots searched and their layout,
//! the environment variables that matter and the driver library; then names
//! every problem it sees, with what to do. Exit status: 0 no problem (running
//! on the mock is not one), 1 problems found, 2 usage error. The logic lives
//! in `ascendcl_examples::doctor`.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let output = ascendcl_examples::doctor::run(std::env::args_os().skip(1));
    // A closed pipe (`| head`) is not worth a panic.
    let _ = std::io::stdout().write_all(output.stdout.as_bytes());
    let _ = std::io::stderr().write_all(output.stderr.as_bytes());
    ExitCode::from(output.exit_code)
}
