//! Capturing work on a stream into a graph.

use std::ffi::c_void;
use std::marker::PhantomData;

use ascendcl_sys::{aclmdlRI, aclmdlRICaptureMode, aclmdlRICaptureStatus};

use crate::alloc::CachingAllocator;
use crate::call::check;
use crate::error::{Error, Result};
use crate::graph::branches::Side;
use crate::graph::hazards::Hazards;
use crate::graph::mode_gate::ModeGate;
use crate::graph::views::{Bound, BoundMem, Holder, Views};
use crate::graph::{Graph, GraphParts};
use crate::lane::BeginCapture;
use crate::memory::{DeviceSlice, DeviceSliceMut};
use crate::ops::workspace::Workspace;
use crate::ops::{Element, Prepared};
use crate::stream::Stream;
use crate::tracker::Access;

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
    pub(super) stream: Stream,
    pub(super) parts: GraphParts<'g>,
    /// Streams forked into the capture (branch `i + 1`).
    pub(super) branches: Vec<Side>,
    /// Happens-before of the captured tasks over the branches.
    pub(super) hazards: Hazards,
    ended: bool,
    /// CANN never ended the capture (see `finish`).
    stuck: bool,
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
        let lib = stream.context().lib();
        let mut gate = None;
        join_capture(stream, || {
            // SAFETY: a live stream of the current context (bound by the
            // synchronize `join_capture` makes first).
            check(lib, "aclmdlRICaptureBegin", unsafe {
                lib.aclmdlRICaptureBegin(stream.as_raw(), mode.raw())
            })?;
            // Counted as soon as CANN captures, in the same critical section.
            gate = Some(ModeGate::enter(mode, stream.context()));
            Ok(())
        })?;
        Ok(Capture {
            stream: stream.clone(),
            parts: GraphParts::new(stream.context()),
            branches: Vec::new(),
            hazards: Hazards::new(),
            ended: false,
            stuck: false,
            gate,
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

    pub(super) fn bound_of<T>(&self, b: Bound<T>) -> Result<&BoundMem<'g>> {
        if b.capture != self.parts.id {
            return Err(Error::invalid("this handle was bound to another capture"));
        }
        Ok(&self.parts.bound[b.index])
    }

    pub(super) fn note(&mut self, index: usize, access: Access) {
        if access == Access::Write {
            self.parts.bound[index].access = Access::Write;
        }
    }

    /// Captures an operator on the capture's own stream: see
    /// [`Capture::launch_on`].
    pub fn launch<F>(&mut self, build: F, workspace: impl Into<Workspace<'g>>) -> Result<()>
    where
        F: for<'v> FnOnce(&'v Views<'v>) -> Result<Prepared<'v>>,
    {
        self.launch_on(self.origin(), build, workspace)
    }

    /// Ends the capture and returns the graph. If CANN invalidated the
    /// capture (a forbidden call from another thread, a failed launch), this
    /// fails and everything captured is released.
    pub fn end(mut self) -> Result<Graph<'g>> {
        let model = self.finish()?;
        let parts = std::mem::replace(&mut self.parts, GraphParts::new(self.stream.context()));
        Ok(Graph::new(model, parts))
    }

    /// One `aclmdlRICaptureEnd`.
    fn end_once(&self, model: &mut aclmdlRI) -> Result<()> {
        let lib = self.stream.context().lib();
        self.stream.context().bind()?;
        // SAFETY: the stream this capture began on, a valid out-pointer.
        check(lib, "aclmdlRICaptureEnd", unsafe {
            lib.aclmdlRICaptureEnd(self.stream.as_raw(), model)
        })
    }

    /// Whether CANN still captures the stream (ACTIVE or INVALIDATED); a
    /// failed query counts as yes.
    fn still_capturing(&self) -> bool {
        let lib = self.stream.context().lib();
        let mut status = aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
        let mut model: aclmdlRI = std::ptr::null_mut();
        // SAFETY: the capture's live stream and two valid out-pointers.
        let asked = check(lib, "aclmdlRICaptureGetInfo", unsafe {
            lib.aclmdlRICaptureGetInfo(self.stream.as_raw(), &mut status, &mut model)
        });
        asked.is_err() || status != aclmdlRICaptureStatus::ACL_MODEL_RI_CAPTURE_STATUS_NONE
    }

    /// Joins the open branches and ends the capture. An end that fails while
    /// CANN still captures the stream is tried again (`END_ATTEMPTS` in
    /// all); if it never succeeds the capture is stuck: its model, which
    /// CANN keeps and which is not ours to destroy, still refers to
    /// everything captured, so the graph's memory, executors and events are
    /// leaked and the streams stay marked as captured (CANN still captures
    /// them), with the error parked.
    fn finish(&mut self) -> Result<aclmdlRI> {
        const END_ATTEMPTS: usize = 3;
        self.ended = true;
        let lib = self.stream.context().lib();
        let joined = self.stream.context().bind().and_then(|()| self.join_all());
        let mut model: aclmdlRI = std::ptr::null_mut();
        let mut ended = self.end_once(&mut model);
        for _ in 1..END_ATTEMPTS {
            if ended.is_ok() || !self.still_capturing() {
                break;
            }
            ended = self.end_once(&mut model);
        }
        if let Err(error) = &ended {
            if self.still_capturing() {
                self.stuck = true;
                crate::deferred::park(
                    "ending a capture (CANN still captures the stream: its memory, executors and \
                     events were leaked, and the stream refuses work)",
                    error.clone(),
                );
                return Err(error.clone());
            }
        }
        for side in &self.branches {
            side.stream.inner.lane.end_capture();
        }
        self.stream.inner.lane.end_capture();
        self.gate = None;
        let destroy = |model: aclmdlRI| {
            if !model.is_null() {
                // SAFETY: the model CaptureEnd returned, never launched.
                let _ = unsafe { lib.aclmdlRIDestroy(model) };
            }
        };
        match (joined, ended) {
            (Ok(()), Ok(())) if !model.is_null() => Ok(model),
            (Ok(()), Ok(())) => Err(Error::InvalidState(
                "the capture ended without a graph".into(),
            )),
            (Err(error), _) | (Ok(()), Err(error)) => {
                destroy(model);
                Err(error)
            }
        }
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if !self.ended {
            if let Ok(model) = self.finish() {
                let lib = self.stream.context().lib();
                // SAFETY: the model just captured, never launched.
                let _ = unsafe { lib.aclmdlRIDestroy(model) };
            }
        }
        if self.stuck {
            // CANN's model still refers to all of it (see `finish`).
            let parts = std::mem::replace(&mut self.parts, GraphParts::new(self.stream.context()));
            std::mem::forget(parts);
            std::mem::forget(self.gate.take());
        }
        // Otherwise `parts` drops now: its executors are destroyed (nothing
        // ran them), then its events and memory.
    }
}

/// Synchronizes `stream`, then runs `begin` and marks the stream as
/// captured in one critical section of its lane (which every tracked launch
/// and host function takes): nothing of ours lands in the capture, and every
/// launch of ours before it is known finished. Work queued by another
/// thread between the synchronize and the mark makes it synchronize again.
pub(super) fn join_capture(stream: &Stream, begin: impl FnOnce() -> Result<()>) -> Result<()> {
    const ATTEMPTS: usize = 64;
    let mut begin = Some(begin);
    for _ in 0..ATTEMPTS {
        stream.synchronize()?;
        let once = || begin.take().map_or(Ok(()), |f| f());
        match stream.inner.lane.begin_capture(once) {
            Ok(()) => return Ok(()),
            Err(BeginCapture::Busy) => continue,
            Err(BeginCapture::Failed(error)) => return Err(error),
        }
    }
    Err(Error::InvalidState(format!(
        "other threads kept queuing work on this stream: it was not idle after {ATTEMPTS} \
         synchronizes, so the capture did not begin"
    )))
}
