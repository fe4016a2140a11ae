//! Capturing work on a stream into a graph.

use std::cell::RefCell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

use ascendcl_sys::{Aclnn, aclmdlRI, aclmdlRICaptureMode, aclrtMemcpyKind};

use crate::alloc::{Block, CachingAllocator};
use crate::call::check;
use crate::error::{AclError, Error, Result};
use crate::graph::mode_gate::ModeGate;
use crate::graph::owned::{HostInput, HostOutput, Owned};
use crate::graph::views::{Bound, BoundMem, Holder, Views};
use crate::graph::{Graph, GraphParts};
use crate::memory::sealed::Sealed;
use crate::memory::{DeviceCopy, DeviceSlice, DeviceSliceMut, HostBuffer};
use crate::ops::workspace::{Source, Workspace};
use crate::ops::{Element, Prepared};
use crate::stream::Stream;
use crate::tracker::{Access, UseTracker};

/// Which other threads' calls a capture forbids (`aclmdlRICaptureMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptureMode {
    /// Calls that could disturb a capture are refused in every thread
    /// (synchronous copies and memsets among them): the default.
    #[default]
    Global,
    /// Only in the capturing thread.
    ThreadLocal,
    /// Nowhere.
    Relaxed,
}

impl CaptureMode {
    pub(crate) fn raw(self) -> aclmdlRICaptureMode {
        match self {
            CaptureMode::Global => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => aclmdlRICaptureMode::ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
        }
    }
}

/// A capture in progress on one stream: what is launched through it is
/// recorded into the graph [`Capture::end`] returns, not run.
///
/// Everything it captures stays reachable only through the graph: device
/// memory is bound to it ([`Capture::bind`]) for the graph's whole life
/// (`'g`), host buffers and workspace blocks are owned by it. While it lives, the stream refuses
/// tracked work, host functions, synchronizes and queries (typed errors
/// before any FFI call): CANN would invalidate the capture. As its mode
/// says, synchronous copies and memsets are refused too (GLOBAL: in every
/// thread, THREAD_LOCAL: in the capturing one; CANN's 107030). It is not
/// `Send`: a non-relaxed capture must end on the thread that began it.
/// Dropping it
/// without [`end`](Capture::end) ends the capture and discards the graph.
pub struct Capture<'g> {
    stream: Stream,
    parts: GraphParts<'g>,
    ended: bool,
    /// Counts the capture as active for the mode's refusals, until the
    /// capture ends (`end`, or dropping it unended).
    gate: Option<ModeGate>,
    _borrows: PhantomData<&'g mut ()>,
}

impl std::fmt::Debug for Capture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("stream", &self.stream)
            .field("operators", &self.parts.executors.len())
            .finish_non_exhaustive()
    }
}

impl<'g> Capture<'g> {
    /// Starts capturing `stream` (a stream created with [`Stream::new`] or
    /// [`Stream::with_config`], not a default stream: CANN refuses those).
    /// Synchronizes the stream first, so no work queued before the capture
    /// is left for a wait to mark during it.
    pub fn begin(stream: &Stream, mode: CaptureMode) -> Result<Capture<'g>> {
        if stream.as_raw().is_null() {
            return Err(Error::invalid(
                "a default stream cannot be captured; capture a stream made with Stream::new",
            ));
        }
        stream.check_trackable()?;
        stream.synchronize()?;
        if stream.inner.capturing.swap(true, Ordering::AcqRel) {
            return Err(Error::InvalidState(
                "this stream is already being captured".into(),
            ));
        }
        let lib = stream.context().lib();
        // SAFETY: a live stream of the current context (bound by synchronize).
        let begun = check(lib, "aclmdlRICaptureBegin", unsafe {
            lib.aclmdlRICaptureBegin(stream.as_raw(), mode.raw())
        });
        if let Err(error) = begun {
            stream.inner.capturing.store(false, Ordering::Release);
            return Err(error);
        }
        Ok(Capture {
            stream: stream.clone(),
            parts: GraphParts::new(stream.context()),
            ended: false,
            gate: Some(ModeGate::enter(mode, stream.context())),
            _borrows: PhantomData,
        })
    }

    /// Hands `mem` to the capture for the graph's whole life (`'g`): the
    /// captured work reads and writes it only through views the capture
    /// makes ([`Views`]), and safe code cannot touch it until the graph is
    /// dropped. Returns its handle.
    pub fn bind<T: Element, D: DeviceSliceMut<T> + ?Sized>(
        &mut self,
        mem: &'g mut D,
    ) -> Result<Bound<T>> {
        let parts = mem.raw_parts();
        let device = self.stream.context().device_id();
        if parts.ctx.device_id() != device {
            return Err(Error::invalid(format!(
                "memory of device {} cannot be bound to a capture on device {device}",
                parts.ctx.device_id()
            )));
        }
        let owned = &self.parts.owned;
        if self
            .parts
            .bound
            .iter()
            .any(|b| std::ptr::eq(b.resolve(owned).1, parts.tracker))
        {
            return Err(Error::invalid(
                "this memory is already bound to the capture",
            ));
        }
        self.parts.bound.push(BoundMem {
            ptr: parts.ptr,
            bytes: parts.len * size_of::<T>(),
            holder: Holder::Borrowed {
                ctx: parts.ctx,
                tracker: parts.tracker,
            },
            access: Access::Read,
        });
        Ok(Bound {
            capture: self.parts.id,
            index: self.parts.bound.len() - 1,
            _element: PhantomData,
        })
    }

    /// Device memory for `len` elements that the graph owns, taken from
    /// `allocator` now (so allocate during capture only what a warm-up run
    /// has left in its cache) and given back only after the model is
    /// destroyed: for the step's intermediates, which live nowhere else.
    /// Captured operators reach it through views ([`Views`]) like bound
    /// memory; nothing else can. Its contents are unspecified until captured
    /// work writes it.
    pub fn scratch<T: Element>(
        &mut self,
        allocator: &CachingAllocator,
        len: usize,
    ) -> Result<Bound<T>> {
        if allocator.context().device_id() != self.stream.context().device_id() {
            return Err(Error::invalid(format!(
                "an allocator of device {} cannot give scratch memory to a capture on device {}",
                allocator.context().device_id(),
                self.stream.context().device_id()
            )));
        }
        let block = allocator.alloc::<T>(&self.stream, len)?;
        let ptr = block.as_device_ptr().cast_mut().cast::<c_void>();
        self.parts.owned.push(Box::new(block));
        self.parts.bound.push(BoundMem {
            ptr,
            bytes: len * size_of::<T>(),
            holder: Holder::Owned(self.parts.owned.len() - 1),
            access: Access::Read,
        });
        Ok(Bound {
            capture: self.parts.id,
            index: self.parts.bound.len() - 1,
            _element: PhantomData,
        })
    }

    fn bound_of<T>(&self, b: Bound<T>) -> Result<&BoundMem<'g>> {
        if b.capture != self.parts.id {
            return Err(Error::invalid("this handle was bound to another capture"));
        }
        Ok(&self.parts.bound[b.index])
    }

    fn note(&mut self, index: usize, access: Access) {
        if access == Access::Write {
            self.parts.bound[index].access = Access::Write;
        }
    }

    /// Captures an operator built from views of bound memory: `build` gets
    /// the [`Views`] and returns the prepared operator (phase 1, run now).
    /// Its executor is made repeatable and owned by the graph. Every tensor
    /// of the operator must be a view the capture made (checked: anything
    /// else would be replayed after its memory is gone). A workspace from an
    /// allocator is taken now and owned by the graph.
    pub fn launch<F>(&mut self, build: F, workspace: impl Into<Workspace<'g>>) -> Result<()>
    where
        F: for<'v> FnOnce(&'v Views<'v>) -> Result<Prepared<'v>>,
    {
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
                if (parts.len as u64) < size {
                    return Err(Error::invalid(format!(
                        "aclnn{name} needs {size} bytes of workspace; the buffer has {}",
                        parts.len
                    )));
                }
                (parts.ptr, Some(parts.tracker), None)
            }
            (_, Source::Allocator(allocator)) => {
                let bytes = usize::try_from(size)
                    .map_err(|_| Error::invalid("workspace size overflows usize"))?;
                let block = allocator.alloc::<u8>(&self.stream, bytes)?;
                (block.as_device_ptr().cast_mut(), None, Some(block))
            }
        };
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
        // SAFETY: our live executor, right after phase 1, not yet launched.
        match unsafe { aclnn.aclSetAclOpExecutorRepeatable(executor) } {
            Ok(0) => {}
            Ok(code) => {
                return Err(AclError::new(code, "aclSetAclOpExecutorRepeatable", None).into());
            }
            Err(missing) => return Err(missing.into()),
        }
        self.stream.context().bind()?;
        // SAFETY: a live repeatable executor; the workspace (or null for 0
        // bytes) and every tensor's memory stay bound (or owned) for the
        // graph's life, which destroys the model before any of them.
        let status = unsafe { phase2(aclnn, ws_ptr, size, executor, self.stream.as_raw()) }?;
        if status != 0 {
            return Err(AclError::new(status, "aclnn phase 2 (captured)", None).into());
        }
        Ok(())
    }

    /// Gives the graph a pinned host buffer that captured uploads read: the
    /// next replay's input is written through [`Graph::host_input_mut`].
    pub fn host_input<T: DeviceCopy>(&mut self, host: HostBuffer<T>) -> HostInput<T> {
        HostInput {
            graph: self.parts.id,
            index: self.own(host, Access::Read),
            _element: PhantomData,
        }
    }

    /// Gives the graph a pinned host buffer that captured downloads write:
    /// read after a replay through [`Graph::host_output`].
    pub fn host_output<T: DeviceCopy>(&mut self, host: HostBuffer<T>) -> HostOutput<T> {
        HostOutput {
            graph: self.parts.id,
            index: self.own(host, Access::Write),
            _element: PhantomData,
        }
    }

    fn own(&mut self, memory: impl Owned + 'static, access: Access) -> usize {
        self.parts.owned.push(Box::new(memory));
        self.parts
            .owned_access
            .push((self.parts.owned.len() - 1, access));
        self.parts.owned.len() - 1
    }

    fn host_parts<T: DeviceCopy>(&self, graph: u64, index: usize) -> Result<(*mut c_void, usize)> {
        if graph != self.parts.id {
            return Err(Error::invalid(
                "this host buffer belongs to another capture",
            ));
        }
        let host: &HostBuffer<T> = self.parts.owned[index]
            .as_any()
            .downcast_ref()
            .ok_or_else(|| Error::InvalidState("a host buffer of another type".into()))?;
        let parts = host.raw_parts();
        Ok((parts.ptr, parts.len * size_of::<T>()))
    }

    /// Captures a copy of `from` (a host input of this capture) into bound memory.
    pub fn upload<T: DeviceCopy>(&mut self, from: &HostInput<T>, to: Bound<T>) -> Result<()> {
        let (src, src_bytes) = self.host_parts::<T>(from.graph, from.index)?;
        let dst = self.bound_of(to)?;
        let (dst_ptr, dst_bytes) = (dst.ptr, dst.bytes);
        self.copy(
            src,
            dst_ptr,
            src_bytes,
            dst_bytes,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )?;
        self.note(to.index, Access::Write);
        Ok(())
    }

    /// Captures a copy of bound memory into `to` (a host output of this capture).
    pub fn download<T: DeviceCopy>(&mut self, from: Bound<T>, to: &HostOutput<T>) -> Result<()> {
        let (dst, dst_bytes) = self.host_parts::<T>(to.graph, to.index)?;
        let src = self.bound_of(from)?;
        let (src_ptr, src_bytes) = (src.ptr, src.bytes);
        self.copy(
            src_ptr,
            dst,
            src_bytes,
            dst_bytes,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }

    fn copy(
        &self,
        from: *mut c_void,
        to: *mut c_void,
        from_bytes: usize,
        to_bytes: usize,
        kind: aclrtMemcpyKind,
    ) -> Result<()> {
        if from_bytes != to_bytes {
            return Err(Error::invalid(format!(
                "a captured copy of {from_bytes} bytes into {to_bytes}: the sizes must match"
            )));
        }
        let lib = self.stream.context().lib();
        self.stream.context().bind()?;
        // SAFETY: both ranges are live memory of `from_bytes` bytes (pinned
        // host memory the graph owns, device memory bound for the graph's
        // life) that the graph keeps until its model is destroyed.
        check(lib, "aclrtMemcpyAsync", unsafe {
            lib.aclrtMemcpyAsync(
                to,
                from_bytes,
                from.cast_const(),
                from_bytes,
                kind,
                self.stream.as_raw(),
            )
        })
    }

    /// Ends the capture and returns the graph. If CANN invalidated the
    /// capture (a forbidden call from another thread, a failed launch), this
    /// fails and everything captured is released.
    pub fn end(mut self) -> Result<Graph<'g>> {
        let model = self.finish()?;
        let parts = std::mem::replace(&mut self.parts, GraphParts::new(self.stream.context()));
        Ok(Graph::new(model, parts))
    }

    fn finish(&mut self) -> Result<aclmdlRI> {
        self.ended = true;
        let lib = self.stream.context().lib();
        let mut model: aclmdlRI = std::ptr::null_mut();
        let bound = self.stream.context().bind();
        let ended = bound.and_then(|()| {
            // SAFETY: the stream this capture began on, a valid out-pointer.
            check(lib, "aclmdlRICaptureEnd", unsafe {
                lib.aclmdlRICaptureEnd(self.stream.as_raw(), &mut model)
            })
        });
        self.stream.inner.capturing.store(false, Ordering::Release);
        self.gate = None;
        match ended {
            Ok(()) if !model.is_null() => Ok(model),
            Ok(()) => Err(Error::InvalidState(
                "the capture ended without a graph".into(),
            )),
            Err(error) => {
                if !model.is_null() {
                    // SAFETY: the model CaptureEnd returned, never launched.
                    let _ = unsafe { lib.aclmdlRIDestroy(model) };
                }
                Err(error)
            }
        }
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        if let Ok(model) = self.finish() {
            let lib = self.stream.context().lib();
            // SAFETY: the model just captured, never launched.
            let _ = unsafe { lib.aclmdlRIDestroy(model) };
        }
        // `parts` drops now: its executors are destroyed (nothing ran them).
    }
}
