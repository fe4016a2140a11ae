//! Phase 2: launching a prepared operator on a stream.

use std::cell::Cell;
use std::ffi::c_void;
use std::marker::PhantomData;

use ascendcl_sys::{Aclnn, aclOpExecutor};

use crate::call::recent_message;
use crate::error::{AclError, Error, Result};
use crate::few::Few;
use crate::lane::Launch;
use crate::memory::DeviceSlice;
use crate::memory::sealed::Sealed;
use crate::ops::DType;
use crate::ops::descriptor::{
    BoolArrayDesc, FloatArrayDesc, IntArrayDesc, ScalarDesc, TensorDesc, TensorListDesc,
};
use crate::ops::pending::OpPending;
use crate::ops::phase1::{Phase1, Phase2};
use crate::ops::slots::Slots;
use crate::ops::tensor::{Layout, Storage};
use crate::ops::workspace::{Source, Workspace};
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch, UseTracker};

/// How an operator uses a tensor argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotKind {
    /// Read only (an executor input).
    Input,
    /// Read and written in place (an executor input).
    InPlace,
    /// Written (an executor output).
    Output,
}

/// What a tensor argument was prepared with, in phase-1 order, so that a
/// repeatable executor is only re-pointed at tensors of the same kind.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub(crate) kind: SlotKind,
    pub(crate) desc: usize,
    pub(crate) dtype: DType,
    pub(crate) layout: Layout,
}

impl Slot {
    pub(crate) fn of(kind: SlotKind, desc: usize, dtype: DType, layout: &Layout) -> Slot {
        Slot {
            kind,
            desc,
            dtype,
            layout: layout.clone(),
        }
    }
}

/// Descriptors kept until phase 2 has returned. Tensor lists drop after
/// the tensors: a list destroys its members, which their [`TensorDesc`]s
/// then leave alone.
pub(crate) struct Descriptors {
    pub(crate) tensors: Few<TensorDesc>,
    pub(crate) _lists: Few<TensorListDesc>,
    pub(crate) _scalars: Few<ScalarDesc>,
    pub(crate) _arrays: Few<IntArrayDesc>,
    pub(crate) _bool_arrays: Few<BoolArrayDesc>,
    pub(crate) _float_arrays: Few<FloatArrayDesc>,
}

/// An operator after phase 1 (`aclnnXxxGetWorkspaceSize`): arguments
/// checked, workspace sized, executor built. It borrows its tensors' memory
/// (inputs shared, outputs mutably) from now until the launch is waited on.
///
/// [`launch`](Prepared::launch) consumes it: a single-use executor cannot be
/// launched twice, which the compiler enforces. For repeated launches with
/// the same shapes, see [`Prepared::into_repeatable`]. Dropping it unlaunched
/// destroys the executor.
#[must_use = "a prepared operator does nothing until it is launched"]
pub struct Prepared<'a> {
    pub(crate) op: &'static str,
    pub(crate) aclnn: &'static Aclnn,
    pub(crate) executor: *mut aclOpExecutor,
    pub(crate) workspace_size: u64,
    pub(crate) phase2: Phase2,
    pub(crate) reads: Few<Storage<'a>>,
    pub(crate) writes: Few<Storage<'a>>,
    pub(crate) descriptors: Descriptors,
    pub(crate) slots: Slots,
    _borrows: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("op", &self.op)
            .field("workspace_size", &self.workspace_size)
            .finish()
    }
}

impl<'a> Prepared<'a> {
    pub(crate) fn new(
        p: Phase1<'a>,
        phase2: Phase2,
        executor: *mut aclOpExecutor,
        workspace_size: u64,
    ) -> Self {
        Prepared {
            op: p.op,
            aclnn: p.aclnn,
            executor,
            workspace_size,
            phase2,
            reads: p.reads,
            writes: p.writes,
            descriptors: Descriptors {
                tensors: p.tensors,
                _lists: p.lists,
                _scalars: p.scalars,
                _arrays: p.arrays,
                _bool_arrays: p.bool_arrays,
                _float_arrays: p.float_arrays,
            },
            slots: p.slots,
            _borrows: PhantomData,
        }
    }

    /// The operator's name (`Add`, `Mm`, ...).
    pub fn op(&self) -> &'static str {
        self.op
    }

    /// The device workspace phase 1 asked for, in bytes.
    pub fn workspace_size(&self) -> u64 {
        self.workspace_size
    }

    /// Phase 2: queues the operator on `stream`, with its workspace from
    /// `workspace`. Returns a guard that keeps the tensors borrowed until it
    /// is waited on; every tensor's memory remembers the launch, so leaking
    /// the guard still orders later uses after it.
    pub fn launch(
        mut self,
        stream: &'a Stream,
        workspace: impl Into<Workspace<'a>>,
    ) -> Result<OpPending<'a>> {
        // Converted before the executor leaves `self`: a panicking conversion
        // then still destroys it in Drop.
        let workspace = workspace.into();
        let executor = std::mem::replace(&mut self.executor, std::ptr::null_mut());
        let result = launch_executor(
            LaunchArgs {
                op: self.op,
                aclnn: self.aclnn,
                executor,
                workspace_size: self.workspace_size,
                phase2: self.phase2,
                reads: &self.reads,
                writes: &self.writes,
            },
            stream,
            workspace,
        );
        if let Err((error, called)) = result {
            if !called {
                self.executor = executor; // destroyed by Drop
            }
            return Err(error);
        }
        let (marker, trackers) = result.unwrap_or_else(|_| unreachable!());
        Ok(OpPending::new(self.op, stream, marker, trackers))
    }
}

impl Prepared<'_> {
    /// Takes the descriptors out (their new owner keeps them as long as the
    /// executor that was built over them).
    pub(crate) fn take_descriptors(&mut self) -> Descriptors {
        std::mem::replace(
            &mut self.descriptors,
            Descriptors {
                tensors: Few::new(),
                _scalars: Few::new(),
                _arrays: Few::new(),
                _bool_arrays: Few::new(),
                _lists: Few::new(),
                _float_arrays: Few::new(),
            },
        )
    }
}

impl Drop for Prepared<'_> {
    fn drop(&mut self) {
        if self.executor.is_null() {
            return;
        }
        // An executor never launched: destroyed here. nnopbase deletes any
        // executor this way (hicann/opbase v8.5.0,
        // src/nnopbase/common/api/acl_op_api.cpp:489-505).
        crate::deferred::release("an unlaunched operator", || {
            // SAFETY: an executor never launched, destroyed at most once (a failed destroy leaves it alive).
            match unsafe { self.aclnn.aclDestroyAclOpExecutor(self.executor) } {
                Ok(0) => Ok(()),
                Ok(code) => Err(AclError::new(code, "aclDestroyAclOpExecutor", None).into()),
                Err(missing) => Err(missing.into()),
            }
        });
    }
}

/// Everything a launch needs, for single-use and repeatable executors.
pub(crate) struct LaunchArgs<'s, 'a> {
    pub(crate) op: &'static str,
    pub(crate) aclnn: &'static Aclnn,
    pub(crate) executor: *mut aclOpExecutor,
    pub(crate) workspace_size: u64,
    pub(crate) phase2: Phase2,
    pub(crate) reads: &'s [Storage<'a>],
    pub(crate) writes: &'s [Storage<'a>],
}

/// A launch's marker and the trackers that learned it, or the error and
/// whether phase 2 was called.
pub(crate) type Launched<'a> =
    std::result::Result<(Launch<'a>, Few<&'a UseTracker>), (Error, bool)>;

/// The launch itself. On error, says whether phase 2 was called (a
/// single-use executor is then gone: nnopbase deletes it after the run
/// whatever the result, hicann/opbase v8.5.0
/// src/nnopbase/composite_op/aclnn_engine/op_executor.cpp:1416-1420).
pub(crate) fn launch_executor<'a>(
    args: LaunchArgs<'_, 'a>,
    stream: &'a Stream,
    workspace: Workspace<'a>,
) -> Launched<'a> {
    let not_called = |error: Error| (error, false);
    let raw = stream.bound().map_err(not_called)?;
    let device = stream.context().device_id();
    for storage in args.reads.iter().chain(args.writes) {
        if storage.ctx.device_id() != device {
            return Err(not_called(Error::invalid(format!(
                "{}{}: a tensor is on device {} but the stream on device {device}",
                args.phase2.prefix(),
                args.op,
                storage.ctx.device_id()
            ))));
        }
    }
    let size = args.workspace_size;
    let mut block = None;
    let (ws_ptr, ws_tracker): (*mut c_void, Option<&UseTracker>) = match (size, workspace.source) {
        (0, _) => (std::ptr::null_mut(), None),
        (_, Source::None) => {
            return Err(not_called(Error::invalid(format!(
                "{}{} needs {size} bytes of workspace; launch with Workspace::from_allocator or from_buffer",
                args.phase2.prefix(),
                args.op
            ))));
        }
        (_, Source::Allocator(allocator)) => {
            let bytes = usize::try_from(size)
                .map_err(|_| not_called(Error::invalid("workspace size overflows usize")))?;
            let b = allocator.alloc::<u8>(stream, bytes).map_err(not_called)?;
            let ptr = b.as_device_ptr().cast_mut();
            block = Some(b);
            (ptr, None)
        }
        (_, Source::Buffer(buffer)) => {
            if (buffer.len() as u64) < size {
                return Err(not_called(Error::invalid(format!(
                    "{}{} needs {size} bytes of workspace; the buffer has {}",
                    args.phase2.prefix(),
                    args.op,
                    buffer.len()
                ))));
            }
            let parts = buffer.raw_parts();
            if parts.ctx.device_id() != device {
                return Err(not_called(Error::invalid(
                    "the workspace buffer is on another device",
                )));
            }
            (parts.ptr, Some(parts.tracker))
        }
    };
    let mut touches: Few<(&UseTracker, Access)> = Few::new();
    touches.extend(args.reads.iter().map(|s| (s.tracker, Access::Read)));
    touches.extend(args.writes.iter().map(|s| (s.tracker, Access::Write)));
    let block_tracker = block.as_ref().map(|b| b.raw_parts().tracker);
    touches.extend(ws_tracker.or(block_tracker).map(|t| (t, Access::Write)));

    let called = Cell::new(false);
    let marker = tracker::enqueue(
        stream,
        raw,
        &touches,
        FailedLaunch::MayHaveQueued,
        |lib, raw| {
            called.set(true);
            // SAFETY: a live executor from phase 1; the workspace is live device
            // memory of at least `size` bytes (or null for 0) and every tensor's
            // memory is borrowed and tracked until the marker after this launch.
            let status = unsafe {
                args.phase2
                    .call(args.aclnn, ws_ptr, size, args.executor, raw)
            }?;
            if status == 0 {
                Ok(())
            } else {
                Err(AclError::new(status, args.phase2.name(args.op), recent_message(lib)).into())
            }
        },
    );
    // The workspace block goes back to the cache now: its tracker holds the
    // launch, so the allocator reuses it only after (or in order behind) it.
    drop(touches);
    drop(block);
    match marker {
        Ok(marker) => {
            let trackers = args
                .reads
                .iter()
                .chain(args.writes)
                .map(|s| s.tracker)
                .chain(ws_tracker)
                .collect();
            Ok((marker, trackers))
        }
        Err(error) => Err((error, called.get())),
    }
}
