//! Recording the requests a caching allocator serves, so that a real
//! program's allocation sequence can be replayed against other strategies.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::alloc::{AllocatorConfig, CachingAllocator, RequestKind};
//! let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
//! let stream = ascendcl::Stream::new(&ctx)?;
//! let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
//! allocator.start_recording();
//! drop(allocator.alloc::<f32>(&stream, 1000)?);
//! let requests = allocator.take_recording();
//! assert_eq!(requests.len(), 2);
//! assert_eq!((requests[0].kind, requests[0].bytes), (RequestKind::Alloc, 4000));
//! assert_eq!(requests[1].kind, RequestKind::Free);
//! # Ok::<(), ascendcl::Error>(())
//! ```

use std::sync::{Mutex, PoisonError};

/// Whether a request allocated or freed a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// A block was handed out.
    Alloc,
    /// A block came back.
    Free,
}

/// One request, in the order the allocator saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Request {
    /// Allocation or free.
    pub kind: RequestKind,
    /// The block (the same on its allocation and its free).
    pub id: u64,
    /// Bytes requested (before the allocator's rounding).
    pub bytes: u64,
    /// The stream the block was allocated for (the crate's stream id).
    pub stream: u64,
    /// The step set with [`CachingAllocator::set_recording_step`](super::CachingAllocator::set_recording_step).
    pub step: u32,
}

/// The requests recorded so far, when recording.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    inner: Mutex<Option<Recording>>,
}

#[derive(Debug, Default)]
struct Recording {
    requests: Vec<Request>,
    next_id: u64,
    step: u32,
}

impl Recorder {
    fn with<R>(&self, f: impl FnOnce(&mut Option<Recording>) -> R) -> R {
        f(&mut self.inner.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn start(&self) {
        self.with(|r| *r = Some(Recording::default()));
    }

    pub(crate) fn take(&self) -> Vec<Request> {
        self.with(|r| r.take().map(|r| r.requests).unwrap_or_default())
    }

    pub(crate) fn set_step(&self, step: u32) {
        self.with(|r| {
            if let Some(r) = r {
                r.step = step;
            }
        });
    }

    /// Records an allocation; returns the block's id (0 when not recording).
    pub(crate) fn alloc(&self, bytes: usize, stream: u64) -> u64 {
        self.with(|r| match r {
            None => 0,
            Some(r) => {
                r.next_id += 1;
                let id = r.next_id;
                let step = r.step;
                r.requests.push(Request {
                    kind: RequestKind::Alloc,
                    id,
                    bytes: bytes as u64,
                    stream,
                    step,
                });
                id
            }
        })
    }

    /// Records the free of block `id` (ignored for blocks allocated while
    /// not recording).
    pub(crate) fn free(&self, id: u64, bytes: usize, stream: u64) {
        if id == 0 {
            return;
        }
        self.with(|r| {
            if let Some(r) = r {
                let step = r.step;
                r.requests.push(Request {
                    kind: RequestKind::Free,
                    id,
                    bytes: bytes as u64,
                    stream,
                    step,
                });
            }
        });
    }
}
