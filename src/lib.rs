//! Shared helpers of the examples (and of the benches, `ascendcl-benches`):
//! choosing the backend.
//!
//! The examples run on a real device when the AscendCL library can be found
//! (see [`ascendcl_sys::library`](ascendcl_sys::library())), and on the
//! behavioural mock otherwise. `ASCENDCL_LIBRARY` always wins: when it is set
//! and wrong, the program fails with an error naming the path instead of
//! quietly falling back to the mock.
//!
//! The tools (doctor, validate, trace summary/record/replay, the allocation
//! replay, the benchmark report) are not examples: they are the `ascendcl`
//! binary of the `ascendcl-cli` crate (`cargo install --path ascendcl-cli`, or
//! `cargo run -p ascendcl-cli -- --help` here).

pub mod captured_step;
pub mod gpt;
pub mod mlp;
pub mod resnet;

pub use ascendcl::Backend;
use ascendcl::{Error, Runtime};

/// The committed PyTorch references of the examples (`examples/reference/`),
/// also for the examples of other packages (`train_resnet` of ascendcl-cli).
pub const REFERENCE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/reference");

/// Path of the mock library built with this workspace.
pub const MOCK_LIBRARY: &str = env!("ASCENDCL_MOCK_LIBRARY");

/// Initialises the runtime on the device, or on the mock when no AscendCL
/// library is installed and `ASCENDCL_LIBRARY` is not set.
pub fn runtime() -> Result<(Runtime, Backend), Error> {
    let lib = match ascendcl_sys::library() {
        Ok(lib) => lib,
        Err(not_found) if std::env::var_os(ascendcl_sys::LIBRARY_ENV_VAR).is_none() => {
            ascendcl_sys::select_library(MOCK_LIBRARY).map_err(|_| not_found)?
        }
        Err(e) => return Err(e.into()),
    };
    let runtime = Runtime::with_library(lib)?;
    let backend = runtime.backend();
    Ok((runtime, backend))
}
