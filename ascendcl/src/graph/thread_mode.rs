//! A thread's capture mode for the length of a closure
//! (`aclmdlRICaptureThreadExchangeMode`).

use std::marker::PhantomData;

use ascendcl_sys::aclmdlRICaptureMode;

use crate::call::check;
use crate::error::Result;
use crate::graph::CaptureMode;
use crate::graph::mode_gate;
use crate::runtime::Runtime;

fn from_raw(raw: aclmdlRICaptureMode) -> CaptureMode {
    match raw {
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL => CaptureMode::ThreadLocal,
        aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED => CaptureMode::Relaxed,
        _ => CaptureMode::Global,
    }
}

/// Restores the thread's previous mode when dropped (also on a panic of the
/// closure). Not `Send`: the mode is the thread's.
struct Restore<'r> {
    rt: &'r Runtime,
    previous: aclmdlRICaptureMode,
    _same_thread: PhantomData<*const ()>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let lib = self.rt.lib();
        let mut mode = self.previous;
        crate::deferred::release("restoring a thread's capture mode", || {
            // SAFETY: a valid in/out pointer to a mode CANN returned.
            check(lib, "aclmdlRICaptureThreadExchangeMode", unsafe {
                lib.aclmdlRICaptureThreadExchangeMode(&mut mode)
            })
        });
        mode_gate::set_exchanged(from_raw(self.previous));
    }
}

/// Runs `f` with this thread's capture mode set to `mode`, then restores the
/// previous one (`aclmdlRICaptureThreadExchangeMode` before and after).
///
/// The thread's mode decides which synchronous copies and memsets a capture
/// under way forbids on it (CANN's `Context::IsCaptureModeSupport`, v8.5.0
/// `context.cc`): RELAXED allows them; GLOBAL (every thread's mode until it
/// exchanges it) refuses them while a GLOBAL capture is under way in the
/// context, or while the thread itself captures in THREAD_LOCAL mode;
/// THREAD_LOCAL refuses them only while the thread itself captures. Use it
/// around work that is not part of a step being captured elsewhere, as
/// torch_npu does around its allocator's synchronous calls. The safe layer
/// refuses what CANN would refuse before any FFI call, with this thread's
/// mode taken into account.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::graph::{self, Capture, CaptureMode};
/// use ascendcl::prelude::*;
/// let ctx = Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let mut weights = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// let cap = Capture::begin(&stream, CaptureMode::Global)?;
/// // A GLOBAL capture forbids synchronous copies in every thread...
/// assert!(weights.copy_from_host(&[1.0; 4]).is_err());
/// // ...but not in a thread (here: this one) that relaxed its mode.
/// graph::with_thread_mode(&rt, CaptureMode::Relaxed, || weights.copy_from_host(&[1.0; 4]))??;
/// drop(cap);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub fn with_thread_mode<R>(rt: &Runtime, mode: CaptureMode, f: impl FnOnce() -> R) -> Result<R> {
    let lib = rt.lib();
    let mut raw = mode.raw();
    // SAFETY: a valid in/out pointer to a mode value.
    check(lib, "aclmdlRICaptureThreadExchangeMode", unsafe {
        lib.aclmdlRICaptureThreadExchangeMode(&mut raw)
    })?;
    let restore = Restore {
        rt,
        previous: raw,
        _same_thread: PhantomData,
    };
    mode_gate::set_exchanged(mode);
    let result = f();
    drop(restore);
    Ok(result)
}
