//! The runtime: the loaded AscendCL library and the process-wide `aclInit`.
//!
//! ACL is initialised once per process. [`Runtime::init`] (or
//! [`Runtime::with_library`]) calls `aclInit` the first time and hands out
//! cheap clones afterwards. If `aclInit` answers `ACL_ERROR_REPEAT_INITIALIZE`,
//! someone else in the process (a Python host, another library) initialised
//! ACL: we use it but never finalize it. Finalizing is explicit
//! ([`Runtime::finalize`]) and refused while any object is alive; nothing is
//! finalized from a destructor or a static, as the CANN docs require.

use std::ffi::c_char;
use std::sync::{Arc, Mutex, PoisonError};

use ascendcl_sys::{self as sys, Library};

use crate::call::{check, owned_c_string};
use crate::error::{AclError, Error, Result};

/// Where the calling process runs, as `aclrtGetRunMode` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// On the card's own control CPU ("offline" mode).
    Device,
    /// On a host that drives the card over PCIe.
    Host,
}

/// The initialised AscendCL runtime. Clones share one initialisation.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<RuntimeInner>,
}

struct RuntimeInner {
    lib: &'static Library,
    /// Whether our `aclInit` was the first one (so finalizing is ours to do).
    owns_init: bool,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("library", &self.inner.lib.path())
            .field("owns_init", &self.inner.owns_init)
            .finish()
    }
}

/// The text of a NUL-terminated (or full) C char array.
fn c_chars_to_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The process's runtime, once initialised. Holding it here (not in a static
/// with a destructor) means ACL is never finalized implicitly.
static STATE: Mutex<Option<Arc<RuntimeInner>>> = Mutex::new(None);

impl Runtime {
    /// Finds the AscendCL library (see [`ascendcl_sys::library`](ascendcl_sys::library())),
    /// initialises ACL once for the process, and returns the runtime.
    ///
    /// With no CANN install and no `ASCENDCL_LIBRARY`, this fails with
    /// [`Error::Library`] listing every place looked at.
    pub fn init() -> Result<Runtime> {
        Runtime::with_library(sys::library()?)
    }

    /// As [`Runtime::init`], with an explicitly chosen library.
    ///
    /// A process uses one library; asking for another one after the first
    /// initialisation is an [`Error::InvalidState`].
    pub fn with_library(lib: &'static Library) -> Result<Runtime> {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(inner) = state.as_ref() {
            if std::ptr::eq(inner.lib, lib) {
                return Ok(Runtime {
                    inner: inner.clone(),
                });
            }
            return Err(Error::InvalidState(format!(
                "ACL is already initialised with {}; a process uses one AscendCL library",
                inner.lib.path().display()
            )));
        }
        // SAFETY: a null config path is allowed by aclInit.
        let code = unsafe { lib.aclInit(std::ptr::null()) }?;
        let owns_init = match code {
            0 => true,
            sys::ACL_ERROR_REPEAT_INITIALIZE => false,
            code => {
                return Err(
                    AclError::new(code, "aclInit", crate::call::recent_message(lib)).into(),
                );
            }
        };
        let inner = Arc::new(RuntimeInner { lib, owns_init });
        *state = Some(inner.clone());
        Ok(Runtime { inner })
    }

    /// Finalizes ACL (`aclFinalize`) if this process's first `aclInit` was ours.
    ///
    /// Refused with [`Error::InvalidState`] while other clones of the runtime
    /// or any device, context, stream, event or buffer are alive: drop them
    /// first. Afterwards [`Runtime::init`] initialises again.
    pub fn finalize(self) -> Result<()> {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        // One reference is `self`, one is the process state.
        let others = Arc::strong_count(&self.inner).saturating_sub(2);
        if others > 0 {
            return Err(Error::InvalidState(format!(
                "cannot finalize ACL: {others} runtime clones or objects (devices, contexts, streams, \
                 events, buffers) are still alive; drop them first"
            )));
        }
        if self.inner.owns_init {
            let lib = self.inner.lib;
            // SAFETY: no arguments; no object of ours is alive (checked above).
            check(lib, "aclFinalize", unsafe { lib.aclFinalize() })?;
        }
        *state = None;
        Ok(())
    }

    /// The loaded library.
    pub fn library(&self) -> &'static Library {
        self.inner.lib
    }

    /// Whether our `aclInit` initialised ACL (false: someone else had).
    pub fn owns_init(&self) -> bool {
        self.inner.owns_init
    }

    /// Whether the library is the ascendcl behavioural mock, not a real CANN.
    pub fn is_mock(&self) -> bool {
        self.inner.lib.has_symbol("aclmockReset")
    }

    /// The library, for calls made by this crate.
    pub(crate) fn lib(&self) -> &'static Library {
        self.inner.lib
    }

    /// The ACL interface version (`aclrtGetVersion`; 1.16.0 on CANN 8.5.0).
    pub fn version(&self) -> Result<(i32, i32, i32)> {
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        let lib = self.lib();
        // SAFETY: three valid out-pointers.
        check(lib, "aclrtGetVersion", unsafe {
            lib.aclrtGetVersion(&mut major, &mut minor, &mut patch)
        })?;
        Ok((major, minor, patch))
    }

    /// The installed CANN version, where the library can tell it: the
    /// `runtime` package's version (`aclsysGetVersionStr`, CANN 8.5+), else
    /// `aclsysGetCANNVersion` (older 8.x); `None` when neither answers.
    pub fn cann_version(&self) -> Result<Option<String>> {
        let lib = self.lib();
        if lib.has_symbol("aclsysGetVersionStr") {
            // The package name is a directory of ${INSTALL_DIR}/share/info.
            let mut name = *b"runtime\0";
            let mut version = [0 as c_char; sys::ACL_PKG_VERSION_MAX_SIZE as usize];
            // SAFETY: `name` is NUL-terminated; `version` has the documented size.
            let code =
                unsafe { lib.aclsysGetVersionStr(name.as_mut_ptr().cast(), version.as_mut_ptr()) }?;
            if code == 0 {
                return Ok(Some(c_chars_to_string(&version)));
            }
            let _ = crate::call::recent_message(lib);
        }
        if lib.has_symbol("aclsysGetCANNVersion") {
            // SAFETY: the struct is plain char arrays; all-zero is a valid value.
            let mut version: sys::aclCANNPackageVersion = unsafe { std::mem::zeroed() };
            // SAFETY: a valid out-pointer to a struct of the declared layout.
            let code = unsafe {
                lib.aclsysGetCANNVersion(sys::aclCANNPackageName::ACL_PKG_NAME_CANN, &mut version)
            }?;
            if code == 0 {
                return Ok(Some(c_chars_to_string(&version.version)));
            }
            let _ = crate::call::recent_message(lib);
        }
        Ok(None)
    }

    /// The SoC name of device 0, e.g. `Ascend910B1`.
    pub fn soc_name(&self) -> Result<String> {
        let lib = self.lib();
        // SAFETY: no arguments; the result is checked for null.
        let ptr = unsafe { lib.aclrtGetSocName() }?;
        owned_c_string(ptr).ok_or_else(|| {
            let message = crate::call::recent_message(lib);
            AclError::new(sys::ACL_ERROR_FAILURE, "aclrtGetSocName", message).into()
        })
    }

    /// Whether this process runs on the card or on a host.
    pub fn run_mode(&self) -> Result<RunMode> {
        let lib = self.lib();
        let mut mode = sys::aclrtRunMode::ACL_HOST;
        // SAFETY: valid out-pointer.
        check(lib, "aclrtGetRunMode", unsafe {
            lib.aclrtGetRunMode(&mut mode)
        })?;
        Ok(if mode == sys::aclrtRunMode::ACL_DEVICE {
            RunMode::Device
        } else {
            RunMode::Host
        })
    }

    /// Number of visible devices.
    pub fn device_count(&self) -> Result<u32> {
        let lib = self.lib();
        let mut count = 0u32;
        // SAFETY: valid out-pointer.
        check(lib, "aclrtGetDeviceCount", unsafe {
            lib.aclrtGetDeviceCount(&mut count)
        })?;
        Ok(count)
    }
}
