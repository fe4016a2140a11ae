//! Capturing an operator on one of the capture's branches.

use std::cell::RefCell;
use std::ffi::c_void;

use ascendcl_sys::Aclnn;

use crate::alloc::Block;
use crate::error::{AclError, Error, Result};
use crate::graph::Capture;
use crate::graph::branches::Branch;
use crate::graph::views::Views;
use crate::memory::DeviceSlice;
use crate::memory::sealed::Sealed;
use crate::ops::Prepared;
use crate::ops::workspace::{Source, Workspace};
use crate::tracker::{Access, UseTracker};

impl<'g> Capture<'g> {
    /// Captures an operator on `branch` (the capture's own stream,
    /// [`Capture::origin`], or a stream [`fork`](Capture::fork)ed into it),
    /// built from views of bound memory: `build` gets the [`Views`] and
    /// returns the prepared operator (phase 1, run now). Its executor is made
    /// repeatable and owned by the graph. Every tensor of the operator must
    /// be a view the capture made (checked: anything else would be replayed
    /// after its memory is gone), and no other branch may use its memory
    /// unordered (checked: a write against any other use needs a
    /// [`join`](Capture::join) between them). A workspace from an allocator
    /// is taken now and owned by the graph.
    pub fn launch_on<F>(
        &mut self,
        branch: Branch,
        build: F,
        workspace: impl Into<Workspace<'g>>,
    ) -> Result<()>
    where
        F: for<'v> FnOnce(&'v Views<'v>) -> Result<Prepared<'v>>,
    {
        let on = self.branch_index(branch)?;
        let stream = self.stream_of(on).clone();
        let views = Views {
            bound: &self.parts.bound,
            owned: &self.parts.owned,
            capture: self.parts.id,
            taken: RefCell::new(Vec::new()),
        };
        let mut op = build(&views)?;
        let taken: Vec<(usize, Access)> = views.taken.borrow().clone();
        let owned = &self.parts.owned;
        let is_view = |tracker: &UseTracker, access: Access| {
            taken.iter().any(|&(i, a)| {
                std::ptr::eq(self.parts.bound[i].resolve(owned).1, tracker) && a == access
            })
        };
        let foreign = op.reads.iter().any(|s| !is_view(s.tracker, Access::Read))
            || op.writes.iter().any(|s| !is_view(s.tracker, Access::Write));
        if foreign {
            return Err(Error::invalid(format!(
                "aclnn{}: every tensor of a captured operator must be a view of memory bound to the \
                 capture (Capture::bind, Views::view / view_mut)",
                op.op
            )));
        }
        let (name, size, aclnn, phase2): (&str, u64, &'static Aclnn, _) =
            (op.op, op.workspace_size, op.aclnn, op.phase2);
        let mut uses: Vec<(usize, Access)> = taken
            .iter()
            .map(|&(i, a)| (hazard_key(self.parts.bound[i].resolve(owned).1), a))
            .collect();
        // The workspace is checked before the executor changes hands (an
        // error here leaves it to `op`'s Drop).
        let workspace = workspace.into().source;
        let (ws_ptr, ws_tracker, ws_block): (
            *mut c_void,
            Option<&'g UseTracker>,
            Option<Block<u8>>,
        ) = match (size, workspace) {
            (0, _) => (std::ptr::null_mut(), None, None),
            (_, Source::None) => {
                return Err(Error::invalid(format!(
                    "aclnn{name} needs {size} bytes of workspace; capture it with a workspace"
                )));
            }
            (_, Source::Buffer(buffer)) => {
                let parts = buffer.raw_parts();
                if parts.ctx.device_id() != stream.context().device_id() {
                    return Err(Error::invalid(format!(
                        "aclnn{name}: the workspace buffer is on device {} but the capture on device {}",
                        parts.ctx.device_id(),
                        stream.context().device_id()
                    )));
                }
                if (parts.len as u64) < size {
                    return Err(Error::invalid(format!(
                        "aclnn{name} needs {size} bytes of workspace; the buffer has {}",
                        parts.len
                    )));
                }
                uses.push((hazard_key(parts.tracker), Access::Write));
                (parts.ptr, Some(parts.tracker), None)
            }
            (_, Source::Allocator(allocator)) => {
                let bytes = usize::try_from(size)
                    .map_err(|_| Error::invalid("workspace size overflows usize"))?;
                let block = allocator.alloc::<u8>(&stream, bytes)?;
                (block.as_device_ptr().cast_mut(), None, Some(block))
            }
        };
        self.hazards.check(on, &uses)?;
        let executor = std::mem::replace(&mut op.executor, std::ptr::null_mut());
        let descriptors = op.take_descriptors();
        drop(op);
        drop(views);
        // From here the graph owns the executor (destroyed after the model),
        // its descriptors and the workspace.
        self.parts.executors.push((aclnn, executor));
        self.parts.descriptors.push(descriptors);
        if let Some(block) = ws_block {
            self.own(block, Access::Write);
        }
        if let Some(tracker) = ws_tracker {
            self.parts.workspaces.push(tracker);
        }
        for &(index, access) in &taken {
            self.note(index, access);
        }
        self.hazards.record(on, &uses);
        // SAFETY: our live executor, right after phase 1, not yet launched.
        match unsafe { aclnn.aclSetAclOpExecutorRepeatable(executor) } {
            Ok(0) => {}
            Ok(code) => {
                return Err(AclError::new(code, "aclSetAclOpExecutorRepeatable", None).into());
            }
            Err(missing) => return Err(missing.into()),
        }
        stream.context().bind()?;
        // SAFETY: a live repeatable executor; the workspace (or null for 0
        // bytes) and every tensor's memory stay bound (or owned) for the
        // graph's life, which destroys the model before any of them.
        let status = unsafe { phase2.call(aclnn, ws_ptr, size, executor, stream.as_raw()) }?;
        if status != 0 {
            return Err(AclError::new(status, "aclnn phase 2 (captured)", None).into());
        }
        Ok(())
    }
}

/// The key a buffer's uses are ordered by across branches: its tracker.
pub(super) fn hazard_key(tracker: &UseTracker) -> usize {
    std::ptr::from_ref(tracker) as usize
}
