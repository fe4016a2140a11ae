//! The aclnn operator libraries, opened at run time on first use.
//!
//! Operators live outside the runtime: the descriptor API (tensors, scalars,
//! arrays, executors) in `libnnopbase.so`, the operators in the op-API
//! libraries — CANN 8.5 splits them into `libopapi_math.so`, `libopapi_nn.so`,
//! `libopapi_cv.so`, `libopapi_transformer.so` and still ships the aggregate `libopapi.so`. A program
//! that never launches an operator never loads any of them.
//!
//! [`aclnn`] finds them in one directory, the first of:
//!
//! 1. `ASCENDCL_ACLNN_DIR`, when set (nothing else is tried);
//! 2. the directory of the runtime library in use (CANN's `lib64`, or the
//!    mock's build directory, which holds the mock's operator libraries);
//! 3. `lib64` of each CANN root (see [`crate::cann`]).
//!
//! In that directory `libnnopbase.so` is required, and the op libraries are
//! opened in a fixed order: the split ones present, then `libopapi.so`. Each
//! operator symbol is resolved in that order, one at a time — never from
//! CANN's legacy `libaclnn_*.so` libraries, which export some of the same
//! names with other behaviour. An operator is usable only when both of its
//! functions resolve ([`Aclnn::require_op`]); a missing one is a
//! [`SymbolError`], never a panic.

mod api;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::error::{Attempt, LoadError, SymbolError};
use crate::library::Library;
use api::AclnnSymbols;

pub use api::ACLNN_FUNCTIONS;

/// Environment variable naming the directory of the aclnn libraries.
pub const ACLNN_DIR_ENV_VAR: &str = "ASCENDCL_ACLNN_DIR";

/// The descriptor library's file name.
pub const NNOPBASE: &str = "libnnopbase.so";

/// The op-API libraries, in resolution order.
pub const OPAPI_LIBRARIES: [&str; 5] = [
    "libopapi_math.so",
    "libopapi_nn.so",
    "libopapi_cv.so",
    // FlashAttentionScore(Grad) and the other transformer ops: hicann/ops-transformer
    // installs it as lib64/libopapi_transformer.so
    // (scripts/package/module/ascend/OpsTransformer.xml:6-8, commit c29bc106).
    "libopapi_transformer.so",
    "libopapi.so",
];

/// The opened aclnn libraries. Functions are methods named after the C
/// functions (see [`ACLNN_FUNCTIONS`]); each resolves on first call.
pub struct Aclnn {
    dir: PathBuf,
    nnopbase: libloading::Library,
    /// Opened op libraries, in resolution order.
    opapi: Vec<(PathBuf, libloading::Library)>,
    pub(crate) symbols: AclnnSymbols,
}

impl std::fmt::Debug for Aclnn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Aclnn")
            .field("dir", &self.dir)
            .field(
                "opapi",
                &self.opapi.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Opens a library file (checked first, see [`crate::elf`]); the reason
/// on failure is what an [`Attempt`] lists.
fn open(path: &Path) -> Result<libloading::Library, String> {
    crate::shared_object::open_path(path).map_err(|failure| failure.to_string())
}

impl Aclnn {
    /// Opens `libnnopbase.so` and the op libraries present in `dir`.
    pub fn open_dir(dir: impl AsRef<Path>) -> Result<Aclnn, LoadError> {
        let dir = dir.as_ref().to_path_buf();
        let source = "explicit directory".to_string();
        let mut attempts = Vec::new();
        Self::try_dir(&dir, &source, &mut attempts).ok_or(LoadError::AclnnNotFound { attempts })
    }

    fn try_dir(dir: &Path, source: &str, attempts: &mut Vec<Attempt>) -> Option<Aclnn> {
        let attempt = |candidate: PathBuf, reason: String| Attempt {
            candidate,
            source: source.to_string(),
            reason,
        };
        let base_path = dir.join(NNOPBASE);
        let nnopbase = match open(&base_path) {
            Ok(lib) => lib,
            Err(reason) => {
                attempts.push(attempt(base_path, reason));
                return None;
            }
        };
        let mut opapi = Vec::new();
        for name in OPAPI_LIBRARIES {
            let path = dir.join(name);
            match open(&path) {
                Ok(lib) => opapi.push((path, lib)),
                // Split libraries are optional; report only when none opened.
                Err(reason) => attempts.push(attempt(path, reason)),
            }
        }
        if opapi.is_empty() {
            return None;
        }
        Some(Aclnn {
            dir: dir.to_path_buf(),
            nnopbase,
            opapi,
            symbols: AclnnSymbols::default(),
        })
    }

    /// The directory the libraries were opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The op libraries opened, in resolution order.
    pub fn op_libraries(&self) -> impl Iterator<Item = &Path> {
        self.opapi.iter().map(|(p, _)| p.as_path())
    }

    /// Resolves `name` (NUL-terminated) from `libnnopbase.so`.
    ///
    /// # Safety
    /// `F` must be the function pointer type of the C function `name`.
    pub(crate) unsafe fn resolve_descriptor<F: Copy>(
        &self,
        name: &'static str,
    ) -> Result<F, String> {
        // SAFETY: as the caller guarantees; the library is never unloaded.
        let symbol = unsafe { self.nnopbase.get::<F>(name.as_bytes()) };
        symbol.map(|s| *s).map_err(|e| e.to_string())
    }

    /// Resolves operator `name` (NUL-terminated) from the op libraries, in order.
    ///
    /// # Safety
    /// `F` must be the function pointer type of the C function `name`.
    pub(crate) unsafe fn resolve_op<F: Copy>(&self, name: &'static str) -> Result<F, String> {
        for (_, lib) in &self.opapi {
            // SAFETY: as the caller guarantees; the library is never unloaded.
            if let Ok(symbol) = unsafe { lib.get::<F>(name.as_bytes()) } {
                return Ok(*symbol);
            }
        }
        let searched: Vec<String> = self
            .opapi
            .iter()
            .map(|(p, _)| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        Err(format!("searched {}", searched.join(", ")))
    }

    pub(crate) fn missing(&self, symbol: &'static str, reason: &str) -> SymbolError {
        SymbolError {
            symbol,
            library: self.dir.clone(),
            reason: reason.to_string(),
        }
    }

    /// Checks that operator `name` (e.g. `"Add"`) is usable: both
    /// `aclnn<name>GetWorkspaceSize` and `aclnn<name>` resolve.
    pub fn require_op(&self, name: &str) -> Result<(), SymbolError> {
        self.require_function(&format!("aclnn{name}GetWorkspaceSize"))?;
        self.require_function(&format!("aclnn{name}"))
    }
}

/// The directories to try, in order (see the module docs), with who
/// suggested each. `runtime` is the runtime library in use, if any.
pub fn candidate_dirs(
    env: &dyn Fn(&str) -> Option<OsString>,
    runtime: Option<&Path>,
) -> Vec<(PathBuf, String)> {
    if let Some(dir) = env(ACLNN_DIR_ENV_VAR).filter(|d| !d.is_empty()) {
        return vec![(PathBuf::from(dir), ACLNN_DIR_ENV_VAR.to_string())];
    }
    let mut dirs = Vec::new();
    if let Some(parent) = runtime.and_then(Path::parent) {
        dirs.push((
            parent.to_path_buf(),
            "the runtime library's directory".into(),
        ));
    }
    for root in crate::cann::candidate_roots(env) {
        let lib64 = root.path.join("lib64");
        if !dirs.iter().any(|(d, _)| *d == lib64) {
            dirs.push((lib64, format!("{} = {}", root.source, root.path.display())));
        }
    }
    dirs
}

/// Finds and opens the aclnn libraries (without caching them).
pub fn discover_aclnn(runtime: Option<&Library>) -> Result<Aclnn, LoadError> {
    let env = |name: &str| std::env::var_os(name);
    let mut attempts = Vec::new();
    for (dir, source) in candidate_dirs(&env, runtime.map(Library::path)) {
        if let Some(aclnn) = Aclnn::try_dir(&dir, &source, &mut attempts) {
            return Ok(aclnn);
        }
    }
    Err(LoadError::AclnnNotFound { attempts })
}

/// The aclnn libraries for the runtime library `runtime` (found next to it
/// first, see the module docs), opened on first call and kept for the
/// process. A failure is not cached: a later call tries again.
pub fn aclnn_for(runtime: Option<&'static Library>) -> Result<&'static Aclnn, LoadError> {
    type Cache = Mutex<Vec<(usize, &'static Aclnn)>>;
    static OPENED: Cache = Mutex::new(Vec::new());
    let key = runtime.map_or(0, |lib| lib as *const Library as usize);
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, aclnn)) = opened.iter().find(|(k, _)| *k == key) {
        return Ok(aclnn);
    }
    let aclnn: &'static Aclnn = Box::leak(Box::new(discover_aclnn(runtime)?));
    opened.push((key, aclnn));
    Ok(aclnn)
}

/// The aclnn libraries of this process's runtime library (see
/// [`crate::selected_library`]), as [`aclnn_for`].
pub fn aclnn() -> Result<&'static Aclnn, LoadError> {
    aclnn_for(crate::library::selected_library())
}
