//! `Pending`: an operation queued on a stream, holding its buffers.

use crate::deferred;
use crate::error::Result;
use crate::lane::Launch;
use crate::memory::{DeviceMemory, Tracked};
pub use crate::queued::Detached;
use crate::queued::Queued;
use crate::stream::Stream;
use crate::tracker::UseTracker;

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
    queued: Queued<'a>,
    source: Option<&'a UseTracker>,
    destination: &'a mut D,
}

impl<D: Tracked + ?Sized> std::fmt::Debug for Pending<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("stream", self.queued.stream())
            .field("waited", &self.queued.is_settled())
            .finish()
    }
}

impl<'a, D: Tracked + ?Sized> Pending<'a, D> {
    pub(crate) fn new(
        stream: &'a Stream,
        at: Launch<'_>,
        source: Option<&'a UseTracker>,
        destination: &'a mut D,
    ) -> Self {
        Pending {
            queued: Queued::new(stream, at),
            source,
            destination,
        }
    }

    /// The stream the operation was queued on.
    pub fn stream(&self) -> &Stream {
        self.queued.stream()
    }

    /// Whether the operation has finished, without waiting. It asks the
    /// stream's latest tail event if that one covers the operation, else
    /// records one (a single runtime call, shared by everything waiting on
    /// the stream). It never says `true` too early; it may say `false` while
    /// work queued after the operation but before that event still runs.
    pub fn is_complete(&self) -> Result<bool> {
        self.queued.is_complete()
    }

    /// Ends the borrows without waiting: the operation stays queued and both
    /// buffers remember it, so the next host access waits for it and work on
    /// another stream is ordered after it (the same as leaking the guard,
    /// said on purpose).
    ///
    /// Returns a [`Detached`] handle that borrows nothing: store it (a ring
    /// of in-flight transfers is an array of them) and wait for it when you
    /// want the operation's errors, or drop it and let the next synchronizing
    /// call report them. Dropping it never blocks.
    pub fn detach(mut self) -> Detached {
        self.queued.take_detached()
    }

    /// Waits until the operation has finished and releases the buffers.
    ///
    /// The operation is waited for first; only then is an error parked by a
    /// destructor elsewhere reported, so `Ok` means it finished and nothing
    /// failed in between.
    pub fn wait(mut self) -> Result<()> {
        self.finish()?;
        deferred::check_parked()
    }

    fn finish(&mut self) -> Result<()> {
        let destination = self.destination.raw_parts().tracker;
        self.queued
            .finish([Some(destination), self.source].into_iter().flatten())
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
