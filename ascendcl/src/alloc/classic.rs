//! Fixed segments from `aclrtMallocAlign32`, as torch_npu's native caching
//! allocator makes them: 2 MiB segments for small requests, 20 MiB segments
//! for requests under 10 MiB, and a segment of its own (rounded up to 2 MiB)
//! above (Ascend/pytorch `torch_npu/csrc/core/npu/NPUCachingAllocator.cpp`
//! :2771-2779 `get_allocation_size`, HEAD 9e73e708). A segment goes back to the device only when it is entirely free
//! and the cache is emptied.

use std::ffi::c_void;

use ascendcl_sys::aclrtMemMallocPolicy;

use crate::alloc::pool::Pool;
use crate::call::check;
use crate::context::Context;
use crate::error::Result;

const MIB: usize = 1 << 20;

/// The segments of one pool.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    /// Base address and size per segment id; `None` once released.
    list: Vec<Option<(usize, usize)>>,
    reusable_ids: Vec<u32>,
}

impl Segments {
    /// Size of the segment that serves a request of `size` bytes.
    pub(crate) fn segment_size(small: bool, size: usize) -> usize {
        if small {
            2 * MIB
        } else if size < 10 * MIB {
            20 * MIB
        } else {
            size.div_ceil(2 * MIB) * 2 * MIB
        }
    }

    /// Allocates a segment for a request of `size` bytes and adds it to
    /// `pool`, in `owner`'s free list. Returns the segment's size.
    pub(crate) fn grow(
        &mut self,
        ctx: &Context,
        pool: &mut Pool,
        small: bool,
        size: usize,
        owner: u64,
    ) -> Result<usize> {
        let bytes = Self::segment_size(small, size);
        ctx.bind()?;
        let lib = ctx.lib();
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the allocator's context is current.
        let result = unsafe {
            lib.aclrtMallocAlign32(
                &mut ptr,
                bytes,
                aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
            )
        };
        check(lib, "aclrtMallocAlign32", result)?;
        let id = match self.reusable_ids.pop() {
            Some(id) => {
                self.list[id as usize] = Some((ptr as usize, bytes));
                id
            }
            None => {
                self.list.push(Some((ptr as usize, bytes)));
                (self.list.len() - 1) as u32
            }
        };
        pool.add_segment(id, ptr as usize, bytes, owner);
        Ok(bytes)
    }

    /// Frees every segment that is entirely free. Returns the bytes released
    /// and the number of segments.
    pub(crate) fn release_empty(&mut self, ctx: &Context, pool: &mut Pool) -> Result<(usize, u64)> {
        let mut released = (0, 0);
        for (id, addr, size) in pool.take_empty_segments() {
            free_segment(ctx, addr)?;
            self.list[id as usize] = None;
            self.reusable_ids.push(id);
            released.0 += size;
            released.1 += 1;
        }
        Ok(released)
    }

    /// Frees every segment (the allocator is going away: no block is alive).
    /// Returns the bytes released, the number of segments and the first error.
    pub(crate) fn release_all(&mut self, ctx: &Context) -> (usize, u64, Result<()>) {
        let mut outcome = (0, 0, Ok(()));
        for slot in &mut self.list {
            if let Some((addr, size)) = *slot {
                let mut result = free_segment(ctx, addr).or_else(|_| free_segment(ctx, addr));
                if result.is_ok() {
                    *slot = None;
                    outcome.0 += size;
                    outcome.1 += 1;
                } else if outcome.2.is_ok() {
                    std::mem::swap(&mut outcome.2, &mut result);
                }
            }
        }
        outcome
    }
}

fn free_segment(ctx: &Context, addr: usize) -> Result<()> {
    ctx.bind()?;
    let lib = ctx.lib();
    // SAFETY: a segment we allocated that nothing uses (entirely free, with
    // no pending block: the caller completed those); a failed free leaves it
    // allocated, so trying again is sound.
    check(lib, "aclrtFree", unsafe {
        lib.aclrtFree(addr as *mut c_void)
    })
}
