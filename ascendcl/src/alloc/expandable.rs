//! An expandable segment: one reserved address range per pool, with physical
//! pages mapped only under live blocks.
//!
//! The whole range is one segment of the pool, so blocks are carved out of
//! contiguous addresses and free neighbours always merge: address-space
//! fragmentation cannot happen. Only pages under allocated blocks need memory:
//!
//! * allocating maps the missing pages under the chosen block (reusing
//!   physical pages kept from earlier unmaps before asking the device);
//! * when a page is needed and none is kept, pages lying entirely inside free
//!   blocks are unmapped first and their physical memory is moved under the
//!   new block. So the physical memory held follows what is live, not the
//!   history of batch shapes (torch_npu's expandable segments keep free pages
//!   mapped, which is where their extra reserve comes from);
//! * a failure half-way through mapping (207001) unmaps and frees the pages
//!   this call mapped, so nothing leaks.
//!
//! Pages are unmapped only under free blocks, whose queued work has completed
//! (pending blocks are never free): the stream-ordering rule that the raw
//! `aclrtUnmapMem` leaves to the caller.

use std::collections::BTreeMap;

use crate::alloc::pool::Pool;
use crate::alloc::stats::Statistics;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::vmm::{Mapping, PageSize, PhysicalMemory, VirtualRange, check_multiple, granularity};

/// One mapped page: the mapping and the physical memory under it.
struct MappedPage {
    mapping: Mapping,
    physical: PhysicalMemory,
}

/// The expandable segment of one pool.
pub(crate) struct Segment {
    range: VirtualRange,
    base: usize,
    page: usize,
    kind: PageSize,
    /// Mapped pages by index (only mapped ones: the range has tens of
    /// thousands of pages and most are never mapped).
    pages: BTreeMap<usize, MappedPage>,
    /// Unmapped physical pages kept for remapping.
    spare: Vec<PhysicalMemory>,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("base", &self.base)
            .field("page", &self.page)
            .finish()
    }
}

impl Segment {
    /// Reserves `va_bytes` (rounded up to pages) for pages of `page` bytes,
    /// and adds the range to `pool` as one free block.
    pub(crate) fn new(
        ctx: &Context,
        va_bytes: usize,
        page: usize,
        pool: &mut Pool,
    ) -> Result<Segment> {
        let kind = if page >= 1 << 30 {
            PageSize::Huge1G
        } else {
            PageSize::Huge2M
        };
        check_multiple(
            "the expandable segment page size",
            page,
            granularity(ctx, kind)?,
        )?;
        let pages = va_bytes.div_ceil(page).max(1);
        let size = pages.checked_mul(page).ok_or_else(|| {
            Error::invalid(format!(
                "{pages} pages of {page} bytes overflow the address space"
            ))
        })?;
        let range = VirtualRange::reserve(ctx, size, kind)?;
        let base = range.as_device_ptr() as usize;
        pool.add_segment(0, base, size, 0);
        Ok(Segment {
            range,
            base,
            page,
            kind,
            pages: BTreeMap::new(),
            spare: Vec::new(),
        })
    }

    /// The page size.
    pub(crate) fn page(&self) -> usize {
        self.page
    }

    /// Bytes of the pages under `[addr, addr + size)` not mapped yet.
    pub(crate) fn unmapped_bytes(&self, addr: usize, size: usize) -> usize {
        let missing = self
            .page_span(addr, size)
            .filter(|p| !self.pages.contains_key(p))
            .count();
        missing * self.page
    }

    fn page_span(&self, addr: usize, size: usize) -> std::ops::Range<usize> {
        let first = (addr - self.base) / self.page;
        let last = (addr + size - 1 - self.base) / self.page;
        first..last + 1
    }

    /// Maps every missing page under `[addr, addr + size)`. Returns whether
    /// any page was mapped. On failure, pages mapped by this call are
    /// unmapped and freed.
    pub(crate) fn ensure_mapped(
        &mut self,
        ctx: &Context,
        pool: &Pool,
        addr: usize,
        size: usize,
        stats: &mut Statistics,
    ) -> Result<bool> {
        let span = self.page_span(addr, size);
        let missing: Vec<usize> = span
            .clone()
            .filter(|p| !self.pages.contains_key(p))
            .collect();
        if missing.is_empty() {
            return Ok(false);
        }
        if self.spare.len() < missing.len() {
            self.unmap_free_pages(pool, missing.len() - self.spare.len(), stats);
        }
        let mut mapped_now = Vec::with_capacity(missing.len());
        for page in missing {
            match self.map_page(ctx, page, stats) {
                Ok(()) => mapped_now.push(page),
                Err(error) => {
                    for page in mapped_now {
                        if let Some(p) = self.pages.remove(&page) {
                            stats.unmaps += 1;
                            drop(p.mapping);
                            stats.device_frees += 1;
                            stats.reserved.sub(self.page);
                            drop(p.physical);
                        }
                    }
                    return Err(error);
                }
            }
        }
        Ok(true)
    }

    fn map_page(&mut self, ctx: &Context, page: usize, stats: &mut Statistics) -> Result<()> {
        let physical = match self.spare.pop() {
            Some(physical) => physical,
            None => {
                let physical = PhysicalMemory::alloc_checked(ctx, self.page, self.kind)?;
                stats.device_allocations += 1;
                stats.reserved.add(self.page);
                physical
            }
        };
        match self.range.map(page * self.page, &physical) {
            Ok(mapping) => {
                stats.maps += 1;
                self.pages.insert(page, MappedPage { mapping, physical });
                Ok(())
            }
            Err(error) => {
                self.spare.push(physical);
                Err(error)
            }
        }
    }

    /// Pages lying entirely inside free blocks.
    fn free_pages(&self, pool: &Pool) -> Vec<usize> {
        let mut pages = Vec::new();
        for (addr, size) in pool.free_blocks() {
            let first = (addr - self.base).div_ceil(self.page);
            let end = (addr + size - self.base) / self.page;
            if first < end {
                pages.extend(self.pages.range(first..end).map(|(&p, _)| p));
            }
        }
        pages
    }

    /// Unmaps up to `limit` pages lying entirely inside free blocks (the
    /// largest free blocks first), keeping their physical memory as spare.
    /// Returns the number of pages unmapped.
    pub(crate) fn unmap_free_pages(
        &mut self,
        pool: &Pool,
        limit: usize,
        stats: &mut Statistics,
    ) -> usize {
        let mut pages = self.free_pages(pool);
        pages.reverse();
        pages.truncate(limit);
        for &page in &pages {
            if let Some(p) = self.pages.remove(&page) {
                match p.mapping.unmap() {
                    Ok(()) => {
                        stats.unmaps += 1;
                        self.spare.push(p.physical);
                    }
                    // Still mapped (the drop of the failed mapping parks the
                    // error and tries again); do not reuse the memory.
                    Err(error) => crate::deferred::park("unmapping a free page", error),
                }
            }
        }
        pages.len()
    }

    /// Frees the spare physical pages. Returns the bytes released.
    pub(crate) fn free_spare(&mut self, stats: &mut Statistics) -> usize {
        let released = self.spare.len() * self.page;
        stats.device_frees += self.spare.len() as u64;
        stats.reserved.sub(released);
        self.spare.clear();
        released
    }

    /// The largest run of mapped bytes inside one free block.
    pub(crate) fn largest_free_mapped_run(&self, pool: &Pool) -> usize {
        let mut best = 0;
        for (addr, size) in pool.free_blocks() {
            let end = addr + size;
            let (first, last) = (
                (addr - self.base) / self.page,
                (end - 1 - self.base) / self.page,
            );
            let (mut run, mut previous) = (0usize, None);
            for (&page, _) in self.pages.range(first..=last) {
                let page_start = (self.base + page * self.page).max(addr);
                let page_end = (self.base + (page + 1) * self.page).min(end);
                run = if previous == Some(page.wrapping_sub(1)) {
                    run
                } else {
                    0
                } + (page_end - page_start);
                best = best.max(run);
                previous = Some(page);
            }
        }
        best
    }
}
