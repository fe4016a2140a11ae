//! `HostBuffer<T>`: pinned (page-locked) host memory.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::memory::{DeviceCopy, RawParts, bytes_for, sealed};
use crate::tracker::{Access, UseTracker};

/// `len` elements of `T` in pinned host memory (`aclrtMallocHost`).
///
/// Pinned memory is what the device copies from and to asynchronously. The
/// buffer derefs to `[T]`; while an asynchronous copy uses it the borrow
/// checker forbids access, and every access first waits for queued copies,
/// so the host never sees a half-written buffer.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let mut pinned = ascendcl::HostBuffer::<u16>::zeroed(&ctx, 8)?;
/// pinned[3] = 42;
/// assert_eq!(pinned.iter().sum::<u16>(), 42);
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct HostBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    ctx: Context,
    tracker: UseTracker,
    _owns: PhantomData<T>,
}

// SAFETY: the buffer owns its memory like a Box<[T]>; T is Send + Sync.
unsafe impl<T: DeviceCopy> Send for HostBuffer<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: DeviceCopy> Sync for HostBuffer<T> {}

impl<T: DeviceCopy> std::fmt::Debug for HostBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> HostBuffer<T> {
    /// Allocates `len` zeroed elements of pinned memory.
    pub fn zeroed(ctx: &Context, len: usize) -> Result<Self> {
        let bytes = bytes_for::<T>(len)?;
        ctx.bind()?;
        let lib = ctx.lib();
        let mut raw: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        check(lib, "aclrtMallocHost", unsafe {
            lib.aclrtMallocHost(&mut raw, bytes)
        })?;
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            return Err(Error::InvalidState(
                "aclrtMallocHost returned success and a null pointer".into(),
            ));
        };
        let buffer = HostBuffer {
            ptr,
            len,
            ctx: ctx.clone(),
            tracker: UseTracker::default(),
            _owns: PhantomData,
        };
        if (raw as usize) % std::mem::align_of::<T>() != 0 {
            // Dropping `buffer` frees the memory.
            return Err(Error::InvalidState(format!(
                "aclrtMallocHost returned {raw:p}, not aligned for {}",
                std::any::type_name::<T>()
            )));
        }
        // SAFETY: `bytes` writable bytes were just allocated; zero is a valid T (Pod).
        unsafe { std::ptr::write_bytes(raw.cast::<u8>(), 0, bytes) };
        Ok(buffer)
    }

    /// Allocates pinned memory holding a copy of `data`.
    pub fn from_slice(ctx: &Context, data: &[T]) -> Result<Self> {
        let mut buffer = Self::zeroed(ctx, data.len())?;
        buffer.copy_from_slice(data);
        Ok(buffer)
    }

    /// Waits for queued copies writing the buffer, then gives access;
    /// unlike `Deref`, reports a failed wait (and never panics).
    pub fn as_slice(&self) -> Result<&[T]> {
        self.tracker.wait(Access::Read)?;
        // SAFETY: no queued work uses the memory; `len` initialised elements.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }

    /// Mutable counterpart of [`HostBuffer::as_slice`]: waits for every
    /// queued copy using the buffer.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.tracker.wait(Access::Write)?;
        // SAFETY: no queued work uses the memory; `&mut self` is unique.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// The context the memory was allocated in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    pub(crate) fn host_ptr(&self) -> *mut c_void {
        self.ptr.as_ptr().cast()
    }
}

/// # Panics
/// If queued work writing the buffer cannot be waited for (the runtime
/// failed the wait and a device-wide synchronize of every device involved),
/// or from a host callback when that work is queued after the callback on
/// its own stream: handing out the memory then could let the device write
/// under a live `&[T]`. [`HostBuffer::as_slice`] returns the error instead.
impl<T: DeviceCopy> Deref for HostBuffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.tracker
            .wait_or_panic(Access::Read, "host buffer access");
        // SAFETY: no queued write to the memory remains (waited above; only
        // reads can be queued through `&self`); `len` initialised elements.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> DerefMut for HostBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.tracker
            .wait_or_panic(Access::Write, "host buffer access");
        // SAFETY: no queued use of the memory remains (waited above);
        // `&mut self` is unique, so none can be queued meanwhile.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        // If even that fails, queued copies may still use the memory:
        // leaking it is the only safe choice.
        let during = "a host buffer (leaked: its queued work could not be waited for)";
        if !self.tracker.wait_before_release(during) {
            return;
        }
        deferred::release("a host buffer", || {
            self.ctx.bind()?;
            let lib = self.ctx.lib();
            // SAFETY: memory we allocated with aclrtMallocHost, not yet freed
            // (a failed free leaves it allocated), with no queued use left.
            check(lib, "aclrtFreeHost", unsafe {
                lib.aclrtFreeHost(self.ptr.as_ptr().cast())
            })
        });
    }
}

impl<T: DeviceCopy> sealed::Sealed for HostBuffer<T> {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.host_ptr(),
            len: self.len,
            ctx: &self.ctx,
            tracker: &self.tracker,
        }
    }
}
