//! Gathering the [`Facts`] of this process and machine. Nothing is judged here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ascendcl::{Device, Runtime};
use ascendcl_sys::Library;
use ascendcl_sys::cann;

use super::facts::{
    DeviceFacts, DriverDir, Facts, LibraryFacts, LoadedLibrary, Origin, RootFacts, RuntimeFacts,
};
use super::{DEFAULT_DRIVER_ROOT, DRIVER_LIBRARY, ENV_VARS, INSTALL_INFO};

/// A symbol only the ascendcl behavioural mock exports.
const MOCK_SYMBOL: &str = "aclmockReset";

/// The error text of a result.
fn text<T, E: std::fmt::Display>(result: Result<T, E>) -> Result<T, String> {
    result.map_err(|e| e.to_string())
}

/// Gathers the facts of this process and machine.
///
/// The library is the one this process already selected, else with `mock`
/// the mock bundled into the binary ([`crate::bundled::mock_library`]), else
/// the one discovery finds ([`ascendcl_sys::library`](ascendcl_sys::library()));
/// nothing else is tried. Then ACL is initialised and every visible device is
/// opened for its HBM (devices that fail are recorded with their error).
pub fn gather(mock: bool) -> Facts {
    let env = |name: &str| std::env::var_os(name);
    let install_info = std::fs::read_to_string(INSTALL_INFO).ok();
    let (mut library, lib) = load_library(mock);
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
fn load_library(mock: bool) -> (LibraryFacts, Option<&'static Library>) {
    let (lib, origin) = if let Some(lib) = ascendcl_sys::selected_library() {
        (lib, Origin::Selected)
    } else if mock {
        let selected = crate::bundled::mock_library()
            .map_err(|e| e.to_string())
            .and_then(|path| ascendcl_sys::select_library(path).map_err(|e| e.to_string()));
        match selected {
            Ok(lib) => (lib, Origin::Mock),
            Err(error) => return (LibraryFacts::Unusable { error }, None),
        }
    } else {
        match ascendcl_sys::library() {
            Ok(lib) => (lib, Origin::Discovered),
            Err(ascendcl_sys::LoadError::InvalidFile {
                file,
                source,
                problem,
            }) => {
                let facts = LibraryFacts::InvalidFile {
                    file,
                    source,
                    problem,
                };
                return (facts, None);
            }
            Err(error) => {
                let attempts = error.attempts().to_vec();
                if attempts.is_empty() {
                    let error = error.to_string();
                    return (LibraryFacts::Unusable { error }, None);
                }
                return (LibraryFacts::NotFound { attempts }, None);
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
