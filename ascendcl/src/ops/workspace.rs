//! Where an operator's device workspace comes from.

use crate::DeviceBuffer;
use crate::alloc::CachingAllocator;

/// The device workspace of a launch, when phase 1 asks for one.
///
/// * [`Workspace::from_allocator`]: a block of the caching allocator, taken on
///   the launch's stream and handed back at once; the allocator reuses it
///   only after (or, on the same stream, in order behind) the operator;
/// * [`Workspace::from_buffer`]: a buffer of yours, borrowed until the
///   launch is waited on and tracked like any operand;
/// * [`Workspace::none`]: for operators known to need none; a launch that
///   needs some fails before any FFI call.
#[derive(Debug)]
pub struct Workspace<'w> {
    pub(crate) source: Source<'w>,
}

#[derive(Debug)]
pub(crate) enum Source<'w> {
    None,
    Allocator(&'w CachingAllocator),
    Buffer(&'w mut DeviceBuffer<u8>),
}

impl<'w> Workspace<'w> {
    /// No workspace.
    pub fn none() -> Workspace<'static> {
        Workspace {
            source: Source::None,
        }
    }

    /// Workspace from a caching allocator (the usual choice).
    pub fn from_allocator(allocator: &'w CachingAllocator) -> Workspace<'w> {
        Workspace {
            source: Source::Allocator(allocator),
        }
    }

    /// Workspace in a buffer of at least the size phase 1 asked for.
    pub fn from_buffer(buffer: &'w mut DeviceBuffer<u8>) -> Workspace<'w> {
        Workspace {
            source: Source::Buffer(buffer),
        }
    }

    /// The same source for one more launch (a composite step such as
    /// [`sgd_step`](crate::ops::sgd_step) launches several operators).
    pub(crate) fn reborrow(&mut self) -> Workspace<'_> {
        let source = match &mut self.source {
            Source::None => Source::None,
            Source::Allocator(allocator) => Source::Allocator(allocator),
            Source::Buffer(buffer) => Source::Buffer(buffer),
        };
        Workspace { source }
    }
}

impl<'w> From<&'w CachingAllocator> for Workspace<'w> {
    fn from(allocator: &'w CachingAllocator) -> Workspace<'w> {
        Workspace::from_allocator(allocator)
    }
}

impl<'w> From<&'w mut DeviceBuffer<u8>> for Workspace<'w> {
    fn from(buffer: &'w mut DeviceBuffer<u8>) -> Workspace<'w> {
        Workspace::from_buffer(buffer)
    }
}
