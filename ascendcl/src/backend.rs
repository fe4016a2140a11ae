//! Which AscendCL library a runtime runs on: a real one (an Atlas card, or
//! whatever `ASCENDCL_LIBRARY` names) or the behavioural mock.

use std::path::PathBuf;

use crate::Runtime;

/// Which library a program runs on, and its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A real AscendCL library (an Atlas card, or `ASCENDCL_LIBRARY`).
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

impl Runtime {
    /// The library this runtime runs on: the mock (see [`Runtime::is_mock`])
    /// or a real one, with the file the dynamic loader mapped.
    pub fn backend(&self) -> Backend {
        let path = self.library().path().to_path_buf();
        if self.is_mock() {
            Backend::Mock(path)
        } else {
            Backend::Device(path)
        }
    }
}
