//! The `doctor` example: what AscendCL setup this machine has, and what is
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
//! command line of `cargo run --example doctor [-- --json] [-- --no-mock]`.
//! Exit status: 0 when no problem was found (running on the mock is not a
//! problem), 1 when some were, 2 for a usage error.
//!
//! Like every example, the doctor falls back to the mock when no AscendCL
//! library is found and `ASCENDCL_LIBRARY` is not set. That fallback is
//! reported as a problem only when a CANN install seems to be present (a CANN
//! root or a driver directory exists, or a CANN variable is set): then the
//! library should have been found. `--no-mock` turns the fallback off, so a
//! missing library is always a problem.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ascendcl::{Device, MemoryInfo, RunMode, Runtime};
use ascendcl_sys::cann::{self, Layout};
use ascendcl_sys::{Attempt, Library};

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

/// A symbol only the ascendcl behavioural mock exports.
const MOCK_SYMBOL: &str = "aclmockReset";

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
    /// The variables of [`ENV_VARS`] and their values (`None`: not set).
    pub env: Vec<(String, Option<String>)>,
    /// Directories searched for [`DRIVER_LIBRARY`].
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
    /// Discovery found nothing, so the examples' fallback, the mock, was loaded.
    MockFallback {
        /// Where discovery looked.
        attempts: Vec<Attempt>,
    },
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
    /// Whether it holds [`DRIVER_LIBRARY`].
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

// ------------------------------------------------------------------ gathering

/// The error text of a result.
fn text<T, E: std::fmt::Display>(result: Result<T, E>) -> Result<T, String> {
    result.map_err(|e| e.to_string())
}

/// Gathers the facts of this process and machine.
///
/// The library is the one this process already selected, else the one
/// discovery finds ([`ascendcl_sys::library`](ascendcl_sys::library())). When
/// nothing is found, `ASCENDCL_LIBRARY` is not set and `fallback_to_mock` is
/// true, the mock is loaded instead, as the other examples do. Then ACL is
/// initialised and every visible device is opened for its HBM (devices that
/// fail are recorded with their error).
pub fn gather(fallback_to_mock: bool) -> Facts {
    let env = |name: &str| std::env::var_os(name);
    let install_info = std::fs::read_to_string(INSTALL_INFO).ok();
    let (mut library, lib) = load_library(fallback_to_mock);
    let runtime = lib.map(|lib| {
        let result = runtime_facts(lib);
        // The runtime's own answer, where ACL could be initialised.
        if let (LibraryFacts::Loaded(loaded), Ok((_, is_mock))) = (&mut library, &result) {
            loaded.is_mock = *is_mock;
        }
        result.map(|(facts, _)| facts)
    });
    Facts {
        library,
        runtime,
        cann_roots: cann_roots(&env),
        env: env_vars(&env),
        driver_dirs: driver_dirs(&env, install_info.as_deref()),
        device_nodes: device_nodes(Path::new("/dev")),
    }
}

/// Chooses the library as described in [`gather`].
fn load_library(fallback_to_mock: bool) -> (LibraryFacts, Option<&'static Library>) {
    let (lib, origin) = if let Some(lib) = ascendcl_sys::selected_library() {
        (lib, Origin::Selected)
    } else {
        match ascendcl_sys::library() {
            Ok(lib) => (lib, Origin::Discovered),
            Err(error) => {
                let explicit = std::env::var_os(ascendcl_sys::LIBRARY_ENV_VAR).is_some();
                let attempts = error.attempts().to_vec();
                let fallback = if fallback_to_mock && !explicit {
                    ascendcl_sys::select_library(crate::MOCK_LIBRARY).ok()
                } else {
                    None
                };
                match fallback {
                    Some(lib) => (lib, Origin::MockFallback { attempts }),
                    None if attempts.is_empty() => {
                        let error = error.to_string();
                        return (LibraryFacts::Unusable { error }, None);
                    }
                    None => return (LibraryFacts::NotFound { attempts }, None),
                }
            }
        }
    };
    let missing_functions = ascendcl_sys::FUNCTIONS
        .iter()
        .filter(|f| !lib.has_symbol(f))
        .map(|f| f.to_string())
        .collect();
    let loaded = LoadedLibrary {
        path: lib.path().to_path_buf(),
        origin,
        is_mock: lib.has_symbol(MOCK_SYMBOL),
        missing_functions,
    };
    (LibraryFacts::Loaded(loaded), Some(lib))
}

/// Initialises ACL on `lib` and queries it; also says whether it is the mock.
fn runtime_facts(lib: &'static Library) -> Result<(RuntimeFacts, bool), String> {
    let rt = text(Runtime::with_library(lib))?;
    let device_count = text(rt.device_count());
    let devices = match &device_count {
        // Visible devices are few (16 at most on current servers); the cap
        // only guards against a nonsensical count.
        Ok(count) => (0..(*count).min(256))
            .map(|id| DeviceFacts {
                id,
                memory: text(Device::open(&rt, id).and_then(|device| device.memory_info())),
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    let facts = RuntimeFacts {
        version: text(rt.version()),
        cann_version: text(rt.cann_version()),
        soc_name: text(rt.soc_name()),
        run_mode: text(rt.run_mode()),
        device_count,
        devices,
    };
    Ok((facts, rt.is_mock()))
}

/// The CANN roots the loader searches (see [`cann::candidate_roots`]), with
/// what is on disk. `env` reads environment variables.
pub fn cann_roots(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<RootFacts> {
    cann::candidate_roots(env)
        .into_iter()
        .map(|root| {
            let exists = root.exists();
            RootFacts {
                exists,
                layout: exists.then(|| root.layout()),
                libraries: root.library_files(),
                path: root.path,
                source: root.source,
            }
        })
        .collect()
}

/// The variables of [`ENV_VARS`] as `env` reads them.
pub fn env_vars(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<(String, Option<String>)> {
    ENV_VARS
        .iter()
        .map(|name| {
            let value = env(name).map(|v| v.to_string_lossy().into_owned());
            (name.to_string(), value)
        })
        .collect()
}

/// The driver install path recorded in `/etc/ascend_install.info`
/// (`Driver_Install_Path_Param=/usr/local/Ascend`), as the driver directory.
pub fn driver_root_from_install_info(install_info: &str) -> Option<PathBuf> {
    install_info.lines().find_map(|line| {
        let value = line.trim().strip_prefix("Driver_Install_Path_Param=")?;
        let value = value.trim().trim_matches('"');
        (!value.is_empty()).then(|| Path::new(value).join("driver"))
    })
}

/// Directories where [`DRIVER_LIBRARY`] is looked for: `lib64`,
/// `lib64/driver` and `lib64/common` of the driver install (the default one
/// and the one in `install_info`, the text of `/etc/ascend_install.info`),
/// then every `LD_LIBRARY_PATH` entry.
pub fn driver_dirs(
    env: &dyn Fn(&str) -> Option<OsString>,
    install_info: Option<&str>,
) -> Vec<DriverDir> {
    let mut roots = vec![(PathBuf::from(DEFAULT_DRIVER_ROOT), "default install")];
    if let Some(root) = install_info.and_then(driver_root_from_install_info) {
        roots.push((root, "ascend_install.info"));
    }
    let mut dirs: Vec<(PathBuf, &str)> = Vec::new();
    for (root, source) in roots {
        for sub in ["lib64", "lib64/driver", "lib64/common"] {
            dirs.push((root.join(sub), source));
        }
    }
    if let Some(paths) = env("LD_LIBRARY_PATH") {
        for dir in std::env::split_paths(&paths).filter(|d| !d.as_os_str().is_empty()) {
            dirs.push((dir, "LD_LIBRARY_PATH"));
        }
    }
    let mut unique: Vec<DriverDir> = Vec::new();
    for (path, source) in dirs {
        if unique.iter().any(|d| d.path == path) {
            continue;
        }
        unique.push(DriverDir {
            exists: path.is_dir(),
            has_driver_library: path.join(DRIVER_LIBRARY).is_file(),
            source: source.to_string(),
            path,
        });
    }
    unique
}

/// `davinci<N>` device nodes in `dev`, sorted.
pub fn device_nodes(dev: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dev) else {
        return Vec::new();
    };
    let mut nodes: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix("davinci")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|e| e.path())
        .collect();
    nodes.sort();
    nodes
}

// ------------------------------------------------------------------ diagnosis

/// What kind of problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// No AscendCL library could be loaded (or only the mock, while a CANN
    /// install seems present).
    LibraryNotFound,
    /// The library could not be used (another one was selected, or `aclInit` failed).
    LibraryUnusable,
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
    fn new(kind: ProblemKind, summary: String, details: Vec<String>, fix: String) -> Problem {
        Problem {
            kind,
            summary,
            details,
            fix,
        }
    }
}

const SET_ENV_FIX: &str = "source CANN's environment script: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` \
     (CANN ≤ 8.3) or `source /usr/local/Ascend/cann/set_env.sh` (CANN 8.5+), or set ASCENDCL_LIBRARY \
     to the full path of libascendcl.so (libacl_rt.so on CANN 8.5+)";

fn version_text(v: (i64, i64, i64)) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

fn declared_version() -> (i64, i64, i64) {
    let (a, b, c) = ascendcl_sys::DECLARED_VERSION;
    (i64::from(a), i64::from(b), i64::from(c))
}

fn attempt_lines(attempts: &[Attempt]) -> Vec<String> {
    attempts.iter().map(|a| format!("tried {a}")).collect()
}

/// Every problem the facts show, most fundamental first. Pure: reads only `facts`.
pub fn diagnose(facts: &Facts) -> Vec<Problem> {
    let mut problems = Vec::new();
    library_problems(facts, &mut problems);
    root_problems(facts, &mut problems);
    runtime_problems(facts, &mut problems);
    driver_problems(facts, &mut problems);
    problems
}

fn library_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    let explicit = facts
        .env_var(ascendcl_sys::LIBRARY_ENV_VAR)
        .filter(|v| !v.is_empty());
    let fix = match explicit {
        Some(path) => format!(
            "ASCENDCL_LIBRARY is set to {path}, and when it is set nothing else is tried: \
             correct it to the path of libascendcl.so (libacl_rt.so on CANN 8.5+) or unset it"
        ),
        None => SET_ENV_FIX.to_string(),
    };
    match &facts.library {
        LibraryFacts::NotFound { attempts } => problems.push(Problem::new(
            ProblemKind::LibraryNotFound,
            "no AscendCL library could be loaded".into(),
            attempt_lines(attempts),
            fix,
        )),
        LibraryFacts::Unusable { error } => problems.push(Problem::new(
            ProblemKind::LibraryUnusable,
            "the AscendCL library could not be loaded".into(),
            vec![error.clone()],
            "a process uses one AscendCL library: run the doctor on its own".into(),
        )),
        LibraryFacts::Loaded(loaded) => {
            if let Origin::MockFallback { attempts } = &loaded.origin {
                let evidence = facts.install_evidence();
                if !evidence.is_empty() {
                    let mut details = vec![format!(
                        "a CANN install seems present: {}",
                        evidence.join("; ")
                    )];
                    details.extend(attempt_lines(attempts));
                    problems.push(Problem::new(
                        ProblemKind::LibraryNotFound,
                        "no AscendCL library could be loaded, although CANN seems installed; \
                         the doctor fell back to the mock"
                            .into(),
                        details,
                        fix,
                    ));
                }
            }
            if let Some(Err(error)) = &facts.runtime {
                problems.push(Problem::new(
                    ProblemKind::LibraryUnusable,
                    format!(
                        "{} was loaded but ACL could not be initialised",
                        loaded.path.display()
                    ),
                    vec![error.clone()],
                    "check that the driver is installed and matches this CANN (`npu-smi info`), \
                     and that the variables of CANN's set_env.sh are set in this shell"
                        .into(),
                ));
            }
        }
    }
}

fn root_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    for root in &facts.cann_roots {
        let named_by_variable = cann::ROOT_ENV_VARS.contains(&root.source.as_str());
        if !root.exists && named_by_variable {
            problems.push(Problem::new(
                ProblemKind::RootMissing,
                format!(
                    "{} is set to {}, which does not exist",
                    root.source,
                    root.path.display()
                ),
                Vec::new(),
                format!(
                    "set {} to the CANN install (the directory holding set_env.sh), \
                     by sourcing that set_env.sh again, or unset it",
                    root.source
                ),
            ));
        }
        if root.exists && root.layout == Some(Layout::Unrecognised) {
            let fix = if named_by_variable {
                format!(
                    "point {} at a CANN root: the directory holding set_env.sh, such as \
                     /usr/local/Ascend/ascend-toolkit/latest (CANN ≤ 8.3) or /usr/local/Ascend/cann (CANN 8.5+)",
                    root.source
                )
            } else {
                "this directory is searched by default: repair the CANN install there \
                 (reinstall the toolkit), or remove it if it is a leftover of an uninstall"
                    .to_string()
            };
            problems.push(Problem::new(
                ProblemKind::UnrecognisedRoot,
                format!(
                    "{} (from {}) exists but is not a CANN install this crate recognises",
                    root.path.display(),
                    root.source
                ),
                vec![
                    "neither lib64/libascendcl.so (toolkit layout), lib64/libacl_rt.so (CANN 8.5+) \
                     nor include/acl/acl.h is there"
                        .into(),
                ],
                fix,
            ));
        }
    }
}

fn runtime_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    let Some(loaded) = facts.loaded() else {
        return;
    };
    let runtime = facts.runtime_facts();
    let missing = &loaded.missing_functions;
    let declared = declared_version();
    let version = runtime
        .and_then(|r| r.version.as_ref().ok())
        .map(|&(a, b, c)| (i64::from(a), i64::from(b), i64::from(c)));
    let missing_line = || {
        format!(
            "{} of the {} functions the bindings use are missing: {}",
            missing.len(),
            ascendcl_sys::FUNCTIONS.len(),
            missing.join(", ")
        )
    };
    match version {
        Some(v) if v < declared && !missing.is_empty() => problems.push(Problem::new(
            ProblemKind::VersionMismatch,
            format!(
                "the library's ACL interface is {}, older than the {} these bindings declare (CANN 8.5.0)",
                version_text(v),
                version_text(declared)
            ),
            vec![missing_line()],
            "upgrade CANN (and the driver) to 8.5.0 or newer; until then, calls that need \
             these functions fail with Error::Symbol"
                .into(),
        )),
        Some(v) if v.0 > declared.0 => problems.push(Problem::new(
            ProblemKind::VersionMismatch,
            format!(
                "the library's ACL interface is {}, a newer major version than the {} these bindings declare",
                version_text(v),
                version_text(declared)
            ),
            Vec::new(),
            "function signatures may have changed: build with `--features ascendcl-sys/bindgen` \
             against this CANN, which checks every signature at compile time"
                .into(),
        )),
        _ if !missing.is_empty() => problems.push(Problem::new(
            ProblemKind::MissingFunctions,
            format!(
                "{} does not export every function the bindings use",
                loaded.path.display()
            ),
            vec![missing_line()],
            "on CANN 8.5+ the runtime API lives in libacl_rt.so: point ASCENDCL_LIBRARY at it, \
             or upgrade CANN; calls that need these functions fail with Error::Symbol"
                .into(),
        )),
        _ => {}
    }

    let Some(runtime) = runtime else {
        return;
    };
    let mut failed = Vec::new();
    let mut note = |what: &str, result: Result<(), &String>| {
        if let Err(error) = result {
            failed.push(format!("{what}: {error}"));
        }
    };
    note("aclrtGetVersion", runtime.version.as_ref().map(drop));
    note("CANN version", runtime.cann_version.as_ref().map(drop));
    note("aclrtGetSocName", runtime.soc_name.as_ref().map(drop));
    note("aclrtGetRunMode", runtime.run_mode.as_ref().map(drop));
    note(
        "aclrtGetDeviceCount",
        runtime.device_count.as_ref().map(drop),
    );
    if !failed.is_empty() {
        problems.push(Problem::new(
            ProblemKind::QueryFailed,
            format!("{} runtime queries failed", failed.len()),
            failed,
            "the runtime messages above say why; a missing or mismatched driver is the usual cause \
             (`npu-smi info` should list the cards)"
                .into(),
        ));
    }

    if runtime.device_count == Ok(0) {
        let visible = facts.env_var("ASCEND_RT_VISIBLE_DEVICES");
        let fix = match visible {
            Some(value) => format!(
                "ASCEND_RT_VISIBLE_DEVICES is set to \"{value}\" and hides every other device: \
                 unset it or list ids that `npu-smi info` shows"
            ),
            None if facts.device_nodes.is_empty() => {
                "there is no /dev/davinci<N> device node: the driver is not loaded \
                 (check `npu-smi info`, reinstall the driver), or in a container the devices were not \
                 passed in (--device /dev/davinci0 --device /dev/davinci_manager \
                 --device /dev/devmm_svm --device /dev/hisi_hdc)"
                    .to_string()
            }
            None => format!(
                "{} device nodes exist, but the runtime sees none: check `npu-smi info`, and that \
                 this user may open /dev/davinci* (the HwHiAiUser group)",
                facts.device_nodes.len()
            ),
        };
        problems.push(Problem::new(
            ProblemKind::NoDevices,
            "the runtime sees no device".into(),
            Vec::new(),
            fix,
        ));
    }

    let unavailable: Vec<String> = runtime
        .devices
        .iter()
        .filter_map(|d| {
            d.memory
                .as_ref()
                .err()
                .map(|e| format!("device {}: {e}", d.id))
        })
        .collect();
    if !unavailable.is_empty() {
        problems.push(Problem::new(
            ProblemKind::DeviceUnavailable,
            format!(
                "{} of {} devices could not be opened or queried",
                unavailable.len(),
                runtime.devices.len()
            ),
            unavailable,
            "another process may hold the device exclusively, or it is in a fault state: check \
             `npu-smi info`; ASCEND_RT_VISIBLE_DEVICES can hide devices from this process"
                .into(),
        ));
    }
}

/// Whether the driver check applies: a real library was loaded, or a CANN
/// root exists (on a machine with neither, there is nothing to check).
pub fn driver_check_applies(facts: &Facts) -> bool {
    facts.loaded().is_some_and(|l| !l.is_mock) || facts.cann_roots.iter().any(|r| r.exists)
}

fn driver_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    if !driver_check_applies(facts) || facts.driver_dirs.iter().any(|d| d.has_driver_library) {
        return;
    }
    let details = facts
        .driver_dirs
        .iter()
        .filter(|d| d.source != "LD_LIBRARY_PATH")
        .map(|d| {
            let state = if d.exists {
                format!("exists, but holds no {DRIVER_LIBRARY}")
            } else {
                "does not exist".to_string()
            };
            format!("{}: {state}", d.path.display())
        })
        .chain(std::iter::once(
            match facts
                .driver_dirs
                .iter()
                .filter(|d| d.source == "LD_LIBRARY_PATH")
                .count()
            {
                0 => "LD_LIBRARY_PATH names no directory".to_string(),
                n => format!("nor in any of the {n} LD_LIBRARY_PATH directories"),
            },
        ))
        .collect();
    problems.push(Problem::new(
        ProblemKind::DriverMissing,
        format!("the driver library {DRIVER_LIBRARY} was not found"),
        details,
        format!(
            "install the Ascend driver (Ascend-hdk-*-npu-driver_*.run, into {DEFAULT_DRIVER_ROOT} by default), \
             or add its lib64/driver and lib64/common directories to LD_LIBRARY_PATH (CANN's set_env.sh does)"
        ),
    ));
}

/// Remarks that are not problems (running on the mock, a newer library).
pub fn notes(facts: &Facts) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(loaded) = facts.loaded() else {
        return notes;
    };
    if let Origin::MockFallback { attempts } = &loaded.origin {
        if facts.install_evidence().is_empty() {
            notes.push(format!(
                "no AscendCL library was found ({} places tried, listed above), so the doctor uses \
                 the mock, as every example does; a program calling Runtime::init() would fail instead",
                attempts.len()
            ));
        }
    }
    if loaded.is_mock {
        notes.push(
            "running on the ascendcl behavioural mock: the versions, SoC name, device count and HBM \
             sizes are the mock's (ASCENDCL_MOCK_* variables), not a device's"
                .into(),
        );
    }
    let declared = declared_version();
    if let Some(Ok((a, b, c))) = facts.runtime_facts().map(|r| &r.version) {
        let v = (i64::from(*a), i64::from(*b), i64::from(*c));
        if v > declared && v.0 == declared.0 {
            notes.push(format!(
                "the library's ACL interface {} is newer than the {} the bindings declare: \
                 compatible, newer functions are simply not used",
                version_text(v),
                version_text(declared)
            ));
        } else if v < declared && loaded.missing_functions.is_empty() {
            notes.push(format!(
                "the library's ACL interface {} is older than the {} the bindings declare, \
                 but exports every function they use",
                version_text(v),
                version_text(declared)
            ));
        }
    }
    notes
}

// ------------------------------------------------------------------ reporting

/// Facts with their diagnosis, ready to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// What was gathered.
    pub facts: Facts,
    /// What is wrong.
    pub problems: Vec<Problem>,
    /// Remarks that are not problems.
    pub notes: Vec<String>,
}

/// Exit status when no problem was found.
pub const EXIT_OK: u8 = 0;
/// Exit status when problems were found.
pub const EXIT_PROBLEMS: u8 = 1;
/// Exit status of a usage error.
pub const EXIT_USAGE: u8 = 2;

fn gib(bytes: usize) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn layout_name(layout: Layout) -> &'static str {
    match layout {
        Layout::Toolkit => "toolkit layout (CANN ≤ 8.3)",
        Layout::Cann85 => "CANN 8.5+ layout",
        Layout::Unrecognised => "unrecognised layout",
    }
}

fn layout_key(layout: Layout) -> &'static str {
    match layout {
        Layout::Toolkit => "toolkit",
        Layout::Cann85 => "cann85",
        Layout::Unrecognised => "unrecognised",
    }
}

fn run_mode_key(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Host => "host",
        RunMode::Device => "device",
    }
}

/// Column at which [`line`] starts values.
const VALUE_COLUMN: usize = 20;

/// Writes `label` indented by `indent` and `value` at [`VALUE_COLUMN`]
/// (after one space if the label is longer), continuation lines aligned.
fn line(out: &mut String, indent: usize, label: &str, value: &str) {
    let width = VALUE_COLUMN
        .saturating_sub(indent + 1)
        .max(label.chars().count());
    let pad = " ".repeat(indent);
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    let _ = writeln!(out, "{pad}{label:<width$} {first}");
    for rest in lines {
        let _ = writeln!(out, "{pad}{:<width$} {rest}", "");
    }
}

fn or_error<T>(result: &Result<T, String>, show: impl Fn(&T) -> String) -> String {
    match result {
        Ok(value) => show(value),
        Err(error) => format!("failed: {error}"),
    }
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

    /// The report for people.
    pub fn to_text(&self) -> String {
        let facts = &self.facts;
        let mut out = String::from("AscendCL doctor\n\nlibrary\n");
        match &facts.library {
            LibraryFacts::Loaded(lib) => {
                let what = if lib.is_mock {
                    " (the ascendcl mock)"
                } else {
                    ""
                };
                line(
                    &mut out,
                    2,
                    "loaded:",
                    &format!("{}{what}", lib.path.display()),
                );
                let (how, attempts) = match &lib.origin {
                    Origin::Selected => ("selected by the program before the doctor ran", None),
                    Origin::Discovered => (
                        "discovery (ASCENDCL_LIBRARY, CANN roots, system loader)",
                        None,
                    ),
                    Origin::MockFallback { attempts } => (
                        "fallback to the mock: discovery found no AscendCL library",
                        Some(attempts),
                    ),
                };
                line(&mut out, 2, "chosen by:", how);
                for attempt in attempts.into_iter().flatten() {
                    line(&mut out, 4, "tried:", &attempt.to_string());
                }
                let total = ascendcl_sys::FUNCTIONS.len();
                let exported = if lib.missing_functions.is_empty() {
                    format!("all {total} functions the bindings use")
                } else {
                    format!(
                        "{} of {total}; missing: {}",
                        total.saturating_sub(lib.missing_functions.len()),
                        lib.missing_functions.join(", ")
                    )
                };
                line(&mut out, 2, "exports:", &exported);
            }
            LibraryFacts::NotFound { attempts } => {
                line(&mut out, 2, "loaded:", "none");
                for attempt in attempts {
                    line(&mut out, 4, "tried:", &attempt.to_string());
                }
            }
            LibraryFacts::Unusable { error } => {
                line(&mut out, 2, "loaded:", &format!("none: {error}"))
            }
        }

        out.push_str("\nruntime\n");
        match &facts.runtime {
            None => out.push_str("  not started: no library was loaded\n"),
            Some(Err(error)) => line(&mut out, 2, "aclInit:", &format!("failed: {error}")),
            Some(Ok(rt)) => {
                let declared = version_text(declared_version());
                line(
                    &mut out,
                    2,
                    "ACL interface:",
                    &or_error(&rt.version, |&(a, b, c)| {
                        format!("{a}.{b}.{c} (bindings declare {declared})")
                    }),
                );
                line(
                    &mut out,
                    2,
                    "CANN version:",
                    &or_error(&rt.cann_version, |v| {
                        v.clone()
                            .unwrap_or_else(|| "unknown (the library cannot tell)".into())
                    }),
                );
                line(&mut out, 2, "SoC:", &or_error(&rt.soc_name, String::clone));
                line(
                    &mut out,
                    2,
                    "run mode:",
                    &or_error(&rt.run_mode, |&m| run_mode_key(m).to_string()),
                );
                line(
                    &mut out,
                    2,
                    "devices:",
                    &or_error(&rt.device_count, u32::to_string),
                );
                for device in &rt.devices {
                    let memory = or_error(&device.memory, |m| {
                        format!("{} HBM, {} free", gib(m.total), gib(m.free))
                    });
                    line(&mut out, 4, &format!("device {}:", device.id), &memory);
                }
            }
        }

        out.push_str("\nCANN roots (search order)\n");
        for root in &facts.cann_roots {
            let state = match root.layout {
                Some(layout) if root.libraries.is_empty() => layout_name(layout).to_string(),
                Some(layout) => format!(
                    "{}, {}",
                    layout_name(layout),
                    root.libraries
                        .iter()
                        .map(|l| l.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "does not exist".to_string(),
            };
            let _ = writeln!(
                out,
                "  {} — {state} (from {})",
                root.path.display(),
                root.source
            );
        }

        out.push_str("\nenvironment\n");
        for (name, value) in &facts.env {
            let width = ENV_VARS.iter().map(|v| v.len()).max().unwrap_or(0) + 2;
            let value = value.as_deref().unwrap_or("(not set)");
            let _ = writeln!(out, "  {:<width$}{value}", format!("{name}:"));
        }

        out.push_str("\ndriver\n");
        let found: Vec<String> = facts
            .driver_dirs
            .iter()
            .filter(|d| d.has_driver_library)
            .map(|d| d.path.join(DRIVER_LIBRARY).display().to_string())
            .collect();
        let applies = driver_check_applies(facts);
        let state = match (found.is_empty(), applies) {
            (false, _) => found.join(", "),
            (true, true) => "not found".to_string(),
            (true, false) => "not found (not needed: no real library and no CANN root)".to_string(),
        };
        line(&mut out, 2, &format!("{DRIVER_LIBRARY}:"), &state);
        for dir in facts
            .driver_dirs
            .iter()
            .filter(|d| d.source != "LD_LIBRARY_PATH")
        {
            let state = if dir.exists {
                "exists"
            } else {
                "does not exist"
            };
            let _ = writeln!(out, "    {} — {state}", dir.path.display());
        }
        let in_path = facts
            .driver_dirs
            .iter()
            .filter(|d| d.source == "LD_LIBRARY_PATH")
            .count();
        let _ = writeln!(out, "    and {in_path} LD_LIBRARY_PATH directories");
        let nodes = if facts.device_nodes.is_empty() {
            "none".to_string()
        } else {
            facts
                .device_nodes
                .iter()
                .map(|n| n.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        line(&mut out, 2, "device nodes:", &nodes);

        if !self.notes.is_empty() {
            out.push_str("\nnotes\n");
            for note in &self.notes {
                let _ = writeln!(out, "  - {note}");
            }
        }
        if self.problems.is_empty() {
            out.push_str("\nno problems found\n");
        } else {
            let n = self.problems.len();
            let _ = writeln!(out, "\n{n} problem{} found", if n == 1 { "" } else { "s" });
            for (i, problem) in self.problems.iter().enumerate() {
                let _ = writeln!(out, "  {}. {}", i + 1, problem.summary);
                for detail in &problem.details {
                    for (j, text) in detail.lines().enumerate() {
                        let bullet = if j == 0 { "- " } else { "  " };
                        let _ = writeln!(out, "       {bullet}{text}");
                    }
                }
                let _ = writeln!(out, "     fix: {}", problem.fix);
            }
        }
        out
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        let facts = &self.facts;
        let attempts = |attempts: &[Attempt]| {
            Json::Arr(
                attempts
                    .iter()
                    .map(|a| {
                        Json::obj([
                            ("candidate", Json::path(&a.candidate)),
                            ("source", Json::str(&a.source)),
                            ("reason", Json::str(&a.reason)),
                        ])
                    })
                    .collect(),
            )
        };
        let library = match &facts.library {
            LibraryFacts::Loaded(lib) => {
                let (origin, tried) = match &lib.origin {
                    Origin::Selected => ("selected", Json::Arr(Vec::new())),
                    Origin::Discovered => ("discovered", Json::Arr(Vec::new())),
                    Origin::MockFallback { attempts: a } => ("mock-fallback", attempts(a)),
                };
                Json::obj([
                    ("status", Json::str("loaded")),
                    ("path", Json::path(&lib.path)),
                    ("origin", Json::str(origin)),
                    ("is_mock", Json::Bool(lib.is_mock)),
                    (
                        "missing_functions",
                        Json::Arr(lib.missing_functions.iter().map(Json::str).collect()),
                    ),
                    ("attempts", tried),
                ])
            }
            LibraryFacts::NotFound { attempts: a } => Json::obj([
                ("status", Json::str("not-found")),
                ("attempts", attempts(a)),
            ]),
            LibraryFacts::Unusable { error } => Json::obj([
                ("status", Json::str("unusable")),
                ("error", Json::str(error)),
            ]),
        };
        let result = |r: Result<Json, &String>| match r {
            Ok(value) => value,
            Err(error) => Json::obj([("error", Json::str(error))]),
        };
        let runtime = match &facts.runtime {
            None => Json::Null,
            Some(Err(error)) => Json::obj([("error", Json::str(error))]),
            Some(Ok(rt)) => Json::obj([
                (
                    "version",
                    result(
                        rt.version
                            .as_ref()
                            .map(|&(a, b, c)| Json::Arr(vec![a.into(), b.into(), c.into()])),
                    ),
                ),
                (
                    "cann_version",
                    result(rt.cann_version.as_ref().map(|v| match v {
                        Some(v) => Json::str(v),
                        None => Json::Null,
                    })),
                ),
                ("soc_name", result(rt.soc_name.as_ref().map(Json::str))),
                (
                    "run_mode",
                    result(rt.run_mode.as_ref().map(|&m| Json::str(run_mode_key(m)))),
                ),
                (
                    "device_count",
                    result(rt.device_count.as_ref().map(|&n| n.into())),
                ),
                (
                    "devices",
                    Json::Arr(
                        rt.devices
                            .iter()
                            .map(|d| match &d.memory {
                                Ok(m) => Json::obj([
                                    ("id", d.id.into()),
                                    ("hbm_total", m.total.into()),
                                    ("hbm_free", m.free.into()),
                                ]),
                                Err(error) => {
                                    Json::obj([("id", d.id.into()), ("error", Json::str(error))])
                                }
                            })
                            .collect(),
                    ),
                ),
            ]),
        };
        let (a, b, c) = ascendcl_sys::DECLARED_VERSION;
        let roots = facts
            .cann_roots
            .iter()
            .map(|r| {
                Json::obj([
                    ("path", Json::path(&r.path)),
                    ("source", Json::str(&r.source)),
                    ("exists", Json::Bool(r.exists)),
                    (
                        "layout",
                        r.layout.map_or(Json::Null, |l| Json::str(layout_key(l))),
                    ),
                    (
                        "libraries",
                        Json::Arr(r.libraries.iter().map(|l| Json::path(l)).collect()),
                    ),
                ])
            })
            .collect();
        let env = Json::Obj(
            facts
                .env
                .iter()
                .map(|(name, value)| (name.clone(), value.as_ref().map_or(Json::Null, Json::str)))
                .collect(),
        );
        let driver_dirs = facts
            .driver_dirs
            .iter()
            .map(|d| {
                Json::obj([
                    ("path", Json::path(&d.path)),
                    ("source", Json::str(&d.source)),
                    ("exists", Json::Bool(d.exists)),
                    ("has_driver_library", Json::Bool(d.has_driver_library)),
                ])
            })
            .collect();
        let problems = self
            .problems
            .iter()
            .map(|p| {
                Json::obj([
                    ("kind", Json::str(p.kind.as_str())),
                    ("summary", Json::str(&p.summary)),
                    (
                        "details",
                        Json::Arr(p.details.iter().map(Json::str).collect()),
                    ),
                    ("fix", Json::str(&p.fix)),
                ])
            })
            .collect();
        Json::obj([
            ("ok", Json::Bool(self.problems.is_empty())),
            ("library", library),
            (
                "declared_version",
                Json::Arr(vec![a.into(), b.into(), c.into()]),
            ),
            ("runtime", runtime),
            ("cann_roots", Json::Arr(roots)),
            ("env", env),
            (
                "driver",
                Json::obj([
                    ("checked", Json::Bool(driver_check_applies(facts))),
                    ("dirs", Json::Arr(driver_dirs)),
                    (
                        "device_nodes",
                        Json::Arr(facts.device_nodes.iter().map(|n| Json::path(n)).collect()),
                    ),
                ]),
            ),
            (
                "notes",
                Json::Arr(self.notes.iter().map(Json::str).collect()),
            ),
            ("problems", Json::Arr(problems)),
        ])
        .to_string()
    }
}

/// A JSON value, written by hand (no serde in this workspace).
enum Json {
    Null,
    Bool(bool),
    Int(i128),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn str(s: impl AsRef<str>) -> Json {
        Json::Str(s.as_ref().to_string())
    }

    fn path(p: &Path) -> Json {
        Json::Str(p.display().to_string())
    }

    fn obj<const N: usize>(fields: [(&str, Json); N]) -> Json {
        Json::Obj(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
}

macro_rules! json_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Json {
            fn from(v: $t) -> Json {
                Json::Int(v as i128)
            }
        }
    )*};
}
json_int!(i32, u32, usize);

fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Json {
    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Str(s) => write_json_str(out, s),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_str(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        self.write(&mut out);
        f.write_str(&out)
    }
}

// ------------------------------------------------------------------ command line

/// The usage text.
pub const USAGE: &str = "usage: doctor [--json] [--no-mock]
  --json      print one JSON object instead of text
  --no-mock   do not fall back to the mock when no AscendCL library is found
              (a missing library is then always a problem)
exit status: 0 no problem found, 1 problems found, 2 usage error";

/// What the command line prints and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status: [`EXIT_OK`], [`EXIT_PROBLEMS`] or [`EXIT_USAGE`].
    pub exit_code: u8,
}

/// Runs the doctor with command-line arguments (without the program name).
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let (mut json, mut fallback) = (false, true);
    for arg in args {
        let arg: OsString = arg.into();
        match arg.to_str() {
            Some("--json") => json = true,
            Some("--no-mock") => fallback = false,
            Some("-h" | "--help") => {
                return Output {
                    stdout: format!("{USAGE}\n"),
                    stderr: String::new(),
                    exit_code: EXIT_OK,
                };
            }
            _ => {
                return Output {
                    stdout: String::new(),
                    stderr: format!("doctor: unknown argument {arg:?}\n{USAGE}\n"),
                    exit_code: EXIT_USAGE,
                };
            }
        }
    }
    let report = Report::new(gather(fallback));
    let stdout = if json {
        format!("{}\n", report.to_json())
    } else {
        report.to_text()
    };
    Output {
        stdout,
        stderr: String::new(),
        exit_code: report.exit_code(),
    }
}
