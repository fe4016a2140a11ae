//! The HCCL collective communication libraries, opened at run time on first use.
//!
//! CANN 8.5 splits HCCL in two: the collectives (all-reduce, broadcast, …) in
//! `libhccl.so`, the communicator functions (init, destroy, rank queries,
//! barrier, error strings, group start/end) in `libhcomm.so`, which
//! `libhccl.so` depends on. Older CANN has everything in `libhccl.so`. A
//! program that never creates a communicator never loads either.
//!
//! [`hccl_for`] finds them in one directory, the first of:
//!
//! 1. `ASCENDCL_HCCL_DIR`, when set (nothing else is tried);
//! 2. the directory of the runtime library in use (CANN's `lib64`, or the
//!    mock's build directory, which holds the mock's `libhccl.so`);
//! 3. `lib64` of each CANN root (see [`crate::cann`]).
//!
//! In that directory `libhccl.so` is required and `libhcomm.so` optional.
//! Each symbol is resolved on first call, in `libhccl.so` first and then in
//! `libhcomm.so` (as torch_npu does, which also `dlsym`s every HCCL
//! function). A symbol neither exports — an optional function of a newer
//! CANN — is a [`SymbolError`], never a panic.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let hccl = ascendcl_sys::hccl::hccl()?;
//! // SAFETY: HcclGetErrorString takes any code and returns a static string.
//! let text = unsafe { hccl.HcclGetErrorString(ascendcl_sys::HcclResult::HCCL_E_AGAIN) }?;
//! assert!(!text.is_null());
//! # Ok(())
//! # }
//! ```

mod api;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::error::{Attempt, LoadError, SymbolError};
use crate::library::Library;
use crate::shared_object::OpenFailure;
use api::HcclSymbols;

pub use api::HCCL_FUNCTIONS;

/// Environment variable naming the directory of the HCCL libraries.
pub const HCCL_DIR_ENV_VAR: &str = "ASCENDCL_HCCL_DIR";

/// The collectives library (required).
pub const HCCL_LIBRARY: &str = "libhccl.so";

/// The communicator library of CANN 8.5+ (optional).
pub const HCOMM_LIBRARY: &str = "libhcomm.so";

/// The opened HCCL libraries. Functions are methods named after the C
/// functions (see [`HCCL_FUNCTIONS`]); each resolves on first call.
pub struct Hccl {
    dir: PathBuf,
    hccl: libloading::Library,
    hcomm: Option<libloading::Library>,
    pub(crate) symbols: HcclSymbols,
}

impl std::fmt::Debug for Hccl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hccl")
            .field("dir", &self.dir)
            .field("hcomm", &self.hcomm.is_some())
            .finish_non_exhaustive()
    }
}

/// Opens a library file (checked first, see [`crate::elf`]); the reason
/// on failure is what an [`Attempt`] lists.
fn open(path: &Path) -> Result<libloading::Library, String> {
    crate::shared_object::open_path(path).map_err(|failure| failure.to_string())
}

impl Hccl {
    /// Opens `libhccl.so` (and `libhcomm.so` if present) in `dir`.
    pub fn open_dir(dir: impl AsRef<Path>) -> Result<Hccl, LoadError> {
        let mut attempts = Vec::new();
        Self::try_dir(dir.as_ref(), "explicit directory", &mut attempts)
            .ok_or(LoadError::HcclNotFound { attempts })
    }

    fn try_dir(dir: &Path, source: &str, attempts: &mut Vec<Attempt>) -> Option<Hccl> {
        let mut failed = |candidate: PathBuf, reason: String| {
            attempts.push(Attempt {
                candidate,
                source: source.to_string(),
                reason,
            });
            None
        };
        // libhcomm.so is optional (absent before the split, and then
        // everything resolves from libhccl.so), but CANN 8.5's libhccl.so
        // needs it, so the loader maps it while opening libhccl.so: check
        // it first, or a truncated copy crashes that `dlopen`.
        let hcomm_path = dir.join(HCOMM_LIBRARY);
        if hcomm_path.exists() {
            if let Err(problem) = crate::elf::check_shared_object(&hcomm_path) {
                let reason = OpenFailure::Invalid(problem).to_string();
                return failed(hcomm_path, reason);
            }
        }
        let path = dir.join(HCCL_LIBRARY);
        let hccl = match open(&path) {
            Ok(lib) => lib,
            Err(reason) => return failed(path, reason),
        };
        let hcomm = open(&hcomm_path).ok();
        Some(Hccl {
            dir: dir.to_path_buf(),
            hccl,
            hcomm,
            symbols: HcclSymbols::default(),
        })
    }

    /// The directory the libraries were opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether `libhcomm.so` was found next to `libhccl.so`.
    pub fn has_hcomm(&self) -> bool {
        self.hcomm.is_some()
    }

    /// Resolves `name` (NUL-terminated) in `libhccl.so`, then `libhcomm.so`.
    ///
    /// # Safety
    /// `F` must be the function pointer type of the C function `name`.
    pub(crate) unsafe fn resolve<F: Copy>(&self, name: &'static str) -> Result<F, String> {
        // SAFETY: as the caller guarantees; the libraries are never unloaded.
        let first = unsafe { self.hccl.get::<F>(name.as_bytes()) };
        match first {
            Ok(symbol) => Ok(*symbol),
            Err(e) => match &self.hcomm {
                // SAFETY: as above.
                Some(hcomm) => match unsafe { hcomm.get::<F>(name.as_bytes()) } {
                    Ok(symbol) => Ok(*symbol),
                    Err(e2) => Err(format!("{HCCL_LIBRARY}: {e}; {HCOMM_LIBRARY}: {e2}")),
                },
                None => Err(format!("{HCCL_LIBRARY}: {e}; no {HCOMM_LIBRARY}")),
            },
        }
    }

    pub(crate) fn missing(&self, symbol: &'static str, reason: &str) -> SymbolError {
        SymbolError {
            symbol,
            library: self.dir.join(HCCL_LIBRARY),
            reason: reason.to_string(),
        }
    }
}

/// The directories to try, in order (see the module docs), with who
/// suggested each. `runtime` is the runtime library in use, if any.
pub fn candidate_dirs(
    env: &dyn Fn(&str) -> Option<OsString>,
    runtime: Option<&Path>,
) -> Vec<(PathBuf, String)> {
    if let Some(dir) = env(HCCL_DIR_ENV_VAR).filter(|d| !d.is_empty()) {
        return vec![(PathBuf::from(dir), HCCL_DIR_ENV_VAR.to_string())];
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

/// Finds and opens the HCCL libraries (without caching them).
pub fn discover_hccl(runtime: Option<&Library>) -> Result<Hccl, LoadError> {
    let env = |name: &str| std::env::var_os(name);
    let mut attempts = Vec::new();
    for (dir, source) in candidate_dirs(&env, runtime.map(Library::path)) {
        if let Some(hccl) = Hccl::try_dir(&dir, &source, &mut attempts) {
            return Ok(hccl);
        }
    }
    Err(LoadError::HcclNotFound { attempts })
}

/// The HCCL libraries for the runtime library `runtime` (found next to it
/// first, see the module docs), opened on first call and kept for the
/// process. A failure is not cached: a later call tries again.
pub fn hccl_for(runtime: Option<&'static Library>) -> Result<&'static Hccl, LoadError> {
    type Cache = Mutex<Vec<(usize, &'static Hccl)>>;
    static OPENED: Cache = Mutex::new(Vec::new());
    let key = runtime.map_or(0, |lib| lib as *const Library as usize);
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, hccl)) = opened.iter().find(|(k, _)| *k == key) {
        return Ok(hccl);
    }
    let hccl: &'static Hccl = Box::leak(Box::new(discover_hccl(runtime)?));
    opened.push((key, hccl));
    Ok(hccl)
}

/// The HCCL libraries of this process's runtime library (see
/// [`crate::selected_library`]), as [`hccl_for`].
pub fn hccl() -> Result<&'static Hccl, LoadError> {
    hccl_for(crate::library::selected_library())
}
