//! `VirtualRange`: reserved device addresses.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::vmm::{Mapping, PageSize, PhysicalMemory, check_multiple, format_bytes, granularity};

/// A reserved range of device virtual addresses (`aclrtReserveMemAddress`).
///
/// Cheap to clone. Released when the last handle *and* the last mapping
/// into it are gone.
#[derive(Clone)]
pub struct VirtualRange {
    pub(crate) inner: Arc<RangeInner>,
}

pub(crate) struct RangeInner {
    pub(crate) ctx: Context,
    pub(crate) base: *mut c_void,
    pub(crate) size: usize,
    pub(crate) granularity: usize,
    /// Mapped offsets and their lengths.
    pub(crate) mapped: Mutex<BTreeMap<usize, usize>>,
    released: bool,
}

// SAFETY: the base is a device address (never dereferenced by the host) and
// the map of mappings is behind a Mutex.
unsafe impl Send for RangeInner {}
// SAFETY: as above.
unsafe impl Sync for RangeInner {}

impl std::fmt::Debug for VirtualRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualRange")
            .field("base", &self.inner.base)
            .field("size", &self.inner.size)
            .finish()
    }
}

impl VirtualRange {
    /// Reserves `size` bytes of addresses on `ctx`'s device, for pages of
    /// `page` size. `size` must be a multiple of the granularity.
    pub fn reserve(ctx: &Context, size: usize, page: PageSize) -> Result<VirtualRange> {
        let granularity = granularity(ctx, page)?;
        check_multiple("a reserved range", size, granularity)?;
        let lib = ctx.lib();
        let mut base: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; alignment 0, no expected address and
        // flags 0 are the documented defaults.
        let result =
            unsafe { lib.aclrtReserveMemAddress(&mut base, size, 0, std::ptr::null_mut(), 0) };
        check(lib, "aclrtReserveMemAddress", result)?;
        Ok(VirtualRange {
            inner: Arc::new(RangeInner {
                ctx: ctx.clone(),
                base,
                size,
                granularity,
                mapped: Mutex::default(),
                released: false,
            }),
        })
    }

    /// First address of the range.
    pub fn as_device_ptr(&self) -> *const c_void {
        self.inner.base
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.inner.size
    }

    /// The granularity offsets and sizes are checked against.
    pub fn granularity(&self) -> usize {
        self.inner.granularity
    }

    /// Bytes currently mapped.
    pub fn mapped_bytes(&self) -> usize {
        self.inner
            .mapped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .sum()
    }

    /// Maps all of `physical` at `offset` bytes into the range.
    ///
    /// `offset` must be granularity-aligned, the mapping must fit inside the
    /// range and must not overlap another one, and `physical` must not be
    /// mapped already ([`Error::AlreadyMapped`]); all checked before the FFI call.
    pub fn map(&self, offset: usize, physical: &PhysicalMemory) -> Result<Mapping> {
        let inner = &self.inner;
        let size = physical.size();
        if offset % inner.granularity != 0 {
            return Err(Error::invalid(format!(
                "mapping offset {offset:#x} is not aligned to the {} granularity",
                format_bytes(inner.granularity)
            )));
        }
        check_multiple("a mapping", size, inner.granularity)?;
        if offset.checked_add(size).is_none_or(|end| end > inner.size) {
            return Err(Error::invalid(format!(
                "a mapping of {} at offset {offset:#x} does not fit in a range of {}",
                format_bytes(size),
                format_bytes(inner.size)
            )));
        }
        if physical.inner.ctx.device_id() != inner.ctx.device_id() {
            return Err(Error::invalid(format!(
                "physical memory of device {} cannot be mapped into a range of device {}",
                physical.inner.ctx.device_id(),
                inner.ctx.device_id()
            )));
        }
        let mut mapped = inner.mapped.lock().unwrap_or_else(PoisonError::into_inner);
        let before = mapped.range(..offset + size).next_back();
        if let Some((&start, &len)) = before.filter(|(s, l)| **s + **l > offset) {
            return Err(Error::invalid(format!(
                "a mapping at offset {offset:#x} would overlap the mapping at {start:#x} ({})",
                format_bytes(len)
            )));
        }
        // One live mapping per physical allocation. A second one would alias
        // the same bytes under a second tracker, so queued work through one
        // and access through the other would not be ordered. Sharing one
        // tracker instead would still let `&mut` of one mapping coexist with
        // `&` of the other (overlapping copies), so refusing is the sound rule.
        if physical
            .inner
            .mapped
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(Error::AlreadyMapped(format!(
                "this physical allocation of {} is mapped already; unmap it first (one \
                 physical allocation may have one live mapping)",
                format_bytes(size)
            )));
        }
        let mapping = Mapping::map(self.inner.clone(), physical.inner.clone(), offset)
            .inspect_err(|_| physical.inner.mapped.store(false, Ordering::Release))?;
        mapped.insert(offset, size);
        Ok(mapping)
    }

    /// Releases the range now. Refused while mappings into it are alive.
    pub fn release(self) -> Result<()> {
        let mapped = self
            .inner
            .mapped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        if mapped > 0 {
            return Err(Error::InvalidState(format!(
                "the range still has {mapped} mappings; unmap them first"
            )));
        }
        match Arc::try_unwrap(self.inner) {
            // On failure `inner` drops here and its Drop tries once more.
            Ok(mut inner) => inner.release(),
            Err(_) => Err(Error::InvalidState(
                "other handles to this range are alive".into(),
            )),
        }
    }
}

impl RangeInner {
    fn release(&mut self) -> Result<()> {
        if self.released {
            return Ok(());
        }
        self.ctx.bind()?;
        let lib = self.ctx.lib();
        // SAFETY: a range we reserved, not yet released, with no mapping left
        // (mappings hold it alive).
        check(lib, "aclrtReleaseMemAddress", unsafe {
            lib.aclrtReleaseMemAddress(self.base)
        })?;
        self.released = true;
        Ok(())
    }
}

impl Drop for RangeInner {
    fn drop(&mut self) {
        deferred::release("a reserved range", || self.release());
    }
}
