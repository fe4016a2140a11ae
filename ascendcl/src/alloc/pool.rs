//! The block bookkeeping of one memory pool: splitting, best fit, coalescing.
//!
//! Pure data structure, no FFI. Segments (an `aclrtMalloc` allocation, or a
//! reserved VMM range) are tiled by blocks linked to their neighbours, so
//! freeing a block merges it with free neighbours in O(1). Free blocks are
//! indexed by `(owner, size, address)` for best fit: the owner is the stream
//! a segment was made for when free blocks are kept per stream (torch_npu's
//! rule), 0 for every block otherwise. A block whose queued uses
//! have not completed is *pending*: it is neither reusable by other streams
//! nor merged until [`Pool::complete`] is called.

use std::collections::BTreeSet;

/// No neighbour.
const NONE: u32 = u32::MAX;

/// State of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Free,
    Allocated,
    /// Freed by its owner, but queued work on stream `.0` may still use it.
    Pending(u64),
}

#[derive(Debug, Clone)]
pub(crate) struct BlockMeta {
    pub(crate) addr: usize,
    pub(crate) size: usize,
    pub(crate) segment: u32,
    /// The free list the block returns to (a stream id, or 0).
    owner: u64,
    prev: u32,
    next: u32,
    pub(crate) state: State,
}

/// Blocks of one pool.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    blocks: Vec<BlockMeta>,
    vacant: Vec<u32>,
    /// Free blocks by (owner, size, address, index).
    free: BTreeSet<(u64, usize, usize, u32)>,
}

impl Pool {
    pub(crate) fn block(&self, index: u32) -> &BlockMeta {
        &self.blocks[index as usize]
    }

    fn new_block(&mut self, meta: BlockMeta) -> u32 {
        if let Some(index) = self.vacant.pop() {
            self.blocks[index as usize] = meta;
            index
        } else {
            self.blocks.push(meta);
            (self.blocks.len() - 1) as u32
        }
    }

    /// Adds a segment `[addr, addr + size)` as one free block of `owner`'s
    /// free list (0: the shared list).
    pub(crate) fn add_segment(
        &mut self,
        segment: u32,
        addr: usize,
        size: usize,
        owner: u64,
    ) -> u32 {
        let index = self.new_block(BlockMeta {
            addr,
            size,
            segment,
            owner,
            prev: NONE,
            next: NONE,
            state: State::Free,
        });
        self.free.insert((owner, size, addr, index));
        index
    }

    /// The smallest free block of at least `size` bytes in `owner`'s free
    /// list (lowest address among equals), taken out of the free set and
    /// split so that it is `size` bytes when the remainder is at least
    /// `min_split`. Returns the block index.
    pub(crate) fn take_best_fit(
        &mut self,
        owner: u64,
        size: usize,
        min_split: usize,
    ) -> Option<u32> {
        let &(found_owner, found_size, addr, index) =
            self.free.range((owner, size, 0, 0)..).next()?;
        if found_owner != owner {
            return None;
        }
        self.free.remove(&(owner, found_size, addr, index));
        // Allocated before splitting, so the remainder does not merge back.
        self.blocks[index as usize].state = State::Allocated;
        self.split(index, size, min_split);
        Some(index)
    }

    /// Takes a pending block whole (reused in stream order by its stream).
    pub(crate) fn take_pending(&mut self, index: u32) {
        debug_assert!(matches!(
            self.blocks[index as usize].state,
            State::Pending(_)
        ));
        self.blocks[index as usize].state = State::Allocated;
    }

    fn split(&mut self, index: u32, size: usize, min_split: usize) {
        let block = self.blocks[index as usize].clone();
        let rest = block.size - size;
        if rest == 0 || rest < min_split {
            return;
        }
        let tail = self.new_block(BlockMeta {
            addr: block.addr + size,
            size: rest,
            segment: block.segment,
            owner: block.owner,
            prev: index,
            next: block.next,
            state: State::Free,
        });
        if block.next != NONE {
            self.blocks[block.next as usize].prev = tail;
        }
        let head = &mut self.blocks[index as usize];
        head.size = size;
        head.next = tail;
        self.insert_free_merged(tail);
    }

    /// Frees an allocated block, merging it with free neighbours.
    pub(crate) fn free(&mut self, index: u32) {
        self.blocks[index as usize].state = State::Free;
        self.insert_free_merged(index);
    }

    /// Marks an allocated block as freed with work still queued on `stream`.
    pub(crate) fn free_pending(&mut self, index: u32, stream: u64) {
        self.blocks[index as usize].state = State::Pending(stream);
    }

    /// The queued work of a pending block has completed: it becomes free.
    pub(crate) fn complete(&mut self, index: u32) {
        if matches!(self.blocks[index as usize].state, State::Pending(_)) {
            self.free(index);
        }
    }

    fn insert_free_merged(&mut self, mut index: u32) {
        let prev = self.blocks[index as usize].prev;
        if prev != NONE && self.blocks[prev as usize].state == State::Free {
            self.absorb_next(prev);
            index = prev;
        }
        let next = self.blocks[index as usize].next;
        if next != NONE && self.blocks[next as usize].state == State::Free {
            self.absorb_next(index);
        }
        let b = &self.blocks[index as usize];
        self.free.insert((b.owner, b.size, b.addr, index));
    }

    /// Merges the free block after `index` into it (both leave the free set;
    /// the caller re-inserts `index`).
    fn absorb_next(&mut self, index: u32) {
        let next = self.blocks[index as usize].next;
        let (next_owner, next_size, next_addr, next_next) = {
            let n = &self.blocks[next as usize];
            (n.owner, n.size, n.addr, n.next)
        };
        let this = &self.blocks[index as usize];
        if this.state == State::Free {
            self.free.remove(&(this.owner, this.size, this.addr, index));
        }
        self.free.remove(&(next_owner, next_size, next_addr, next));
        let this = &mut self.blocks[index as usize];
        this.size += next_size;
        this.next = next_next;
        if next_next != NONE {
            self.blocks[next_next as usize].prev = index;
        }
        self.vacant.push(next);
    }

    /// Segments that are one free block: removed from the pool, returned as
    /// `(segment, addr, size)`.
    pub(crate) fn take_empty_segments(&mut self) -> Vec<(u32, usize, usize)> {
        let whole: Vec<(u64, usize, usize, u32)> = self
            .free
            .iter()
            .copied()
            .filter(|&(_, _, _, i)| {
                let b = &self.blocks[i as usize];
                b.prev == NONE && b.next == NONE
            })
            .collect();
        let mut out = Vec::with_capacity(whole.len());
        for key in whole {
            self.free.remove(&key);
            let (_, size, addr, index) = key;
            out.push((self.blocks[index as usize].segment, addr, size));
            self.vacant.push(index);
        }
        out
    }

    /// Free blocks as `(addr, size)`, in no particular order.
    pub(crate) fn free_blocks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.free.iter().map(|&(_, size, addr, _)| (addr, size))
    }

    /// Number of free blocks.
    #[cfg(test)]
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_splits_and_free_coalesces_back_to_one_block() {
        let mut pool = Pool::default();
        pool.add_segment(0, 0x1000, 4096, 0);
        let a = pool.take_best_fit(0, 1024, 512).unwrap();
        let b = pool.take_best_fit(0, 1024, 512).unwrap();
        let c = pool.take_best_fit(0, 2048, 512).unwrap();
        assert_eq!(
            (pool.block(a).addr, pool.block(b).addr, pool.block(c).addr),
            (0x1000, 0x1400, 0x1800)
        );
        assert!(pool.take_best_fit(0, 512, 512).is_none());
        pool.free(b);
        pool.free(a);
        pool.free(c);
        assert_eq!(pool.free_count(), 1);
        assert_eq!(pool.take_empty_segments(), vec![(0, 0x1000, 4096)]);
    }

    #[test]
    fn the_smallest_sufficient_block_is_chosen() {
        let mut pool = Pool::default();
        pool.add_segment(0, 0, 10_000, 0);
        pool.add_segment(1, 100_000, 3_000, 0);
        let x = pool.take_best_fit(0, 2_500, 512).unwrap();
        assert_eq!(pool.block(x).segment, 1);
        assert_eq!(
            pool.block(x).size,
            3_000,
            "a 500-byte rest is below the split threshold"
        );
    }

    #[test]
    fn a_free_block_is_found_only_in_its_owners_list_and_its_split_rest_stays_there() {
        let mut pool = Pool::default();
        pool.add_segment(0, 0x1000, 4096, 7);
        assert!(
            pool.take_best_fit(8, 512, 512).is_none(),
            "stream 8 owns nothing"
        );
        assert!(
            pool.take_best_fit(0, 512, 512).is_none(),
            "nor does the shared list"
        );
        let a = pool.take_best_fit(7, 1024, 512).unwrap();
        assert!(
            pool.take_best_fit(8, 512, 512).is_none(),
            "the rest stays stream 7's"
        );
        pool.add_segment(1, 0x9000, 1024, 8);
        let b = pool.take_best_fit(8, 512, 512).unwrap();
        assert_eq!(pool.block(b).segment, 1);
        pool.free(a);
        let whole = pool.take_best_fit(7, 4096, 512).unwrap();
        assert_eq!(pool.block(whole).addr, 0x1000, "freed and merged back");
    }

    #[test]
    fn pending_blocks_do_not_merge_until_complete() {
        let mut pool = Pool::default();
        pool.add_segment(0, 0, 2048, 0);
        let a = pool.take_best_fit(0, 1024, 512).unwrap();
        let b = pool.take_best_fit(0, 1024, 512).unwrap();
        pool.free_pending(a, 7);
        pool.free(b);
        assert_eq!(pool.free_blocks().collect::<Vec<_>>(), vec![(1024, 1024)]);
        assert_eq!(pool.block(a).state, State::Pending(7));
        pool.complete(a);
        assert_eq!(pool.free_blocks().collect::<Vec<_>>(), vec![(0, 2048)]);
    }
}

#[cfg(test)]
mod sequence_tests {
    use super::*;

    #[test]
    fn freeing_every_block_in_allocation_order_restores_the_whole_segment() {
        const MIB: usize = 1 << 20;
        let mut pool = Pool::default();
        pool.add_segment(0, 0x10_0000_0000, 72 * MIB, 0);
        let blocks: Vec<u32> = (0..12)
            .map(|_| pool.take_best_fit(0, 4 * MIB, 512).unwrap())
            .collect();
        for b in blocks {
            pool.free(b);
        }
        assert_eq!(
            pool.free_blocks().collect::<Vec<_>>(),
            vec![(0x10_0000_0000, 72 * MIB)]
        );
        assert!(pool.take_best_fit(0, 40 * MIB, 512).is_some());
    }
}
