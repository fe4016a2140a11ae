//! What the doctor looked at, before any judgement: [`Facts`] and its parts.

use std::path::{Path, PathBuf};

use ascendcl::{MemoryInfo, RunMode};
use ascendcl_sys::Attempt;
use ascendcl_sys::cann::{self, Layout};

use super::DEFAULT_DRIVER_ROOT;

/// Everything the doctor looked at, before any judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// The AscendCL library.
    pub library: LibraryFacts,
    /// What the runtime reported: `None` when no library was loaded, an error
    /// when `aclInit` failed.
    pub runtime: Option<Result<RuntimeFacts, String>>,
    /// The CANN roots searched, in precedence order.
    pub cann_roots: Vec<RootFacts>,
    /// The variables of [`ENV_VARS`](super::ENV_VARS) and their values (`None`: not set).
    pub env: Vec<(String, Option<String>)>,
    /// Directories searched for [`DRIVER_LIBRARY`](super::DRIVER_LIBRARY).
    pub driver_dirs: Vec<DriverDir>,
    /// Device nodes of NPUs (`/dev/davinci<N>`) present on this machine.
    pub device_nodes: Vec<PathBuf>,
}

/// The AscendCL library, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum LibraryFacts {
    /// A library was loaded.
    Loaded(LoadedLibrary),
    /// No library could be loaded; every place tried, in order.
    NotFound {
        /// What the loader tried (see [`ascendcl_sys::LoadError::attempts`]).
        attempts: Vec<Attempt>,
    },
    /// The file named for the library (by `ASCENDCL_LIBRARY`) is there but is
    /// not a shared library this machine can load: truncated, not ELF, or
    /// built for another machine (see [`ascendcl_sys::elf`]).
    InvalidFile {
        /// The file.
        file: PathBuf,
        /// Who named it (`ASCENDCL_LIBRARY`).
        source: String,
        /// What is wrong with it.
        problem: ascendcl_sys::ElfProblem,
    },
    /// Loading failed for another reason (for example another library was
    /// already selected by this process).
    Unusable {
        /// The loader's error.
        error: String,
    },
}

/// A loaded AscendCL library.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLibrary {
    /// The file the dynamic loader mapped.
    pub path: PathBuf,
    /// How it was chosen.
    pub origin: Origin,
    /// Whether it is the ascendcl behavioural mock.
    pub is_mock: bool,
    /// Functions of [`ascendcl_sys::FUNCTIONS`] the library does not export.
    pub missing_functions: Vec<String>,
}

/// How the loaded library was chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// The program had selected it before the doctor ran.
    Selected,
    /// Discovery found it: `ASCENDCL_LIBRARY`, a CANN root, or the system loader.
    Discovered,
    /// The mock bundled into the binary, asked for with `--mock`.
    Mock,
}

/// What the runtime reported. Each query that failed holds its error text.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeFacts {
    /// The ACL interface version (`aclrtGetVersion`).
    pub version: Result<(i32, i32, i32), String>,
    /// The CANN version, where the library can tell it.
    pub cann_version: Result<Option<String>, String>,
    /// The SoC name.
    pub soc_name: Result<String, String>,
    /// Host or device run mode.
    pub run_mode: Result<RunMode, String>,
    /// Number of visible devices.
    pub device_count: Result<u32, String>,
    /// Each visible device.
    pub devices: Vec<DeviceFacts>,
}

/// One device: its HBM, or why it could not be opened or queried.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFacts {
    /// The device id.
    pub id: u32,
    /// Free and total HBM.
    pub memory: Result<MemoryInfo, String>,
}

/// A candidate CANN root.
#[derive(Debug, Clone, PartialEq)]
pub struct RootFacts {
    /// The directory.
    pub path: PathBuf,
    /// Who named it: a variable, `$HOME/...` or `default location`.
    pub source: String,
    /// Whether the directory exists.
    pub exists: bool,
    /// Its layout, when it exists.
    pub layout: Option<Layout>,
    /// Runtime libraries found under it.
    pub libraries: Vec<PathBuf>,
}

/// A directory searched for the driver library.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverDir {
    /// The directory.
    pub path: PathBuf,
    /// Why it was searched: `default install`, `ascend_install.info` or `LD_LIBRARY_PATH`.
    pub source: String,
    /// Whether it exists.
    pub exists: bool,
    /// Whether it holds [`DRIVER_LIBRARY`](super::DRIVER_LIBRARY).
    pub has_driver_library: bool,
}

impl Facts {
    /// The value of environment variable `name` when the facts were gathered.
    pub fn env_var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The loaded library, if any.
    pub fn loaded(&self) -> Option<&LoadedLibrary> {
        match &self.library {
            LibraryFacts::Loaded(lib) => Some(lib),
            _ => None,
        }
    }

    /// Whether the loaded library is the mock.
    pub fn is_mock(&self) -> bool {
        self.loaded().is_some_and(|l| l.is_mock)
    }

    /// The runtime facts, when `aclInit` succeeded.
    pub fn runtime_facts(&self) -> Option<&RuntimeFacts> {
        self.runtime.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// Signs that a real CANN install is meant to be used: an existing CANN
    /// root or driver directory, or a CANN root variable that is set.
    pub fn install_evidence(&self) -> Vec<String> {
        let mut evidence = Vec::new();
        for var in cann::ROOT_ENV_VARS {
            if let Some(value) = self.env_var(var).filter(|v| !v.is_empty()) {
                evidence.push(format!("{var} is set ({value})"));
            }
        }
        for root in self.cann_roots.iter().filter(|r| r.exists) {
            evidence.push(format!("{} exists", root.path.display()));
        }
        let driver = Path::new(DEFAULT_DRIVER_ROOT);
        if self
            .driver_dirs
            .iter()
            .any(|d| d.exists && d.path.starts_with(driver))
        {
            evidence.push(format!("{DEFAULT_DRIVER_ROOT} exists"));
        }
        evidence
    }
}

/// An ACL interface version as `a.b.c`.
pub(super) fn version_text(v: (i64, i64, i64)) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// The ACL interface version the bindings declare, comparable with a library's.
pub(super) fn declared_version() -> (i64, i64, i64) {
    let (a, b, c) = ascendcl_sys::DECLARED_VERSION;
    (i64::from(a), i64::from(b), i64::from(c))
}

/// The name of a run mode in the text and JSON reports.
pub(super) fn run_mode_key(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Host => "host",
        RunMode::Device => "device",
    }
}
