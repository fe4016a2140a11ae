//! What a capture's mode forbids outside the capture: synchronous copies
//! and memsets.
//!
//! CANN gates `MemCopySync`, `MemSetSync` and their kin on the capture mode
//! (hicann/runtime v8.5.0, `src/runtime/feature/src/api_impl/api_impl.cc`,
//! failing with 107030, `ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT`), by
//! `Context::IsCaptureModeSupport` (`src/runtime/feature/src/context/context.cc`):
//! with no capture in the current context, everything is allowed; otherwise
//! by the calling thread's exchanged mode (`aclmdlRICaptureThreadExchangeMode`,
//! GLOBAL until a thread changes it):
//! * RELAXED: allowed;
//! * GLOBAL: refused if the context has a GLOBAL capture under way, or if
//!   this thread is capturing in THREAD_LOCAL mode;
//! * THREAD_LOCAL: refused if this thread is capturing (GLOBAL or
//!   THREAD_LOCAL).
//!
//! The safe layer knows every capture it began and every exchange it made
//! ([`with_thread_mode`](super::with_thread_mode)), so it applies the same
//! rule first, with a typed error and no FFI call. A capture begun outside
//! this crate (raw FFI) is not seen, nor a thread's mode changed with raw
//! `aclmdlRICaptureThreadExchangeMode`: CANN's own check then decides. A
//! synchronous copy in another thread that passed this check just before a
//! GLOBAL capture began can still reach CANN inside it; CANN refuses it and
//! invalidates the capture, whose end then fails with a typed error
//! (nothing is freed or run out of order).

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::graph::CaptureMode;

/// Non-relaxed captures under way in the process: when 0, nothing is
/// refused (the launch path's only cost).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// GLOBAL captures under way, per context (its raw handle).
static GLOBAL_BY_CONTEXT: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Captures under way (any mode), per device: a device synchronize fails
/// with 107027 while one is (hicann/runtime v8.5.0 `context.cc`, the
/// device synchronize's check of captured streams).
static BY_DEVICE: Mutex<Vec<(u32, usize)>> = Mutex::new(Vec::new());

fn count_device(device: u32, up: bool) {
    let mut by = BY_DEVICE.lock().unwrap_or_else(PoisonError::into_inner);
    match by.iter().position(|(d, _)| *d == device) {
        Some(i) if up => by[i].1 += 1,
        Some(i) => {
            by[i].1 -= 1;
            if by[i].1 == 0 {
                by.swap_remove(i);
            }
        }
        None if up => by.push((device, 1)),
        None => {}
    }
}

/// Refuses a device synchronize (or other device-wide wait) of `device`
/// while a capture this crate began is under way on it.
pub(crate) fn refuse_device_sync(device: u32, what: &str) -> Result<()> {
    let busy = BY_DEVICE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .any(|&(d, n)| d == device && n > 0);
    if busy {
        return Err(Error::InvalidState(format!(
            "{what} of device {device} is refused while a stream of it is being captured (CANN: \
             107027, and the capture would be invalidated); end the capture first"
        )));
    }
    Ok(())
}

thread_local! {
    /// This thread's captures under way: (GLOBAL, THREAD_LOCAL).
    static OWN: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// This thread's exchanged mode, as far as this crate set it.
    static EXCHANGED: Cell<CaptureMode> = const { Cell::new(CaptureMode::Global) };
}

fn context_key(ctx: &Context) -> usize {
    ctx.as_raw() as usize
}

/// Held by a capture from its begin to its end. Not `Send`: a non-relaxed
/// capture must end on the thread that began it (CANN refuses another with
/// 107038), and the thread's own counts are that thread's.
pub(crate) struct ModeGate {
    mode: CaptureMode,
    context: usize,
    device: u32,
    _same_thread: PhantomData<*const ()>,
}

impl ModeGate {
    /// Counts a capture of `mode` in `ctx` as under way.
    pub(crate) fn enter(mode: CaptureMode, ctx: &Context) -> ModeGate {
        let context = context_key(ctx);
        count_device(ctx.device_id(), true);
        match mode {
            CaptureMode::Global => {
                let mut by = GLOBAL_BY_CONTEXT
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                match by.iter_mut().find(|(c, _)| *c == context) {
                    Some((_, n)) => *n += 1,
                    None => by.push((context, 1)),
                }
                OWN.with(|o| o.set((o.get().0 + 1, o.get().1)));
                ACTIVE.fetch_add(1, Ordering::AcqRel);
            }
            CaptureMode::ThreadLocal => {
                OWN.with(|o| o.set((o.get().0, o.get().1 + 1)));
                ACTIVE.fetch_add(1, Ordering::AcqRel);
            }
            CaptureMode::Relaxed => {}
        }
        ModeGate {
            mode,
            context,
            device: ctx.device_id(),
            _same_thread: PhantomData,
        }
    }
}

impl Drop for ModeGate {
    fn drop(&mut self) {
        count_device(self.device, false);
        match self.mode {
            CaptureMode::Global => {
                let mut by = GLOBAL_BY_CONTEXT
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                if let Some(i) = by.iter().position(|(c, _)| *c == self.context) {
                    by[i].1 -= 1;
                    if by[i].1 == 0 {
                        by.swap_remove(i);
                    }
                }
                let _ = OWN.try_with(|o| o.set((o.get().0.saturating_sub(1), o.get().1)));
                ACTIVE.fetch_sub(1, Ordering::AcqRel);
            }
            CaptureMode::ThreadLocal => {
                let _ = OWN.try_with(|o| o.set((o.get().0, o.get().1.saturating_sub(1))));
                ACTIVE.fetch_sub(1, Ordering::AcqRel);
            }
            CaptureMode::Relaxed => {}
        }
    }
}

/// This thread's exchanged mode as this crate last set it.
pub(crate) fn exchanged() -> CaptureMode {
    EXCHANGED.try_with(Cell::get).unwrap_or_default()
}

/// Records this thread's exchanged mode (after CANN accepted it).
pub(crate) fn set_exchanged(mode: CaptureMode) {
    let _ = EXCHANGED.try_with(|e| e.set(mode));
}

/// Why `IsCaptureModeSupport` would refuse a synchronous call in `ctx` on
/// this thread, if it would.
fn refusal(ctx: &Context) -> Option<&'static str> {
    let (own_global, own_thread_local) = OWN.try_with(Cell::get).unwrap_or((0, 0));
    match exchanged() {
        CaptureMode::Relaxed => None,
        CaptureMode::Global => {
            let key = context_key(ctx);
            let context_global = GLOBAL_BY_CONTEXT
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .any(|(c, n)| *c == key && *n > 0);
            if context_global {
                Some("a GLOBAL-mode capture is under way in this context")
            } else if own_thread_local > 0 {
                Some("this thread is capturing in THREAD_LOCAL mode")
            } else {
                None
            }
        }
        CaptureMode::ThreadLocal => (own_global + own_thread_local > 0).then_some(
            "this thread is capturing and its mode is THREAD_LOCAL (graph::with_thread_mode)",
        ),
    }
}

/// Refuses `what` (a synchronous copy or memset in `ctx`) where CANN's
/// capture-mode rule would (see the module docs).
#[inline]
pub(crate) fn refuse_sync_call(ctx: &Context, what: &str) -> Result<()> {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    match refusal(ctx) {
        None => Ok(()),
        Some(why) => Err(Error::InvalidState(format!(
            "{what} is refused while {why} (CANN: 107030, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT); \
             end the capture first, copy through the capture (Capture::upload/download), make the \
             call inside graph::with_thread_mode(.., CaptureMode::Relaxed, ..) if it is not part of \
             the step, or capture with CaptureMode::Relaxed"
        ))),
    }
}
