//! Shared helpers of the examples and benches: choosing the backend.
//!
//! The examples run on a real device when the AscendCL library can be found
//! (see [`ascendcl_sys::library`](ascendcl_sys::library())), and on the
//! behavioural mock otherwise. `ASCENDCL_LIBRARY` always wins: when it is set
//! and wrong, the program fails with an error naming the path instead of
//! quietly falling back to the mock.

pub mod mlp;
pub mod resnet;
pub mod trace;

pub mod bench;
pub mod doctor;
pub mod replay;
pub mod report;

use std::path::PathBuf;

use ascendcl::{Error, Runtime};

/// Path of the mock library built with this workspace.
pub const MOCK_LIBRARY: &str = env!("ASCENDCL_MOCK_LIBRARY");

/// Which library a program runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A real AscendCL library (an Atlas card, or ASCENDCL_LIBRARY).
    Device(PathBuf),
    /// The behavioural mock.
    Mock(PathBuf),
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Device(path) => write!(f, "device ({})", path.display()),
            Backend::Mock(path) => write!(f, "mock ({})", path.display()),
        }
    }
}

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
    let path = lib.path().to_path_buf();
    let backend = if runtime.is_mock() {
        Backend::Mock(path)
    } else {
        Backend::Device(path)
    };
    Ok((runtime, backend))
}
