//! `CollectivePending`: a launched collective that may still be running.

use std::marker::PhantomData;

use crate::deferred;
use crate::error::{HcclError, Result};
use crate::few::Few;
use crate::hccl::Communicator;
use crate::lane::Launch;
use crate::queued::Queued;
use crate::stream::Stream;
use crate::tracker::UseTracker;

/// A collective queued on a stream. It keeps the collective's buffers
/// borrowed (send buffers shared, receive buffers mutably) and its
/// communicator borrowed until it is waited on or dropped, so reading a
/// receive buffer too early, or freeing a send buffer, does not compile:
///
/// ```compile_fail,E0502
/// # use ascendcl::prelude::*;
/// # use ascendcl::hccl::{Communicator, ReduceOp};
/// # fn f(comm: &Communicator, stream: &Stream, x: &DeviceBuffer<f32>,
/// #      y: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
/// let sum = comm.all_reduce(x, y, ReduceOp::Sum, stream)?;
/// let early = y.to_vec()?; // error: `y` is still borrowed by the collective
/// sum.wait()?;
/// # Ok(()) }
/// ```
///
/// Dropping it waits for the collective (errors parked, see
/// [`take_deferred_errors`](crate::take_deferred_errors)); leaking it or
/// calling [`detach`](CollectivePending::detach) is safe: every buffer's
/// memory remembers the launch, and so does the communicator, which waits for
/// it before it is destroyed.
#[must_use = "dropping a CollectivePending waits for the collective at once; keep it and call .wait() to overlap work"]
pub struct CollectivePending<'a> {
    op: &'static str,
    comm: &'a Communicator,
    queued: Queued<'a>,
    trackers: Few<&'a UseTracker>,
    _borrows: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for CollectivePending<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CollectivePending")
            .field("op", &self.op)
            .field("waited", &self.queued.is_settled())
            .finish()
    }
}

impl<'a> CollectivePending<'a> {
    pub(crate) fn new(
        op: &'static str,
        comm: &'a Communicator,
        stream: &'a Stream,
        marker: Launch<'_>,
        trackers: Few<&'a UseTracker>,
    ) -> Self {
        CollectivePending {
            op,
            comm,
            queued: Queued::new(stream, marker),
            trackers,
            _borrows: PhantomData,
        }
    }

    /// The HCCL function that was launched (`HcclAllReduce`, ...).
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// The stream it was launched on.
    pub fn stream(&self) -> &Stream {
        self.queued.stream()
    }

    /// Whether the collective has finished, without waiting (never `true`
    /// too early; see [`Pending::is_complete`](crate::Pending::is_complete)).
    pub fn is_complete(&self) -> Result<bool> {
        self.queued.is_complete()
    }

    /// Ends the borrows without waiting: the collective stays queued and
    /// every buffer remembers it, so the next host access waits for it and
    /// the next use on another stream is ordered after it. Errors of the
    /// collective show up at the next synchronizing call.
    ///
    /// Returns a [`Detached`](crate::Detached) handle that borrows nothing,
    /// to wait on (and see the collective's errors) or poll later; dropping it
    /// never blocks.
    pub fn detach(mut self) -> crate::Detached {
        self.queued.take_detached()
    }

    /// Waits until the collective has run on this rank and releases its
    /// buffers. It can only finish once every rank has launched it.
    ///
    /// A collective that failed on the device (ranks that disagreed on the
    /// count, dtype, op or root; a peer that timed out) is reported here as
    /// the communicator's asynchronous error ([`Communicator::async_error`]),
    /// on every rank: the receive buffers then hold nothing meaningful, and
    /// the communicator should be destroyed.
    ///
    /// The operation is waited for first; only then is an error parked by a
    /// destructor elsewhere reported, so `Ok` means it finished and nothing
    /// failed in between.
    pub fn wait(mut self) -> Result<()> {
        self.finish()?;
        deferred::check_parked()
    }

    fn finish(&mut self) -> Result<()> {
        let was_waited = self.queued.is_settled();
        self.queued.finish(self.trackers.iter().copied())?;
        if was_waited {
            return Ok(());
        }
        match self.comm.async_error() {
            Ok(None) => Ok(()),
            Ok(Some(error)) => {
                let text = format!(
                    "{} (the communicator's asynchronous error after this collective)",
                    error.message().unwrap_or("failed on the device")
                );
                Err(HcclError::new(error.code(), self.op, Some(text)).into())
            }
            // A CANN without the query: the wait itself is all we know.
            Err(error) if error.is_not_supported() => Ok(()),
            Err(error) => Err(error),
        }
    }
}

impl Drop for CollectivePending<'_> {
    fn drop(&mut self) {
        let result = self.finish();
        deferred::park_result("a pending collective", result);
    }
}
