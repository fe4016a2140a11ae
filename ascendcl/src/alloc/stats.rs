//! Allocator statistics, and byte counts in human-sized units.

use std::fmt;

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
        let b = human_bytes;
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

/// `bytes` in the unit that suits its size: `512 B`, `1.50 MiB`, `2 GiB`
/// (whole numbers without decimals).
pub(crate) fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1usize << (10 * (unit + 1)) {
        unit += 1;
    }
    let scale = 1usize << (10 * unit);
    if bytes % scale == 0 {
        format!("{} {}", bytes / scale, UNITS[unit])
    } else {
        format!("{:.2} {}", bytes as f64 / scale as f64, UNITS[unit])
    }
}
