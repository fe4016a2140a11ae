//! `Mapping`: physical memory made addressable in a reserved range.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use crate::call::check;
use crate::error::Result;
use crate::memory::{DeviceMemory, DeviceSlice, DeviceSliceMut, RawParts, sealed};
use crate::tracker::{Access, UseTracker};
use crate::vmm::physical::PhysicalInner;
use crate::vmm::range::RangeInner;

/// One physical allocation mapped at an offset of a [`VirtualRange`](crate::vmm::VirtualRange).
///
/// It is device memory of `u8`: copies, fills and views work on it like on a
/// [`DeviceBuffer`](crate::DeviceBuffer), and their queued uses are tracked.
/// Dropping (or [`unmap`](Mapping::unmap)ping) it waits for that queued work
/// first, then unmaps; the physical memory and the range stay alive as long
/// as something else holds them.
pub struct Mapping {
    range: Arc<RangeInner>,
    physical: Arc<PhysicalInner>,
    offset: usize,
    ptr: *mut c_void,
    size: usize,
    tracker: UseTracker,
    unmapped: bool,
}

// SAFETY: device addresses and runtime handles are identifiers usable from
// any thread; the tracker is thread-safe.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping")
            .field("ptr", &self.ptr)
            .field("offset", &self.offset)
            .field("size", &self.size)
            .finish()
    }
}

impl Mapping {
    /// Maps (the caller has validated offset, size, overlap and device).
    pub(crate) fn map(
        range: Arc<RangeInner>,
        physical: Arc<PhysicalInner>,
        offset: usize,
    ) -> Result<Mapping> {
        let ptr = range
            .base
            .cast::<u8>()
            .wrapping_add(offset)
            .cast::<c_void>();
        let size = physical.size;
        range.ctx.bind()?;
        let lib = range.ctx.lib();
        // SAFETY: `ptr..ptr+size` lies inside our reserved range, is not
        // mapped (checked under the range's lock), and the handle is live.
        check(lib, "aclrtMapMem", unsafe {
            lib.aclrtMapMem(ptr, size, 0, physical.handle, 0)
        })?;
        Ok(Mapping {
            range,
            physical,
            offset,
            ptr,
            size,
            tracker: UseTracker::default(),
            unmapped: false,
        })
    }

    /// Offset of the mapping in its range.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Unmaps now (after queued work using the mapping), returning the
    /// runtime's error instead of parking it.
    pub fn unmap(mut self) -> Result<()> {
        self.tracker.wait(Access::Write)?;
        self.unmap_now()
    }

    fn unmap_now(&mut self) -> Result<()> {
        if self.unmapped {
            return Ok(());
        }
        self.range.ctx.bind()?;
        let lib = self.range.ctx.lib();
        // SAFETY: our mapping, with no queued use left.
        check(lib, "aclrtUnmapMem", unsafe { lib.aclrtUnmapMem(self.ptr) })?;
        self.unmapped = true;
        self.physical.mapped.store(false, Ordering::Release);
        self.range
            .mapped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.offset);
        Ok(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if self.unmapped {
            return;
        }
        let during = "a mapping (left mapped: its queued work could not be waited for)";
        if self.tracker.wait_before_release(during) {
            crate::deferred::release("a mapping", || self.unmap_now());
        }
        if !self.unmapped {
            // Still mapped (queued work could not be waited for, or the unmap
            // failed twice): the physical memory and the range must never be
            // released under the mapping. Leak one handle of each.
            std::mem::forget(self.physical.clone());
            std::mem::forget(self.range.clone());
        }
    }
}

impl sealed::Sealed for Mapping {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.ptr,
            len: self.size,
            ctx: &self.range.ctx,
            tracker: &self.tracker,
        }
    }
}

impl DeviceMemory for Mapping {}
impl DeviceSlice<u8> for Mapping {}
impl DeviceSliceMut<u8> for Mapping {}
