//! Host callbacks queued on a stream.
//!
//! [`Stream::launch_host_fn`] queues a Rust closure that a runtime thread runs
//! when the stream reaches it (`aclrtLaunchHostFunc`, CANN 8.5+). A panic in
//! the closure is caught before it can unwind into C, and reported by the
//! stream's next `synchronize` as [`Error::CallbackPanicked`](crate::Error::CallbackPanicked).

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::{any::Any, cell::Cell};

use crate::call::check;
use crate::error::{Error, Result};
use crate::stream::Stream;

/// Panics caught in a stream's callbacks, waiting to be reported. Checking
/// for none is one atomic load (synchronize does it on every call).
#[derive(Debug, Default)]
pub(crate) struct PanicSlot {
    any: AtomicBool,
    texts: Mutex<Vec<String>>,
}

impl PanicSlot {
    fn push(&self, text: String) {
        self.texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text);
        self.any.store(true, Ordering::Release);
    }

    /// The oldest caught panic, if any.
    #[inline]
    pub(crate) fn take(&self) -> Option<String> {
        if self.any.load(Ordering::Acquire) {
            self.take_slow()
        } else {
            None
        }
    }

    #[cold]
    fn take_slow(&self) -> Option<String> {
        let mut texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        let first = if texts.is_empty() {
            None
        } else {
            Some(texts.remove(0))
        };
        self.any.store(!texts.is_empty(), Ordering::Release);
        first
    }
}

/// What the C trampoline receives: the closure and where to report a panic.
struct HostCall {
    f: Box<dyn FnOnce() + Send + 'static>,
    /// The stream's panic slot (not the stream: holding it here could make
    /// this thread drop the last handle and destroy the stream from inside
    /// its own callback).
    panics: Arc<PanicSlot>,
    running: Running,
    /// Tells the stream's lane, as the callback starts, that every tracked
    /// launch queued before it has finished: a callback may then read a
    /// buffer written before it on its own stream (no event covers that
    /// work, and none recorded now could be waited for from here).
    reached: crate::lane::Reached,
}

/// The host callback running on this thread, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Running {
    /// The id of the stream the callback was queued on.
    pub(crate) stream: u64,
    /// That stream's device.
    pub(crate) device: u32,
}

thread_local! {
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
}

/// The host callback running on this thread, if any.
#[inline]
pub(crate) fn running() -> Option<Running> {
    RUNNING.with(Cell::get)
}

/// Whether this thread is running a host callback queued on `stream`.
#[inline]
pub(crate) fn is_running_on(stream: u64) -> bool {
    running().is_some_and(|r| r.stream == stream)
}

/// Refuses to block on work of `stream` from one of its own callbacks when
/// that work has not completed: the stream cannot pass the callback, so the
/// wait would never end.
pub(crate) fn refuse_wait_on_own_stream(
    stream: u64,
    is_complete: impl FnOnce() -> Result<bool>,
) -> Result<()> {
    if is_running_on(stream) && !is_complete().unwrap_or(false) {
        return Err(Error::WouldDeadlock(
            "a host callback waited for work queued after it on its own stream, which \
             cannot run until the callback returns"
                .into(),
        ));
    }
    Ok(())
}

/// Marks this thread as running a callback until dropped (also on unwind).
struct RunningGuard(Option<Running>);

impl RunningGuard {
    fn enter(running: Running) -> RunningGuard {
        RunningGuard(RUNNING.with(|r| r.replace(Some(running))))
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.0));
    }
}

/// The text of a panic payload.
fn panic_text(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}

extern "C" fn trampoline(args: *mut c_void) {
    // SAFETY: `args` is the Box<HostCall> leaked by launch_host_fn; the
    // runtime calls the function exactly once.
    let call = unsafe { Box::from_raw(args.cast::<HostCall>()) };
    let HostCall {
        f,
        panics,
        running,
        reached,
    } = *call;
    reached.mark();
    let guard = RunningGuard::enter(running);
    if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
        let text = panic_text(&*panic);
        // The payload's own destructor may panic too: drop it inside
        // catch_unwind, and leak whatever that second panic carries.
        if let Err(second) = catch_unwind(AssertUnwindSafe(move || drop(panic))) {
            std::mem::forget(second);
        }
        panics.push(text);
    }
    drop(guard);
}

impl Stream {
    /// Queues `f` to run on a runtime thread once all work queued before it
    /// on this stream has finished. Work queued after it waits for it.
    ///
    /// # Waiting inside a callback
    ///
    /// The stream cannot move past the callback until it returns, so a
    /// callback must never wait for its own stream. What this crate can see
    /// is refused with [`Error::WouldDeadlock`] instead of hanging:
    ///
    /// * synchronizing its own stream, or the device it runs on;
    /// * a buffer access ([`HostBuffer::as_slice`](crate::HostBuffer::as_slice),
    ///   a synchronous copy, a `Pending::wait`) that would wait for work queued
    ///   after the callback on the same stream. `Deref` of a `HostBuffer` in
    ///   that case panics (caught, and reported by the next synchronize).
    ///
    /// What it cannot see, and you must avoid: waiting on an [`Event`](crate::Event)
    /// recorded after the callback on its stream, waiting for work on another
    /// stream that itself waits for this one, and dropping the last handle to
    /// a buffer, block or allocator whose queued work comes after the
    /// callback (the drop waits for that work). Use callbacks to signal the
    /// host (a channel, an atomic), not to wait.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use std::sync::{Arc, atomic::{AtomicBool, Ordering}};
    /// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
    /// let stream = ascendcl::Stream::new(&ctx)?;
    /// let ran = Arc::new(AtomicBool::new(false));
    /// let flag = ran.clone();
    /// stream.launch_host_fn(move || flag.store(true, Ordering::SeqCst))?;
    /// stream.synchronize()?;
    /// assert!(ran.load(Ordering::SeqCst));
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn launch_host_fn(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        self.refuse_while_capturing("a host function")?;
        let raw = self.bound()?;
        let lib = self.context().lib();
        let panics = self.inner.callback_panics.clone();
        let running = Running {
            stream: self.inner.id,
            device: self.context().device_id(),
        };
        // Queued under the lane's lock, so that the positions before the
        // callback's are exactly the launches the stream runs first.
        self.inner.lane.queue_host_fn(|reached| {
            let args = Box::into_raw(Box::new(HostCall {
                f: Box::new(f),
                panics,
                running,
                reached,
            }));
            // SAFETY: `trampoline` matches aclrtHostFunc and takes ownership of
            // `args`, which stays valid until it runs.
            let result = check(lib, "aclrtLaunchHostFunc", unsafe {
                lib.aclrtLaunchHostFunc(raw, Some(trampoline), args.cast())
            });
            if result.is_err() {
                // Not queued: the runtime never calls the trampoline, so reclaim.
                // SAFETY: `args` came from Box::into_raw above and was not consumed.
                drop(unsafe { Box::from_raw(args) });
            }
            result
        })?
    }
}
