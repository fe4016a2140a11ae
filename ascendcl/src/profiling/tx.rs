//! msproftx: markers and steps in a profiling session's timeline, collected
//! while a [`profile`](super::profile) session whose data types include
//! `ACL_PROF_MSPROFTX` runs (CANN 8.5.0 turns the collector on at
//! `aclprofStart` of such a config and off at `aclprofFinalize`).
//!
//! [`mark`] records an instant event with a message; [`step`] brackets a
//! closure as one step (a start and an end on a stream). Each takes and
//! gives back its C handle within the call, so none can outlive the session
//! or be used twice.
//!
//! ```no_run
//! use ascendcl::profiling::{ProfileConfig, mark, profile, step};
//! use ascendcl::sys::{ACL_PROF_ACL_API, ACL_PROF_MSPROFTX, ACL_PROF_TASK_TIME};
//! use ascendcl::{Device, Runtime, Stream};
//! # fn main() -> ascendcl::Result<()> {
//! let rt = Runtime::init()?;
//! let device = Device::open(&rt, 0)?;
//! let stream = Stream::new(&device.default_context())?;
//! let types = u64::from(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
//! let config = ProfileConfig::new("prof-out").data_types(types);
//! profile(&rt, &config, || -> ascendcl::Result<()> {
//!     step(&rt, &stream, || -> ascendcl::Result<()> {
//!         mark(&rt, "model_load_mark")?;
//!         // the step's launches
//!         mark(&rt, "model_exec_mark")
//!     })?
//! })??;
//! # Ok(())
//! # }
//! ```

use std::ffi::{CString, c_void};

use ascendcl_sys::prof::Profiler;
use ascendcl_sys::{aclprofStepInfo, aclprofStepTag};

use crate::call::{check, recent_message};
use crate::error::{AclError, Error, Result};
use crate::runtime::Runtime;
use crate::stream::Stream;

/// The longest marker message, in bytes: CANN 8.5.0 copies it into 127 bytes
/// with room for the NUL (msprof_tx_manager.cpp:175-188).
pub const MARK_MESSAGE_MAX: usize = 126;

/// A stamp of the collector's pool, given back when dropped.
struct Stamp {
    prof: &'static Profiler,
    raw: *mut c_void,
}

impl Drop for Stamp {
    fn drop(&mut self) {
        // SAFETY: a stamp from aclprofCreateStamp, given back once. A
        // missing symbol cannot happen here: aclprofCreateStamp resolved.
        let _ = unsafe { self.prof.aclprofDestroyStamp(self.raw) };
    }
}

/// Records an instant event with `message` in the msproftx timeline
/// (`aclprofCreateStamp`, `aclprofSetStampTraceMessage`, `aclprofMark`, the
/// stamp given back whatever happened).
///
/// # Errors
/// [`Error::InvalidArgument`] for a message over [`MARK_MESSAGE_MAX`] bytes
/// or holding a NUL byte, before any call; [`Error::Acl`] from
/// `aclprofCreateStamp` (code -1) when msproftx is not on (no session with
/// `ACL_PROF_MSPROFTX` started, or its 100 stamps taken), or from the call
/// that refused; [`Error::Library`] when no profiler library is found.
pub fn mark(rt: &Runtime, message: &str) -> Result<()> {
    if message.len() > MARK_MESSAGE_MAX {
        return Err(Error::InvalidArgument(format!(
            "a marker message of {} bytes: at most {MARK_MESSAGE_MAX}",
            message.len()
        )));
    }
    let text = CString::new(message)
        .map_err(|_| Error::InvalidArgument("the marker message holds a NUL byte".into()))?;
    let lib = rt.lib();
    let prof = ascendcl_sys::prof::profiler_for(Some(lib))?;
    // SAFETY: no arguments.
    let raw = unsafe { prof.aclprofCreateStamp() }?;
    if raw.is_null() {
        let why = recent_message(lib).or_else(|| {
            Some("msproftx is not on (no profiling session with ACL_PROF_MSPROFTX)".into())
        });
        return Err(AclError::new(-1, "aclprofCreateStamp", why).into());
    }
    let stamp = Stamp { prof, raw };
    // the length fits: at most MARK_MESSAGE_MAX
    let len = text.as_bytes().len() as u32;
    // SAFETY: a live stamp; `text` holds `len` bytes and a NUL.
    check(lib, "aclprofSetStampTraceMessage", unsafe {
        prof.aclprofSetStampTraceMessage(stamp.raw, text.as_ptr(), len)
    })?;
    // SAFETY: a live stamp with its message.
    check(lib, "aclprofMark", unsafe { prof.aclprofMark(stamp.raw) })
}

/// A step record, destroyed when dropped.
struct StepInfo {
    prof: &'static Profiler,
    raw: *mut aclprofStepInfo,
}

impl Drop for StepInfo {
    fn drop(&mut self) {
        // SAFETY: a record from aclprofCreateStepInfo, destroyed once (the
        // symbol resolved with aclprofCreateStepInfo's library).
        let _ = unsafe { self.prof.aclprofDestroyStepInfo(self.raw) };
    }
}

/// Runs `work` as one step on `stream`: `aclprofGetStepTimestamp` with
/// `ACL_STEP_START` before it and `ACL_STEP_END` after it (also taken when
/// `work` panics, the record destroyed either way). Returns what `work`
/// returned.
///
/// # Errors
/// [`Error::Acl`] from the call that refused (`aclprofCreateStepInfo` out
/// of memory: `ACL_ERROR_BAD_ALLOC`); [`Error::Library`] when no profiler
/// library is found. When the end is refused, `work` has run.
pub fn step<R>(rt: &Runtime, stream: &Stream, work: impl FnOnce() -> R) -> Result<R> {
    let lib = rt.lib();
    let prof = ascendcl_sys::prof::profiler_for(Some(lib))?;
    // SAFETY: no arguments.
    let raw = unsafe { prof.aclprofCreateStepInfo() }?;
    if raw.is_null() {
        let code = ascendcl_sys::ACL_ERROR_BAD_ALLOC;
        return Err(AclError::new(code, "aclprofCreateStepInfo", recent_message(lib)).into());
    }
    let info = StepInfo { prof, raw };
    let take = |tag: aclprofStepTag| {
        // SAFETY: a live record; the stream handle is only passed on.
        check(lib, "aclprofGetStepTimestamp", unsafe {
            prof.aclprofGetStepTimestamp(info.raw, tag, stream.as_raw())
        })
    };
    take(aclprofStepTag::ACL_STEP_START)?;
    /// Takes the end on a panic of `work`.
    struct EndOnUnwind<'a, F: Fn(aclprofStepTag) -> Result<()>>(&'a F, bool);
    impl<F: Fn(aclprofStepTag) -> Result<()>> Drop for EndOnUnwind<'_, F> {
        fn drop(&mut self) {
            if self.1 {
                let _ = (self.0)(aclprofStepTag::ACL_STEP_END);
            }
        }
    }
    let mut guard = EndOnUnwind(&take, true);
    let out = work();
    guard.1 = false;
    drop(guard);
    take(aclprofStepTag::ACL_STEP_END)?;
    Ok(out)
}
