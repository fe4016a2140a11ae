//! `OpPending`: a launched operator that may still be running.

use std::marker::PhantomData;

use crate::deferred;
use crate::error::Result;
use crate::few::Few;
use crate::lane::Launch;
use crate::queued::Queued;
use crate::stream::Stream;
use crate::tracker::UseTracker;

/// An operator queued on a stream. It keeps the operator's tensors borrowed
/// (inputs shared, outputs mutably) until it is waited on or dropped, so
/// reading an output or freeing an input too early does not compile:
///
/// ```compile_fail,E0502
/// # use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
/// # fn f(stream: &ascendcl::Stream, x: &ascendcl::DeviceBuffer<f32>,
/// #      y: &mut ascendcl::DeviceBuffer<f32>) -> ascendcl::Result<()> {
/// let relu = ops::relu(&Tensor::new(x, &[4])?, TensorMut::new(y, &[4])?)?
///     .launch(stream, Workspace::none())?;
/// let early = y.len(); // error: `y` is still borrowed by the queued operator
/// relu.wait()?;
/// # Ok(()) }
/// ```
///
/// Dropping it waits for the operator (errors parked, see
/// [`take_deferred_errors`](crate::take_deferred_errors)); leaking it is safe:
/// every tensor's memory remembers the launch.
#[must_use = "dropping an OpPending waits for the operator at once; keep it and call .wait() to overlap work"]
pub struct OpPending<'a> {
    op: &'static str,
    queued: Queued<'a>,
    trackers: Few<&'a UseTracker>,
    _borrows: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for OpPending<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpPending")
            .field("op", &self.op)
            .field("waited", &self.queued.is_settled())
            .finish()
    }
}

impl<'a> OpPending<'a> {
    pub(crate) fn new(
        op: &'static str,
        stream: &'a Stream,
        marker: Launch<'_>,
        trackers: Few<&'a UseTracker>,
    ) -> Self {
        OpPending {
            op,
            queued: Queued::new(stream, marker),
            trackers,
            _borrows: PhantomData,
        }
    }

    /// The operator's name.
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// The stream it was launched on.
    pub fn stream(&self) -> &Stream {
        self.queued.stream()
    }

    /// Whether the operator has finished, without waiting (never `true`
    /// too early; see [`Pending::is_complete`](crate::Pending::is_complete)).
    pub fn is_complete(&self) -> Result<bool> {
        self.queued.is_complete()
    }

    /// Ends the borrows without waiting: the operator stays queued and every
    /// tensor's memory remembers it, so the next host access waits for it
    /// and the next operator on another stream is ordered after it. This is
    /// how a training loop queues many operators back to back; errors of the
    /// operator then show up at the next synchronizing call.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
    /// use ascendcl::prelude::*;
    /// let ctx = Device::open(&rt, 0)?.default_context();
    /// let stream = Stream::new(&ctx)?;
    /// let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 3.0])?;
    /// let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    /// let mut z = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    /// ops::relu(&Tensor::new(&x, &[2])?, TensorMut::new(&mut y, &[2])?)?
    ///     .launch(&stream, Workspace::none())?
    ///     .detach();
    /// ops::muls(&Tensor::new(&y, &[2])?, 2.0f32, TensorMut::new(&mut z, &[2])?)?
    ///     .launch(&stream, Workspace::none())?
    ///     .detach();
    /// assert_eq!(z.to_vec()?, vec![0.0, 6.0]); // waits for both
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    ///
    /// Returns a [`Detached`](crate::Detached) handle that borrows nothing,
    /// to wait on (and see the operator's errors) or poll later; dropping it
    /// never blocks.
    pub fn detach(mut self) -> crate::Detached {
        self.queued.take_detached()
    }

    /// Waits until the operator has run and releases its tensors.
    ///
    /// The operation is waited for first; only then is an error parked by a
    /// destructor elsewhere reported, so `Ok` means it finished and nothing
    /// failed in between.
    pub fn wait(mut self) -> Result<()> {
        self.finish()?;
        deferred::check_parked()
    }

    fn finish(&mut self) -> Result<()> {
        self.queued.finish(self.trackers.iter().copied())
    }
}

impl Drop for OpPending<'_> {
    fn drop(&mut self) {
        let result = self.finish();
        deferred::park_result("a pending operator", result);
    }
}
