//! The exact-size cache: recently freed blocks kept aside, unmerged, for an
//! allocation of exactly their size (an option: torch_npu has no such cache,
//! see `AllocatorConfig::exact_size_cache`).

use super::State;
use crate::alloc::state::Granted;

/// Up to `capacity` freed blocks as `(pool, index, size)`, oldest first.
pub(super) struct Recent {
    blocks: Vec<(usize, u32, usize)>,
    capacity: usize,
}

impl Recent {
    pub(super) fn new(capacity: usize) -> Recent {
        Recent {
            blocks: Vec::with_capacity(capacity + 1),
            capacity,
        }
    }
}

impl State {
    /// Takes a freed block back: kept aside when the cache is on (the oldest
    /// one kept then merges into its pool), merged at once otherwise.
    pub(super) fn keep_or_free(&mut self, pool: usize, index: u32, size: usize) {
        if self.recent.capacity == 0 {
            self.pools[pool].pool.free(index);
            return;
        }
        self.recent.blocks.push((pool, index, size));
        if self.recent.blocks.len() > self.recent.capacity {
            let (pool, oldest, _) = self.recent.blocks.remove(0);
            self.pools[pool].pool.free(oldest);
        }
    }

    /// A recently freed block of exactly `size` bytes, most recent first.
    #[inline]
    pub(super) fn take_recent(&mut self, pool: usize, size: usize) -> Option<Granted> {
        let position = self
            .recent
            .blocks
            .iter()
            .rposition(|&(p, _, s)| p == pool && s == size)?;
        let (_, index, _) = self.recent.blocks.swap_remove(position);
        self.stats.cache_hits += 1;
        Some(self.granted(pool, index))
    }

    /// Merges the recently freed blocks into their pools.
    pub(super) fn flush_recent(&mut self) {
        for (pool, index, _) in self.recent.blocks.drain(..) {
            self.pools[pool].pool.free(index);
        }
    }
}
