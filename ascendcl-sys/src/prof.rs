//! The profiling API (`aclprof*`), opened at run time on first use.
//!
//! CANN keeps profiling out of the runtime: the functions are declared in
//! `acl/acl_prof.h` (which `acl/acl.h` does not include) and exported by the
//! profiler library, `libmsprofiler.so`, in CANN's `lib64` beside the runtime
//! library. [`profiler`] finds it, the first of:
//!
//! 1. `ASCENDCL_PROFILER_LIBRARY`, when set (nothing else is tried);
//! 2. `libmsprofiler.so` in the directory of the runtime library in use (the
//!    mock's build directory holds the mock's profiler);
//! 3. `lib64/libmsprofiler.so` of each CANN root (see [`crate::cann`]).
//!
//! Each function is a method of [`Profiler`] named after the C function; the
//! symbol is resolved on first call, and a missing one is a [`SymbolError`].
//!
//! ```no_run
//! use ascendcl_sys::{prof, ACL_SUCCESS};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let p = prof::profiler()?;
//! let dir = c"/tmp/prof";
//! // SAFETY: a NUL-terminated path and its length without the NUL.
//! let code = unsafe { p.aclprofInit(dir.as_ptr(), dir.count_bytes()) }?;
//! assert_eq!(code, ACL_SUCCESS);
//! # Ok(())
//! # }
//! ```

use std::ffi::{OsString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::error::{Attempt, LoadError, SymbolError};
use crate::library::Library;
use crate::shared_object::OpenFailure;
use crate::types::*;

/// Environment variable naming the profiler library file.
pub const PROFILER_ENV_VAR: &str = "ASCENDCL_PROFILER_LIBRARY";

/// The profiler library's file name.
pub const PROFILER_LIBRARY: &str = "libmsprofiler.so";

macro_rules! prof_functions {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        #[allow(non_snake_case)]
        #[derive(Default)]
        struct ProfSymbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of every profiling function this crate can call.
        pub const PROF_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Profiler {
            $(
                $(#[doc = $doc])*
                ///
                /// Returns `Err` if the profiler library does not export it.
                ///
                /// # Safety
                /// This calls the C function directly: pointer arguments must
                /// be valid as the C function documents, and configs must be
                /// live configs of this library.
                #[allow(non_snake_case)]
                #[inline]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<$ret, SymbolError> {
                    let slot = self.symbols.$name.get_or_init(|| {
                        // SAFETY: the pointer type is the one declared for
                        // this C function (checked against bindgen below).
                        let found = unsafe {
                            self.handle.get::<unsafe extern "C" fn($($ty),*) -> $ret>(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                        };
                        found.map(|f| *f).map_err(|e| e.to_string())
                    });
                    match slot {
                        // SAFETY: the caller upholds the C contract (see # Safety).
                        Ok(f) => Ok(unsafe { f($($arg),*) }),
                        Err(reason) => Err(SymbolError {
                            symbol: stringify!($name),
                            library: self.path.clone(),
                            reason: reason.clone(),
                        }),
                    }
                }
            )*
        }

        /// Never instantiated, only type-checked: every loaded signature must
        /// equal the bindgen declaration of the same name.
        #[allow(dead_code, clippy::extra_unused_type_parameters)]
        fn signatures_match_declarations<T>() {
            $( let _: unsafe extern "C" fn($($ty),*) -> $ret = crate::bindings::functions::$name; )*
        }
    };
}

/// The opened profiler library.
pub struct Profiler {
    path: PathBuf,
    handle: libloading::Library,
    symbols: ProfSymbols,
}

impl std::fmt::Debug for Profiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profiler")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

prof_functions! {
    /// Starts profiling, writing data under the directory `profilerResultPath`
    /// (`length` = its length without the NUL, at most 4096).
    fn aclprofInit(profilerResultPath: *const c_char, length: usize) -> aclError;
    /// Ends profiling (after `aclprofInit`).
    fn aclprofFinalize() -> aclError;
    /// Starts collecting what `profilerConfig` names.
    fn aclprofStart(profilerConfig: *const aclprofConfig) -> aclError;
    /// Stops collecting; takes the config `aclprofStart` took.
    fn aclprofStop(profilerConfig: *const aclprofConfig) -> aclError;
    /// A config for the listed devices, or null when the arguments are invalid.
    fn aclprofCreateConfig(
        deviceIdList: *mut u32,
        deviceNums: u32,
        aicoreMetrics: aclprofAicoreMetrics,
        aicoreEvents: *const aclprofAicoreEvents,
        dataTypeConfig: u64,
    ) -> *mut aclprofConfig;
    /// Destroys a config.
    fn aclprofDestroyConfig(profilerConfig: *const aclprofConfig) -> aclError;
    /// Sets one more collection option (`config`: text of strlen
    /// `configLength`, at most 256), after `aclprofInit`, before `aclprofStart`.
    fn aclprofSetConfig(
        configType: aclprofConfigType,
        config: *const c_char,
        configLength: usize,
    ) -> aclError;
    /// A msproftx step record (null without memory).
    fn aclprofCreateStepInfo() -> *mut aclprofStepInfo;
    /// Takes the start or the end of a step (each once) on `stream`.
    fn aclprofGetStepTimestamp(
        stepInfo: *mut aclprofStepInfo,
        tag: aclprofStepTag,
        stream: aclrtStream,
    ) -> aclError;
    /// Destroys a step record.
    fn aclprofDestroyStepInfo(stepinfo: *mut aclprofStepInfo) -> ();
    /// A msproftx marker, or null while no config with `ACL_PROF_MSPROFTX`
    /// is started (or when the collector's 100 are taken).
    fn aclprofCreateStamp() -> *mut c_void;
    /// The marker's text: `msgLen` bytes of `msg` (below 128).
    fn aclprofSetStampTraceMessage(stamp: *mut c_void, msg: *const c_char, msgLen: u32)
    -> aclError;
    /// Records an instant event with the marker.
    fn aclprofMark(stamp: *mut c_void) -> aclError;
    /// Gives the marker back to the collector.
    fn aclprofDestroyStamp(stamp: *mut c_void) -> ();
    /// A subscription config reporting to the pipe whose write end `fd`
    /// points at (`timeInfoSwitch` 0 or 1), or null when the arguments are
    /// invalid.
    fn aclprofCreateSubscribeConfig(
        timeInfoSwitch: i8,
        aicoreMetrics: aclprofAicoreMetrics,
        fd: *mut c_void,
    ) -> *mut aclprofSubscribeConfig;
    /// Destroys a subscription config.
    fn aclprofDestroySubscribeConfig(profSubscribeConfig: *const aclprofSubscribeConfig) -> aclError;
    /// Reports the operators of every run of the loaded model `modelId`.
    fn aclprofModelSubscribe(
        modelId: u32,
        profSubscribeConfig: *const aclprofSubscribeConfig,
    ) -> aclError;
    /// Ends a model's subscription.
    fn aclprofModelUnSubscribe(modelId: u32) -> aclError;
    /// The size of one subscription record.
    fn aclprofGetOpDescSize(opDescSize: *mut usize) -> aclError;
    /// How many records `opInfoLen` bytes of subscription data hold.
    fn aclprofGetOpNum(opInfo: *const c_void, opInfoLen: usize, opNumber: *mut u32) -> aclError;
    /// The length (with the NUL) of record `index`'s operator type.
    fn aclprofGetOpTypeLen(
        opInfo: *const c_void,
        opInfoLen: usize,
        index: u32,
        opTypeLen: *mut usize,
    ) -> aclError;
    /// Copies record `index`'s operator type (readable once).
    fn aclprofGetOpType(
        opInfo: *const c_void,
        opInfoLen: usize,
        index: u32,
        opType: *mut c_char,
        opTypeLen: usize,
    ) -> aclError;
    /// The length (with the NUL) of record `index`'s operator name.
    fn aclprofGetOpNameLen(
        opInfo: *const c_void,
        opInfoLen: usize,
        index: u32,
        opNameLen: *mut usize,
    ) -> aclError;
    /// Copies record `index`'s operator name (readable once).
    fn aclprofGetOpName(
        opInfo: *const c_void,
        opInfoLen: usize,
        index: u32,
        opName: *mut c_char,
        opNameLen: usize,
    ) -> aclError;
    /// Record `index`'s start time (µs), 0 on invalid arguments.
    fn aclprofGetOpStart(opInfo: *const c_void, opInfoLen: usize, index: u32) -> u64;
    /// Record `index`'s end time (µs), 0 on invalid arguments.
    fn aclprofGetOpEnd(opInfo: *const c_void, opInfoLen: usize, index: u32) -> u64;
    /// Record `index`'s duration (µs), 0 on invalid arguments.
    fn aclprofGetOpDuration(opInfo: *const c_void, opInfoLen: usize, index: u32) -> u64;
    /// Record `index`'s model id, or an error code in its place.
    fn aclprofGetModelId(opInfo: *const c_void, opInfoLen: usize, index: u32) -> usize;
    /// What record `index` describes.
    fn aclprofGetOpFlag(opInfo: *const c_void, opInfoLen: usize, index: u32) -> aclprofSubscribeOpFlag;
    /// An attribute of record `index` as text owned by the library, or null.
    fn aclprofGetOpAttriValue(
        opInfo: *const c_void,
        opInfoLen: usize,
        index: u32,
        attri: aclprofSubscribeOpAttri,
    ) -> *const c_char;
}

impl Profiler {
    /// Opens the profiler library at `path`. A file that is not a shared
    /// library of this machine is [`LoadError::InvalidFile`].
    pub fn open(path: impl AsRef<Path>) -> Result<Profiler, LoadError> {
        let path = path.as_ref();
        Self::open_file(path).map_err(|failure| match failure {
            OpenFailure::Invalid(problem) => LoadError::InvalidFile {
                file: path.to_path_buf(),
                source: "explicit path".to_string(),
                problem,
            },
            failure => LoadError::ProfilerNotFound {
                attempts: vec![Attempt {
                    candidate: path.to_path_buf(),
                    source: "explicit path".to_string(),
                    reason: failure.to_string(),
                }],
            },
        })
    }

    fn open_file(path: &Path) -> Result<Profiler, OpenFailure> {
        Ok(Profiler {
            path: path.to_path_buf(),
            handle: crate::shared_object::open_path(path)?,
            symbols: ProfSymbols::default(),
        })
    }

    /// The file the library was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The files to try, in order (see the module docs), with who suggested each.
/// `runtime` is the runtime library in use, if any.
pub fn candidate_files(
    env: &dyn Fn(&str) -> Option<OsString>,
    runtime: Option<&Path>,
) -> Vec<(PathBuf, String)> {
    if let Some(file) = env(PROFILER_ENV_VAR).filter(|f| !f.is_empty()) {
        return vec![(PathBuf::from(file), PROFILER_ENV_VAR.to_string())];
    }
    let mut files = Vec::new();
    if let Some(parent) = runtime.and_then(Path::parent) {
        files.push((
            parent.join(PROFILER_LIBRARY),
            "the runtime library's directory".to_string(),
        ));
    }
    for root in crate::cann::candidate_roots(env) {
        let file = root.path.join("lib64").join(PROFILER_LIBRARY);
        if !files.iter().any(|(f, _)| *f == file) {
            files.push((file, format!("{} = {}", root.source, root.path.display())));
        }
    }
    files
}

/// The profiler library for the runtime library `runtime` (found next to it
/// first), opened on first call and kept for the process. A failure is not
/// cached: a later call tries again.
pub fn profiler_for(runtime: Option<&'static Library>) -> Result<&'static Profiler, LoadError> {
    type Cache = Mutex<Vec<(usize, &'static Profiler)>>;
    static OPENED: Cache = Mutex::new(Vec::new());
    let key = runtime.map_or(0, |lib| lib as *const Library as usize);
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, p)) = opened.iter().find(|(k, _)| *k == key) {
        return Ok(p);
    }
    let env = |name: &str| std::env::var_os(name);
    let mut attempts = Vec::new();
    for (file, source) in candidate_files(&env, runtime.map(Library::path)) {
        match Profiler::open_file(&file) {
            Ok(p) => {
                let p: &'static Profiler = Box::leak(Box::new(p));
                opened.push((key, p));
                return Ok(p);
            }
            // ASCENDCL_PROFILER_LIBRARY names the one file to use.
            Err(OpenFailure::Invalid(problem)) if source == PROFILER_ENV_VAR => {
                return Err(LoadError::InvalidFile {
                    file,
                    source,
                    problem,
                });
            }
            Err(failure) => attempts.push(Attempt {
                candidate: file,
                source,
                reason: failure.to_string(),
            }),
        }
    }
    Err(LoadError::ProfilerNotFound { attempts })
}

/// The profiler library of this process's runtime library (see
/// [`crate::selected_library`]), as [`profiler_for`].
pub fn profiler() -> Result<&'static Profiler, LoadError> {
    profiler_for(crate::library::selected_library())
}
