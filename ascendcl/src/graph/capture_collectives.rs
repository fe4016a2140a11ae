//! Collectives inside a capture: an all-reduce over bound memory, captured
//! on a branch like an operator. The communicator is borrowed for the
//! graph's whole life (`'g`), so it cannot be destroyed while a replay may
//! still run it; a replay runs the collective again, so every rank must
//! replay its graphs in the same order as it would queue the collectives
//! eagerly (a mismatch hangs or times out, as it does eagerly).
//!
//! CANN captures HCCL tasks queued on a capturing stream like any other
//! (torch_npu's graph mode captures `HcclAllReduce` this way, one more
//! stream per communication domain: capture-kernels-dvpp-facts.md §1.5).

use crate::error::{Error, Result};
use crate::graph::Capture;
use crate::graph::branches::Branch;
use crate::graph::capture_launch::hazard_key;
use crate::graph::views::Bound;
use crate::hccl::{Communicator, HcclElement, ReduceOp};
use crate::tracker::Access;

impl<'g> Capture<'g> {
    /// Captures an all-reduce of `send` into `recv` (both bound memory of
    /// `T`, the same length; the same handle for both is the in-place
    /// all-reduce) over `comm`, on `branch`. Refused before any call: a
    /// communicator of another device, a reduction HCCL does not support for
    /// `T`, lengths that differ, or another branch using either buffer
    /// unordered.
    pub fn all_reduce_on<T: HcclElement>(
        &mut self,
        branch: Branch,
        comm: &'g Communicator,
        send: Bound<T>,
        recv: Bound<T>,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "HcclAllReduce";
        let on = self.branch_index(branch)?;
        crate::hccl::support::check_reduction(OP, T::DATA_TYPE, op)?;
        let device = self.stream.context().device_id();
        if comm.device().id() != device {
            return Err(Error::invalid(format!(
                "{OP}: the communicator is on device {} but the capture on device {device}",
                comm.device().id()
            )));
        }
        let (s, r) = (self.bound_of(send)?, self.bound_of(recv)?);
        if s.bytes != r.bytes {
            return Err(Error::invalid(format!(
                "{OP}: the send buffer holds {} bytes and the receive buffer {}; they must match",
                s.bytes, r.bytes
            )));
        }
        let (sp, rp, count) = (s.ptr, r.ptr, (s.bytes / size_of::<T>()) as u64);
        let owned = &self.parts.owned;
        let (send_key, recv_key) = (
            hazard_key(s.resolve(owned).1),
            hazard_key(r.resolve(owned).1),
        );
        // The communicator is a use too: two collectives on one communicator
        // on unordered branches could pair up differently on each rank and
        // share HCCL's buffers, so they must be ordered like two writes.
        let comm_key = std::ptr::from_ref(comm) as usize;
        let uses = if send.index == recv.index {
            vec![(recv_key, Access::Write), (comm_key, Access::Write)]
        } else {
            vec![
                (send_key, Access::Read),
                (recv_key, Access::Write),
                (comm_key, Access::Write),
            ]
        };
        self.hazards.check(on, &uses)?;
        let stream = self.stream_of(on).clone();
        stream.context().bind()?;
        {
            let _one_call_at_a_time = comm.lock_launches();
            // SAFETY: both ranges are live device memory of `count`
            // elements of T on the communicator's device, bound (or owned)
            // for the graph's life; the communicator is borrowed for it too,
            // and the graph destroys the model before either goes.
            let called = unsafe {
                comm.hccl.HcclAllReduce(
                    sp,
                    rp,
                    count,
                    T::DATA_TYPE,
                    op.raw(),
                    comm.raw,
                    stream.as_raw(),
                )
            };
            crate::hccl::check(comm.hccl, OP, called)?;
        }
        self.hazards.record(on, &uses);
        self.note(recv.index, Access::Write);
        Ok(())
    }
}
