//! The one path every collective takes: checks, then the tracked launch.

use std::cell::Cell;

use ascendcl_sys::{Hccl, HcclComm, HcclResult, SymbolError, aclrtStream};

use crate::error::{Error, Result};
use crate::few::Few;
use crate::hccl::{CollectivePending, Communicator};
use crate::memory::RawParts;
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch, UseTracker};
use crate::verified_names::VerifiedNames;

/// The memory one collective touches, checked against the communicator.
pub(crate) struct Touches<'a> {
    op: &'static str,
    device: u32,
    pub(crate) list: Few<(&'a UseTracker, Access)>,
}

impl<'a> Touches<'a> {
    pub(crate) fn new(comm: &Communicator, op: &'static str) -> Self {
        Touches {
            op,
            device: comm.device.id(),
            list: Few::new(),
        }
    }

    /// Adds a buffer, refusing memory of another device.
    pub(crate) fn add(&mut self, what: &str, parts: &RawParts<'a>, access: Access) -> Result<()> {
        if parts.ctx.device_id() != self.device {
            return Err(Error::invalid(format!(
                "{}: the {what} buffer is on device {} but the communicator on device {}",
                self.op,
                parts.ctx.device_id(),
                self.device
            )));
        }
        self.list.push((parts.tracker, access));
        Ok(())
    }
}

/// `a == b` for element counts, or an error naming both.
pub(crate) fn expect_len(op: &str, what: &str, got: usize, want: Option<usize>) -> Result<()> {
    match want {
        Some(want) if want == got => Ok(()),
        Some(want) => Err(Error::invalid(format!(
            "{op}: the {what} buffer holds {got} elements; {want} are needed"
        ))),
        None => Err(Error::invalid(format!("{op}: the {what} size overflows"))),
    }
}

/// An element count as HCCL's `uint64_t`.
pub(crate) fn count(len: usize) -> u64 {
    len as u64
}

impl Communicator {
    /// Refuses a rank outside the communicator (a root or a peer).
    pub(crate) fn check_rank(&self, op: &str, what: &str, rank: u32) -> Result<()> {
        if rank < self.size {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "{op}: {what} {rank} is not a rank of this communicator (size {})",
                self.size
            )))
        }
    }

    /// Queues `call` on `stream` like an operator launch: under the locks of
    /// every tracker in `touches` (ordered after conflicting uses, marker
    /// recorded, uses added), with the failure of the call tracked as
    /// possibly queued. The stream must be one of the communicator's device.
    /// No lock is held across a host wait (see [`tracker::enqueue`]).
    pub(crate) fn launch<'a>(
        &'a self,
        op: &'static str,
        stream: &'a Stream,
        touches: Touches<'a>,
        call: impl FnOnce(&'static Hccl, HcclComm, aclrtStream) -> Result<HcclResult, SymbolError>,
    ) -> Result<CollectivePending<'a>> {
        let device = self.device.id();
        if stream.context().device_id() != device {
            return Err(Error::invalid(format!(
                "{op}: the stream is on device {} but the communicator on device {device}; \
                 launch on a stream of the communicator's device",
                stream.context().device_id()
            )));
        }
        // Optional functions are checked before anything is queued (once
        // per process: the answer never changes).
        static VERIFIED: VerifiedNames = VerifiedNames::new();
        let hccl = self.hccl;
        if let Err(missing) = VERIFIED.check(hccl, op, || hccl.require_function(op)) {
            return Err(Error::NotSupported { source: missing });
        }
        let raw = stream.bound()?;
        let called = Cell::new(false);
        let (hccl, comm) = (self.hccl, self.raw);
        // The communicator's lock is taken inside the tracker's critical
        // section, after its host waits, and held only across the HCCL call
        // (which queues and returns): never across a wait for the device, so
        // a host callback or another thread queuing on this communicator is
        // never stuck behind one. Lock order: trackers, then communicator.
        let marker = tracker::enqueue(
            stream,
            raw,
            &touches.list,
            FailedLaunch::MayHaveQueued,
            |_lib, raw| {
                let _one_call_at_a_time = self.lock_launches();
                called.set(true);
                super::check(hccl, op, call(hccl, comm, raw))
            },
        );
        // `destroy` needs `&mut self`, so no launch can be in flight while it
        // reads the list: recording the marker after the call is enough.
        let mut launches = self.lock_launches();
        match marker {
            Ok(marker) => {
                launches.push(marker.to_queued_at());
                let trackers = touches.list.iter().map(|(t, _)| *t).collect();
                Ok(CollectivePending::new(op, self, stream, marker, trackers))
            }
            Err(error) => {
                if called.get() {
                    // The buffers' trackers hold the launch; the communicator
                    // must not be destroyed before it, and has no marker.
                    launches.unproven = true;
                }
                Err(error)
            }
        }
    }
}
