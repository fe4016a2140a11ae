//! Rust side of the recording shim's control API (`include/aclrecord.h`),
//! for tests that record inside one process. Programs are usually recorded
//! through the environment instead (`scripts/record-on-card.sh`).

use std::ffi::{CString, c_char};
use std::path::Path;
use std::sync::OnceLock;

use crate::control_error::{ControlError, check};

/// The control API of the recording shim at [`crate::RECORDER_PATH`].
pub struct Recorder {
    start: unsafe extern "C" fn(*const c_char, *const c_char) -> i32,
    stop: unsafe extern "C" fn(),
    calls: unsafe extern "C" fn() -> u64,
    exports: unsafe extern "C" fn() -> u64,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("library", &crate::RECORDER_PATH)
            .finish_non_exhaustive()
    }
}

fn c_path(path: &Path) -> Result<CString, ControlError> {
    CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
        ControlError::new(
            "record",
            ascendcl_sys::ACL_ERROR_INVALID_PARAM,
            format!("{}: a path with a NUL byte", path.display()),
        )
    })
}

impl Recorder {
    /// The shim's control API (the shim is loaded once per process; the same
    /// file opened by ascendcl-sys is the same instance).
    ///
    /// # Panics
    /// If the shim cannot be opened or lacks a control function.
    pub fn get() -> &'static Recorder {
        static RECORDER: OnceLock<Recorder> = OnceLock::new();
        RECORDER.get_or_init(|| Recorder::load().unwrap_or_else(|e| panic!("{e}")))
    }

    fn load() -> Result<Recorder, String> {
        // SAFETY: the shim's initialisers have no preconditions.
        let lib = unsafe { libloading::Library::new(crate::RECORDER_PATH) }
            .map_err(|e| format!("cannot open the recorder at {}: {e}", crate::RECORDER_PATH))?;
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the declared type is the one in include/aclrecord.h.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("the recorder lacks {}: {e}", $name))?
            };
        }
        Ok(Recorder {
            start: sym!("aclrecordStart"),
            stop: sym!("aclrecordStop"),
            calls: sym!("aclrecordCalls"),
            exports: sym!("aclrecordExports"),
        })
    }

    /// Starts a new trace at `trace` (ids and sequence from 1), forwarding
    /// to `target` if given. No other thread may be inside an ACL call.
    pub fn start(
        &self,
        trace: impl AsRef<Path>,
        target: Option<&Path>,
    ) -> Result<(), ControlError> {
        let trace_path = trace.as_ref();
        let trace = c_path(trace_path)?;
        let target_c = target.map(c_path).transpose()?;
        let target_ptr = target_c.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY: both strings are NUL-terminated and outlive the call.
        let code = unsafe { (self.start)(trace.as_ptr(), target_ptr) };
        check("record", code, || match target {
            Some(target) => format!(
                "cannot record into {} forwarding to {}: check that the trace's directory is \
                 writable and that the target is an AscendCL library",
                trace_path.display(),
                target.display()
            ),
            None => format!(
                "cannot record into {}: check that its directory exists and is writable",
                trace_path.display()
            ),
        })
    }

    /// Closes the trace; calls are still forwarded.
    pub fn stop(&self) {
        // SAFETY: no arguments.
        unsafe { (self.stop)() }
    }

    /// Calls recorded into the current trace.
    pub fn calls(&self) -> u64 {
        // SAFETY: no arguments.
        unsafe { (self.calls)() }
    }

    /// How many ACL functions the shim defines (all of the header's).
    pub fn exported_functions(&self) -> u64 {
        // SAFETY: no arguments.
        unsafe { (self.exports)() }
    }
}
