//! `DeviceBuffer<T>`: owned device memory.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

use ascendcl_sys::aclrtMemMallocPolicy;

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::memory::{
    DeviceCopy, DeviceMemory, DeviceSlice, DeviceSliceMut, RawParts, bytes_for, sealed,
};
use crate::stream::Stream;
use crate::tracker::{Access, UseTracker};

/// The page policy of an allocation (`aclrtMemMallocPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MallocPolicy {
    /// 2 MiB huge pages above 1 MiB, falling back to normal pages (the default).
    #[default]
    HugeFirst,
    /// Huge pages only; fails when none are left.
    HugeOnly,
    /// Normal pages only.
    NormalOnly,
    /// 1 GiB pages only (Atlas A2/A3).
    Huge1gOnly,
}

impl MallocPolicy {
    fn raw(self) -> aclrtMemMallocPolicy {
        match self {
            MallocPolicy::HugeFirst => aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
            MallocPolicy::HugeOnly => aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_ONLY,
            MallocPolicy::NormalOnly => aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY,
            MallocPolicy::Huge1gOnly => aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE1G_ONLY,
        }
    }
}

/// `len` elements of `T` in device memory, freed on drop.
///
/// Dropping (or [`free`](DeviceBuffer::free)ing) a buffer first waits for
/// queued work that uses it, so freed memory is never still in use.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let mut buffer = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// buffer.slice_mut(2..)?.copy_from_host(&[7.0, 8.0])?;
/// assert_eq!(buffer.to_vec()?, vec![0.0, 0.0, 7.0, 8.0]);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct DeviceBuffer<T: DeviceCopy> {
    alloc: Allocation,
    len: usize,
    _elements: PhantomData<T>,
}

/// The allocation behind a buffer; frees itself on drop unless released.
struct Allocation {
    ptr: NonNull<c_void>,
    ctx: Context,
    tracker: UseTracker,
    released: bool,
}

impl Allocation {
    fn release(&mut self) -> Result<()> {
        self.tracker.wait(Access::Write)?;
        self.ctx.bind()?;
        let lib = self.ctx.lib();
        // SAFETY: memory we allocated, not yet freed, with no queued use left.
        check(lib, "aclrtFree", unsafe {
            lib.aclrtFree(self.ptr.as_ptr())
        })?;
        self.released = true;
        Ok(())
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        // If even that fails, queued work may still use the memory: leaking
        // it is the only safe choice.
        let during = "a device buffer (leaked: its queued work could not be waited for)";
        if !self.tracker.wait_before_release(during) {
            return;
        }
        deferred::release("a device buffer", || self.release());
    }
}

// SAFETY: the buffer owns device memory (no host memory is aliased) and its
// bookkeeping is thread-safe; T is Send + Sync (DeviceCopy).
unsafe impl<T: DeviceCopy> Send for DeviceBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for DeviceBuffer<T> {}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.alloc.ptr)
            .field("len", &self.len)
            .field("device", &self.alloc.ctx.device_id())
            .finish()
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Allocates `len` elements (contents unspecified) with [`MallocPolicy::HugeFirst`].
    pub fn alloc(ctx: &Context, len: usize) -> Result<Self> {
        Self::alloc_with_policy(ctx, len, MallocPolicy::HugeFirst)
    }

    /// Allocates `len` elements with a page policy.
    pub fn alloc_with_policy(ctx: &Context, len: usize, policy: MallocPolicy) -> Result<Self> {
        let bytes = bytes_for::<T>(len)?;
        ctx.bind()?;
        let lib = ctx.lib();
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        check(lib, "aclrtMalloc", unsafe {
            lib.aclrtMalloc(&mut ptr, bytes, policy.raw())
        })?;
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            Error::InvalidState("aclrtMalloc returned success and a null pointer".into())
        })?;
        Ok(Self::own(ctx, ptr, len))
    }

    fn own(ctx: &Context, ptr: NonNull<c_void>, len: usize) -> Self {
        DeviceBuffer {
            alloc: Allocation {
                ptr,
                ctx: ctx.clone(),
                tracker: UseTracker::default(),
                released: false,
            },
            len,
            _elements: PhantomData,
        }
    }

    /// Allocates `len` zeroed elements.
    pub fn zeroed(ctx: &Context, len: usize) -> Result<Self> {
        let mut buffer = Self::alloc(ctx, len)?;
        buffer.fill_bytes(0)?;
        Ok(buffer)
    }

    /// Allocates a copy of `data`.
    pub fn from_host(ctx: &Context, data: &[T]) -> Result<Self> {
        let mut buffer = Self::alloc(ctx, data.len())?;
        buffer.copy_from_host(data)?;
        Ok(buffer)
    }

    /// Frees the buffer now, returning the runtime's error instead of parking
    /// it. On error the buffer is dropped, which tries once more.
    pub fn free(mut self) -> Result<()> {
        self.alloc.release()
    }

    /// Tells the buffer that work queued on `stream` by raw `ascendcl-sys`
    /// calls uses it (as a write: the crate cannot know), so host access,
    /// other streams and the free wait for it. Queue the raw work and call
    /// this on the same thread with no other use of the buffer in between;
    /// the raw work itself is not ordered after earlier uses on other
    /// streams, so order it yourself (or call this first with a no-op).
    pub fn record_use(&self, stream: &Stream) -> Result<()> {
        let raw = stream.bound()?;
        crate::tracker::enqueue(
            stream,
            raw,
            &[(&self.alloc.tracker, Access::Write)],
            crate::tracker::FailedLaunch::NothingQueued,
            |_, _| Ok(()),
        )?;
        Ok(())
    }

    /// Takes ownership of device memory allocated with `aclrtMalloc`.
    ///
    /// # Safety
    /// 1. `ptr` was returned by `aclrtMalloc*` on `ctx`'s device, is not freed,
    ///    and holds at least `len * size_of::<T>()` bytes;
    /// 2. nothing else frees it;
    /// 3. no queued work uses it (or it is reported with [`record_use`](Self::record_use)).
    pub unsafe fn from_raw_parts(ctx: &Context, ptr: NonNull<c_void>, len: usize) -> Result<Self> {
        bytes_for::<T>(len)?;
        Ok(Self::own(ctx, ptr, len))
    }

    /// Gives up ownership after waiting for queued work; the caller must free
    /// the pointer with `aclrtFree`.
    pub fn into_raw_parts(mut self) -> Result<(NonNull<c_void>, usize)> {
        self.alloc.tracker.wait(Access::Write)?;
        self.alloc.released = true;
        Ok((self.alloc.ptr, self.len))
    }
}

impl<T: DeviceCopy> sealed::Sealed for DeviceBuffer<T> {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.alloc.ptr.as_ptr(),
            len: self.len,
            ctx: &self.alloc.ctx,
            tracker: &self.alloc.tracker,
        }
    }
}

impl<T: DeviceCopy> DeviceMemory for DeviceBuffer<T> {}
impl<T: DeviceCopy> DeviceSlice<T> for DeviceBuffer<T> {}
impl<T: DeviceCopy> DeviceSliceMut<T> for DeviceBuffer<T> {}
