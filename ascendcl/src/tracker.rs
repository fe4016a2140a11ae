//! Remembering the last queued use of a buffer.
//!
//! Every buffer (device or pinned host) has a [`UseTracker`]. Queuing work
//! that touches the buffer records a marker event after that work and stores
//! it here. Then:
//!
//! * host access, synchronous copies and freeing first wait for the marker
//!   ([`UseTracker::wait_idle`]), so they can never race with queued work;
//! * queuing work on another stream first makes that stream wait for the
//!   marker ([`UseTracker::order_before`]), so uses on two streams are ordered.
//!
//! This holds even if a [`Pending`](crate::Pending) guard is leaked with
//! `mem::forget`: the borrow checker gives early errors, the tracker gives the
//! guarantee. A buffer with no queued use costs one atomic load per check.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ascendcl_sys::aclrtStream;

use crate::call::check;
use crate::context::Context;
use crate::error::Result;
use crate::event::Marker;
use crate::stream::Stream;

/// What the last queued use was.
enum LastUse {
    /// Work ending at this marker.
    Marked(Arc<Marker>),
    /// Work that could not be marked (recording the marker failed and so did
    /// the fallback synchronize): only a device-wide synchronize is safe.
    Unknown,
}

/// The last queued use of one buffer.
#[derive(Default)]
pub(crate) struct UseTracker {
    maybe_pending: AtomicBool,
    last: Mutex<Option<LastUse>>,
}

impl std::fmt::Debug for UseTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UseTracker")
            .field("maybe_pending", &self.maybe_pending.load(Ordering::Relaxed))
            .finish()
    }
}

impl UseTracker {
    /// Whether queued work may still use the buffer.
    #[inline]
    pub(crate) fn maybe_pending(&self) -> bool {
        self.maybe_pending.load(Ordering::Acquire)
    }

    /// Waits until no queued work uses the buffer. `ctx` is the buffer's
    /// context, used for a device-wide wait when the last use is unknown.
    #[inline]
    pub(crate) fn wait_idle(&self, ctx: &Context) -> Result<()> {
        if !self.maybe_pending() {
            return Ok(());
        }
        self.wait_slow(ctx)
    }

    #[cold]
    fn wait_slow(&self, ctx: &Context) -> Result<()> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match last.as_ref() {
            Some(LastUse::Marked(marker)) => marker.synchronize()?,
            Some(LastUse::Unknown) => {
                ctx.bind()?;
                let lib = ctx.lib();
                // SAFETY: no arguments; the buffer's context is current.
                check(lib, "aclrtSynchronizeDevice", unsafe {
                    lib.aclrtSynchronizeDevice()
                })?;
            }
            None => {}
        }
        *last = None;
        self.maybe_pending.store(false, Ordering::Release);
        Ok(())
    }

    /// As [`UseTracker::wait_idle`] for paths that cannot fail (host access
    /// through `Deref`): on error, falls back to a device-wide synchronize,
    /// and if that fails too the device has stopped and will not touch the
    /// buffer any more; the error is parked.
    pub(crate) fn wait_idle_infallible(&self, ctx: &Context, during: &'static str) {
        if let Err(error) = self.wait_idle(ctx) {
            crate::deferred::park(during, error);
            *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(LastUse::Unknown);
            if let Err(error) = self.wait_idle(ctx) {
                crate::deferred::park(during, error);
                *self.last.lock().unwrap_or_else(PoisonError::into_inner) = None;
                self.maybe_pending.store(false, Ordering::Release);
            }
        }
    }

    /// Before releasing the memory from a destructor: waits for the last
    /// use, trying again and then a device-wide synchronize if that fails.
    /// Returns false (the error parked) only if all of that failed, in which
    /// case queued work may still use the memory and it must be leaked.
    pub(crate) fn wait_idle_before_release(&self, ctx: &Context, during: &'static str) -> bool {
        if self.wait_idle(ctx).is_ok() || self.wait_idle(ctx).is_ok() {
            return true;
        }
        self.set_unknown_use();
        match self.wait_idle(ctx) {
            Ok(()) => true,
            Err(error) => {
                crate::deferred::park(during, error);
                false
            }
        }
    }

    /// Orders work about to be queued on `stream` after the last use, when
    /// that use was on another stream.
    pub(crate) fn order_before(&self, stream: &Stream, raw_stream: aclrtStream) -> Result<()> {
        if !self.maybe_pending() {
            return Ok(());
        }
        let last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match last.as_ref() {
            Some(LastUse::Marked(marker)) if marker.stream_id != stream.inner.id => {
                let lib = stream.context().lib();
                // SAFETY: a live stream (its context is current) and a live
                // pooled event created with ACL_EVENT_SYNC.
                check(lib, "aclrtStreamWaitEvent", unsafe {
                    lib.aclrtStreamWaitEvent(raw_stream, marker.raw())
                })
            }
            Some(LastUse::Unknown) => {
                drop(last);
                self.wait_idle(stream.context())
            }
            _ => Ok(()),
        }
    }

    /// Records `marker` as the last use.
    pub(crate) fn set_last_use(&self, marker: &Arc<Marker>) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(LastUse::Marked(marker.clone()));
        self.maybe_pending.store(true, Ordering::Release);
    }

    /// Records that queued work may use the buffer but could not be marked.
    pub(crate) fn set_unknown_use(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(LastUse::Unknown);
        self.maybe_pending.store(true, Ordering::Release);
    }

    /// Takes the last use out of the tracker, for a buffer handed back to an
    /// allocator: `Ok(None)` when nothing is pending, `Ok(Some(marker))` for
    /// work that may still run, `Err` when the use is unknown (the caller
    /// must synchronize the device).
    pub(crate) fn take_last_use(&self) -> std::result::Result<Option<Arc<Marker>>, ()> {
        if !self.maybe_pending() {
            return Ok(None);
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        self.maybe_pending.store(false, Ordering::Release);
        match last.take() {
            Some(LastUse::Marked(marker)) => Ok(Some(marker)),
            Some(LastUse::Unknown) => Err(()),
            None => Ok(None),
        }
    }

    /// Forgets the last use if it is `marker` (which has completed).
    pub(crate) fn clear_if(&self, marker: &Arc<Marker>) {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(last.as_ref(), Some(LastUse::Marked(m)) if Arc::ptr_eq(m, marker)) {
            *last = None;
            self.maybe_pending.store(false, Ordering::Release);
        }
    }
}
