//! A [`Problem`] the doctor found, and its kind.

/// What kind of problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// No AscendCL library could be loaded (or only the mock, while a CANN
    /// install seems present).
    LibraryNotFound,
    /// The library could not be used (another one was selected, or `aclInit` failed).
    LibraryUnusable,
    /// The file named for the library is damaged (truncated, not ELF) or
    /// built for another machine.
    LibraryInvalid,
    /// A CANN root variable names a directory that does not exist.
    RootMissing,
    /// A CANN root exists but follows neither known layout.
    UnrecognisedRoot,
    /// The library's ACL interface version differs from the declared one in a
    /// way that matters (older with functions missing, or a newer major).
    VersionMismatch,
    /// Functions the bindings use are not exported (at the declared version).
    MissingFunctions,
    /// A runtime query failed.
    QueryFailed,
    /// The runtime sees no device.
    NoDevices,
    /// Devices that could not be opened or queried.
    DeviceUnavailable,
    /// The driver's `libascend_hal.so` is nowhere to be found.
    DriverMissing,
}

impl ProblemKind {
    /// A stable name, used in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::LibraryNotFound => "library-not-found",
            ProblemKind::LibraryUnusable => "library-unusable",
            ProblemKind::LibraryInvalid => "library-invalid",
            ProblemKind::RootMissing => "root-missing",
            ProblemKind::UnrecognisedRoot => "unrecognised-root",
            ProblemKind::VersionMismatch => "version-mismatch",
            ProblemKind::MissingFunctions => "missing-functions",
            ProblemKind::QueryFailed => "query-failed",
            ProblemKind::NoDevices => "no-devices",
            ProblemKind::DeviceUnavailable => "device-unavailable",
            ProblemKind::DriverMissing => "driver-missing",
        }
    }
}

/// A problem, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The kind.
    pub kind: ProblemKind,
    /// One line: what is wrong.
    pub summary: String,
    /// Supporting lines (paths tried, missing functions, errors).
    pub details: Vec<String>,
    /// What to do.
    pub fix: String,
}

impl Problem {
    pub(super) fn new(
        kind: ProblemKind,
        summary: String,
        details: Vec<String>,
        fix: String,
    ) -> Problem {
        Problem {
            kind,
            summary,
            details,
            fix,
        }
    }
}
