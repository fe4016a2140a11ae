//! The DVPP operators (`acldvpp*`, "acldvppop"), opened at run time on first use.
//!
//! CANN ships the image operators of the DVPP hardware (JPEG decoding,
//! resizing, cropping, flips, normalisation) as a library of their own,
//! `libacl_dvpp_op.so`, declared by the headers under `include/acldvppop/`
//! (ours: `include/acldvppop/acldvpp.h`). They take aclnn descriptors
//! ([`aclTensor`], [`aclIntArray`], [`aclFloatArray`]; created with
//! [`aclnn`](mod@crate::aclnn)'s functions) and are called in two phases, as aclnn
//! operators are: `acldvppXGetWorkspaceSize` checks the operands and returns
//! the workspace size and an executor, `acldvppX` queues the run on a stream.
//!
//! [`dvpp`] finds the library, the first of:
//!
//! 1. `ASCENDCL_DVPP_LIBRARY`, when set (nothing else is tried);
//! 2. `libacl_dvpp_op.so` in the directory of the runtime library in use
//!    (CANN's `lib64`; the mock's build directory holds the mock's);
//! 3. `lib64/libacl_dvpp_op.so` of each CANN root (see [`crate::cann`]).
//!
//! CANN installs it in `lib64/` of the install, beside the other operator
//! libraries: the DVPP guide's table of headers and libraries puts the
//! `acldvppop/` headers under `${INSTALL_DIR}/include/` and
//! `libacl_dvpp_op.so` under `${INSTALL_DIR}/lib64/` (CANN 9.0 edition,
//! <https://www.hiascend.com/document/detail/zh/canncommercial/900/API/dvpp/dvpp_03_0001.html>),
//! and CANN's DVPP samples link it from `${ASCEND_HOME_PATH}/lib64`. No other
//! location for 8.5 (the `opp/` tree, an `ops/` directory) was found
//! documented, so none is tried.
//!
//! Each function is a method of [`Dvpp`] named after the C function; the
//! symbol is resolved on first call, and a missing one is a [`SymbolError`].
//!
//! ```no_run
//! use ascendcl_sys::{dvpp, ACLDVPP_SUCCESS};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let d = dvpp::dvpp()?;
//! // SAFETY: the configuration path is reserved and must be null.
//! let code = unsafe { d.acldvppInit(std::ptr::null()) }?;
//! assert_eq!(code, ACLDVPP_SUCCESS);
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

/// Environment variable naming the DVPP operator library file.
pub const DVPP_ENV_VAR: &str = "ASCENDCL_DVPP_LIBRARY";

/// The DVPP operator library's file name.
pub const DVPP_LIBRARY: &str = "libacl_dvpp_op.so";

macro_rules! dvpp_functions {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        #[allow(non_snake_case)]
        #[derive(Default)]
        struct DvppSymbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of every DVPP operator function this crate can call.
        pub const DVPP_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Dvpp {
            $(
                $(#[doc = $doc])*
                ///
                /// Returns `Err` if the DVPP library does not export it.
                ///
                /// # Safety
                /// This calls the C function directly: pointer arguments must
                /// be valid as the C function documents (descriptors live
                /// objects of the aclnn descriptor library, out-pointers
                /// writable), an executor is consumed by the one run it was
                /// made for, and the stream must be a live stream of the
                /// runtime in use.
                // The C signatures, one argument each (CropAndResize has 10).
                #[allow(non_snake_case, clippy::too_many_arguments)]
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

/// The opened DVPP operator library.
pub struct Dvpp {
    path: PathBuf,
    handle: libloading::Library,
    symbols: DvppSymbols,
}

impl std::fmt::Debug for Dvpp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dvpp")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

dvpp_functions! {
    /// Prepares the DVPP operators for the process; `configPath` is reserved
    /// and must be null. `aclInit` does the same.
    fn acldvppInit(configPath: *const c_char) -> acldvppStatus;
    /// Releases what `acldvppInit` set up; repeating it is not an error.
    fn acldvppFinalize() -> acldvppStatus;
    /// Phase one of JPEG decoding: the file's bytes in the UINT8 tensor
    /// `self_` become an image of `channels` (1: grey, 3: RGB) channels in
    /// `out`. `tryRecoverTruncated` is reserved (CANN's reference asks for true).
    fn acldvppDecodeJpegGetWorkspaceSize(
        self_: *const aclTensor,
        channels: u32,
        tryRecoverTruncated: bool,
        out: *mut aclTensor,
        workspaceSize: *mut u64,
        executor: *mut *mut aclOpExecutor,
    ) -> acldvppStatus;
    /// Phase two of JPEG decoding: queues the run on `stream`.
    fn acldvppDecodeJpeg(
        workspace: *mut c_void,
        workspaceSize: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> acldvppStatus;
    /// Phase one of crop-and-resize: the `height` x `width` window at
    /// (`top`, `left`) of `self_`, scaled to `size` = {height, width} (the
    /// spatial size of `out`); `interpolationMode` 0 bilinear, 1 nearest,
    /// 2 bicubic.
    fn acldvppCropAndResizeGetWorkspaceSize(
        self_: *const aclTensor,
        top: u32,
        left: u32,
        height: u32,
        width: u32,
        size: *const aclIntArray,
        interpolationMode: u32,
        out: *mut aclTensor,
        workspaceSize: *mut u64,
        executor: *mut *mut aclOpExecutor,
    ) -> acldvppStatus;
    /// Phase two of crop-and-resize: queues the run on `stream`.
    fn acldvppCropAndResize(
        workspace: *mut c_void,
        workspaceSize: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> acldvppStatus;
    /// Phase one of resizing `self_` to the spatial size of `out`
    /// (`interpolationMode` as for crop-and-resize).
    fn acldvppResizeGetWorkspaceSize(
        self_: *const aclTensor,
        interpolationMode: u32,
        out: *mut aclTensor,
        workspaceSize: *mut u64,
        executor: *mut *mut aclOpExecutor,
    ) -> acldvppStatus;
    /// Phase two of resizing: queues the run on `stream`.
    fn acldvppResize(
        workspace: *mut c_void,
        workspaceSize: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> acldvppStatus;
    /// Phase one of mirroring `self_` left to right into `out` (same shape,
    /// type and layout).
    fn acldvppHorizontalFlipGetWorkspaceSize(
        self_: *const aclTensor,
        out: *mut aclTensor,
        workspaceSize: *mut u64,
        executor: *mut *mut aclOpExecutor,
    ) -> acldvppStatus;
    /// Phase two of the horizontal flip: queues the run on `stream`.
    fn acldvppHorizontalFlip(
        workspace: *mut c_void,
        workspaceSize: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> acldvppStatus;
    /// Phase one of `out = (self_ - mean[c]) / std_[c]` per channel `c`
    /// (`mean` and `std_` one value per channel; `out` FLOAT). `std_` is the
    /// C parameter `std`.
    fn acldvppNormalizeGetWorkspaceSize(
        self_: *const aclTensor,
        mean: *const aclFloatArray,
        std_: *const aclFloatArray,
        out: *mut aclTensor,
        workspaceSize: *mut u64,
        executor: *mut *mut aclOpExecutor,
    ) -> acldvppStatus;
    /// Phase two of normalisation: queues the run on `stream`.
    fn acldvppNormalize(
        workspace: *mut c_void,
        workspaceSize: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> acldvppStatus;
}

impl Dvpp {
    /// Opens the DVPP operator library at `path`. A file that is not a
    /// shared library of this machine is [`LoadError::InvalidFile`]; a
    /// missing one, or one the loader refuses, [`LoadError::DvppNotFound`].
    pub fn open(path: impl AsRef<Path>) -> Result<Dvpp, LoadError> {
        let path = path.as_ref();
        Self::open_file(path).map_err(|failure| match failure {
            OpenFailure::Invalid(problem) => LoadError::InvalidFile {
                file: path.to_path_buf(),
                source: "explicit path".to_string(),
                problem,
            },
            failure => LoadError::DvppNotFound {
                attempts: vec![Attempt {
                    candidate: path.to_path_buf(),
                    source: "explicit path".to_string(),
                    reason: failure.to_string(),
                }],
            },
        })
    }

    fn open_file(path: &Path) -> Result<Dvpp, OpenFailure> {
        Ok(Dvpp {
            path: path.to_path_buf(),
            handle: crate::shared_object::open_path(path)?,
            symbols: DvppSymbols::default(),
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
    if let Some(file) = env(DVPP_ENV_VAR).filter(|f| !f.is_empty()) {
        return vec![(PathBuf::from(file), DVPP_ENV_VAR.to_string())];
    }
    let mut files = Vec::new();
    if let Some(parent) = runtime.and_then(Path::parent) {
        files.push((
            parent.join(DVPP_LIBRARY),
            "the runtime library's directory".to_string(),
        ));
    }
    for root in crate::cann::candidate_roots(env) {
        let file = root.path.join("lib64").join(DVPP_LIBRARY);
        if !files.iter().any(|(f, _)| *f == file) {
            files.push((file, format!("{} = {}", root.source, root.path.display())));
        }
    }
    files
}

/// The DVPP operator library for the runtime library `runtime` (found next
/// to it first), opened on first call and kept for the process. A failure is
/// not cached: a later call tries again.
pub fn dvpp_for(runtime: Option<&'static Library>) -> Result<&'static Dvpp, LoadError> {
    type Cache = Mutex<Vec<(usize, &'static Dvpp)>>;
    static OPENED: Cache = Mutex::new(Vec::new());
    let key = runtime.map_or(0, |lib| lib as *const Library as usize);
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, d)) = opened.iter().find(|(k, _)| *k == key) {
        return Ok(d);
    }
    let env = |name: &str| std::env::var_os(name);
    let mut attempts = Vec::new();
    for (file, source) in candidate_files(&env, runtime.map(Library::path)) {
        match Dvpp::open_file(&file) {
            Ok(d) => {
                let d: &'static Dvpp = Box::leak(Box::new(d));
                opened.push((key, d));
                return Ok(d);
            }
            // ASCENDCL_DVPP_LIBRARY names the one file to use.
            Err(OpenFailure::Invalid(problem)) if source == DVPP_ENV_VAR => {
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
    Err(LoadError::DvppNotFound { attempts })
}

/// The DVPP operator library of this process's runtime library (see
/// [`crate::selected_library`]), as [`dvpp_for`].
pub fn dvpp() -> Result<&'static Dvpp, LoadError> {
    dvpp_for(crate::library::selected_library())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment of the given variables only.
    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_variable_names_the_only_candidate() {
        let env = env_of(&[
            (DVPP_ENV_VAR, "/opt/dvpp/libmine.so"),
            ("ASCEND_TOOLKIT_HOME", "/opt/cann"),
        ]);
        let files = candidate_files(&env, Some(Path::new("/rt/lib/libascendcl.so")));
        assert_eq!(
            files,
            vec![(
                PathBuf::from("/opt/dvpp/libmine.so"),
                DVPP_ENV_VAR.to_string()
            )]
        );
    }

    #[test]
    fn an_empty_variable_is_not_set() {
        let env = env_of(&[(DVPP_ENV_VAR, "")]);
        let files = candidate_files(&env, None);
        assert!(files.iter().all(|(_, source)| source != DVPP_ENV_VAR));
        assert!(!files.is_empty(), "the default CANN roots are still tried");
    }

    #[test]
    fn the_runtime_directory_comes_first_then_each_cann_root_once() {
        let env = env_of(&[
            ("ASCEND_TOOLKIT_HOME", "/opt/cann"),
            // The same root twice, and a root whose lib64 holds the runtime.
            ("ASCEND_HOME_PATH", "/opt/cann"),
            ("ASCEND_INSTALL_PATH", "/rt"),
            ("HOME", "/home/u"),
        ]);
        let files = candidate_files(&env, Some(Path::new("/rt/lib64/libascendcl.so")));
        let paths: Vec<&Path> = files.iter().map(|(f, _)| f.as_path()).collect();
        assert_eq!(
            paths,
            [
                "/rt/lib64/libacl_dvpp_op.so",
                "/opt/cann/lib64/libacl_dvpp_op.so",
                "/home/u/Ascend/cann/lib64/libacl_dvpp_op.so",
                "/home/u/Ascend/ascend-toolkit/latest/lib64/libacl_dvpp_op.so",
                "/usr/local/Ascend/cann/lib64/libacl_dvpp_op.so",
                "/usr/local/Ascend/ascend-toolkit/latest/lib64/libacl_dvpp_op.so",
            ]
            .map(Path::new)
        );
        assert_eq!(files[0].1, "the runtime library's directory");
        assert_eq!(files[1].1, "ASCEND_TOOLKIT_HOME = /opt/cann");
    }

    #[test]
    fn without_a_runtime_library_only_cann_roots_are_tried() {
        let env = env_of(&[("ASCEND_TOOLKIT_HOME", "/opt/cann")]);
        let files = candidate_files(&env, None);
        assert_eq!(files[0].0, Path::new("/opt/cann/lib64/libacl_dvpp_op.so"));
        assert!(
            files
                .iter()
                .all(|(f, _)| f.ends_with("lib64/libacl_dvpp_op.so"))
        );
    }
}
