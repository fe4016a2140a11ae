//! The allocator's mutable state: two pools, their backends, pending blocks,
//! statistics; and the allocation, free and out-of-memory paths (the
//! teardown is in `teardown.rs`).

mod recent;
mod teardown;

use crate::alloc::classic::Segments;
use crate::alloc::expandable::Segment;
use crate::alloc::oom::OutOfMemory;
use crate::alloc::pool::Pool;
use crate::alloc::stats::Statistics;
use crate::alloc::{AllocatorConfig, Backend, MIN_BLOCK, SMALL_LIMIT};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::lane::QueuedAt;
use crate::tracker::Use;

/// The small pool's page.
const SMALL_PAGE: usize = 2 << 20;
/// torch_npu's rule for fixed segments: a large block is split only when
/// more than 1 MiB would remain (the small pool splits from 512 bytes)
/// (`NPUCachingAllocator.cpp`:2718-2728 `should_split`, HEAD 9e73e708).
const LARGE_MIN_SPLIT_SEGMENTS: usize = (1 << 20) + 1;

/// What an allocation got.
pub(crate) struct Granted {
    pub(crate) pool: usize,
    pub(crate) index: u32,
    pub(crate) addr: usize,
    pub(crate) size: usize,
    /// The queued uses of a pending block reused in stream order.
    pub(crate) inherited: Vec<Use>,
}

enum Backing {
    Segments(Segments),
    Expandable(Segment),
}

struct PoolState {
    pool: Pool,
    backing: Backing,
    small: bool,
    min_split: usize,
}

struct PendingBlock {
    pool: usize,
    index: u32,
    stream: u64,
    size: usize,
    /// Work that may still use the block (all of it must finish).
    markers: Vec<QueuedAt>,
}

impl PendingBlock {
    fn is_complete(&self) -> bool {
        // Records no event: a block whose work no wait has covered yet stays
        // pending until one does (a host access, or an allocation that has
        // to wait for pending blocks).
        self.markers.iter().all(QueuedAt::is_known_complete)
    }
}

pub(crate) struct State {
    pools: [PoolState; 2],
    pending: Vec<PendingBlock>,
    /// The exact-size cache (empty and off for torch_npu's policy).
    recent: recent::Recent,
    /// Bytes added to every request before rounding.
    pad: usize,
    /// Whether free blocks are kept per stream (torch_npu's rule).
    per_stream: bool,
    /// The backend, for the out-of-memory hint.
    backend: Backend,
    stats: Statistics,
    /// Whether a block was kept out because its queued work could not be
    /// waited for: then the allocator's memory may never be given back.
    leaked: bool,
    /// Bytes the latest attempt needed from the device (a whole segment, the
    /// pages to map, or for a full range the request in pages), for the
    /// out-of-memory hint.
    device_request: usize,
}

fn is_device_oom(error: &Error) -> bool {
    matches!(error, Error::Acl(e) if e.category() == crate::Category::OutOfMemory)
}

impl State {
    pub(crate) fn new(ctx: &Context, config: &AllocatorConfig) -> Result<State> {
        let pools = match config.backend {
            Backend::Segments => [(true, 1), (false, 1)].map(|(small, _)| PoolState {
                pool: Pool::default(),
                backing: Backing::Segments(Segments::default()),
                small,
                min_split: if small {
                    MIN_BLOCK
                } else {
                    LARGE_MIN_SPLIT_SEGMENTS
                },
            }),
            Backend::Expandable { page_size } => {
                let total = crate::device::memory_info(ctx)?.total;
                let va = (total as f64 * config.reserve_factor) as usize;
                let mut small = Pool::default();
                let small_segment = Segment::new(ctx, total / 8, SMALL_PAGE, &mut small)?;
                let mut large = Pool::default();
                let large_segment = Segment::new(ctx, va, page_size, &mut large)?;
                [
                    PoolState {
                        pool: small,
                        backing: Backing::Expandable(small_segment),
                        small: true,
                        min_split: MIN_BLOCK,
                    },
                    PoolState {
                        pool: large,
                        backing: Backing::Expandable(large_segment),
                        small: false,
                        min_split: MIN_BLOCK,
                    },
                ]
            }
        };
        Ok(State {
            pools,
            pending: Vec::new(),
            recent: recent::Recent::new(config.exact_size_cache),
            pad: config.pad_bytes,
            per_stream: config.per_stream_free_lists,
            backend: config.backend,
            stats: Statistics::default(),
            leaked: false,
            device_request: 0,
        })
    }

    /// Allocates `bytes` for `stream`. When memory runs out (the device
    /// answers 207001, or an expandable range has no room): without
    /// `pending_waited`, returns `Ok(None)` so that the caller waits for the
    /// pending blocks' work without holding the lock ([`State::pending_markers`])
    /// and calls again; with it, releases the cache and retries once.
    pub(crate) fn allocate(
        &mut self,
        ctx: &Context,
        bytes: usize,
        stream: u64,
        pending_waited: bool,
    ) -> Result<Option<Granted>> {
        let size = bytes
            .saturating_add(self.pad)
            .max(MIN_BLOCK)
            .div_ceil(MIN_BLOCK)
            * MIN_BLOCK;
        let pool = usize::from(size > SMALL_LIMIT);
        let granted = match self.take_recent(pool, size) {
            Some(granted) => Ok(Some(granted)),
            None => {
                self.flush_recent();
                self.try_allocate(ctx, pool, size, stream)
            }
        };
        let exhausted = match &granted {
            Ok(None) => true,
            Err(error) => is_device_oom(error),
            Ok(Some(_)) => false,
        };
        if exhausted && !pending_waited && !self.pending.is_empty() {
            return Ok(None);
        }
        let granted = match granted {
            Ok(Some(granted)) => granted,
            Ok(None) => self.retry_after_releasing(ctx, pool, size, bytes, stream)?,
            Err(error) if is_device_oom(&error) => {
                self.retry_after_releasing(ctx, pool, size, bytes, stream)?
            }
            Err(error) => return Err(error),
        };
        self.stats.allocations += 1;
        self.stats.requested.add(bytes);
        self.stats.allocated.add(granted.size);
        if granted.inherited.is_empty() {
            self.stats.active.add(granted.size);
        }
        Ok(Some(granted))
    }

    fn retry_after_releasing(
        &mut self,
        ctx: &Context,
        pool: usize,
        size: usize,
        bytes: usize,
        stream: u64,
    ) -> Result<Granted> {
        self.stats.oom_retries += 1;
        self.release_cache(ctx)?;
        let source = match self.try_allocate(ctx, pool, size, stream) {
            Ok(Some(granted)) => return Ok(granted),
            Ok(None) => None,
            Err(Error::Acl(source)) if source.category() == crate::Category::OutOfMemory => {
                Some(source)
            }
            Err(error) => return Err(error),
        };
        self.stats.ooms += 1;
        let device_free = crate::device::memory_info(ctx)
            .ok()
            .map(|m| (m.free, m.total));
        let stats = self.snapshot();
        Err(Error::OutOfMemory(Box::new(OutOfMemory {
            requested: bytes,
            device_request: self.device_request.max(bytes),
            small_pool: pool == 0,
            stats,
            device_free,
            source,
            backend: self.backend,
        })))
    }

    /// One attempt: `Ok(None)` when an expandable range has no room.
    fn try_allocate(
        &mut self,
        ctx: &Context,
        p: usize,
        size: usize,
        stream: u64,
    ) -> Result<Option<Granted>> {
        // A block this stream freed with work still queued is reusable by it
        // in stream order: prefer it, as it needs no new memory.
        if let Some(granted) = self.take_pending_of(p, size, stream) {
            self.stats.cache_hits += 1;
            return Ok(Some(granted));
        }
        let owner = if self.per_stream { stream } else { 0 };
        if let Some(granted) = self.take_free(ctx, p, size, owner)? {
            return Ok(Some(granted));
        }
        if self.collect_completed() {
            if let Some(granted) = self.take_free(ctx, p, size, owner)? {
                return Ok(Some(granted));
            }
        }
        let ps = &mut self.pools[p];
        match &mut ps.backing {
            Backing::Segments(segments) => {
                self.device_request = Segments::segment_size(ps.small, size);
                let bytes = segments.grow(ctx, &mut ps.pool, ps.small, size, owner)?;
                self.stats.device_allocations += 1;
                self.stats.reserved.add(bytes);
                self.stats.cache_misses += 1;
                let index = ps
                    .pool
                    .take_best_fit(owner, size, ps.min_split)
                    .ok_or_else(|| {
                        Error::InvalidState(format!(
                            "a new segment of {bytes} bytes cannot hold {size} bytes"
                        ))
                    })?;
                Ok(Some(self.granted(p, index)))
            }
            // The range (1.125 × HBM by default) has no free run left.
            Backing::Expandable(segment) => {
                self.device_request = size.div_ceil(segment.page()) * segment.page();
                Ok(None)
            }
        }
    }

    fn granted(&self, pool: usize, index: u32) -> Granted {
        let block = self.pools[pool].pool.block(index);
        Granted {
            pool,
            index,
            addr: block.addr,
            size: block.size,
            inherited: Vec::new(),
        }
    }

    /// A cached free block of `owner`'s free list, with its pages mapped
    /// (expandable).
    fn take_free(
        &mut self,
        ctx: &Context,
        p: usize,
        size: usize,
        owner: u64,
    ) -> Result<Option<Granted>> {
        let ps = &mut self.pools[p];
        let Some(index) = ps.pool.take_best_fit(owner, size, ps.min_split) else {
            return Ok(None);
        };
        let (addr, block_size) = {
            let b = ps.pool.block(index);
            (b.addr, b.size)
        };
        let grew = match &mut ps.backing {
            Backing::Segments(_) => false,
            Backing::Expandable(segment) => {
                self.device_request = segment.unmapped_bytes(addr, block_size);
                match segment.ensure_mapped(ctx, &ps.pool, addr, block_size, &mut self.stats) {
                    Ok(grew) => grew,
                    Err(error) => {
                        ps.pool.free(index);
                        return Err(error);
                    }
                }
            }
        };
        if grew {
            self.stats.cache_misses += 1;
        } else {
            self.stats.cache_hits += 1;
        }
        Ok(Some(self.granted(p, index)))
    }

    /// A pending block of `stream` that fits (best fit), reused in stream order.
    fn take_pending_of(&mut self, p: usize, size: usize, stream: u64) -> Option<Granted> {
        if self.pending.is_empty() {
            return None;
        }
        let position = self
            .pending
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                b.pool == p && b.stream == stream && b.size >= size && b.size <= size * 2
            })
            .min_by_key(|(_, b)| b.size)
            .map(|(i, _)| i)?;
        let block = self.pending.swap_remove(position);
        self.pools[p].pool.take_pending(block.index);
        let mut granted = self.granted(p, block.index);
        granted.inherited = block.markers;
        Some(granted)
    }

    /// Frees pending blocks whose work has completed. Returns whether any did.
    fn collect_completed(&mut self) -> bool {
        let before = self.pending.len();
        let mut still = Vec::with_capacity(before);
        for block in std::mem::take(&mut self.pending) {
            if block.is_complete() {
                self.complete(block);
            } else {
                still.push(block);
            }
        }
        self.pending = still;
        self.pending.len() < before
    }

    fn complete(&mut self, block: PendingBlock) {
        self.pools[block.pool].pool.complete(block.index);
        self.stats.active.sub(block.size);
    }

    /// The markers of every pending block, for waiting without the lock
    /// (a host callback may need the lock to free a block while the stream
    /// it blocks is what the wait waits for).
    pub(crate) fn pending_markers(&self) -> Vec<QueuedAt> {
        self.pending
            .iter()
            .flat_map(|b| b.markers.iter().cloned())
            .collect()
    }

    /// Takes back a block. `last_use` is what its tracker held: the positions
    /// of its queued uses.
    pub(crate) fn release(
        &mut self,
        granted_pool: usize,
        index: u32,
        requested: usize,
        stream: u64,
        last_use: Vec<QueuedAt>,
    ) {
        let size = self.pools[granted_pool].pool.block(index).size;
        self.stats.frees += 1;
        self.stats.requested.sub(requested);
        self.stats.allocated.sub(size);
        let markers = last_use;
        let block = PendingBlock {
            pool: granted_pool,
            index,
            stream,
            size,
            markers,
        };
        match block.is_complete() {
            false => {
                self.pools[granted_pool].pool.free_pending(index, stream);
                self.pending.push(block);
            }
            true => {
                self.keep_or_free(granted_pool, index, size);
                self.stats.active.sub(size);
            }
        }
    }

    /// Waits for pending blocks and returns cached memory to the device.
    pub(crate) fn empty_cache(&mut self, ctx: &Context) -> Result<()> {
        self.release_cache(ctx)
    }

    /// Never blocks: pending blocks whose work has not finished stay cached
    /// (callers wait for [`State::pending_markers`] first, without the lock).
    fn release_cache(&mut self, ctx: &Context) -> Result<()> {
        self.flush_recent();
        self.collect_completed();
        for ps in &mut self.pools {
            match &mut ps.backing {
                Backing::Segments(segments) => {
                    let (bytes, count) = segments.release_empty(ctx, &mut ps.pool)?;
                    self.stats.reserved.sub(bytes);
                    self.stats.device_frees += count;
                }
                Backing::Expandable(segment) => {
                    segment.unmap_free_pages(&ps.pool, usize::MAX, &mut self.stats);
                    segment.free_spare(&mut self.stats);
                }
            }
        }
        Ok(())
    }

    pub(crate) fn snapshot(&mut self) -> Statistics {
        self.flush_recent();
        let mut stats = self.stats;
        stats.free_bytes = stats.reserved.current.saturating_sub(stats.active.current);
        stats.largest_free_block = self
            .pools
            .iter()
            .map(|ps| match &ps.backing {
                Backing::Segments(_) => ps
                    .pool
                    .free_blocks()
                    .map(|(_, size)| size)
                    .max()
                    .unwrap_or(0),
                Backing::Expandable(segment) => segment.largest_free_mapped_run(&ps.pool),
            })
            .max()
            .unwrap_or(0);
        stats
    }

    pub(crate) fn reserved_now(&self) -> usize {
        self.stats.reserved.current
    }

    pub(crate) fn reset_peaks(&mut self) {
        for stat in [
            &mut self.stats.requested,
            &mut self.stats.allocated,
            &mut self.stats.active,
            &mut self.stats.reserved,
        ] {
            stat.peak = stat.current;
        }
    }
}
