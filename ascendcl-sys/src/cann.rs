//! Finding a CANN installation on disk.
//!
//! CANN has shipped two layouts:
//!
//! * the **toolkit layout** (CANN 8.3 and older, still the most common):
//!   `…/ascend-toolkit/latest/{include,lib64}`, with `libascendcl.so` holding the
//!   runtime API;
//! * the **CANN 8.5+ layout**: `…/cann/{include,lib64}` (links into
//!   `<arch>-linux/`), where the runtime API lives in `libacl_rt.so` and
//!   `libascendcl.so` is kept as a compatibility library.
//!
//! Roots are looked for in the order CANN's own `set_env.sh` scripts and
//! downstream projects use: `ASCEND_TOOLKIT_HOME`, `ASCEND_HOME_PATH`,
//! `ASCEND_INSTALL_PATH`, then `$HOME/Ascend/{cann,ascend-toolkit/latest}`, then
//! `/usr/local/Ascend/{cann,ascend-toolkit/latest}`.
//!
//! This file is also compiled into the build script (it has no dependencies), so
//! the build and the run-time loader agree on what an install looks like.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variables naming a CANN root, in precedence order.
pub const ROOT_ENV_VARS: [&str; 3] = [
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_HOME_PATH",
    "ASCEND_INSTALL_PATH",
];

/// Library file names that hold the runtime API, in the order they are tried.
pub const LIBRARY_NAMES: [&str; 2] = ["libascendcl.so", "libacl_rt.so"];

/// Which of the known layouts a CANN root follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `ascend-toolkit/latest` style (CANN ≤ 8.3): `libascendcl.so` in `lib64/`.
    Toolkit,
    /// `cann/` style (CANN 8.5+): `libacl_rt.so` in `lib64/`, per-arch trees.
    Cann85,
    /// The directory exists but has neither `include/acl/acl.h` nor a runtime
    /// library where either layout puts them.
    Unrecognised,
}

/// A directory that may be the root of a CANN install, and who named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannRoot {
    /// The directory.
    pub path: PathBuf,
    /// Where it came from: an environment variable name or a default location.
    pub source: String,
}

impl CannRoot {
    /// Whether the directory exists at all.
    pub fn exists(&self) -> bool {
        self.path.is_dir()
    }

    /// The layout this root follows.
    pub fn layout(&self) -> Layout {
        let lib64 = self.path.join("lib64");
        if lib64.join("libacl_rt.so").is_file() {
            Layout::Cann85
        } else if lib64.join("libascendcl.so").is_file()
            || self.path.join("runtime/lib64/libascendcl.so").is_file()
        {
            Layout::Toolkit
        } else if self.include_dir().is_some() {
            // Headers without a library: a devel-only install. Call it by the
            // directory naming convention.
            if self
                .path
                .components()
                .any(|c| c.as_os_str() == "ascend-toolkit")
            {
                Layout::Toolkit
            } else {
                Layout::Cann85
            }
        } else {
            Layout::Unrecognised
        }
    }

    /// The include directory (the parent of `acl/`) if it holds `acl/acl.h`.
    pub fn include_dir(&self) -> Option<PathBuf> {
        let mut dirs = vec![self.path.join("include"), self.path.join("runtime/include")];
        dirs.extend(arch_dirs(&self.path).into_iter().map(|d| d.join("include")));
        dirs.into_iter().find(|d| d.join("acl/acl.h").is_file())
    }

    /// Runtime library files under this root that exist, in the order to try.
    pub fn library_files(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.path.join("lib64"), self.path.join("runtime/lib64")];
        dirs.extend(arch_dirs(&self.path).into_iter().map(|d| d.join("lib64")));
        let mut files = Vec::new();
        for name in LIBRARY_NAMES {
            for dir in &dirs {
                let file = dir.join(name);
                if file.is_file() && !files.contains(&file) {
                    files.push(file);
                }
            }
        }
        files
    }
}

/// `<root>/<arch>-linux` directories of the CANN 8.5+ layout.
fn arch_dirs(root: &Path) -> Vec<PathBuf> {
    ["aarch64-linux", "x86_64-linux"]
        .iter()
        .map(|a| root.join(a))
        .filter(|d| d.is_dir())
        .collect()
}

/// Every candidate CANN root, in precedence order, whether or not it exists.
///
/// `env` reads an environment variable; the build script passes a reader that
/// also registers `rerun-if-env-changed`.
pub fn candidate_roots(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<CannRoot> {
    let mut roots = Vec::new();
    for var in ROOT_ENV_VARS {
        if let Some(value) = env(var).filter(|v| !v.is_empty()) {
            roots.push(CannRoot {
                path: PathBuf::from(value),
                source: var.to_string(),
            });
        }
    }
    if let Some(home) = env("HOME").filter(|v| !v.is_empty()) {
        let home = PathBuf::from(home);
        for sub in ["Ascend/cann", "Ascend/ascend-toolkit/latest"] {
            roots.push(CannRoot {
                path: home.join(sub),
                source: format!("$HOME/{sub}"),
            });
        }
    }
    for dir in [
        "/usr/local/Ascend/cann",
        "/usr/local/Ascend/ascend-toolkit/latest",
    ] {
        roots.push(CannRoot {
            path: PathBuf::from(dir),
            source: "default location".to_string(),
        });
    }
    let mut unique: Vec<CannRoot> = Vec::new();
    for root in roots {
        if !unique.iter().any(|r| r.path == root.path) {
            unique.push(root);
        }
    }
    unique
}

/// The first candidate root that has the AscendCL headers.
pub fn find_headers(env: &dyn Fn(&str) -> Option<OsString>) -> Option<(CannRoot, PathBuf)> {
    candidate_roots(env)
        .into_iter()
        .find_map(|root| root.include_dir().map(|inc| (root, inc)))
}
