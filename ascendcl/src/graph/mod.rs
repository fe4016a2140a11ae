//! Graphs: a step captured once and replayed with one launch (CANN 8.5
//! stream capture, "aclgraph": `aclmdlRICaptureBegin/End`,
//! `aclmdlRIExecuteAsync`).
//!
//! A [`Capture`] records what is launched through it on one stream into a
//! [`Graph`]; [`Graph::launch`] replays all of it on a stream with one call.
//! The graph is a tracked operation like any other: every buffer it reads or
//! writes learns each replay, so host access waits for the replay, a replay
//! on another stream is ordered after the last one, and leaking the guard
//! orders later uses all the same.
//!
//! What the graph captured stays reachable only through it:
//! * device memory is bound to the capture ([`Capture::bind`]), which borrows
//!   it exclusively for the graph's whole life (`Graph<'g>`), so safe code
//!   cannot free, move, read or write it until the graph is dropped; the
//!   captured operators are built from views of it ([`Views`]), checked like
//!   borrows within each operator (one writable view of a buffer, or
//!   read-only ones), and an operator over any other memory is refused;
//! * the step's intermediates can live in scratch memory the graph owns
//!   ([`Capture::scratch`]: allocator blocks, reachable only through the
//!   captured operators' views, given back after the model is destroyed);
//! * the pinned host buffers of captured copies, and workspace blocks taken
//!   from an allocator, are owned by the graph: the next input is written
//!   through [`Graph::host_input_mut`] and the output read through
//!   [`Graph::host_output`], both of which wait for the last replay;
//! * captured operators' executors are made repeatable and owned by the
//!   graph; dropping the graph waits for its replays, destroys the model, then
//!   the executors, then the memory it owns.
//!
//! Which threads a capture restricts follows its mode and each thread's own
//! ([`with_thread_mode`]); the synchronous copies and memsets CANN would
//! refuse are refused before any FFI call.
//!
//! A capture may span several streams: [`Capture::fork`] brings a side
//! stream in (through an event, as CANN requires), [`Capture::launch_on`]
//! captures work on it, [`Capture::join`] (or the end) brings it back. Work
//! on different branches runs concurrently in a replay, so a buffer that one
//! branch writes may not be used by another without a join between them:
//! refused with a typed error when captured.
//!
//! An all-reduce can be captured too ([`Capture::all_reduce_on`]): the
//! communicator is borrowed for the graph's life.
//!
//! Limits of this version: no other collectives and no host functions
//! inside a capture.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::graph::{Capture, CaptureMode};
//! use ascendcl::ops::{self, Workspace};
//! use ascendcl::prelude::*;
//! let ctx = Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let (mut x, mut y) = (DeviceBuffer::<f32>::zeroed(&ctx, 4)?, DeviceBuffer::<f32>::zeroed(&ctx, 4)?);
//! let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
//! let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?); // x and y belong to the graph now
//! let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
//! let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
//! cap.upload(&input, bx)?;
//! cap.launch(|v| ops::relu(&v.view(bx, &[4])?, v.view_mut(by, &[4])?), Workspace::none())?;
//! cap.download(by, &output)?;
//! let mut graph = cap.end()?;
//! for step in 0..3 {
//!     let s = step as f32;
//!     graph.host_input_mut(&input)?.copy_from_slice(&[-s, s, -1.0, 1.0]); // waits for the last replay
//!     graph.launch(&stream)?.detach(); // one aclmdlRIExecuteAsync
//!     assert_eq!(graph.host_output(&output)?, &[0.0, s, 0.0, 1.0]); // waits for this replay
//! }
//! drop(graph); // waits for its replays, then destroys the model; x and y are usable again
//! assert_eq!(y.to_vec()?, vec![0.0, 2.0, 0.0, 1.0]);
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod branches;
mod capture;
mod capture_collectives;
mod capture_copies;
mod capture_launch;
mod hazards;
pub(crate) mod mode_gate;
mod owned;
mod thread_mode;
mod views;

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use ascendcl_sys::{Aclnn, aclOpExecutor, aclmdlRI, aclrtEvent};

pub use branches::Branch;
pub use capture::{Capture, CaptureMode};
pub use owned::{HostInput, HostOutput};
pub use thread_mode::with_thread_mode;
use views::BoundMem;
pub use views::{Bound, Views};

use crate::call::check;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::latest_markers::LatestMarkers;
use crate::memory::{DeviceCopy, HostBuffer};
use crate::ops::OpPending;
use crate::ops::prepared::Descriptors;
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch, UseTracker};
use owned::Owned;

static NEXT_GRAPH: AtomicU64 = AtomicU64::new(1);

/// What a capture collects, owned by the graph.
pub(crate) struct GraphParts<'g> {
    id: u64,
    ctx: Context,
    /// Device memory bound to the capture, and how the work touches it.
    bound: Vec<BoundMem<'g>>,
    /// Workspace buffers lent to captured operators (written).
    workspaces: Vec<&'g UseTracker>,
    /// Memory the graph owns (host buffers, workspace and scratch blocks),
    /// and how the captured work touches each (scratch blocks: in `bound`).
    owned: Vec<Box<dyn Owned>>,
    owned_access: Vec<(usize, Access)>,
    /// Repeatable executors of the captured operators, and their descriptors.
    executors: Vec<(&'static Aclnn, *mut aclOpExecutor)>,
    descriptors: Vec<Descriptors>,
    /// The events that fork and join the capture's branches.
    events: Vec<aclrtEvent>,
}

// SAFETY: executor and event handles are identifiers nnopbase and ACL
// accept from any thread; they are used only by the owner (&mut or Drop).
unsafe impl Send for GraphParts<'_> {}
// SAFETY: as above; nothing is mutated through `&GraphParts`.
unsafe impl Sync for GraphParts<'_> {}

impl GraphParts<'_> {
    fn new(ctx: &Context) -> Self {
        GraphParts {
            id: NEXT_GRAPH.fetch_add(1, Ordering::Relaxed),
            ctx: ctx.clone(),
            bound: Vec::new(),
            workspaces: Vec::new(),
            owned: Vec::new(),
            owned_access: Vec::new(),
            executors: Vec::new(),
            descriptors: Vec::new(),
            events: Vec::new(),
        }
    }
}

impl Drop for GraphParts<'_> {
    fn drop(&mut self) {
        // Only after the model is destroyed (or was never made).
        for &(aclnn, executor) in &self.executors {
            crate::deferred::release("a captured operator", || {
                // SAFETY: a repeatable executor of ours that no model uses.
                match unsafe { aclnn.aclDestroyAclOpExecutor(executor) } {
                    Ok(0) => Ok(()),
                    Ok(code) => {
                        Err(crate::AclError::new(code, "aclDestroyAclOpExecutor", None).into())
                    }
                    Err(missing) => Err(missing.into()),
                }
            });
        }
        self.descriptors.clear();
        let lib = self.ctx.lib();
        for &event in &self.events {
            crate::deferred::release("a capture's fork or join event", || {
                self.ctx.bind()?;
                // SAFETY: our event; the model that captured it is destroyed.
                check(lib, "aclrtDestroyEvent", unsafe {
                    lib.aclrtDestroyEvent(event)
                })
            });
        }
        // `owned` drops after this: each waits for its tracked uses.
    }
}

/// A captured step: replay it with [`Graph::launch`].
pub struct Graph<'g> {
    model: aclmdlRI,
    parts: GraphParts<'g>,
    launches: Mutex<LatestMarkers>,
    /// A replay failed after `aclmdlRIExecuteAsync` was called: part of it
    /// may be queued without a position to wait for.
    unproven: std::sync::atomic::AtomicBool,
    _borrows: PhantomData<&'g mut ()>,
}

// SAFETY: the model handle is an identifier ACL accepts from any thread;
// the launch bookkeeping is behind a Mutex.
unsafe impl Send for Graph<'_> {}
// SAFETY: as above.
unsafe impl Sync for Graph<'_> {}

impl std::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("operators", &self.parts.executors.len())
            .field("owned_buffers", &self.parts.owned.len())
            .finish_non_exhaustive()
    }
}

impl<'g> Graph<'g> {
    fn new(model: aclmdlRI, parts: GraphParts<'g>) -> Self {
        Graph {
            model,
            parts,
            launches: Mutex::new(LatestMarkers::default()),
            unproven: std::sync::atomic::AtomicBool::new(false),
            _borrows: PhantomData,
        }
    }

    /// Number of operators captured.
    pub fn operators(&self) -> usize {
        self.parts.executors.len()
    }

    /// Replays the graph on `stream` (of the graph's device): one
    /// `aclmdlRIExecuteAsync`, ordered after every earlier use of the memory
    /// it touches, and remembered by all of it. It takes `&mut self`: a
    /// replay writes the graph's host outputs, which [`Graph::host_output`]
    /// lends out shared.
    pub fn launch<'a>(&'a mut self, stream: &'a Stream) -> Result<OpPending<'a>> {
        let this: &'a Self = self;
        this.replay(stream)
    }

    fn replay<'a>(&'a self, stream: &'a Stream) -> Result<OpPending<'a>> {
        let (mine, theirs) = (self.parts.ctx.device_id(), stream.context().device_id());
        if mine != theirs {
            return Err(Error::invalid(format!(
                "this graph was captured on device {mine} and cannot be replayed on a stream of device {theirs}"
            )));
        }
        let owned = &self.parts.owned;
        let mut touches: Vec<(&UseTracker, Access)> = self
            .parts
            .bound
            .iter()
            .map(|b| (b.resolve(owned).1, b.access))
            .collect();
        touches.extend(self.parts.workspaces.iter().map(|t| (*t, Access::Write)));
        for &(index, access) in &self.parts.owned_access {
            touches.push((self.parts.owned[index].tracker(), access));
        }
        let raw = stream.bound()?;
        let model = self.model;
        let called = std::cell::Cell::new(false);
        let at = tracker::enqueue(
            stream,
            raw,
            &touches,
            FailedLaunch::MayHaveQueued,
            |lib, raw| {
                called.set(true);
                // SAFETY: our live model; every piece of memory it uses is
                // borrowed or owned by this graph and tracked by this launch.
                check(lib, "aclmdlRIExecuteAsync", unsafe {
                    lib.aclmdlRIExecuteAsync(model, raw)
                })
            },
        );
        let at = match at {
            Ok(at) => at,
            Err(error) => {
                if called.get() {
                    // Part of the replay may be queued, with no position to
                    // wait for: the drop waits for the whole device.
                    self.unproven.store(true, Ordering::Release);
                }
                return Err(error);
            }
        };
        self.launches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(at.to_queued_at());
        let trackers = touches.iter().map(|(t, _)| *t).collect();
        Ok(OpPending::new("aclmdlRIExecuteAsync", stream, at, trackers))
    }

    fn owned<T: DeviceCopy>(&self, graph: u64, index: usize) -> Result<&HostBuffer<T>> {
        if graph != self.parts.id {
            return Err(Error::invalid("this handle belongs to another graph"));
        }
        self.parts.owned[index]
            .as_any()
            .downcast_ref()
            .ok_or_else(|| Error::InvalidState("a host buffer of another type".into()))
    }

    /// The host buffer a captured upload reads, for the next replay's input
    /// (waits for the replays that still read it).
    pub fn host_input_mut<T: DeviceCopy>(&mut self, input: &HostInput<T>) -> Result<&mut [T]> {
        self.owned::<T>(input.graph, input.index)?;
        let buffer: &mut HostBuffer<T> = self.parts.owned[input.index]
            .as_any_mut()
            .downcast_mut()
            .ok_or_else(|| Error::InvalidState("a host buffer of another type".into()))?;
        buffer.as_mut_slice()
    }

    /// The host buffer a captured download writes (waits for the last
    /// replay that writes it).
    pub fn host_output<T: DeviceCopy>(&self, output: &HostOutput<T>) -> Result<&[T]> {
        self.owned::<T>(output.graph, output.index)?.as_slice()
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        let launches = std::mem::take(
            self.launches
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut waited = launches.iter().try_for_each(|at| at.wait());
        if waited.is_ok() && *self.unproven.get_mut() {
            waited = tracker::synchronize_device(&self.parts.ctx);
        }
        if let Err(error) = waited {
            // A replay may still run: never destroy what it uses.
            crate::deferred::park(
                "a graph (its model, executors and memory were leaked)",
                error,
            );
            let ctx = self.parts.ctx.clone();
            let parts = std::mem::replace(&mut self.parts, GraphParts::new(&ctx));
            std::mem::forget(parts);
            return;
        }
        let lib = self.parts.ctx.lib();
        let model = self.model;
        crate::deferred::release("a graph", || {
            self.parts.ctx.bind()?;
            // SAFETY: our model, no replay of it queued any more.
            check(lib, "aclmdlRIDestroy", unsafe {
                lib.aclmdlRIDestroy(model)
            })
        });
        // `parts` drops next: executors, then the memory the graph owns.
    }
}
