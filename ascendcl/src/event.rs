//! Events: markers recorded into a stream.
//!
//! Recording an event puts a marker at the current end of a stream; the event
//! completes when the stream reaches it. Events order work across streams
//! ([`Stream::wait_event`]), let the host wait for part of a stream
//! ([`Event::synchronize`]) and time work on the device ([`Event::elapsed`]).
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::{Device, Event, EventFlags, Stream};
//! let ctx = Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let (start, end) = (Event::with_flags(&ctx, EventFlags::TIMELINE)?, Event::with_flags(&ctx, EventFlags::TIMELINE)?);
//! start.record(&stream)?;
//! end.record(&stream)?;
//! end.synchronize()?;
//! assert!(start.elapsed(&end)? >= std::time::Duration::ZERO);
//! # Ok::<(), ascendcl::Error>(())
//! ```

use std::sync::Arc;
use std::time::Duration;

use ascendcl_sys::{self as sys, aclrtEvent};

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::stream::{Stream, timeout_ms};

/// Event creation flags (`ACL_EVENT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventFlags(pub u32);

impl EventFlags {
    /// Usable with [`Stream::wait_event`] and resets.
    pub const SYNC: EventFlags = EventFlags(sys::ACL_EVENT_SYNC);
    /// Records timestamps, for [`Event::elapsed`].
    pub const TIMELINE: EventFlags = EventFlags(sys::ACL_EVENT_TIME_LINE);
    /// Marks stream progress during capture.
    pub const CAPTURE_STREAM_PROGRESS: EventFlags =
        EventFlags(sys::ACL_EVENT_CAPTURE_STREAM_PROGRESS);

    const KNOWN: u32 = sys::ACL_EVENT_SYNC
        | sys::ACL_EVENT_CAPTURE_STREAM_PROGRESS
        | sys::ACL_EVENT_TIME_LINE
        | sys::ACL_EVENT_DEVICE_USE_ONLY
        | sys::ACL_EVENT_EXTERNAL
        | sys::ACL_EVENT_IPC;
}

impl std::ops::BitOr for EventFlags {
    type Output = EventFlags;
    fn bitor(self, rhs: EventFlags) -> EventFlags {
        EventFlags(self.0 | rhs.0)
    }
}

/// An event. Cheap to clone; destroyed with the last clone.
#[derive(Clone)]
pub struct Event {
    inner: Arc<EventInner>,
}

struct EventInner {
    ctx: Context,
    raw: aclrtEvent,
    flags: Option<EventFlags>,
}

// SAFETY: event handles are identifiers ACL accepts from any thread.
unsafe impl Send for EventInner {}
// SAFETY: as above; nothing is mutated through `&EventInner`.
unsafe impl Sync for EventInner {}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.inner.raw)
            .field("flags", &self.inner.flags)
            .finish()
    }
}

impl Event {
    /// Creates an event (`aclrtCreateEvent`): usable for waits and timing.
    pub fn new(ctx: &Context) -> Result<Event> {
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: aclrtEvent = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `ctx` is current.
        check(lib, "aclrtCreateEvent", unsafe {
            lib.aclrtCreateEvent(&mut raw)
        })?;
        Ok(Event {
            inner: Arc::new(EventInner {
                ctx: ctx.clone(),
                raw,
                flags: None,
            }),
        })
    }

    /// Creates an event with flags (`aclrtCreateEventWithFlag`).
    pub fn with_flags(ctx: &Context, flags: EventFlags) -> Result<Event> {
        if flags.0 & !EventFlags::KNOWN != 0 {
            return Err(Error::invalid(format!(
                "unknown event flag bits {:#x}",
                flags.0 & !EventFlags::KNOWN
            )));
        }
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: aclrtEvent = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `ctx` is current.
        check(lib, "aclrtCreateEventWithFlag", unsafe {
            lib.aclrtCreateEventWithFlag(&mut raw, flags.0)
        })?;
        Ok(Event {
            inner: Arc::new(EventInner {
                ctx: ctx.clone(),
                raw,
                flags: Some(flags),
            }),
        })
    }

    /// The raw handle, for `ascendcl-sys` calls.
    pub fn as_raw(&self) -> aclrtEvent {
        self.inner.raw
    }

    /// The context of the event.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// Records the event at the current end of `stream`, which must be on
    /// the event's device (checked before the FFI call). No open-source layer
    /// of CANN 8.5.0 checks this (`Event::Record`, hicann/runtime
    /// src/runtime/feature/src/event.cc 440-495); the driver decides, so the
    /// safe layer refuses what it cannot vouch for.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.check_same_device("record", stream)?;
        // An event recorded in a capture must be an ACL_EVENT_SYNC Ex event
        // and becomes part of the model: only the capture records one.
        let raw_stream = stream.bound()?;
        let lib = self.inner.ctx.lib();
        stream.inner.lane.run_uncaptured("recording an event", || {
            // SAFETY: a live event and a live stream of the current context.
            check(lib, "aclrtRecordEvent", unsafe {
                lib.aclrtRecordEvent(self.inner.raw, raw_stream)
            })
        })?
    }

    /// Refuses a stream of another device.
    pub(crate) fn check_same_device(&self, what: &str, stream: &Stream) -> Result<()> {
        let (event, stream) = (self.inner.ctx.device_id(), stream.context().device_id());
        if event == stream {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "cannot {what} an event of device {event} on a stream of device {stream}: an event \
             orders work of its own device only; synchronize the event on the host instead"
        )))
    }

    /// Waits until the latest recording has completed.
    pub fn synchronize(&self) -> Result<()> {
        deferred::check_parked()?;
        self.inner.ctx.bind()?;
        let lib = self.inner.ctx.lib();
        // SAFETY: a live event.
        check(lib, "aclrtSynchronizeEvent", unsafe {
            lib.aclrtSynchronizeEvent(self.inner.raw)
        })
    }

    /// As [`Event::synchronize`], giving up after `timeout` (the error then
    /// satisfies [`Error::is_timeout`]).
    pub fn synchronize_timeout(&self, timeout: Duration) -> Result<()> {
        let ms = timeout_ms(timeout)?;
        deferred::check_parked()?;
        self.inner.ctx.bind()?;
        let lib = self.inner.ctx.lib();
        // SAFETY: a live event.
        check(lib, "aclrtSynchronizeEventWithTimeout", unsafe {
            lib.aclrtSynchronizeEventWithTimeout(self.inner.raw, ms)
        })
    }

    /// Whether the latest recording has completed (false if never recorded).
    pub fn query(&self) -> Result<bool> {
        self.inner.ctx.bind()?;
        let lib = self.inner.ctx.lib();
        let mut status = sys::aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY;
        // SAFETY: a live event and a valid out-pointer.
        check(lib, "aclrtQueryEventStatus", unsafe {
            lib.aclrtQueryEventStatus(self.inner.raw, &mut status)
        })?;
        Ok(status == sys::aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE)
    }

    /// Device time from this event's completion to `end`'s. Both must have
    /// completed; events made with flags need [`EventFlags::TIMELINE`].
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        self.inner.ctx.bind()?;
        let lib = self.inner.ctx.lib();
        let mut ms = 0f32;
        // SAFETY: valid out-pointer and two live events.
        check(lib, "aclrtEventElapsedTime", unsafe {
            lib.aclrtEventElapsedTime(&mut ms, self.inner.raw, end.inner.raw)
        })?;
        if !ms.is_finite() || ms < 0.0 {
            return Err(Error::InvalidState(format!(
                "the runtime reported an elapsed time of {ms} ms"
            )));
        }
        Ok(Duration::from_secs_f64(f64::from(ms) / 1000.0))
    }

    /// Device time of this event's completed recording
    /// (`aclrtEventGetTimestamp`, microseconds since an arbitrary device
    /// epoch): only differences between timestamps of one device mean
    /// anything. The event needs [`EventFlags::TIMELINE`] and a completed
    /// recording.
    ///
    /// ```
    /// # use ascendcl::prelude::*;
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// # let ctx = Device::open(&rt, 0)?.default_context();
    /// let stream = Stream::new(&ctx)?;
    /// let (a, b) = (Event::with_flags(&ctx, EventFlags::TIMELINE)?, Event::with_flags(&ctx, EventFlags::TIMELINE)?);
    /// a.record(&stream)?;
    /// b.record(&stream)?;
    /// stream.synchronize()?;
    /// assert!(b.timestamp()? >= a.timestamp()?);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn timestamp(&self) -> Result<Duration> {
        self.inner.ctx.bind()?;
        let lib = self.inner.ctx.lib();
        let mut us = 0u64;
        // SAFETY: a live event and a valid out-pointer.
        check(lib, "aclrtEventGetTimestamp", unsafe {
            lib.aclrtEventGetTimestamp(self.inner.raw, &mut us)
        })?;
        Ok(Duration::from_micros(us))
    }
}

impl Drop for EventInner {
    fn drop(&mut self) {
        deferred::release("an event", || {
            self.ctx.bind()?;
            let lib = self.ctx.lib();
            // SAFETY: the last handle to an event we created (a failed
            // destroy leaves it alive, so trying again is sound).
            check(lib, "aclrtDestroyEvent", unsafe {
                lib.aclrtDestroyEvent(self.raw)
            })
        });
    }
}

/// A pooled `ACL_EVENT_SYNC` event recorded at the tail of a stream when some
/// party has to wait for work queued there (see [`crate::lane`]). Returned to
/// its context's pool on drop.
pub(crate) struct TailEvent {
    ctx: Context,
    raw: aclrtEvent,
}

// SAFETY: event handles are identifiers ACL accepts from any thread.
unsafe impl Send for TailEvent {}
// SAFETY: as above; nothing is mutated through `&TailEvent`.
unsafe impl Sync for TailEvent {}

impl TailEvent {
    /// Takes a pooled event of `ctx` and records it at the end of `raw_stream`
    /// (a stream of `ctx`, which must be current).
    pub(crate) fn record(
        ctx: &Context,
        raw_stream: ascendcl_sys::aclrtStream,
    ) -> Result<TailEvent> {
        let event = TailEvent {
            ctx: ctx.clone(),
            raw: ctx.take_pooled_event()?,
        };
        let lib = ctx.lib();
        // SAFETY: a live pooled event and a live stream of the current context.
        check(lib, "aclrtRecordEvent", unsafe {
            lib.aclrtRecordEvent(event.raw, raw_stream)
        })?;
        Ok(event)
    }

    pub(crate) fn raw(&self) -> aclrtEvent {
        self.raw
    }

    /// Waits for the work before the event.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        let lib = self.ctx.lib();
        // SAFETY: a live pooled event.
        check(lib, "aclrtSynchronizeEvent", unsafe {
            lib.aclrtSynchronizeEvent(self.raw)
        })
    }

    /// Whether the work before the event is done.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.ctx.bind()?;
        let lib = self.ctx.lib();
        let mut status = sys::aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY;
        // SAFETY: a live pooled event and a valid out-pointer.
        check(lib, "aclrtQueryEventStatus", unsafe {
            lib.aclrtQueryEventStatus(self.raw, &mut status)
        })?;
        Ok(status == sys::aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE)
    }
}

impl Drop for TailEvent {
    fn drop(&mut self) {
        self.ctx.return_pooled_event(self.raw);
    }
}
