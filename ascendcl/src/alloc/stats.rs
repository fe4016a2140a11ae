//! Allocator statistics and the out-of-memory error that carries them.

use std::fmt;

use crate::alloc::Backend;
use crate::error::AclError;
use crate::vmm::format_bytes;

/// A quantity with its current value and its peak since creation (or since
/// [`CachingAllocator::reset_peaks`](crate::alloc::CachingAllocator::reset_peaks)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
    /// Now.
    pub current: usize,
    /// Highest value seen.
    pub peak: usize,
}

impl Stat {
    pub(crate) fn add(&mut self, bytes: usize) {
        self.current += bytes;
        self.peak = self.peak.max(self.current);
    }

    pub(crate) fn sub(&mut self, bytes: usize) {
        self.current = self.current.saturating_sub(bytes);
    }
}

/// A snapshot of a caching allocator's state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Statistics {
    /// Bytes the callers asked for, in live blocks.
    pub requested: Stat,
    /// Bytes of live blocks (requests rounded up to the block granularity).
    pub allocated: Stat,
    /// Bytes of live blocks plus freed blocks whose queued work has not
    /// completed yet.
    pub active: Stat,
    /// Bytes held from the device: `aclrtMalloc` segments, or physical pages
    /// (mapped or kept for remapping) of expandable segments.
    pub reserved: Stat,
    /// Blocks handed out.
    pub allocations: u64,
    /// Blocks given back.
    pub frees: u64,
    /// Allocations served from cached memory without asking the device.
    pub cache_hits: u64,
    /// Allocations that needed a new segment or new pages.
    pub cache_misses: u64,
    /// Device allocations (`aclrtMalloc*` segments or `aclrtMallocPhysical` pages).
    pub device_allocations: u64,
    /// Device frees (segments or physical pages).
    pub device_frees: u64,
    /// `aclrtMapMem` calls.
    pub maps: u64,
    /// `aclrtUnmapMem` calls.
    pub unmaps: u64,
    /// Times a device allocation ran out of memory and the allocator released
    /// its cache and retried.
    pub oom_retries: u64,
    /// Allocations that failed with out-of-memory after the retry.
    pub ooms: u64,
    /// Bytes of reserved memory not in live or pending blocks.
    pub free_bytes: usize,
    /// The largest contiguous free (and mapped) run of reserved memory.
    pub largest_free_block: usize,
}

impl Statistics {
    /// `1 − largest free block / total free`: 0 when all free memory is one
    /// block, close to 1 when it is scattered in small pieces.
    pub fn fragmentation(&self) -> f64 {
        if self.free_bytes == 0 {
            0.0
        } else {
            1.0 - self.largest_free_block as f64 / self.free_bytes as f64
        }
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = |v: usize| format!("{:.2} GiB", v as f64 / (1u64 << 30) as f64);
        write!(
            f,
            "allocated {} (peak {}), reserved {} (peak {}), free in cache {} (largest block {}, fragmentation {:.1}%), \
             {} allocations, {} frees, {} device allocations, {} maps, {} unmaps, {} OOM retries",
            b(self.allocated.current),
            b(self.allocated.peak),
            b(self.reserved.current),
            b(self.reserved.peak),
            b(self.free_bytes),
            b(self.largest_free_block),
            self.fragmentation() * 100.0,
            self.allocations,
            self.frees,
            self.device_allocations,
            self.maps,
            self.unmaps,
            self.oom_retries
        )
    }
}

/// The caching allocator could not find memory even after releasing its
/// cache and retrying.
#[derive(Debug, Clone)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub requested: usize,
    /// The allocator's state at the failure.
    pub stats: Statistics,
    /// The device's free and total bytes at the failure, if it could tell.
    pub device_free: Option<(usize, usize)>,
    /// The runtime's error from the last attempt; `None` when an expandable
    /// segment's reserved address range (1.125 × HBM) had no room left.
    pub source: Option<AclError>,
    /// The allocator's backend: what to do next depends on it.
    pub backend: Backend,
}

impl OutOfMemory {
    /// The runtime's code (207001), if the runtime refused.
    pub fn code(&self) -> Option<i32> {
        self.source.as_ref().map(AclError::code)
    }

    /// What to do, for this allocator's configuration: expandable segments
    /// are only suggested to an allocator that does not use them already.
    pub fn hint(&self) -> &'static str {
        match (self.backend, &self.source) {
            (Backend::Segments, _) => {
                "reduce the batch size, free tensors you no longer need, or switch to \
                 expandable segments (AllocatorConfig::expandable()) if the cache is \
                 fragmented (see fragmentation above)"
            }
            (Backend::Expandable { .. }, None) => {
                "the expandable segment's address range is full: raise \
                 AllocatorConfig::reserve_factor, or reduce the batch size and free tensors \
                 you no longer need"
            }
            (Backend::Expandable { .. }, Some(_)) => {
                "expandable segments are already in use and their free pages were given back \
                 before this retry, so fragmentation is unlikely to be the cause: the live tensors need \
                 more than the device has. Reduce the batch size, free tensors you no longer \
                 need, or keep fewer activations (recompute them in the backward)"
            }
        }
    }
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of device memory allocating {}",
            format_bytes(self.requested)
        )?;
        if let Some((free, total)) = self.device_free {
            write!(
                f,
                " ({} of {} free on the device)",
                format_bytes(free),
                format_bytes(total)
            )?;
        }
        write!(f, "\nallocator: {}", self.stats)?;
        match &self.source {
            // The runtime's code and text only: the hint below covers both.
            Some(source) => {
                write!(
                    f,
                    "\nruntime: {} returned {}",
                    source.function(),
                    source.code()
                )?;
                if let Some(name) = source.code_name() {
                    write!(f, " ({name})")?;
                }
                if let Some(message) = source.message() {
                    write!(f, ": {}", message.trim_end())?;
                }
            }

            None => write!(
                f,
                "\nthe reserved address range of the expandable segment is full"
            )?,
        }
        write!(f, "\nhint: {}", self.hint())
    }
}

impl std::error::Error for OutOfMemory {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}
