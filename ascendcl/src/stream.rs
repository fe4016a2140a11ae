//! Streams: in-order queues of device work.
//!
//! Work queued on one stream runs in the order it was queued; work on
//! different streams may run in any order relative to each other unless
//! ordered with events ([`Stream::wait_event`]). Queuing returns at once: the
//! host learns that work is done only by synchronizing (the stream, or an
//! event recorded after the work) or by polling ([`Stream::query`]).
//!
//! That gap is where data gets corrupted: a host buffer overwritten while a
//! copy out of it is still queued, or read before the copy into it has run.
//! This crate closes it. Asynchronous copies (`copy_*` methods) return a
//! [`Pending`](crate::Pending) that borrows the buffers until it is waited on
//! or dropped, so safe code cannot touch them too early; and every buffer
//! remembers its queued uses that have not provably finished, so dropping
//! it, reading it from the host or using it on another stream first waits for
//! (or is ordered after) them (see [`crate::safety`]).
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::{Device, DeviceBuffer, HostBuffer, Stream};
//! let ctx = Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let input = HostBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0])?;
//! let mut device = DeviceBuffer::<f32>::alloc(&ctx, 3)?;
//! let mut output = HostBuffer::<f32>::zeroed(&ctx, 3)?;
//! stream.copy_host_to_device(&input, &mut device)?.wait()?;
//! stream.copy_device_to_host(&device, &mut output)?.wait()?;
//! assert_eq!(&output[..], &[1.0, 2.0, 3.0]);
//! # Ok::<(), ascendcl::Error>(())
//! ```

use std::sync::Arc;
use std::time::Duration;

use ascendcl_sys::{self as sys, aclrtStream};

use crate::call::check;
use crate::context::{Context, next_id};
use crate::deferred;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::lane::Lane;

/// Stream creation flags (`ACL_STREAM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamFlags(pub u32);

impl StreamFlags {
    /// Faster task launch.
    pub const FAST_LAUNCH: StreamFlags = StreamFlags(sys::ACL_STREAM_FAST_LAUNCH);
    /// Faster synchronization.
    pub const FAST_SYNC: StreamFlags = StreamFlags(sys::ACL_STREAM_FAST_SYNC);
    /// Persistent stream (for captured models; synchronizing returns at once,
    /// so copies and operators refuse it).
    pub const PERSISTENT: StreamFlags = StreamFlags(sys::ACL_STREAM_PERSISTENT);
    /// A stream with a larger task queue.
    pub const HUGE: StreamFlags = StreamFlags(sys::ACL_STREAM_HUGE);
    /// Tasks scheduled by the CPU.
    pub const CPU_SCHEDULE: StreamFlags = StreamFlags(sys::ACL_STREAM_CPU_SCHEDULE);

    const KNOWN: u32 = sys::ACL_STREAM_FAST_LAUNCH
        | sys::ACL_STREAM_FAST_SYNC
        | sys::ACL_STREAM_PERSISTENT
        | sys::ACL_STREAM_HUGE
        | sys::ACL_STREAM_CPU_SCHEDULE
        | sys::ACL_STREAM_DEVICE_USE_ONLY;
}

impl std::ops::BitOr for StreamFlags {
    type Output = StreamFlags;
    fn bitor(self, rhs: StreamFlags) -> StreamFlags {
        StreamFlags(self.0 | rhs.0)
    }
}

/// A stream. Cheap to clone; destroyed when the last clone is dropped (after
/// its queued work has run).
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<StreamInner>,
}

pub(crate) struct StreamInner {
    pub(crate) ctx: Context,
    raw: aclrtStream,
    pub(crate) id: u64,
    owned: bool,
    /// The creation flags (0 for plain and default streams).
    pub(crate) flags: StreamFlags,
    /// Panics caught in host callbacks, reported by the next synchronize.
    pub(crate) callback_panics: Arc<crate::callback::PanicSlot>,
    /// The positions of tracked launches on this handle (see [`crate::lane`]).
    pub(crate) lane: Arc<Lane>,
}

// SAFETY: stream handles are identifiers ACL accepts from any thread; the
// mutable state is behind a Mutex.
unsafe impl Send for StreamInner {}
// SAFETY: as above.
unsafe impl Sync for StreamInner {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.inner.raw)
            .field("default", &!self.inner.owned)
            .finish()
    }
}

/// Converts a timeout to the runtime's milliseconds, rejecting zero (which
/// CANN 8.5 refuses) and values past `i32::MAX` ms before any FFI call.
pub(crate) fn timeout_ms(timeout: Duration) -> Result<i32> {
    if timeout.is_zero() {
        return Err(Error::invalid(
            "a timeout of zero is not allowed; use query() to poll without waiting",
        ));
    }
    let ms = timeout.as_nanos().div_ceil(1_000_000);
    i32::try_from(ms).map_err(|_| {
        Error::invalid(format!(
            "timeout of {timeout:?} exceeds {} ms; synchronize without a timeout instead",
            i32::MAX
        ))
    })
}

impl Stream {
    /// Creates a stream in `ctx`.
    pub fn new(ctx: &Context) -> Result<Stream> {
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: aclrtStream = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `ctx` is current.
        check(lib, "aclrtCreateStream", unsafe {
            lib.aclrtCreateStream(&mut raw)
        })?;
        Ok(Stream::wrap(ctx, raw, true, StreamFlags::default()))
    }

    /// Creates a stream with a priority (0 = highest … 7) and flags.
    pub fn with_config(ctx: &Context, priority: u32, flags: StreamFlags) -> Result<Stream> {
        if priority > 7 {
            return Err(Error::invalid(format!(
                "stream priority {priority} is out of range 0..=7"
            )));
        }
        if flags.0 & !StreamFlags::KNOWN != 0 {
            return Err(Error::invalid(format!(
                "unknown stream flag bits {:#x}",
                flags.0 & !StreamFlags::KNOWN
            )));
        }
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: aclrtStream = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `ctx` is current.
        let result = unsafe { lib.aclrtCreateStreamWithConfig(&mut raw, priority, flags.0) };
        check(lib, "aclrtCreateStreamWithConfig", result)?;
        Ok(Stream::wrap(ctx, raw, true, flags))
    }

    /// The default stream of `ctx` (never destroyed by this crate).
    pub fn default_of(ctx: &Context) -> Stream {
        Stream::wrap(ctx, std::ptr::null_mut(), false, StreamFlags::default())
    }

    fn wrap(ctx: &Context, raw: aclrtStream, owned: bool, flags: StreamFlags) -> Stream {
        let id = if owned {
            next_id()
        } else {
            default_stream_id(ctx)
        };
        Stream {
            inner: Arc::new_cyclic(|inner| StreamInner {
                ctx: ctx.clone(),
                raw,
                id,
                owned,
                flags,
                callback_panics: Default::default(),
                lane: Lane::new(ctx, raw, id, inner.clone()),
            }),
        }
    }

    /// The context the stream belongs to.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// The raw handle (null for a default stream), for `ascendcl-sys` calls.
    pub fn as_raw(&self) -> aclrtStream {
        self.inner.raw
    }

    /// Whether two handles denote the same stream: clones of one stream, or
    /// two [`default_of`](Stream::default_of) handles of one runtime context
    /// (even through different [`Context`] or [`Device`](crate::Device)
    /// handles).
    pub fn same_as(&self, other: &Stream) -> bool {
        self.inner.id == other.inner.id
    }

    /// Refuses tracked work on streams whose synchronize returns at once
    /// (persistent, CPU-scheduled, device-only): the tracker's fallbacks wait
    /// with a stream synchronize, which would prove nothing there.
    #[inline]
    pub(crate) fn check_trackable(&self) -> Result<()> {
        let untrackable = StreamFlags::PERSISTENT.0
            | StreamFlags::CPU_SCHEDULE.0
            | sys::ACL_STREAM_DEVICE_USE_ONLY;
        if self.inner.flags.0 & untrackable == 0 {
            return Ok(());
        }
        self.untrackable()
    }

    #[cold]
    fn untrackable(&self) -> Result<()> {
        Err(Error::invalid(format!(
            "a stream created with flags {:#x} (persistent, CPU-scheduled or device-only) cannot run \
             tracked copies or operators: its synchronize returns at once, so nothing could prove the \
             work finished; use a stream without these flags",
            self.inner.flags.0
        )))
    }

    /// Binds the context and returns the raw handle.
    #[inline]
    pub(crate) fn bound(&self) -> Result<aclrtStream> {
        self.inner.ctx.bind()?;
        Ok(self.inner.raw)
    }

    /// After a synchronize that started with `upto` as the lane's next
    /// position returned: the launches before it are known finished. Not on
    /// streams whose synchronize proves nothing (they run no tracked work).
    fn note_synchronized(&self, upto: u64) {
        if self.check_trackable().is_ok() {
            self.inner.lane.synchronized(upto);
        }
    }

    fn take_callback_panic(&self) -> Result<()> {
        match self.inner.callback_panics.take() {
            None => Ok(()),
            Some(text) => Err(Error::CallbackPanicked(text)),
        }
    }

    /// Refuses what CANN forbids on a stream being captured (it would
    /// invalidate the capture): a typed error before any FFI call.
    #[inline]
    pub(crate) fn refuse_while_capturing(&self, what: &str) -> Result<()> {
        if self
            .inner
            .lane
            .capturing
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return Err(crate::lane::capturing_refusal(what));
        }
        Ok(())
    }

    /// Refuses a wait for this stream from one of its own host callbacks.
    fn refuse_inside_own_callback(&self) -> Result<()> {
        if crate::callback::is_running_on(self.inner.id) {
            return Err(Error::WouldDeadlock(
                "a host callback synchronized its own stream, which cannot finish until the \
                 callback returns"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Waits until all work queued on the stream is done. From a host
    /// callback of this stream it fails with [`Error::WouldDeadlock`].
    pub fn synchronize(&self) -> Result<()> {
        self.refuse_inside_own_callback()?;
        let _uncaptured = self.inner.lane.enter_uncaptured("synchronize")?;
        deferred::check_parked()?;
        let raw = self.bound()?;
        let lib = self.inner.ctx.lib();
        let upto = self.inner.lane.next_position();
        // SAFETY: a live stream of the current context.
        check(lib, "aclrtSynchronizeStream", unsafe {
            lib.aclrtSynchronizeStream(raw)
        })?;
        self.note_synchronized(upto);
        self.take_callback_panic()
    }

    /// As [`Stream::synchronize`], giving up after `timeout`: the error then
    /// satisfies [`Error::is_timeout`] (`ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`).
    /// A zero timeout is an invalid argument; use [`Stream::query`] to poll.
    pub fn synchronize_timeout(&self, timeout: Duration) -> Result<()> {
        let ms = timeout_ms(timeout)?;
        self.refuse_inside_own_callback()?;
        let _uncaptured = self.inner.lane.enter_uncaptured("synchronize")?;
        deferred::check_parked()?;
        let raw = self.bound()?;
        let lib = self.inner.ctx.lib();
        let upto = self.inner.lane.next_position();
        // SAFETY: a live stream of the current context.
        check(lib, "aclrtSynchronizeStreamWithTimeout", unsafe {
            lib.aclrtSynchronizeStreamWithTimeout(raw, ms)
        })?;
        self.note_synchronized(upto);
        self.take_callback_panic()
    }

    /// Whether all queued work is done, without waiting.
    pub fn query(&self) -> Result<bool> {
        let raw = self.bound()?;
        let lib = self.inner.ctx.lib();
        let mut status = sys::aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED;
        self.inner.lane.run_uncaptured("a query", || {
            // SAFETY: a live stream and a valid out-pointer.
            check(lib, "aclrtStreamQuery", unsafe {
                lib.aclrtStreamQuery(raw, &mut status)
            })
        })??;
        Ok(status == sys::aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE)
    }

    /// Makes work queued on this stream from now on wait until `event`'s
    /// latest recording has completed. The event needs [`EventFlags::SYNC`]
    /// unless it was made with [`Event::new`].
    ///
    /// [`EventFlags::SYNC`]: crate::EventFlags::SYNC
    ///
    /// The event may be of another device: CANN 8.5.0 queues a cross-device
    /// wait for it (hicann/runtime v8.5.0, src/runtime/feature/src/event.cc
    /// lines 597-621, `Event::Wait`).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        // A captured stream waiting for an event joins the event's capture
        // or waits on outside work: only the capture orders its streams.
        let raw = self.bound()?;
        let lib = self.inner.ctx.lib();
        self.inner.lane.run_uncaptured("waiting for an event", || {
            // SAFETY: a live stream and a live event.
            check(lib, "aclrtStreamWaitEvent", unsafe {
                lib.aclrtStreamWaitEvent(raw, event.as_raw())
            })
        })?
    }

    /// Records `event` at the current end of this stream.
    pub fn record(&self, event: &Event) -> Result<()> {
        event.record(self)
    }

    /// Destroys the stream now, returning the runtime's error instead of
    /// parking it. Fails with [`Error::InvalidState`] while other clones exist.
    pub fn destroy(self) -> Result<()> {
        match Arc::try_unwrap(self.inner) {
            // On failure `inner` drops here and its Drop tries once more.
            Ok(mut inner) => inner.destroy(),
            Err(inner) => Err(Error::InvalidState(format!(
                "{} other handles to this stream are alive",
                Arc::strong_count(&inner) - 1
            ))),
        }
    }
}

/// Marks the ids of default streams: [`next_id`] counts up from 1 and never
/// reaches it.
const DEFAULT_STREAM: u64 = 1 << 63;

/// The identity of `ctx`'s default stream, the same for every handle of it.
///
/// A stream's identity is what the tracker and the callback deadlock checks
/// compare ("is this use on my stream?"), so it must be the runtime's: the
/// default stream is one per runtime context, whichever handle names it. It
/// is derived from the raw context handle (user-space addresses fit in 48
/// bits) and the device id. A handle can be recycled only after its context
/// is destroyed, which waits for every object holding it, markers included,
/// so no live use can carry the old identity.
fn default_stream_id(ctx: &Context) -> u64 {
    const ADDRESS: u64 = (1 << 48) - 1;
    let device = u64::from(ctx.device_id()) & 0x7fff;
    DEFAULT_STREAM | (device << 48) | (ctx.as_raw() as u64 & ADDRESS)
}

impl StreamInner {
    fn destroy(&mut self) -> Result<()> {
        if !self.owned {
            return Ok(());
        }
        // Later waits for this stream's launches use the event this records.
        self.lane.retire();
        self.ctx.bind()?;
        let lib = self.ctx.lib();
        // SAFETY: a stream we created, in its own (now current) context; the
        // runtime waits for its queued work before destroying it.
        check(lib, "aclrtDestroyStream", unsafe {
            lib.aclrtDestroyStream(self.raw)
        })?;
        self.owned = false;
        self.lane.destroyed();
        Ok(())
    }
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        deferred::release("a stream", || self.destroy());
    }
}
