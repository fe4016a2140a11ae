//! Opening one shared library, by path or by name, the way every loader of
//! this crate does: a path must exist and pass the ELF check of
//! [`crate::elf`] before the dynamic loader sees it; a loader error keeps the
//! system's own words.

use std::fmt;
use std::path::Path;

use crate::elf::{self, ElfProblem};

/// Why a library could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OpenFailure {
    /// The path names no file.
    Missing,
    /// The file is not a shared library this process can map.
    Invalid(ElfProblem),
    /// The dynamic loader refused it (its message, with causes).
    Loader(String),
}

impl fmt::Display for OpenFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenFailure::Missing => write!(f, "no such file"),
            OpenFailure::Invalid(problem) => write!(f, "not a usable shared library: {problem}"),
            OpenFailure::Loader(message) => write!(f, "{message}"),
        }
    }
}

/// Opens the library file at `path`, checked first (see [`crate::elf`]): a
/// damaged file is an error here, not a `SIGBUS` inside `dlopen`.
pub(crate) fn open_path(path: &Path) -> Result<libloading::Library, OpenFailure> {
    if !path.exists() {
        return Err(OpenFailure::Missing);
    }
    elf::check_shared_object(path).map_err(OpenFailure::Invalid)?;
    // SAFETY: loading a shared object runs its initialisers. The libraries
    // this crate opens (CANN's runtime, aclnn, HCCL and profiler libraries,
    // and our mock's) have none with preconditions on the caller.
    unsafe { libloading::Library::new(path.as_os_str()) }
        .map_err(|e| OpenFailure::Loader(loader_message(&e)))
}

/// Opens `name` (a bare file name) through the system loader's search
/// (`LD_LIBRARY_PATH`, `ld.so.cache`). The loader picks the file, so it is
/// not checked.
pub(crate) fn open_name(name: &Path) -> Result<libloading::Library, OpenFailure> {
    // SAFETY: as in `open_path`.
    unsafe { libloading::Library::new(name.as_os_str()) }
        .map_err(|e| OpenFailure::Loader(loader_message(&e)))
}

/// A loader error with its causes: libloading's own message is only
/// "dlopen failed"; the system's text ("libascend_hal.so: cannot open
/// shared object file ...") is its source.
pub(crate) fn loader_message(error: &libloading::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
