//! Contexts, and binding them to the calling thread.
//!
//! In AscendCL every thread has a *current context*, and most calls act on it:
//! `aclrtMalloc` allocates on the current context's device, `aclrtCreateStream`
//! creates the stream in it, and a stream can only be destroyed while its own
//! context is current. Each device has one shared *default context*, created
//! by `aclrtSetDevice` ([`Device::default_context`]); [`Context::new`] creates
//! further, explicit ones.
//!
//! This crate makes the per-thread state invisible: every call first makes the
//! right context current on the calling thread, skipping the runtime call when
//! it already is (a thread-local compare). So any object can be used from any
//! thread. If your own code changes the current context through raw
//! `ascendcl-sys` calls, call [`forget_current_context`] afterwards.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use ascendcl_sys::{self as sys, Aclnn, Library, aclrtContext, aclrtEvent};

use crate::call::check;
use crate::deferred;
use crate::device::DeviceRef;
use crate::error::Result;
use crate::runtime::Runtime;

thread_local! {
    /// Id of the context this crate last made current on this thread (0: none known).
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// Unique ids, so a context created at a recycled address is never mistaken
/// for an old one.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Forgets which context this thread has current, so the next call of this
/// crate sets it again. Needed only after changing the current context with
/// raw `ascendcl-sys` calls.
pub fn forget_current_context() {
    CURRENT.with(|c| c.set(0));
}

pub(crate) fn note_current(id: u64) {
    CURRENT.with(|c| c.set(id));
}

/// An AscendCL context: a device's default context or an explicit one.
///
/// Cheap to clone; the context lives while any clone, stream, event or buffer
/// created in it lives. Explicit contexts are destroyed with the last of them.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    /// The library, cached here: every call of every object reads it.
    lib: &'static Library,
    pub(crate) device: Arc<DeviceRef>,
    raw: aclrtContext,
    id: u64,
    explicit: bool,
    /// Events with `ACL_EVENT_SYNC`, recycled for tracking buffer use.
    event_pool: Mutex<Vec<RawEvent>>,
    /// The aclnn libraries of `lib`, once opened (looked up without the
    /// loader's global lock on every operator launch).
    aclnn: OnceLock<&'static Aclnn>,
}

/// A raw event handle that may move between threads (the runtime is thread-safe).
pub(crate) struct RawEvent(pub(crate) aclrtEvent);
// SAFETY: ACL event handles are plain identifiers usable from any thread.
unsafe impl Send for RawEvent {}

// SAFETY: the raw context handle is an identifier that ACL accepts from any
// thread; all mutable state is behind a Mutex.
unsafe impl Send for ContextInner {}
// SAFETY: as above; `&ContextInner` only reads the handle or locks.
unsafe impl Sync for ContextInner {}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.device_id())
            .field("explicit", &self.inner.explicit)
            .field("raw", &self.inner.raw)
            .finish()
    }
}

impl Context {
    /// Wraps the default context of a freshly set device (current on this thread).
    pub(crate) fn default_of(device: Arc<DeviceRef>, raw: aclrtContext) -> Context {
        let id = next_id();
        note_current(id);
        Context {
            inner: Arc::new(ContextInner {
                lib: device.runtime.lib(),
                device,
                raw,
                id,
                explicit: false,
                event_pool: Mutex::new(Vec::new()),
                aclnn: OnceLock::new(),
            }),
        }
    }

    /// Creates an explicit context on `device` (`aclrtCreateContext`).
    pub fn new(device: &crate::Device) -> Result<Context> {
        let dev = device.default_context().inner.device.clone();
        let lib = dev.runtime.lib();
        let mut raw: aclrtContext = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the device id was validated when opened.
        check(lib, "aclrtCreateContext", unsafe {
            lib.aclrtCreateContext(&mut raw, dev.id)
        })?;
        let id = next_id();
        // aclrtCreateContext made the new context current on this thread.
        note_current(id);
        Ok(Context {
            inner: Arc::new(ContextInner {
                lib,
                device: dev,
                raw,
                id,
                explicit: true,
                event_pool: Mutex::default(),
                aclnn: OnceLock::new(),
            }),
        })
    }

    /// Makes this context current on the calling thread, unless it already is.
    #[inline]
    pub(crate) fn bind(&self) -> Result<()> {
        if CURRENT.with(Cell::get) == self.inner.id {
            return Ok(());
        }
        self.bind_slow()
    }

    #[cold]
    fn bind_slow(&self) -> Result<()> {
        let lib = self.lib();
        // SAFETY: the handle is a live context (we hold it alive).
        check(lib, "aclrtSetCurrentContext", unsafe {
            lib.aclrtSetCurrentContext(self.inner.raw)
        })?;
        note_current(self.inner.id);
        Ok(())
    }

    /// Makes this context current on the calling thread for raw
    /// `ascendcl-sys` calls. The guard cannot leave the thread: being current
    /// is a property of one thread.
    ///
    /// ```compile_fail
    /// # fn f(ctx: &ascendcl::Context) -> ascendcl::Result<()> {
    /// let current = ctx.make_current()?;
    /// std::thread::spawn(move || drop(current)); // CurrentContext is not Send
    /// # Ok(()) }
    /// ```
    pub fn make_current(&self) -> Result<CurrentContext<'_>> {
        self.bind()?;
        Ok(CurrentContext {
            context: self,
            _not_send: PhantomData,
        })
    }

    /// The device this context belongs to.
    pub fn device_id(&self) -> u32 {
        self.inner.device.id as u32
    }

    /// Whether this is an explicit context (not a device's default one).
    pub fn is_explicit(&self) -> bool {
        self.inner.explicit
    }

    /// The raw handle, for `ascendcl-sys` calls.
    pub fn as_raw(&self) -> aclrtContext {
        self.inner.raw
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.inner.device.runtime
    }

    #[inline]
    pub(crate) fn lib(&self) -> &'static Library {
        self.inner.lib
    }

    /// The aclnn libraries of this context's runtime library, opened on
    /// first use (a failure is not remembered: the next call tries again).
    pub(crate) fn aclnn(&self) -> Result<&'static Aclnn> {
        if let Some(aclnn) = self.inner.aclnn.get() {
            return Ok(aclnn);
        }
        let aclnn = ascendcl_sys::aclnn::aclnn_for(Some(self.lib()))?;
        Ok(self.inner.aclnn.get_or_init(|| aclnn))
    }

    /// Whether two handles denote the same context.
    pub fn same_as(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// An `ACL_EVENT_SYNC` event from the pool, or a new one.
    pub(crate) fn take_pooled_event(&self) -> Result<aclrtEvent> {
        if let Some(raw) = self
            .inner
            .event_pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
        {
            return Ok(raw.0);
        }
        self.bind()?;
        let lib = self.lib();
        let mut raw: aclrtEvent = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        check(lib, "aclrtCreateEventWithFlag", unsafe {
            lib.aclrtCreateEventWithFlag(&mut raw, sys::ACL_EVENT_SYNC)
        })?;
        Ok(raw)
    }

    /// Returns an event to the pool.
    pub(crate) fn return_pooled_event(&self, raw: aclrtEvent) {
        self.inner
            .event_pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(RawEvent(raw));
    }
}

impl Drop for ContextInner {
    fn drop(&mut self) {
        let lib = self.device.runtime.lib();
        let pooled = std::mem::take(
            self.event_pool
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let raw = self.raw;
        let bind = || {
            // SAFETY: the handle is live until the destroy below.
            check(lib, "aclrtSetCurrentContext", unsafe {
                lib.aclrtSetCurrentContext(raw)
            })
        };
        for event in pooled {
            deferred::release("a pooled event", || {
                bind()?;
                // SAFETY: a pooled event that no buffer or pending operation
                // holds any more, owned by this pool; destroyed once.
                check(lib, "aclrtDestroyEvent", unsafe {
                    lib.aclrtDestroyEvent(event.0)
                })
            });
        }
        if self.explicit {
            deferred::release("a context", || {
                // SAFETY: an explicit context we created; no child object is
                // alive (they all hold this context); destroyed once.
                check(lib, "aclrtDestroyContext", unsafe {
                    lib.aclrtDestroyContext(raw)
                })
            });
        }
        forget_current_context();
    }
}

/// Proof that a context is current on this thread; see [`Context::make_current`].
#[derive(Debug)]
pub struct CurrentContext<'a> {
    context: &'a Context,
    _not_send: PhantomData<*const ()>,
}

impl CurrentContext<'_> {
    /// The context.
    pub fn context(&self) -> &Context {
        self.context
    }
}
