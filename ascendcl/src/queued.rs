//! What every guard of queued work ([`Pending`](crate::Pending),
//! [`OpPending`](crate::ops::OpPending)) knows: its stream and, until it is
//! waited on or detached, the work's position in that stream.

use std::sync::{Arc, Weak};

use crate::error::Result;
use crate::lane::{Lane, Launch, QueuedAt};
use crate::stream::Stream;
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
    /// The stream's lane, not kept alive (see the type's docs): it lives as
    /// long as the stream handle or a tracker that remembers the operation,
    /// and it leads back to the handle while that lives.
    lane: Weak<Lane>,
    /// The operation's position; `None` once waited for (or when the guard
    /// was already settled).
    position: Option<u64>,
}

impl std::fmt::Debug for Detached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detached")
            .field("stream_alive", &self.stream().is_some())
            .finish_non_exhaustive()
    }
}

impl Detached {
    /// The stream the operation was queued on, if a handle of it is still
    /// alive elsewhere.
    pub fn stream(&self) -> Option<Stream> {
        let inner = self.lane.upgrade()?.stream()?;
        Some(Stream { inner })
    }

    /// Whether the operation has finished, without waiting. Never `true`
    /// too early.
    pub fn is_complete(&self) -> Result<bool> {
        let Some(position) = self.position else {
            return Ok(true);
        };
        match self.lane.upgrade() {
            Some(lane) => lane.is_complete(position),
            // The stream is destroyed and nothing remembers the operation:
            // the destroy waited for it; one that failed parked its error,
            // reported here rather than a `true` that could be too early.
            None => crate::deferred::check_parked().map(|()| true),
        }
    }

    /// Waits until the operation has finished, then reports its errors, or
    /// else any error parked by a destructor since. `Ok` means the operation
    /// finished; an error parked elsewhere is reported only after the wait,
    /// so this never returns while the operation may still be queued
    /// (unless the wait itself failed). The buffers learn that it finished
    /// at their next access, with no runtime call.
    pub fn wait(mut self) -> Result<()> {
        self.wait_queued()?;
        crate::deferred::check_parked()
    }

    fn wait_queued(&mut self) -> Result<()> {
        let Some(position) = self.position.take() else {
            return Ok(());
        };
        match self.lane.upgrade() {
            Some(lane) => lane.wait(position),
            // Destroyed, which waited for it (a failed destroy parked its
            // error, which `wait` reports).
            None => Ok(()),
        }
    }
}

/// The handle of work just queued on `stream` at `at`, for operations whose
/// guard borrows nothing (their memory's tracker remembers the work).
pub(crate) fn detached(stream: &Stream, at: Launch<'_>) -> Detached {
    Queued::new(stream, at).take_detached()
}

/// A queued operation seen from its guard: the stream is borrowed, so its
/// lane is alive and the position is enough to wait for exactly this work.
pub(crate) struct Queued<'a> {
    stream: &'a Stream,
    position: Option<u64>,
}

impl<'a> Queued<'a> {
    pub(crate) fn new(stream: &'a Stream, at: Launch<'_>) -> Self {
        debug_assert!(Arc::ptr_eq(&stream.inner.lane, at.lane));
        Queued {
            stream,
            position: Some(at.position),
        }
    }

    pub(crate) fn stream(&self) -> &'a Stream {
        self.stream
    }

    /// Whether the guard has been waited on or detached.
    pub(crate) fn is_settled(&self) -> bool {
        self.position.is_none()
    }

    /// Whether the operation has finished; never `true` too early.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        match self.position {
            None => Ok(true),
            Some(position) => self.stream.inner.lane.is_complete(position),
        }
    }

    /// Hands the operation to an owned [`Detached`] handle (the trackers
    /// still hold it); the guard is settled afterwards.
    pub(crate) fn take_detached(&mut self) -> Detached {
        // One weak handle (the lane leads back to the stream): a detached
        // launch costs one reference count taken and one dropped.
        Detached {
            lane: Arc::downgrade(&self.stream.inner.lane),
            position: self.position.take(),
        }
    }

    /// Waits until the stream has passed the operation, then tells
    /// `trackers` so. On failure the trackers keep it: later accesses wait
    /// again.
    pub(crate) fn finish<'t>(
        &mut self,
        trackers: impl IntoIterator<Item = &'t UseTracker>,
    ) -> Result<()> {
        let Some(position) = self.position.take() else {
            return Ok(());
        };
        let lane = &self.stream.inner.lane;
        if let Err(error) = lane.wait(position) {
            self.position = Some(position);
            return Err(error);
        }
        let at = QueuedAt {
            lane: lane.clone(),
            position,
        };
        for tracker in trackers {
            tracker.finished(&at);
        }
        Ok(())
    }
}
