//! What a capture's mode forbids outside the capture: synchronous copies
//! and memsets.
//!
//! CANN gates `MemCopySync`, `MemSetSync` and their kin on the capture mode
//! (hicann/runtime v8.5.0, `src/runtime/feature/src/api_impl/api_impl.cc`,
//! `Context::IsCaptureModeSupport`, failing with 107030,
//! `ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`): while a GLOBAL capture is active
//! no thread may make them, while a THREAD_LOCAL one is active the capturing
//! thread may not; a RELAXED capture forbids nothing. The safe layer knows
//! every capture it began, so it refuses those calls first, with a typed
//! error and no FFI call. A capture begun outside this crate (raw FFI) is not
//! seen, nor a thread's mode changed with raw
//! `aclmdlRICaptureThreadExchangeMode`: CANN's own check then decides.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};
use crate::graph::CaptureMode;

/// Active GLOBAL captures in the process.
static GLOBAL: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Active THREAD_LOCAL captures begun on this thread.
    static THREAD_LOCAL: Cell<usize> = const { Cell::new(0) };
}

/// Held by a capture from its begin to its end. Not `Send`: a non-relaxed
/// capture must end on the thread that began it (CANN refuses another with
/// 107038), and the thread-local count is that thread's.
pub(crate) struct ModeGate {
    mode: CaptureMode,
    _same_thread: PhantomData<*const ()>,
}

impl ModeGate {
    /// Counts a capture of `mode` as active.
    pub(crate) fn enter(mode: CaptureMode) -> ModeGate {
        match mode {
            CaptureMode::Global => {
                GLOBAL.fetch_add(1, Ordering::AcqRel);
            }
            CaptureMode::ThreadLocal => THREAD_LOCAL.with(|c| c.set(c.get() + 1)),
            CaptureMode::Relaxed => {}
        }
        ModeGate {
            mode,
            _same_thread: PhantomData,
        }
    }
}

impl Drop for ModeGate {
    fn drop(&mut self) {
        match self.mode {
            CaptureMode::Global => {
                GLOBAL.fetch_sub(1, Ordering::AcqRel);
            }
            CaptureMode::ThreadLocal => {
                let _ = THREAD_LOCAL.try_with(|c| c.set(c.get().saturating_sub(1)));
            }
            CaptureMode::Relaxed => {}
        }
    }
}

/// Refuses `what` (a synchronous copy or memset) while a capture this crate
/// began forbids it on the calling thread.
#[inline]
pub(crate) fn refuse_sync_call(what: &str) -> Result<()> {
    let mode = if GLOBAL.load(Ordering::Acquire) > 0 {
        "a GLOBAL-mode capture is active in this process"
    } else if THREAD_LOCAL.try_with(Cell::get).unwrap_or(0) > 0 {
        "this thread is capturing in THREAD_LOCAL mode"
    } else {
        return Ok(());
    };
    Err(Error::InvalidState(format!(
        "{what} is refused while {mode} (CANN: 107030, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT); \
         end the capture first, copy through the capture (Capture::upload/download), or capture \
         with CaptureMode::Relaxed"
    )))
}
