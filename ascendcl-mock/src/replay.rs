//! Replaying a recorded trace in the mock (the Rust side of
//! `aclmockReplayLoad` and `aclmockReplayStatus`; the semantics are in
//! `include/aclmock.h` and `docs/trace-format.md`).
//!
//! ```
//! use ascendcl_mock::{ReplayMode, ReplayState};
//! let s = ascendcl_mock::session();
//! let lib = s.library();
//! let trace = std::env::temp_dir().join(format!("replay-doc-{}.jsonl", std::process::id()));
//! let mut count = 0u32;
//! // SAFETY: `count` is a valid out-pointer.
//! unsafe { lib.aclrtGetDeviceCount(&mut count) }.unwrap();
//! s.save_trace(&trace).unwrap();
//!
//! s.reset();
//! s.replay(&trace, ReplayMode::Strict).unwrap();
//! // SAFETY: as above.
//! unsafe { lib.aclrtGetDeviceCount(&mut count) }.unwrap();
//! assert_eq!(s.replay_status().state, ReplayState::Complete);
//! # std::fs::remove_file(&trace).unwrap();
//! ```

use std::ffi::CString;
use std::io;
use std::path::Path;

use crate::control::{Mock, read_string};
use crate::control_error::{ControlError, check};
use crate::trace::{Value, header_line};

/// The code of the first call that differs from the trace in strict mode
/// (`ACLMOCK_ERROR_REPLAY_DIVERGED`).
pub const REPLAY_DIVERGED: i32 = 599_999;

/// Exit status of a process whose replay from `ASCENDCL_MOCK_REPLAY` failed
/// (`ACLMOCK_REPLAY_FAILED_EXIT`): the trace could not be loaded, a call
/// diverged, or a strict replay did not make every call. The mock ends the
/// process with it at exit, whatever status the program chose.
pub const REPLAY_FAILED_EXIT: i32 = 86;

/// How a trace is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplayMode {
    /// The call sequence must match; results come from the trace.
    Strict,
    /// Only the recorded facts come from the trace.
    Lenient,
}

/// Where a replay stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplayState {
    /// No trace is loaded.
    Off,
    /// Calls remain (strict), or a lenient replay is active.
    Replaying,
    /// Strict: every call of the trace was made, in order.
    Complete,
    /// Strict: a call differed (see [`ReplayStatus::divergence`]).
    Diverged,
    /// The trace could not be loaded.
    Error,
}

/// One side of a divergence: a call of the trace or of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The C function.
    pub function: String,
    /// Its arguments (symbolic ids as the side numbered them).
    pub args: Value,
    /// Its return code, if known (the program's call may not have run).
    pub ret: Option<i32>,
    /// Its error text, if it failed with one.
    pub msg: Option<String>,
}

impl Call {
    fn from_json(v: &Value) -> Option<Call> {
        Some(Call {
            function: v.get("fn")?.as_str()?.to_string(),
            args: v.get("args")?.clone(),
            ret: v
                .get("ret")
                .and_then(Value::as_i64)
                .and_then(|r| i32::try_from(r).ok()),
            msg: v.get("msg").and_then(Value::as_str).map(str::to_string),
        })
    }
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.function, self.args)?;
        if let Some(ret) = self.ret {
            write!(f, " -> {ret}")?;
        }
        Ok(())
    }
}

/// The first call that differed from the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// Sequence number of the expected record (0 if there was none).
    pub seq: u64,
    /// The trace thread (-1: a live thread the trace does not have).
    pub thread: i64,
    /// Position of the call among its thread's calls (1-based).
    pub call: u64,
    /// What differed.
    pub reason: String,
    /// The call the trace has there (None: the trace has no more calls).
    pub expected: Option<Call>,
    /// The call the program made.
    pub actual: Call,
}

/// The replay status (`aclmockReplayStatus`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayStatus {
    /// The mode, None when off.
    pub mode: Option<ReplayMode>,
    /// The state.
    pub state: ReplayState,
    /// The trace file.
    pub trace: Option<String>,
    /// Calls matched so far (strict).
    pub matched: u64,
    /// Calls in the trace.
    pub calls: u64,
    /// Calls of the trace not made yet (strict).
    pub remaining: u64,
    /// The first divergence.
    pub divergence: Option<Divergence>,
    /// Why the trace could not be loaded.
    pub error: Option<String>,
    /// A human-readable summary (the divergence report when there is one).
    pub text: String,
    /// The whole status as JSON.
    pub json: Value,
}

impl ReplayStatus {
    /// Parses the status JSON (as `aclmockReplayStatus` and the
    /// `ASCENDCL_MOCK_REPLAY_REPORT` file give it).
    pub fn parse(text: &str) -> Result<ReplayStatus, String> {
        let v = Value::parse(text.trim())?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let string = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let mode = match v.get("mode").and_then(Value::as_str) {
            Some("strict") => Some(ReplayMode::Strict),
            Some("lenient") => Some(ReplayMode::Lenient),
            _ => None,
        };
        let state = match v.get("state").and_then(Value::as_str) {
            Some("replaying") => ReplayState::Replaying,
            Some("complete") => ReplayState::Complete,
            Some("diverged") => ReplayState::Diverged,
            Some("error") => ReplayState::Error,
            _ => ReplayState::Off,
        };
        let divergence = v
            .get("divergence")
            .filter(|d| !d.is_null())
            .map(|d| Divergence {
                seq: d.get("seq").and_then(Value::as_u64).unwrap_or(0),
                thread: d.get("thread").and_then(Value::as_i64).unwrap_or(-1),
                call: d.get("call").and_then(Value::as_u64).unwrap_or(0),
                reason: d
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                expected: d.get("expected").and_then(Call::from_json),
                actual: d
                    .get("actual")
                    .and_then(Call::from_json)
                    .unwrap_or_else(|| Call {
                        function: String::new(),
                        args: Value::Null,
                        ret: None,
                        msg: None,
                    }),
            });
        Ok(ReplayStatus {
            mode,
            state,
            trace: string("trace"),
            matched: num("matched"),
            calls: num("calls"),
            remaining: num("remaining"),
            divergence,
            error: string("error"),
            text: string("text").unwrap_or_default(),
            json: v,
        })
    }

    /// Whether a strict replay made every call of the trace without a
    /// difference.
    pub fn is_complete(&self) -> bool {
        self.state == ReplayState::Complete
    }
}

impl Mock {
    /// Replays the trace at `path` from now on (call right after a reset:
    /// the device model is configured from the trace). Fails with 100003
    /// (cannot open) or 100006 (not a version 1 trace).
    pub fn replay(&self, path: impl AsRef<Path>, mode: ReplayMode) -> Result<(), ControlError> {
        let shown = path.as_ref().display().to_string();
        let c_path = CString::new(path.as_ref().as_os_str().as_encoded_bytes()).map_err(|_| {
            ControlError::new(
                "replay",
                ascendcl_sys::ACL_ERROR_INVALID_PARAM,
                format!("{shown}: a path with a NUL byte"),
            )
        })?;
        let mode = match mode {
            ReplayMode::Strict => 1,
            ReplayMode::Lenient => 2,
        };
        // SAFETY: `c_path` is NUL-terminated and outlives the call.
        let code = unsafe { (self.replay_load)(c_path.as_ptr(), mode) };
        check("replay", code, || {
            let error = self.replay_status().error.unwrap_or_default();
            format!("cannot replay {shown}: {error}; record a trace with `ascendcl trace record`")
        })
    }

    /// Stops replaying.
    pub fn stop_replay(&self) {
        // SAFETY: a null path with mode 0 stops the replay.
        let _ = unsafe { (self.replay_load)(std::ptr::null(), 0) };
    }

    /// The replay status.
    pub fn replay_status(&self) -> ReplayStatus {
        let text = read_string(|buf, cap| {
            // SAFETY: `buf` is writable for `cap` bytes (or null with cap 0).
            unsafe { (self.replay_status)(buf, cap) }
        });
        ReplayStatus::parse(&text)
            .unwrap_or_else(|e| panic!("the mock's replay status is not JSON ({e}): {text}"))
    }

    /// Writes the journal held in memory as a trace (a header, then every
    /// entry): a recording of what ran on the mock, for replay.
    pub fn save_trace(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let mut text = header_line(
            "aclmock",
            &[("library", Value::String(crate::LIBRARY_PATH.to_string()))],
        );
        text.push('\n');
        for entry in self.journal() {
            text.push_str(&entry.line);
            text.push('\n');
        }
        std::fs::write(path, text)
    }
}
