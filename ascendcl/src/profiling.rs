//! Profiling: the `aclprof*` API (`acl/acl_prof.h`, CANN's
//! `libmsprofiler.so`, found by [`ascendcl_sys::prof`]) around a closure.
//!
//! [`profile`] initialises profiling into an output directory, creates a
//! config for the devices and data types asked for, starts collecting, runs
//! the closure, then stops, destroys the config and finalises, whatever the
//! closure returned. What the profiler wrote is read with CANN's tools
//! (`msprof --export`); the mock's profiler checks the calls and writes
//! nothing. Inside a session with `ACL_PROF_MSPROFTX`, [`mark`] and [`step`]
//! add msproftx markers and steps. Recording a trace is the other view of a run
//! (docs/record-replay.md): calls and host times, not device timelines.
//!
//! ```no_run
//! use ascendcl::profiling::{ProfileConfig, profile};
//! # fn main() -> ascendcl::Result<()> {
//! let rt = ascendcl::Runtime::init()?;
//! let config = ProfileConfig::new("prof-out").devices(&[0]);
//! let sum = profile(&rt, &config, || {
//!     // launches to profile
//!     1 + 1
//! })?;
//! assert_eq!(sum, 2);
//! # Ok(())
//! # }
//! ```

mod tx;

pub use tx::{MARK_MESSAGE_MAX, mark, step};

use std::ffi::CString;
use std::path::{Path, PathBuf};

use ascendcl_sys::prof::Profiler;
use ascendcl_sys::{
    ACL_ERROR_INVALID_PARAM, ACL_PROF_ACL_API, ACL_PROF_TASK_TIME, aclprofAicoreMetrics,
    aclprofConfig, aclprofConfigType,
};

use crate::call::{check, recent_message};
use crate::error::{AclError, Error, Result};
use crate::runtime::Runtime;

/// What to collect, and where the profiler writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileConfig {
    dir: PathBuf,
    devices: Vec<u32>,
    metrics: aclprofAicoreMetrics,
    data_types: u64,
    options: Vec<(aclprofConfigType, CString)>,
}

/// The longest value of an option (`aclprofSetConfig`, CANN 8.5.0
/// prof_acl_api.cpp:54).
const OPTION_MAX_LENGTH: usize = 256;

impl ProfileConfig {
    /// Into `dir` (created if missing): device 0, the ACL API and task times
    /// (`ACL_PROF_ACL_API | ACL_PROF_TASK_TIME`), no AI Core metrics.
    pub fn new(dir: impl AsRef<Path>) -> ProfileConfig {
        ProfileConfig {
            dir: dir.as_ref().to_path_buf(),
            devices: vec![0],
            metrics: aclprofAicoreMetrics::ACL_AICORE_NONE,
            data_types: u64::from(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME),
            options: Vec::new(),
        }
    }

    /// One more collection option, set with `aclprofSetConfig` after
    /// `aclprofInit` and before `aclprofStart` (e.g.
    /// `ACL_PROF_STORAGE_LIMIT`, `"200"`: the output's size limit in MB);
    /// options are set in the order given. An option type outside CANN's
    /// range, a value over 256 bytes or holding a NUL byte makes
    /// [`profile`] fail with [`Error::InvalidArgument`] before any call.
    pub fn option(mut self, kind: aclprofConfigType, value: &str) -> ProfileConfig {
        // A value with a NUL byte is kept as an empty marker, refused in `profile`.
        let value = CString::new(value).unwrap_or_default();
        self.options.push((kind, value));
        self
    }

    /// The devices to profile (each once, below the device count).
    pub fn devices(mut self, devices: &[u32]) -> ProfileConfig {
        self.devices = devices.to_vec();
        self
    }

    /// The `ACL_PROF_*` switches of the data to collect, or-ed.
    pub fn data_types(mut self, data_types: u64) -> ProfileConfig {
        self.data_types = data_types;
        self
    }

    /// The AI Core metrics to collect (`ACL_AICORE_NONE` for none).
    pub fn aicore_metrics(mut self, metrics: aclprofAicoreMetrics) -> ProfileConfig {
        self.metrics = metrics;
        self
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A started profiling session: stopped, its config destroyed and profiling
/// finalised when dropped (also when the closure panics).
struct Session {
    rt: Runtime,
    prof: &'static Profiler,
    config: *mut aclprofConfig,
    started: bool,
    /// close ran (finish, or a drop): nothing is left to undo.
    closed: bool,
}

impl Session {
    /// Stops collecting, destroys the config, finalises: the first failure.
    /// (The drop that follows does nothing: the session is closed.)
    fn finish(mut self) -> Result<()> {
        self.close()
    }

    fn close(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let lib = self.rt.lib();
        let mut first: Result<()> = Ok(());
        let mut keep = |r: Result<()>| {
            if first.is_ok() {
                first = r;
            }
        };
        if self.started {
            self.started = false;
            // SAFETY: a live config of this profiler, started with aclprofStart.
            keep(check(lib, "aclprofStop", unsafe {
                self.prof.aclprofStop(self.config)
            }));
        }
        if !self.config.is_null() {
            // SAFETY: a live config of this profiler, destroyed once.
            keep(check(lib, "aclprofDestroyConfig", unsafe {
                self.prof.aclprofDestroyConfig(self.config)
            }));
            self.config = std::ptr::null_mut();
        }
        // SAFETY: no arguments; aclprofInit succeeded for this session.
        keep(check(lib, "aclprofFinalize", unsafe {
            self.prof.aclprofFinalize()
        }));
        first
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // only on a panic of the closure or a failed start: nothing to return
        // the error to
        let _ = self.close();
    }
}

/// Runs `work` with profiling on: `aclprofInit(config.dir())`, a config of
/// `config`'s devices, data types and metrics, `aclprofStart`; then
/// `aclprofStop`, the config destroyed and `aclprofFinalize`, also when a
/// step fails after `aclprofInit` (nothing is left initialised). Returns what
/// `work` returned, or the first failure.
///
/// # Errors
/// [`Error::InvalidArgument`] for a directory that cannot be created or whose
/// path holds a NUL byte or is longer than 4096 bytes; [`Error::Library`] when
/// no profiler library is found; [`Error::Acl`] for a call the profiler
/// refused (`aclprofInit` twice: profiling is already on in this process).
pub fn profile<R>(rt: &Runtime, config: &ProfileConfig, work: impl FnOnce() -> R) -> Result<R> {
    std::fs::create_dir_all(&config.dir).map_err(|e| {
        Error::InvalidArgument(format!("profiling directory {}: {e}", config.dir.display()))
    })?;
    let path = CString::new(config.dir.to_string_lossy().into_owned()).map_err(|_| {
        Error::InvalidArgument("the profiling directory's path holds a NUL byte".into())
    })?;
    if path.as_bytes().len() > 4096 {
        return Err(Error::InvalidArgument(format!(
            "the profiling directory's path is {} bytes long, more than 4096",
            path.as_bytes().len()
        )));
    }
    for (i, (kind, value)) in config.options.iter().enumerate() {
        let range =
            aclprofConfigType::ACL_PROF_ARGS_MIN.0 + 1..aclprofConfigType::ACL_PROF_ARGS_MAX.0;
        if !range.contains(&kind.0) {
            return Err(Error::InvalidArgument(format!(
                "profiling option {i}: type {} is not one of CANN 8.5's ({}..{})",
                kind.0, range.start, range.end
            )));
        }
        if value.as_bytes().is_empty() || value.as_bytes().len() > OPTION_MAX_LENGTH {
            return Err(Error::InvalidArgument(format!(
                "profiling option {i}: the value is empty, holds a NUL byte or is longer than {OPTION_MAX_LENGTH} bytes"
            )));
        }
    }
    let lib = rt.lib();
    let prof = ascendcl_sys::prof::profiler_for(Some(lib))?;
    // SAFETY: a NUL-terminated path and its length without the NUL.
    check(lib, "aclprofInit", unsafe {
        prof.aclprofInit(path.as_ptr(), path.as_bytes().len())
    })?;
    let mut session = Session {
        rt: rt.clone(),
        prof,
        config: std::ptr::null_mut(),
        started: false,
        closed: false,
    };
    for (kind, value) in &config.options {
        // SAFETY: a NUL-terminated value and its length without the NUL.
        check(lib, "aclprofSetConfig", unsafe {
            prof.aclprofSetConfig(*kind, value.as_ptr(), value.as_bytes().len())
        })?;
    }
    let mut devices = config.devices.clone();
    let count = u32::try_from(devices.len())
        .map_err(|_| Error::InvalidArgument(format!("{} devices to profile", devices.len())))?;
    // SAFETY: `devices` holds `count` ids and outlives the call (the config
    // copies them); no AI Core events (null), as CANN 8.5 requires.
    let made = unsafe {
        prof.aclprofCreateConfig(
            devices.as_mut_ptr(),
            count,
            config.metrics,
            std::ptr::null(),
            config.data_types,
        )
    }?;
    if made.is_null() {
        let message = recent_message(lib);
        return Err(AclError::new(ACL_ERROR_INVALID_PARAM, "aclprofCreateConfig", message).into());
    }
    session.config = made;
    // SAFETY: a live config this profiler created.
    check(lib, "aclprofStart", unsafe {
        prof.aclprofStart(session.config)
    })?;
    session.started = true;
    let out = work();
    session.finish()?;
    Ok(out)
}
