//! `Pending`: an operation queued on a stream, holding its buffers.

use crate::deferred;
use crate::error::Result;
use crate::event::Marker;
use crate::memory::{DeviceMemory, Tracked};
use crate::stream::Stream;
use crate::tracker::UseTracker;
use std::sync::{Arc, Weak};

/// An asynchronous operation that may still be running on its stream.
///
/// It borrows the operation's buffers (the destination `D` mutably, the
/// source shared) until it is waited on or dropped, so safe code can neither
/// read a destination before the data has arrived nor overwrite or free a
/// source the device is still reading. [`wait`](Pending::wait) synchronizes and
/// reports errors; dropping it synchronizes too, parking any error (see
/// [`take_deferred_errors`](crate::take_deferred_errors)).
///
/// Reading the destination before waiting does not compile:
///
/// ```compile_fail,E0502
/// # fn f(stream: &ascendcl::Stream, device: &ascendcl::DeviceBuffer<f32>,
/// #      host: &mut ascendcl::HostBuffer<f32>) -> ascendcl::Result<()> {
/// let download = stream.copy_device_to_host(device, host)?;
/// println!("{}", host[0]); // error: `host` is mutably borrowed by `download`
/// download.wait()?;
/// # Ok(()) }
/// ```
#[must_use = "dropping a Pending waits for the operation at once; keep it and call .wait() to overlap work and see errors"]
pub struct Pending<'a, D: Tracked + ?Sized> {
    stream: &'a Stream,
    /// Weak: the buffers' trackers own the marker, so a leaked `Pending`
    /// (`mem::forget`) leaks nothing that keeps a context alive. A marker
    /// that is gone was either waited for or covered by a later use of the
    /// buffers (possibly on another stream, possibly not yet finished), so
    /// then the stream itself is waited for: it is past the operation only
    /// once everything queued on it before now has finished.
    marker: Option<Weak<Marker>>,
    source: Option<&'a UseTracker>,
    destination: &'a mut D,
}

impl<D: Tracked + ?Sized> std::fmt::Debug for Pending<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("stream", self.stream)
            .field("waited", &self.marker.is_none())
            .finish()
    }
}

impl<'a, D: Tracked + ?Sized> Pending<'a, D> {
    pub(crate) fn new(
        stream: &'a Stream,
        marker: Arc<Marker>,
        source: Option<&'a UseTracker>,
        destination: &'a mut D,
    ) -> Self {
        Pending {
            stream,
            marker: Some(Arc::downgrade(&marker)),
            source,
            destination,
        }
    }

    /// The stream the operation was queued on.
    pub fn stream(&self) -> &Stream {
        self.stream
    }

    /// Whether the operation has finished, without waiting. Once the
    /// buffers have been used again it can only ask whether the whole stream
    /// is idle, so it may say `false` for a finished operation followed by
    /// unfinished work on the same stream; it never says `true` too early.
    pub fn is_complete(&self) -> Result<bool> {
        match &self.marker {
            Some(weak) => operation_complete(self.stream, weak),
            None => Ok(true),
        }
    }

    /// Ends the borrows without waiting: the operation stays queued and both
    /// buffers remember it, so the next host access waits for it and work on
    /// another stream is ordered after it (the same as leaking the guard,
    /// said on purpose). Errors of the operation show up at the next
    /// synchronizing call.
    pub fn detach(mut self) {
        self.marker = None;
    }

    /// Waits until the operation has finished and releases the buffers.
    pub fn wait(mut self) -> Result<()> {
        deferred::check_parked()?;
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        let Some(weak) = self.marker.take() else {
            return Ok(());
        };
        let destination = self.destination.raw_parts().tracker;
        let trackers = [Some(destination), self.source];
        wait_for_operation(self.stream, &weak, trackers.iter().flatten().copied())
    }
}

/// Waits until the stream has passed an operation whose marker is `weak`,
/// then tells `trackers` that the marker finished. A marker that is gone was
/// covered by a later use, so then the stream itself is waited for. On
/// failure the trackers keep the marker: later accesses wait again.
pub(crate) fn wait_for_operation<'t>(
    stream: &Stream,
    weak: &Weak<Marker>,
    trackers: impl IntoIterator<Item = &'t UseTracker>,
) -> Result<()> {
    let Some(marker) = weak.upgrade() else {
        return stream.synchronize_queued();
    };
    crate::callback::refuse_wait_on_own_stream(marker.stream_id, || marker.is_complete())?;
    marker.synchronize()?;
    for tracker in trackers {
        tracker.finished(&marker);
    }
    Ok(())
}

/// Whether the operation whose marker is `weak` has finished (see
/// [`Pending::is_complete`] for what a vanished marker means).
pub(crate) fn operation_complete(stream: &Stream, weak: &Weak<Marker>) -> Result<bool> {
    match weak.upgrade() {
        Some(marker) => marker.is_complete(),
        None => stream.query(),
    }
}

impl<'a, D: DeviceMemory + ?Sized> Pending<'a, D> {
    /// The device destination, for queuing further work that reads it on
    /// this stream (stream order makes that work run after this operation).
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// # use ascendcl::*;
    /// # let ctx = Device::open(&rt, 0)?.default_context();
    /// # let stream = Stream::new(&ctx)?;
    /// let input = HostBuffer::from_slice(&ctx, &[5u8; 16])?;
    /// let mut device = DeviceBuffer::<u8>::alloc(&ctx, 16)?;
    /// let mut output = HostBuffer::<u8>::zeroed(&ctx, 16)?;
    /// let upload = stream.copy_host_to_device(&input, &mut device)?;
    /// let download = stream.copy_device_to_host(upload.destination(), &mut output)?;
    /// download.wait()?;
    /// upload.wait()?;
    /// assert_eq!(&output[..], &[5u8; 16]);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn destination(&self) -> &D {
        self.destination
    }
}

impl<D: Tracked + ?Sized> Drop for Pending<'_, D> {
    fn drop(&mut self) {
        let result = self.finish();
        deferred::park_result("a pending operation", result);
    }
}
