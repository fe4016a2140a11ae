//! `PhysicalMemory`: device pages without an address.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ascendcl_sys::aclrtDrvMemHandle;

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::Result;
use crate::vmm::{PageSize, check_multiple, granularity};

/// Physical device memory from `aclrtMallocPhysical`, freed when the last
/// handle and its [`Mapping`](crate::vmm::Mapping) are gone.
///
/// It can be mapped once at a time: a second live mapping of the same
/// memory is refused with [`Error::AlreadyMapped`](crate::Error::AlreadyMapped)
/// (unmap the first one, and it can be mapped again).
#[derive(Clone)]
pub struct PhysicalMemory {
    pub(crate) inner: Arc<PhysicalInner>,
}

pub(crate) struct PhysicalInner {
    pub(crate) ctx: Context,
    pub(crate) handle: aclrtDrvMemHandle,
    pub(crate) size: usize,
    pub(crate) page: PageSize,
    /// Whether a [`Mapping`](crate::vmm::Mapping) of this memory is live. One
    /// at most: two mappings would be two trackers for the same bytes.
    pub(crate) mapped: AtomicBool,
}

// SAFETY: the handle is an identifier ACL accepts from any thread.
unsafe impl Send for PhysicalInner {}
// SAFETY: as above; nothing is mutated through `&PhysicalInner`.
unsafe impl Sync for PhysicalInner {}

impl std::fmt::Debug for PhysicalMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhysicalMemory")
            .field("size", &self.inner.size)
            .field("page", &self.inner.page)
            .finish()
    }
}

impl PhysicalMemory {
    /// Allocates `size` bytes of `page`-sized pages on `ctx`'s device. `size`
    /// must be a multiple of the granularity (checked before the FFI call).
    /// Running out of HBM is an error with [`is_out_of_memory`](crate::Error::is_out_of_memory).
    pub fn alloc(ctx: &Context, size: usize, page: PageSize) -> Result<PhysicalMemory> {
        check_multiple("a physical allocation", size, granularity(ctx, page)?)?;
        Self::alloc_checked(ctx, size, page)
    }

    /// As [`PhysicalMemory::alloc`] for a size already checked against the
    /// granularity (the allocator's hot growth path skips the query).
    pub(crate) fn alloc_checked(
        ctx: &Context,
        size: usize,
        page: PageSize,
    ) -> Result<PhysicalMemory> {
        ctx.bind()?;
        let lib = ctx.lib();
        let prop = page.prop(ctx);
        let mut handle: aclrtDrvMemHandle = std::ptr::null_mut();
        // SAFETY: valid out-pointer and prop; flags must be 0.
        check(lib, "aclrtMallocPhysical", unsafe {
            lib.aclrtMallocPhysical(&mut handle, size, &prop, 0)
        })?;
        Ok(PhysicalMemory {
            inner: Arc::new(PhysicalInner {
                ctx: ctx.clone(),
                handle,
                size,
                page,
                mapped: AtomicBool::new(false),
            }),
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// The page size.
    pub fn page_size(&self) -> PageSize {
        self.inner.page
    }

    /// The raw handle, for `ascendcl-sys` calls.
    pub fn as_raw(&self) -> aclrtDrvMemHandle {
        self.inner.handle
    }
}

impl Drop for PhysicalInner {
    fn drop(&mut self) {
        deferred::release("physical memory", || {
            self.ctx.bind()?;
            let lib = self.ctx.lib();
            // SAFETY: a handle we allocated; no mapping of it is left (they
            // hold this allocation alive); a failed free leaves it allocated.
            check(lib, "aclrtFreePhysical", unsafe {
                lib.aclrtFreePhysical(self.handle)
            })
        });
    }
}
