//! A caching allocator for device memory, with fixed or expandable segments.
//!
//! Asking the device for memory (`aclrtMalloc`) costs tens of microseconds
//! and fragments HBM; training frameworks therefore cache freed blocks and
//! reuse them. [`CachingAllocator`] does that with two backends:
//!
//! * [`Backend::Segments`]: `aclrtMallocAlign32` segments split into blocks,
//!   as torch_npu's native caching allocator does ([`AllocatorConfig::segments`]
//!   follows its policy rule for rule, see there). Fast, but a segment
//!   returns to the device only when all of it is free, so the cache keeps
//!   the shapes of every large batch it has seen (reserved ≈ 1.6 × live on a
//!   varying-batch ResNet-50 trace).
//! * [`Backend::Expandable`]: one reserved address range per pool with
//!   physical pages mapped only under live blocks (see the VMM module). Free
//!   neighbours always merge and free pages move to where they are needed, so
//!   reserved memory follows live memory.
//!
//! Requests of at most 1 MiB come from a *small* pool, larger ones from a
//! *large* pool; sizes are rounded up to 512 bytes (after torch_npu's 32-byte
//! pad, for the torch_npu policy). Blocks ([`Block`]) are
//! RAII device memory: they implement [`DeviceSlice`](crate::DeviceSlice), so
//! copies and the async-safety contract work on them as on any buffer. A block
//! dropped while queued work still uses it is kept aside (*pending*) and reused
//! only by its own stream, in stream order, or by anyone once that work has
//! completed.
//!
//! When the device runs out of memory (207001), the allocator waits for
//! pending blocks, returns its cache to the device, and retries once; then it
//! fails with [`Error::OutOfMemory`], which carries
//! its [`Statistics`].
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::prelude::*;
//! use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
//! let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
//! let stream = Stream::new(&ctx)?;
//! let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
//! let mut block = allocator.alloc::<f32>(&stream, 1 << 20)?;
//! block.copy_from_host(&vec![1.0; 1 << 20])?;
//! drop(block); // back to the cache, not to the device
//! let again = allocator.alloc::<f32>(&stream, 1 << 20)?; // a cache hit
//! let stats = allocator.stats();
//! assert_eq!((stats.allocations, stats.cache_hits), (2, 1));
//! # drop(again);
//! allocator.empty_cache()?;
//! assert_eq!(allocator.stats().reserved.current, 0);
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod block;
mod classic;
mod expandable;
mod oom;
mod pool;
mod recording;
mod state;
mod stats;

use std::sync::{Arc, Mutex, PoisonError};

pub use block::Block;
pub use oom::OutOfMemory;
pub use recording::{Request, RequestKind};
pub use stats::{Stat, Statistics};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::memory::{DeviceCopy, bytes_for};
use crate::stream::Stream;
use state::State;

/// Where an allocator gets device memory from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Fixed `aclrtMallocAlign32` segments: 2 MiB for small requests, 20 MiB
    /// for requests under 10 MiB, a segment of its own (rounded to 2 MiB) above.
    Segments,
    /// Expandable VMM segments with pages of `page_size` bytes (a multiple of
    /// the 2 MiB granularity: 2 MiB, 20 MiB, or 1 GiB for 1 GiB pages).
    Expandable {
        /// Page size of the large pool (the small pool uses 2 MiB pages).
        page_size: usize,
    },
}

/// Configuration of a [`CachingAllocator`].
#[derive(Debug, Clone, PartialEq)]
pub struct AllocatorConfig {
    /// The backend.
    pub backend: Backend,
    /// Address space reserved by each expandable pool, as a fraction of the
    /// device's HBM (torch_npu reserves 1⅛).
    pub reserve_factor: f64,
    /// How many freed blocks are kept aside unmerged, for an allocation of
    /// exactly their size to take back without searching the pool (a
    /// training loop's common case). Any other allocation, and every cache
    /// release, merges them first. 0: none, as torch_npu.
    pub exact_size_cache: usize,
    /// Bytes added to every request before rounding to 512. torch_npu adds
    /// 32 on SoCs before Ascend 950 (or with CANN too old to drop it).
    pub pad_bytes: usize,
    /// Whether a free block is reused only by the stream its segment was
    /// allocated for (torch_npu's rule: it cannot see cross-stream uses).
    /// Otherwise any stream reuses any free block; that is safe here because
    /// a block's tracker orders its new owner after its earlier uses.
    pub per_stream_free_lists: bool,
}

/// torch_npu's pad before rounding on SoCs before Ascend 950
/// (Ascend/pytorch `torch_npu/csrc/core/npu/NPUCachingAllocator.cpp`:161-174
/// `AddPadSize`, used by `round_size` at :2202-2213; HEAD 9e73e708).
pub const TORCH_NPU_PAD: usize = 32;

impl AllocatorConfig {
    /// Fixed segments with torch_npu's native caching policy, rule for rule
    /// (Ascend/pytorch `torch_npu/csrc/core/npu/NPUCachingAllocator.cpp`,
    /// HEAD 9e73e708, whose rules come from PyTorch's
    /// `c10/cuda/CUDACachingAllocator.cpp`):
    ///
    /// * sizes: 32 bytes of pad, then rounded up to 512 (`round_size`,
    ///   :2202-2213; [`TORCH_NPU_PAD`]);
    /// * pools: small for rounded sizes ≤ 1 MiB, large above (`kSmallSize`,
    ///   :98);
    /// * segments: 2 MiB for small, 20 MiB for large under 10 MiB, else the
    ///   size rounded to 2 MiB (`get_allocation_size`, :2771-2779);
    /// * best fit: the smallest free block of the same stream, lowest address
    ///   among equals (`get_free_block` :2781-2795, `BlockComparatorSize`
    ///   :668-676);
    /// * splits: a small block when ≥ 512 bytes remain, a large one when
    ///   more than 1 MiB remains (`should_split`, :2718-2728);
    /// * frees merge with free neighbours at once (`free_block`, :2581-2610);
    ///   no freed block is kept aside;
    /// * out of memory: free every entirely free segment and retry once
    ///   (:1282-1289; `max_split_size` is unset by default, so
    ///   `release_available_cached_blocks` does nothing, :3060-3066).
    ///
    /// [`with_exact_size_cache`](Self::with_exact_size_cache) adds this
    /// crate's exact-size cache on top.
    pub fn segments() -> AllocatorConfig {
        AllocatorConfig {
            backend: Backend::Segments,
            reserve_factor: 1.125,
            exact_size_cache: 0,
            pad_bytes: TORCH_NPU_PAD,
            per_stream_free_lists: true,
        }
    }

    /// The same configuration with `blocks` recently freed blocks kept for
    /// exact-size reuse (see [`AllocatorConfig::exact_size_cache`]).
    pub fn with_exact_size_cache(mut self, blocks: usize) -> AllocatorConfig {
        self.exact_size_cache = blocks;
        self
    }

    /// Expandable segments with 2 MiB pages, this crate's policy: any
    /// stream reuses any free block (trackers order it), no pad, and an
    /// exact-size cache of [`DEFAULT_EXACT_SIZE_CACHE`] blocks.
    pub fn expandable() -> AllocatorConfig {
        Self::expandable_with_page(2 << 20)
    }

    /// Expandable segments with large-pool pages of `page_size` bytes.
    pub fn expandable_with_page(page_size: usize) -> AllocatorConfig {
        AllocatorConfig {
            backend: Backend::Expandable { page_size },
            reserve_factor: 1.125,
            exact_size_cache: DEFAULT_EXACT_SIZE_CACHE,
            pad_bytes: 0,
            per_stream_free_lists: false,
        }
    }
}

/// The exact-size cache of this crate's own configurations (expandable
/// segments): 8 blocks.
pub const DEFAULT_EXACT_SIZE_CACHE: usize = 8;

/// Smallest block, and the rounding of every request.
pub const MIN_BLOCK: usize = 512;
/// Largest request served by the small pool.
pub const SMALL_LIMIT: usize = 1 << 20;

/// A caching allocator of one device (context). Cheap to clone; lives while
/// any clone or block lives.
#[derive(Clone)]
pub struct CachingAllocator {
    pub(crate) inner: Arc<AllocatorInner>,
}

pub(crate) struct AllocatorInner {
    pub(crate) ctx: Context,
    config: AllocatorConfig,
    pub(crate) state: Mutex<State>,
    pub(crate) recorder: recording::Recorder,
}

impl std::fmt::Debug for CachingAllocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachingAllocator")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl CachingAllocator {
    /// An allocator on `ctx`'s device. Expandable segments reserve their
    /// address ranges now (no memory yet).
    pub fn new(ctx: &Context, config: AllocatorConfig) -> Result<CachingAllocator> {
        if !(config.reserve_factor > 0.0 && config.reserve_factor <= 4.0) {
            return Err(Error::invalid(format!(
                "reserve_factor {} must be in (0, 4]: it sizes the reserved address range against the HBM",
                config.reserve_factor
            )));
        }
        let state = State::new(ctx, &config)?;
        Ok(CachingAllocator {
            inner: Arc::new(AllocatorInner {
                ctx: ctx.clone(),
                config,
                state: Mutex::new(state),
                recorder: recording::Recorder::default(),
            }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &AllocatorConfig {
        &self.inner.config
    }

    /// The context whose device the memory is on.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// A block of `len` elements of `T` for use on `stream` (contents unspecified).
    pub fn alloc<T: DeviceCopy>(&self, stream: &Stream, len: usize) -> Result<Block<T>> {
        let bytes = bytes_for::<T>(len)?;
        if stream.context().device_id() != self.inner.ctx.device_id() {
            return Err(Error::invalid(format!(
                "the stream is on device {} but the allocator on device {}",
                stream.context().device_id(),
                self.inner.ctx.device_id()
            )));
        }
        let (ctx, id) = (&self.inner.ctx, stream.inner.id);
        let first = self.lock().allocate(ctx, bytes, id, false)?;
        let granted = match first {
            Some(granted) => granted,
            None => {
                self.wait_pending();
                match self.lock().allocate(ctx, bytes, id, true)? {
                    Some(granted) => granted,
                    None => {
                        return Err(Error::InvalidState(
                            "the allocator asked to wait for pending blocks twice".into(),
                        ));
                    }
                }
            }
        };
        let record = self.inner.recorder.alloc(bytes, stream.inner.id);
        Ok(Block::new(
            self.inner.clone(),
            granted,
            len,
            bytes,
            stream.inner.id,
            record,
        ))
    }

    /// Starts recording every request (allocation and free) from now on,
    /// dropping what an earlier recording held.
    pub fn start_recording(&self) {
        self.inner.recorder.start();
    }

    /// Tags the requests recorded from now on with `step`.
    pub fn set_recording_step(&self, step: u32) {
        self.inner.recorder.set_step(step);
    }

    /// Stops recording and returns the requests, in order.
    pub fn take_recording(&self) -> Vec<Request> {
        self.inner.recorder.take()
    }

    /// Waits for pending blocks and gives every cached byte back to the
    /// device: empty segments are freed, free pages are unmapped and their
    /// physical memory freed.
    pub fn empty_cache(&self) -> Result<()> {
        self.wait_pending();
        self.lock().empty_cache(&self.inner.ctx)
    }

    /// Waits for the pending blocks' work without holding the state lock
    /// (errors parked; a block whose wait fails stays pending). From a host
    /// callback, work queued after it on its own stream is not waited for.
    fn wait_pending(&self) {
        let markers = self.lock().pending_markers();
        for marker in markers {
            let waited = marker.wait();
            crate::deferred::park_result("waiting for a cached block", waited);
        }
    }

    /// A snapshot of the statistics.
    pub fn stats(&self) -> Statistics {
        self.lock().snapshot()
    }

    /// Bytes currently held from the device (cheap: no snapshot is built).
    pub fn reserved_bytes(&self) -> usize {
        self.lock().reserved_now()
    }

    /// Resets the peaks to the current values.
    pub fn reset_peaks(&self) {
        self.lock().reset_peaks();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for AllocatorInner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        state.release_everything(&self.ctx);
    }
}
