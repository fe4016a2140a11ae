//! `ascendcl doctor`: what AscendCL setup this machine has, and what is
//! wrong with it.
//!
//! It works in two steps, so that every check can be tested with made-up
//! inputs:
//!
//! 1. [`gather`] collects [`Facts`]: which library was loaded and from where,
//!    what the runtime says (versions, SoC, run mode, devices and their HBM),
//!    the CANN roots searched, the environment variables that matter and
//!    where the driver's `libascend_hal.so` is. Nothing is judged here.
//! 2. [`diagnose`] (pure) turns facts into [`Problem`]s, each with what to do;
//!    [`notes`] (pure) adds remarks that are not problems, such as running on
//!    the mock.
//!
//! [`Report`] renders both as text or as one JSON object, and [`run`] is the
//! command line `ascendcl doctor [--json] [--mock]`. Exit status: 0 when no
//! problem was found (running on the mock is not a problem), 1 when some
//! were, 2 for a usage error.
//!
//! The doctor examines this machine: it loads the AscendCL library the way
//! every program built on ascendcl-sys does and never falls back to the mock,
//! so on a machine without CANN it reports the library as not found, with
//! every place tried. `--mock` examines the mock bundled into the binary
//! instead ([`crate::bundled`]), which is never a problem in itself.
//!
//! The code is split by step: [`Facts`] and its parts (`facts`), [`gather`]
//! and its helpers (`gather`), [`Problem`] (`problem`), [`diagnose`] and
//! [`notes`] (`diagnose`), and the renderings of a [`Report`]: text
//! (`render`), JSON (`json`) and the command line [`run`] (`cli`).

mod cli;
mod diagnose;
mod facts;
mod gather;
mod json;
mod problem;
mod render;

pub use cli::{DoctorArgs, run};
pub use diagnose::{diagnose, driver_check_applies, notes};
pub use facts::{
    DeviceFacts, DriverDir, Facts, LibraryFacts, LoadedLibrary, Origin, RootFacts, RuntimeFacts,
};
pub use gather::{
    cann_roots, device_nodes, driver_dirs, driver_root_from_install_info, env_vars, gather,
};
pub use problem::{Problem, ProblemKind};

/// Environment variables the doctor reports, in the order printed.
pub const ENV_VARS: [&str; 6] = [
    "ASCENDCL_LIBRARY",
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_HOME_PATH",
    "ASCEND_INSTALL_PATH",
    "LD_LIBRARY_PATH",
    "ASCEND_RT_VISIBLE_DEVICES",
];

/// The driver's user-space library, which every AscendCL runtime loads.
pub const DRIVER_LIBRARY: &str = "libascend_hal.so";

/// Where the Ascend driver is installed unless `/etc/ascend_install.info` says otherwise.
pub const DEFAULT_DRIVER_ROOT: &str = "/usr/local/Ascend/driver";

/// The file the driver installer writes its install path to.
pub const INSTALL_INFO: &str = "/etc/ascend_install.info";

/// Exit status when no problem was found.
pub const EXIT_OK: u8 = 0;
/// Exit status when problems were found.
pub const EXIT_PROBLEMS: u8 = 1;
/// Exit status of a usage error.
pub const EXIT_USAGE: u8 = 2;

/// Facts with their diagnosis, ready to print: [`Report::to_text`] for
/// people, [`Report::to_json`] for programs.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// What was gathered.
    pub facts: Facts,
    /// What is wrong.
    pub problems: Vec<Problem>,
    /// Remarks that are not problems.
    pub notes: Vec<String>,
}

impl Report {
    /// Diagnoses `facts`.
    pub fn new(facts: Facts) -> Report {
        Report {
            problems: diagnose(&facts),
            notes: notes(&facts),
            facts,
        }
    }

    /// [`EXIT_OK`] without problems, else [`EXIT_PROBLEMS`].
    pub fn exit_code(&self) -> u8 {
        if self.problems.is_empty() {
            EXIT_OK
        } else {
            EXIT_PROBLEMS
        }
    }
}
