//! What every guard of queued work ([`Pending`](crate::Pending),
//! [`OpPending`](crate::ops::OpPending)) knows: its stream and, until it is
//! waited on or detached, the marker recorded after the work.

use std::sync::{Arc, Weak};

use crate::error::Result;
use crate::event::Marker;
use crate::stream::{Stream, StreamInner};
use crate::tracker::UseTracker;

/// A queued operation whose buffers are no longer borrowed: what
/// [`Pending::detach`](crate::Pending::detach) returns.
///
/// The buffers' trackers remember the operation, so nothing needs this
/// handle for safety: reading, overwriting or freeing a buffer waits for the
/// operation, and work on another stream is ordered after it. Keep it to
/// wait for the operation (and see its errors) at a time of your choosing,
/// or to poll it; drop it freely: dropping never blocks. It does not keep
/// its stream alive (dropping the last handle of a stream destroys it, which
/// waits for its work: a `Detached` holding that handle could not be dropped
/// without blocking); once the stream is gone its work has run, and the
/// handle says so.
///
/// Its point is loops that keep several transfers in flight, where a guard
/// that borrows its buffers cannot be stored next to the buffers it borrows
/// (a ring of `Pending`s over `[HostBuffer; 2]` does not compile):
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let mut staging = [HostBuffer::<f32>::zeroed(&ctx, 4)?, HostBuffer::zeroed(&ctx, 4)?];
/// let mut device = [DeviceBuffer::<f32>::zeroed(&ctx, 4)?, DeviceBuffer::zeroed(&ctx, 4)?];
/// let mut in_flight: [Option<Detached>; 2] = [None, None];
/// for step in 0..6 {
///     let slot = step % 2;
///     // Optional: the write below waits for the slot's previous upload
///     // anyway; waiting here reports that upload's errors now.
///     if let Some(upload) = in_flight[slot].take() {
///         upload.wait()?;
///     }
///     staging[slot].fill(step as f32);
///     let upload = stream.copy_host_to_device(&staging[slot], &mut device[slot])?;
///     in_flight[slot] = Some(upload.detach());
/// }
/// assert_eq!(device[1].to_vec()?, vec![5.0; 4]); // the read waits for the upload
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct Detached {
    /// The stream, not kept alive (see the type's docs).
    stream: Weak<StreamInner>,
    /// `None` once waited for (or when the guard was already settled).
    marker: Option<Weak<Marker>>,
}

impl std::fmt::Debug for Detached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detached")
            .field("stream_alive", &(self.stream.strong_count() > 0))
            .finish_non_exhaustive()
    }
}

impl Detached {
    /// The stream the operation was queued on, if a handle of it is still
    /// alive elsewhere.
    pub fn stream(&self) -> Option<Stream> {
        self.stream.upgrade().map(|inner| Stream { inner })
    }

    /// Whether the operation has finished, without waiting. Never `true`
    /// too early; may say `false` for a finished operation whose buffers
    /// were used again on its stream (it then asks whether the stream is idle).
    pub fn is_complete(&self) -> Result<bool> {
        let Some(weak) = &self.marker else {
            return Ok(true);
        };
        if let Some(marker) = weak.upgrade() {
            return marker.is_complete();
        }
        match self.stream() {
            Some(stream) => stream.query(),
            // Destroyed: the destroy waited for its work; one that failed
            // parked its error, reported here rather than a `true` that
            // could be too early.
            None => crate::deferred::check_parked().map(|()| true),
        }
    }

    /// Waits until the operation has finished, then reports its errors, or
    /// else any error parked by a destructor since. `Ok` means the operation
    /// finished; an error parked elsewhere is reported only after the wait,
    /// so this never returns while the operation may still be queued
    /// (unless the wait itself failed). The buffers learn that it finished
    /// at their next access (a cheap check of a completed event).
    pub fn wait(mut self) -> Result<()> {
        self.wait_queued()?;
        crate::deferred::check_parked()
    }

    fn wait_queued(&mut self) -> Result<()> {
        let Some(weak) = self.marker.take() else {
            return Ok(());
        };
        if let Some(marker) = weak.upgrade() {
            crate::callback::refuse_wait_on_own_stream(marker.stream_id, || marker.is_complete())?;
            return marker.synchronize();
        }
        // A vanished marker was waited for or covered by a later use of the
        // buffers: the stream has passed the operation once it is idle (or
        // once it is destroyed, which waited for it; a failed destroy
        // parked its error, which `wait` reports).
        match self.stream() {
            Some(stream) => stream.synchronize_queued(),
            None => Ok(()),
        }
    }
}

/// A queued operation seen from its guard.
///
/// The marker is held weakly: the buffers' trackers own it, so a leaked
/// guard leaks nothing that keeps a context alive. A marker that is gone was
/// either waited for or covered by a later use of the buffers (possibly on
/// another stream, possibly not finished), so then the stream itself is
/// waited for: it is past the operation once everything queued on it before
/// now has finished.
pub(crate) struct Queued<'a> {
    stream: &'a Stream,
    marker: Option<Weak<Marker>>,
}

impl<'a> Queued<'a> {
    pub(crate) fn new(stream: &'a Stream, marker: &Arc<Marker>) -> Self {
        Queued {
            stream,
            marker: Some(Arc::downgrade(marker)),
        }
    }

    pub(crate) fn stream(&self) -> &'a Stream {
        self.stream
    }

    /// Whether the guard has been waited on or detached.
    pub(crate) fn is_settled(&self) -> bool {
        self.marker.is_none()
    }

    /// Whether the operation has finished; never `true` too early (a
    /// vanished marker asks whether the whole stream is idle).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        let Some(weak) = &self.marker else {
            return Ok(true);
        };
        match weak.upgrade() {
            Some(marker) => marker.is_complete(),
            None => self.stream.query(),
        }
    }

    /// Hands the operation to an owned [`Detached`] handle (the trackers
    /// still hold it); the guard is settled afterwards.
    pub(crate) fn take_detached(&mut self) -> Detached {
        Detached {
            stream: Arc::downgrade(&self.stream.inner),
            marker: self.marker.take(),
        }
    }

    /// Waits until the stream has passed the operation, then tells
    /// `trackers` that its marker finished. On failure the trackers keep the
    /// marker: later accesses wait again.
    pub(crate) fn finish<'t>(
        &mut self,
        trackers: impl IntoIterator<Item = &'t UseTracker>,
    ) -> Result<()> {
        let Some(weak) = self.marker.take() else {
            return Ok(());
        };
        let Some(marker) = weak.upgrade() else {
            return self.stream.synchronize_queued();
        };
        crate::callback::refuse_wait_on_own_stream(marker.stream_id, || marker.is_complete())?;
        marker.synchronize()?;
        for tracker in trackers {
            tracker.finished(&marker);
        }
        Ok(())
    }
}
