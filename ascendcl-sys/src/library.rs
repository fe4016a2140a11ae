//! Opening the AscendCL library at run time and choosing the one a process uses.
//!
//! A process talks to exactly one AscendCL runtime. [`library`] returns it,
//! finding it on first use in this order:
//!
//! 1. `ASCENDCL_LIBRARY`: an explicit path. When set, nothing else is tried.
//!    A file there that is not a usable shared library (truncated, not ELF,
//!    another architecture: see [`crate::elf`]) is [`LoadError::InvalidFile`].
//! 2. Each CANN root (see [`crate::cann`]): `lib64/libascendcl.so`, then
//!    `lib64/libacl_rt.so` (CANN 8.5+), also under `runtime/` and `<arch>-linux/`.
//! 3. The system loader (`LD_LIBRARY_PATH`, `ld.so.cache`): `libascendcl.so`,
//!    then `libacl_rt.so`.
//!
//! Every file opened by path is checked before the dynamic loader maps it
//! (see [`crate::elf`]); a damaged file found by searching is listed among
//! the places tried and the search goes on.
//!
//! [`select_library`] chooses a specific file instead (tests and examples use
//! it to choose the mock). Libraries are never unloaded: runtime worker threads
//! may run library code until the process exits.

use std::collections::HashMap;
use std::ffi::{CStr, OsString, c_void};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::api::Symbols;
use crate::cann;
use crate::error::{Attempt, LoadError, SymbolError};
use crate::optional::OptionalSymbols;
use crate::shared_object::{self, OpenFailure};

/// Name of the environment variable holding an explicit library path.
pub const LIBRARY_ENV_VAR: &str = "ASCENDCL_LIBRARY";

/// An opened AscendCL library. Functions are methods named after the C
/// functions (see the `api` module); each resolves its symbol on first call.
pub struct Library {
    handle: libloading::Library,
    /// The path or name the library was opened with.
    requested: PathBuf,
    /// The file the dynamic loader actually mapped, found on first use.
    resolved: OnceLock<PathBuf>,
    pub(crate) symbols: Symbols,
    pub(crate) optional: OptionalSymbols,
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library")
            .field("path", &self.path())
            .finish_non_exhaustive()
    }
}

/// Libraries opened by this process, by the path they were opened with.
fn opened() -> &'static Mutex<HashMap<PathBuf, &'static Library>> {
    static OPENED: OnceLock<Mutex<HashMap<PathBuf, &'static Library>>> = OnceLock::new();
    OPENED.get_or_init(Default::default)
}

/// The library this process uses, once chosen.
static SELECTED: OnceLock<&'static Library> = OnceLock::new();
/// Serialises choosing, so two threads cannot select different libraries.
static SELECTING: Mutex<()> = Mutex::new(());

impl Library {
    /// Opens the library at `path` (or a bare name, for the system loader).
    ///
    /// Opening the same path twice returns the same `Library`. This does not
    /// make it the process's library: see [`select_library`]. A file that is
    /// not a shared library of this machine (truncated, not ELF, another
    /// architecture) is refused before the dynamic loader sees it, with
    /// [`LoadError::InvalidFile`].
    pub fn open(path: impl AsRef<Path>) -> Result<&'static Library, LoadError> {
        let requested = path.as_ref().to_path_buf();
        Self::open_from(requested.clone())
            .map_err(|failure| failure.into_error(requested, "explicit path"))
    }

    fn open_from(requested: PathBuf) -> Result<&'static Library, OpenFailure> {
        let key = std::fs::canonicalize(&requested).unwrap_or_else(|_| requested.clone());
        let mut map = opened().lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(lib) = map.get(&key) {
            return Ok(lib);
        }
        // A bare name goes to the system loader on purpose; anything with a
        // separator is a path, checked before it is loaded.
        let handle = if requested.components().count() > 1 {
            shared_object::open_path(&requested)?
        } else {
            shared_object::open_name(&requested)?
        };
        let lib: &'static Library = Box::leak(Box::new(Library {
            handle,
            requested,
            resolved: OnceLock::new(),
            symbols: Symbols::default(),
            optional: OptionalSymbols::default(),
        }));
        map.insert(key, lib);
        Ok(lib)
    }

    /// The file the library was loaded from. For a library found by the system
    /// loader this is the file it chose, not just the bare name.
    pub fn path(&self) -> &Path {
        self.resolved
            .get_or_init(|| self.loaded_file().unwrap_or_else(|| self.requested.clone()))
    }

    /// Whether the library exports `symbol`.
    pub fn has_symbol(&self, symbol: &str) -> bool {
        self.raw_symbol(symbol).is_some()
    }

    fn raw_symbol(&self, symbol: &str) -> Option<*mut c_void> {
        let mut name = symbol.as_bytes().to_vec();
        name.push(0);
        // SAFETY: the symbol is only looked up, not called or dereferenced.
        let found = unsafe { self.handle.get::<*mut c_void>(name.as_slice()) }.ok()?;
        Some(*found)
    }

    /// Resolves `name` (NUL-terminated) as a function pointer of type `F`.
    ///
    /// # Safety
    /// `F` must be the function pointer type of the C function `name`.
    pub(crate) unsafe fn resolve<F: Copy>(&self, name: &'static str) -> Result<F, String> {
        // SAFETY: the caller guarantees `F` is the function's true type; the
        // pointer stays valid because the library is never unloaded.
        let symbol = unsafe { self.handle.get::<F>(name.as_bytes()) }
            .map_err(|e| shared_object::loader_message(&e))?;
        Ok(*symbol)
    }

    pub(crate) fn missing(&self, symbol: &'static str, reason: &str) -> SymbolError {
        SymbolError {
            symbol,
            library: self.path().to_path_buf(),
            reason: reason.to_string(),
        }
    }

    /// Asks the dynamic loader which file holds one of our symbols.
    fn loaded_file(&self) -> Option<PathBuf> {
        #[repr(C)]
        struct DlInfo {
            fname: *const std::ffi::c_char,
            fbase: *mut c_void,
            sname: *const std::ffi::c_char,
            saddr: *mut c_void,
        }
        unsafe extern "C" {
            fn dladdr(addr: *const c_void, info: *mut DlInfo) -> std::ffi::c_int;
        }
        let addr = crate::api::FUNCTIONS
            .iter()
            .find_map(|f| self.raw_symbol(f))?;
        let mut info = DlInfo {
            fname: std::ptr::null(),
            fbase: std::ptr::null_mut(),
            sname: std::ptr::null(),
            saddr: std::ptr::null_mut(),
        };
        // SAFETY: `addr` is an address inside a loaded object and `info` is a
        // valid, writable Dl_info-shaped struct.
        if unsafe { dladdr(addr, &mut info) } == 0 || info.fname.is_null() {
            return None;
        }
        // SAFETY: dladdr returned a NUL-terminated path owned by the loader,
        // valid while the object stays loaded (forever, here).
        let name = unsafe { CStr::from_ptr(info.fname) };
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
    }
}

impl OpenFailure {
    /// The error for a library file that was named (not searched for): a
    /// file that is there but unusable is [`LoadError::InvalidFile`], other
    /// failures are [`LoadError::NotFound`] with the one attempt.
    fn into_error(self, candidate: PathBuf, source: &str) -> LoadError {
        match self {
            OpenFailure::Invalid(problem) => LoadError::InvalidFile {
                file: candidate,
                source: source.to_string(),
                problem,
            },
            failure => LoadError::NotFound {
                attempts: vec![Attempt {
                    candidate,
                    source: source.to_string(),
                    reason: failure.to_string(),
                }],
            },
        }
    }
}

/// Every library candidate in discovery order (see the module docs), whether
/// it exists or not, with who suggested it. `env` reads environment variables.
pub fn candidates(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<(PathBuf, String)> {
    if let Some(path) = env(LIBRARY_ENV_VAR).filter(|p| !p.is_empty()) {
        return vec![(PathBuf::from(path), LIBRARY_ENV_VAR.to_string())];
    }
    let mut list = Vec::new();
    for root in cann::candidate_roots(env) {
        for file in root.library_files() {
            list.push((file, format!("{} = {}", root.source, root.path.display())));
        }
    }
    for name in cann::LIBRARY_NAMES {
        list.push((PathBuf::from(name), "system loader".to_string()));
    }
    list
}

/// Finds and opens the library without selecting it. Lists what was tried.
pub fn discover() -> Result<&'static Library, LoadError> {
    let env = |name: &str| std::env::var_os(name);
    let mut attempts = Vec::new();
    if std::env::var_os(LIBRARY_ENV_VAR).is_none() {
        // Report every CANN root that holds no library — the ones named by
        // the environment (so a wrong ASCEND_TOOLKIT_HOME is visible) and the
        // $HOME and /usr/local/Ascend defaults — so the error lists every
        // place tried, as the README promises.
        for root in cann::candidate_roots(&env) {
            if root.library_files().is_empty() {
                let reason = if root.exists() {
                    "no libascendcl.so or libacl_rt.so under it"
                } else {
                    "directory does not exist"
                };
                attempts.push(Attempt {
                    candidate: root.path.clone(),
                    source: root.source.clone(),
                    reason: reason.into(),
                });
            }
        }
    }
    for (candidate, source) in candidates(&env) {
        match Library::open_from(candidate.clone()) {
            Ok(lib) => return Ok(lib),
            // ASCENDCL_LIBRARY names the one file to use: say what is wrong with it.
            Err(failure @ OpenFailure::Invalid(_)) if source == LIBRARY_ENV_VAR => {
                return Err(failure.into_error(candidate, &source));
            }
            // A file found by searching is one of the places tried.
            Err(failure) => attempts.push(Attempt {
                candidate,
                source,
                reason: failure.to_string(),
            }),
        }
    }
    Err(LoadError::NotFound { attempts })
}

/// The library this process uses: the selected one, or on first call the one
/// [`discover`] finds (which is then selected).
pub fn library() -> Result<&'static Library, LoadError> {
    if let Some(lib) = SELECTED.get() {
        return Ok(lib);
    }
    let _guard = SELECTING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(lib) = SELECTED.get() {
        return Ok(lib);
    }
    let lib = discover()?;
    Ok(SELECTED.get_or_init(|| lib))
}

/// Makes the library at `path` the one this process uses.
///
/// Succeeds again for the same file; fails with [`LoadError::AlreadySelected`]
/// once a different library is in use.
pub fn select_library(path: impl AsRef<Path>) -> Result<&'static Library, LoadError> {
    let _guard = SELECTING.lock().unwrap_or_else(PoisonError::into_inner);
    let lib = Library::open(path.as_ref())?;
    let selected = *SELECTED.get_or_init(|| lib);
    if std::ptr::eq(selected, lib) {
        Ok(lib)
    } else {
        Err(LoadError::AlreadySelected {
            selected: selected.path().to_path_buf(),
            requested: path.as_ref().to_path_buf(),
        })
    }
}

/// The library in use, if one has been selected or discovered already.
pub fn selected_library() -> Option<&'static Library> {
    SELECTED.get().copied()
}
