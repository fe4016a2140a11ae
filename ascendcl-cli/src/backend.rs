//! Which AscendCL library a command runs on.
//!
//! By default the `ascendcl` binary runs on this machine's AscendCL library,
//! found as every program built on ascendcl-sys finds it
//! ([`ascendcl_sys::library`](ascendcl_sys::library())): `ASCENDCL_LIBRARY`,
//! then the CANN roots, then the system loader. When nothing is found the
//! command fails with the list of places tried; it never falls back to the
//! mock on its own. `--mock` runs it on the behavioural mock bundled into the
//! binary instead ([`crate::bundled`]), on any machine.

use ascendcl::Runtime;

/// Which library a program runs on (defined by the `ascendcl` crate, so
/// that programs which do not need this crate name it too).
pub use ascendcl::Backend;

/// Why no runtime could be started.
#[derive(Debug)]
pub enum BackendError {
    /// The bundled mock could not be written to its cache directory.
    Bundle(crate::bundled::BundleError),
    /// The library could not be loaded or ACL could not be initialised.
    Runtime(ascendcl::Error),
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackendError::Bundle(e) => e.fmt(f),
            BackendError::Runtime(e) => write!(
                f,
                "{e}\nhint: `ascendcl doctor` explains what this machine has; \
                 add --mock to run on the bundled mock instead"
            ),
        }
    }
}

impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BackendError::Bundle(e) => Some(e),
            BackendError::Runtime(e) => Some(e),
        }
    }
}

/// Initialises the runtime on this machine's library, or with `mock` on the
/// bundled mock.
///
/// # Errors
/// [`BackendError::Runtime`] (with the places tried) when no library can be
/// loaded or ACL cannot be initialised; [`BackendError::Bundle`] when the
/// mock cannot be written to its cache directory.
pub fn runtime(mock: bool) -> Result<(Runtime, Backend), BackendError> {
    let lib = if mock {
        let path = crate::bundled::mock_library().map_err(BackendError::Bundle)?;
        ascendcl_sys::select_library(path)
    } else {
        ascendcl_sys::library()
    }
    .map_err(|e| BackendError::Runtime(e.into()))?;
    let runtime = Runtime::with_library(lib).map_err(BackendError::Runtime)?;
    let backend = runtime.backend();
    Ok((runtime, backend))
}
