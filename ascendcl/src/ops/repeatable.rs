//! Repeatable executors: phase 1 once, launch many times.

use ascendcl_sys::{Aclnn, aclOpExecutor};

use crate::context::Context;
use crate::error::{AclError, Error, Result};
use crate::few::Few;
use crate::latest_markers::LatestMarkers;
use crate::ops::pending::OpPending;
use crate::ops::phase1::Phase2;
use crate::ops::prepared::{Descriptors, LaunchArgs, Prepared, Slot, SlotKind, launch_executor};
use crate::ops::tensor::{Storage, Tensor, TensorMut};
use crate::ops::workspace::Workspace;
use crate::stream::Stream;

/// An operator whose executor is kept for many launches
/// (`aclSetAclOpExecutorRepeatable`): each launch re-points the tensors at
/// new memory of the same dtype and layout (`aclSetInputTensorAddr` /
/// `aclSetOutputTensorAddr`) and skips phase 1 — the fast path for training
/// loops with fixed shapes. It owns no memory: every launch borrows its
/// tensors like a [`Prepared`] launch does.
///
/// Dropping it waits for its last launch on every stream (device-wide if a
/// launch failed half-way), then destroys the executor; if a wait fails (or
/// would deadlock in a host callback), the executor is leaked instead.
pub struct Repeatable {
    op: &'static str,
    aclnn: &'static Aclnn,
    executor: *mut aclOpExecutor,
    workspace_size: u64,
    phase2: Phase2,
    descriptors: Descriptors,
    slots: Vec<Slot>,
    /// The executor's context; keeps the runtime alive as long as it.
    ctx: Context,
    /// The last launch's marker on each stream it was launched on.
    launches: LatestMarkers,
    /// A launch reached phase 2 and failed after: it may be queued in part
    /// without a marker, so only a device-wide wait covers it.
    unsettled: bool,
}

// SAFETY: the executor and descriptors are heap objects of nnopbase used only
// through `&mut self` (launch) or by Drop; moving them between threads is fine.
unsafe impl Send for Repeatable {}

impl std::fmt::Debug for Repeatable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repeatable")
            .field("op", &self.op)
            .field("workspace_size", &self.workspace_size)
            .finish()
    }
}

impl<'a> Prepared<'a> {
    /// Makes the executor repeatable and ends the borrows of the tensors it
    /// was prepared with (they are re-bound at each launch).
    pub fn into_repeatable(mut self) -> Result<Repeatable> {
        let ctx = match self.reads.first().or(self.writes.first()) {
            Some(storage) => storage.ctx.clone(),
            None => return Err(Error::InvalidState("an operator without tensors".into())),
        };
        // SAFETY: our live executor, right after phase 1.
        let status = unsafe { self.aclnn.aclSetAclOpExecutorRepeatable(self.executor) }?;
        if status != 0 {
            return Err(AclError::new(status, "aclSetAclOpExecutorRepeatable", None).into());
        }
        let executor = std::mem::replace(&mut self.executor, std::ptr::null_mut());
        Ok(Repeatable {
            op: self.op,
            aclnn: self.aclnn,
            executor,
            workspace_size: self.workspace_size,
            phase2: self.phase2,
            descriptors: std::mem::replace(
                &mut self.descriptors,
                Descriptors {
                    tensors: Few::new(),
                    _lists: Few::new(),
                    _scalars: Few::new(),
                    _arrays: Few::new(),
                    _bool_arrays: Few::new(),
                    _float_arrays: Few::new(),
                },
            ),
            slots: std::mem::take(&mut self.slots).into_vec(),
            ctx,
            launches: LatestMarkers::default(),
            unsettled: false,
        })
    }
}

impl Repeatable {
    /// The operator's name.
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// Launches again with `reads` bound to the read-only tensor arguments and
    /// `writes` to the written ones (in-place and outputs), each in the order
    /// of the operator's parameters; every tensor must have the dtype, shape,
    /// strides and offset it was prepared with (checked before any FFI call).
    /// `writes` is any list of views: an array (`[y]`) costs no heap
    /// allocation, a `Vec` works too.
    pub fn launch<'a>(
        &mut self,
        stream: &'a Stream,
        reads: &[&Tensor<'a>],
        writes: impl IntoIterator<Item = TensorMut<'a>>,
        workspace: impl Into<Workspace<'a>>,
    ) -> Result<OpPending<'a>> {
        let workspace = workspace.into();
        let (mine, theirs) = (self.ctx.device_id(), stream.context().device_id());
        if mine != theirs {
            return Err(Error::invalid(format!(
                "aclnn{}: this executor was prepared on device {mine} and cannot launch on a stream of \
                 device {theirs}",
                self.op
            )));
        }
        let read_slots = || self.slots.iter().filter(|s| s.kind == SlotKind::Input);
        let write_slots = || self.slots.iter().filter(|s| s.kind != SlotKind::Input);
        let (read_count, write_count) = (read_slots().count(), write_slots().count());
        // The written views are taken apart as they come (their borrows live
        // on in the returned guard's lifetime): checked against their slots,
        // only the memory is kept, and the first mismatch reported after the
        // count and the read views, as for reads.
        let mut write_storage: Few<Storage<'a>> = Few::new();
        let (mut writes_given, mut write_mismatch) = (0usize, None);
        let mut slots = write_slots();
        for t in writes {
            writes_given += 1;
            let Some(slot) = slots.next() else { continue };
            if write_mismatch.is_none() {
                match self.check(slot, t.dtype, &t.layout) {
                    Ok(()) => write_storage.push(t.storage),
                    Err(error) => write_mismatch = Some(error),
                }
            }
        }
        if reads.len() != read_count || writes_given != write_count {
            return Err(Error::invalid(format!(
                "aclnn{} was prepared with {} read and {} written tensors, not {} and {}",
                self.op,
                read_count,
                write_count,
                reads.len(),
                writes_given
            )));
        }
        let mut read_storage: Few<Storage<'a>> = Few::new();
        for (slot, t) in read_slots().zip(reads) {
            self.check(slot, t.dtype, &t.layout)?;
            read_storage.push(t.storage);
        }
        if let Some(error) = write_mismatch {
            return Err(error);
        }
        // Re-point every slot: inputs (read-only and in-place) count in one
        // index space, outputs in another, both in parameter order.
        let (mut next_read, mut next_write) = (read_storage.iter(), write_storage.iter());
        let (mut input_index, mut output_index) = (0usize, 0usize);
        for slot in &self.slots {
            let storage = match slot.kind {
                SlotKind::Input => next_read.next(),
                SlotKind::InPlace | SlotKind::Output => next_write.next(),
            }
            .ok_or_else(|| Error::InvalidState("slot count changed".into()))?;
            let desc = self.descriptors.tensors[slot.desc].raw;
            // SAFETY: our live repeatable executor and one of its descriptors;
            // the address is live memory borrowed for the launch.
            let status = unsafe {
                match slot.kind {
                    SlotKind::Output => {
                        output_index += 1;
                        self.aclnn.aclSetOutputTensorAddr(
                            self.executor,
                            output_index - 1,
                            desc,
                            storage.ptr,
                        )
                    }
                    _ => {
                        input_index += 1;
                        self.aclnn.aclSetInputTensorAddr(
                            self.executor,
                            input_index - 1,
                            desc,
                            storage.ptr,
                        )
                    }
                }
            }?;
            if status != 0 {
                return Err(AclError::new(status, "aclSetInputTensorAddr", None).into());
            }
        }
        let args = LaunchArgs {
            op: self.op,
            aclnn: self.aclnn,
            executor: self.executor,
            workspace_size: self.workspace_size,
            phase2: self.phase2,
            reads: &read_storage,
            writes: &write_storage,
        };
        let (marker, trackers) = match launch_executor(args, stream, workspace) {
            Ok(launched) => launched,
            Err((error, called)) => {
                self.unsettled |= called;
                return Err(error);
            }
        };
        self.launches.push(marker.to_queued_at());
        Ok(OpPending::new(self.op, stream, marker, trackers))
    }

    fn check(
        &self,
        slot: &Slot,
        dtype: crate::ops::DType,
        layout: &crate::ops::tensor::Layout,
    ) -> Result<()> {
        if slot.dtype == dtype && slot.layout == *layout {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "aclnn{}: a tensor of {dtype:?} {:?} (strides {:?}, offset {}) cannot replace one prepared as \
             {:?} {:?} (strides {:?}, offset {}); prepare a new executor for new shapes",
            self.op,
            layout.shape,
            layout.strides,
            layout.offset,
            slot.dtype,
            slot.layout.shape,
            slot.layout.strides,
            slot.layout.offset
        )))
    }
}

impl Drop for Repeatable {
    fn drop(&mut self) {
        // Launches may still be queued: wait for each stream's last one
        // (device-wide for a launch that failed half-way). If any wait
        // fails, the executor may still be in use: leak it.
        let mut waited = self.launches.iter().try_for_each(|marker| marker.wait());
        if waited.is_ok() && self.unsettled {
            waited = crate::tracker::synchronize_device(&self.ctx);
        }
        if let Err(error) = waited {
            crate::deferred::park("a repeatable operator (its executor was leaked)", error);
            return;
        }
        crate::deferred::release("a repeatable operator", || {
            // SAFETY: our repeatable executor with no queued launch left; a
            // failed destroy leaves it alive.
            match unsafe { self.aclnn.aclDestroyAclOpExecutor(self.executor) } {
                Ok(0) => Ok(()),
                Ok(code) => Err(AclError::new(code, "aclDestroyAclOpExecutor", None).into()),
                Err(missing) => Err(missing.into()),
            }
        });
    }
}
