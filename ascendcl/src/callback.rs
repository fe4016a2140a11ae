//! Host callbacks queued on a stream.
//!
//! [`Stream::launch_host_fn`] queues a Rust closure that a runtime thread runs
//! when the stream reaches it (`aclrtLaunchHostFunc`, CANN 8.5+). A panic in
//! the closure is caught before it can unwind into C, and reported by the
//! stream's next `synchronize` as [`Error::CallbackPanicked`](crate::Error::CallbackPanicked).

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, Weak};

use crate::call::check;
use crate::error::Result;
use crate::stream::{Stream, StreamInner};

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
    stream: Weak<StreamInner>,
}

extern "C" fn trampoline(args: *mut c_void) {
    // SAFETY: `args` is the Box<HostCall> leaked by launch_host_fn; the
    // runtime calls the function exactly once.
    let call = unsafe { Box::from_raw(args.cast::<HostCall>()) };
    let HostCall { f, stream } = *call;
    if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
        let text = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_string());
        if let Some(stream) = stream.upgrade() {
            stream.callback_panics.push(text);
        }
    }
}

impl Stream {
    /// Queues `f` to run on a runtime thread once all work queued before it
    /// on this stream has finished. Work queued after it waits for it.
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
        let raw = self.bound()?;
        let args = Box::into_raw(Box::new(HostCall {
            f: Box::new(f),
            stream: std::sync::Arc::downgrade(&self.inner),
        }));
        let lib = self.context().lib();
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
    }
}
