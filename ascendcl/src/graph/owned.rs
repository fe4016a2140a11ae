//! Memory a graph owns: the pinned host buffers its captured copies read and
//! write (refreshed between replays through the graph), the workspace
//! blocks its operators use, and the scratch blocks its operators' tensors
//! live in.

use std::any::Any;
use std::marker::PhantomData;

use crate::context::Context;
use crate::memory::DeviceCopy;
use crate::memory::sealed::Sealed;
use crate::tracker::UseTracker;

/// Owned memory with a tracker, kept by a graph for its whole life.
pub(crate) trait Owned: Send + Sync {
    /// The memory's tracker (every replay records a use in it).
    fn tracker(&self) -> &UseTracker;
    /// The memory's context.
    fn ctx(&self) -> &Context;
    /// For typed access through a handle.
    fn as_any(&self) -> &dyn Any;
    /// For typed access through a handle.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Sealed + Send + Sync + 'static> Owned for T {
    fn tracker(&self) -> &UseTracker {
        self.raw_parts().tracker
    }
    fn ctx(&self) -> &Context {
        self.raw_parts().ctx
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A pinned host buffer a graph's captured upload reads at every replay:
/// write the next input through [`Graph::host_input_mut`](super::Graph::host_input_mut).
#[derive(Debug)]
pub struct HostInput<T: DeviceCopy> {
    pub(crate) graph: u64,
    pub(crate) index: usize,
    pub(crate) _element: PhantomData<T>,
}

/// A pinned host buffer a graph's captured download writes at every replay:
/// read it through [`Graph::host_output`](super::Graph::host_output).
#[derive(Debug)]
pub struct HostOutput<T: DeviceCopy> {
    pub(crate) graph: u64,
    pub(crate) index: usize,
    pub(crate) _element: PhantomData<T>,
}
