//! Notifies: one-bit signals between streams (`aclrtCreateNotify`,
//! `aclrtRecordNotify`, `aclrtWaitAndResetNotify`).
//!
//! [`Stream::record_notify`] queues a task that sets the notify when the
//! stream reaches it; [`Stream::wait_notify`] queues a task that holds its
//! stream until the notify is set and then clears it. One record releases
//! one wait; records before a wait set the bit once (hicann/runtime v8.5.0,
//! src/runtime/feature/src/notify/notify.cc 125-170 and 272-305).
//!
//! A notify touches no memory of the program, so the memory trackers do not
//! depend on it: work queued after a wait is still ordered after the buffers'
//! earlier uses by the tracker's own event waits, never by the notify. What
//! the notify has to be kept from is being destroyed under its own queued
//! tasks (the runtime frees its id whatever the device still has queued on
//! it, api_impl.cc 4593-4600): its tracker remembers every queued record and
//! wait as a read, and dropping the last handle waits for them first. Reads
//! never conflict, so neither call orders its stream after anything: a wait
//! may be queued before the record that releases it.
//!
//! A wait that no record releases holds its stream until its timeout, or
//! forever with none; dropping the notify then waits as long.

use std::sync::Arc;
use std::time::Duration;

use ascendcl_sys::{self as sys, Library, SymbolError, aclrtNotify, aclrtStream};

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::pending::Detached;
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch, UseTracker};

/// A notify of one device. Cheap to clone; destroyed with the last clone,
/// after its queued records and waits have run.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// use ascendcl::Notify;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
/// let ready = Notify::new(&ctx)?;
/// // held until the producer reaches its record
/// let waited = consumer.wait_notify(&ready, None)?;
/// producer.record_notify(&ready)?;
/// waited.wait()?;
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[derive(Clone)]
pub struct Notify {
    inner: Arc<NotifyInner>,
}

struct NotifyInner {
    ctx: Context,
    raw: aclrtNotify,
    /// Every queued record and wait of the notify, as reads.
    tracker: UseTracker,
}

// SAFETY: notify handles are identifiers ACL accepts from any thread; the
// tracker is thread-safe.
unsafe impl Send for NotifyInner {}
// SAFETY: as above; nothing is mutated through `&NotifyInner` but the
// tracker, behind its lock.
unsafe impl Sync for NotifyInner {}

impl std::fmt::Debug for Notify {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notify")
            .field("raw", &self.inner.raw)
            .finish()
    }
}

impl Notify {
    /// Creates a notify of `ctx`'s device (`aclrtCreateNotify` with
    /// `ACL_NOTIFY_DEFAULT`).
    pub fn new(ctx: &Context) -> Result<Notify> {
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: aclrtNotify = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `ctx` is current; the flag is one of the two CANN takes.
        check(lib, "aclrtCreateNotify", unsafe {
            lib.aclrtCreateNotify(&mut raw, u64::from(sys::ACL_NOTIFY_DEFAULT))
        })?;
        Ok(Notify {
            inner: Arc::new(NotifyInner {
                ctx: ctx.clone(),
                raw,
                tracker: UseTracker::default(),
            }),
        })
    }

    /// The raw handle, for `ascendcl-sys` calls. Destroying it is the
    /// [`Notify`]'s job.
    pub fn as_raw(&self) -> aclrtNotify {
        self.inner.raw
    }

    /// The context the notify was created in.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// Queues the task `call` queues, remembered by the notify's tracker.
    fn queue(
        &self,
        stream: &Stream,
        call: &'static str,
        f: impl FnOnce(&'static Library, aclrtStream) -> std::result::Result<i32, SymbolError>,
    ) -> Result<Detached> {
        let raw = stream.bound()?;
        let at = tracker::enqueue(
            stream,
            raw,
            &[(&self.inner.tracker, Access::Read)],
            FailedLaunch::NothingQueued,
            |lib, s| check(lib, call, f(lib, s)),
        )?;
        Ok(crate::queued::detached(stream, at))
    }
}

impl Drop for NotifyInner {
    fn drop(&mut self) {
        // If its tasks cannot be waited for, they may still use the notify:
        // leaking it is the only safe choice.
        if !self
            .tracker
            .wait_before_release("a notify (leaked: its queued tasks could not be waited for)")
        {
            return;
        }
        deferred::release("a notify", || {
            self.ctx.bind()?;
            let lib = self.ctx.lib();
            // SAFETY: the last handle to a notify we created, with none of its
            // tasks still queued (a failed destroy leaves it alive, so trying
            // again is sound).
            check(lib, "aclrtDestroyNotify", unsafe {
                lib.aclrtDestroyNotify(self.raw)
            })
        });
    }
}

impl Stream {
    /// Queues setting `notify` when this stream reaches this point
    /// (`aclrtRecordNotify`). Returns the record's handle.
    pub fn record_notify(&self, notify: &Notify) -> Result<Detached> {
        let n = notify.inner.raw;
        notify.queue(self, "aclrtRecordNotify", |lib, s| {
            // SAFETY: a live notify (kept alive by its tracker until this task
            // has run) and this stream's bound handle.
            unsafe { lib.aclrtRecordNotify(n, s) }
        })
    }

    /// Queues holding this stream until `notify` is set, then clearing it
    /// (`aclrtWaitAndResetNotify`). `timeout` is whole seconds (at least 1,
    /// below `u32::MAX`), `None` for no limit; a wait that times out fails
    /// the stream, reported by its next synchronize. Returns the wait's
    /// handle.
    ///
    /// A wait whose record never comes holds the stream for ever (or until
    /// its timeout): everything that waits for that stream's work (its
    /// synchronize, a host access to a buffer it uses, dropping the notify)
    /// then waits too. Queue the record first, or give a timeout.
    pub fn wait_notify(&self, notify: &Notify, timeout: Option<Duration>) -> Result<Detached> {
        let secs = match timeout {
            None => 0,
            Some(d) => match u32::try_from(d.as_secs()) {
                Ok(s) if (1..u32::MAX).contains(&s) && d.subsec_nanos() == 0 => s,
                _ => {
                    return Err(Error::invalid(format!(
                        "wait_notify: a timeout of {d:?} is not a whole number of seconds in [1, {}]",
                        u32::MAX - 1
                    )));
                }
            },
        };
        let n = notify.inner.raw;
        notify.queue(self, "aclrtWaitAndResetNotify", |lib, s| {
            // SAFETY: as in record_notify; `secs` is 0 (no limit) or a limit in seconds.
            unsafe { lib.aclrtWaitAndResetNotify(n, s, secs) }
        })
    }
}
