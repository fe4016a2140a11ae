//! What every kind of device memory can do.

use std::ffi::c_void;
use std::ops::RangeBounds;

use ascendcl_sys::aclrtMemcpyKind;

use crate::call::check;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::memory::{DeviceCopy, DeviceView, DeviceViewMut, resolve_range, same_len};
use crate::tracker::{Access, UseTracker};

/// The pieces of a device range the crate needs.
#[derive(Debug)]
pub struct RawParts<'a> {
    /// Device address of the first element.
    pub(crate) ptr: *mut c_void,
    /// Number of elements.
    pub(crate) len: usize,
    pub(crate) ctx: &'a Context,
    pub(crate) tracker: &'a UseTracker,
}

pub(crate) mod sealed {
    /// Implemented only inside this crate: memory whose use is tracked.
    pub trait Sealed {
        /// Address, length in elements, context and tracker.
        fn raw_parts(&self) -> super::RawParts<'_>;
    }
}

/// Memory whose queued uses this crate tracks: device buffers, views and
/// pinned host buffers. Sealed.
pub trait Tracked: sealed::Sealed {}

impl<T: sealed::Sealed + ?Sized> Tracked for T {}

/// Device memory (not host memory), whatever its element type. Sealed.
pub trait DeviceMemory: Tracked {}

/// A range of device memory holding `T`s: a [`DeviceBuffer`](crate::DeviceBuffer),
/// a view of one, or an allocator block. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory holding `{T}`s",
    label = "not device memory of `{T}`",
    note = "device memory is a `DeviceBuffer<{T}>` (`DeviceBuffer::from_host(&ctx, &data)?`), a view of one \
            (`buffer.slice(..n)`), an allocator `Block` or a vmm `Mapping`; host data goes up with a copy first"
)]
pub trait DeviceSlice<T: DeviceCopy>: DeviceMemory {
    /// Number of elements.
    fn len(&self) -> usize {
        self.raw_parts().len
    }

    /// Always false: device ranges are never empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    fn size_bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// The device address of the first element, for raw `ascendcl-sys` calls.
    /// Using it is unsafe there; queued raw work must be reported with
    /// [`DeviceBuffer::record_use`](crate::DeviceBuffer::record_use).
    fn as_device_ptr(&self) -> *const c_void {
        self.raw_parts().ptr
    }

    /// The context (and so the device) the memory belongs to.
    fn context(&self) -> &Context {
        self.raw_parts().ctx
    }

    /// Copies the contents into `dst` synchronously, after any queued work
    /// using this memory. Lengths must match.
    fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        let src = self.raw_parts();
        same_len("copy_to_host", src.len, dst.len())?;
        crate::graph::mode_gate::refuse_sync_call(src.ctx, "a synchronous copy to the host")?;
        src.tracker.wait(Access::Read)?;
        src.ctx.bind()?;
        let bytes = std::mem::size_of_val(dst);
        let lib = src.ctx.lib();
        // SAFETY: `dst` is writable for `bytes`; `src.ptr` is live device memory
        // of `bytes` bytes with no queued use (waited above).
        let result = unsafe {
            lib.aclrtMemcpy(
                dst.as_mut_ptr().cast(),
                bytes,
                src.ptr,
                bytes,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        };
        check(lib, "aclrtMemcpy", result)
    }

    /// The contents as a `Vec`.
    fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::zeroed(); self.len()];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// A shared view of `range` (element indices).
    fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
        let parts = self.raw_parts();
        let r = resolve_range(range, parts.len)?;
        // SAFETY: `r` is within the range, so the view stays inside it.
        Ok(unsafe { DeviceView::from_parts(parts, r.start, r.len()) })
    }
}

/// Device memory that may be written: buffers and mutable views. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not writable device memory holding `{T}`s",
    label = "not writable device memory of `{T}`",
    note = "writable device memory is a `&mut DeviceBuffer<{T}>`, a mutable view (`buffer.slice_mut(..n)`), \
            an allocator `Block` or a vmm `Mapping`; a shared `&` view cannot be written"
)]
pub trait DeviceSliceMut<T: DeviceCopy>: DeviceSlice<T> {
    /// Copies `src` into this memory synchronously, after any queued work
    /// using it. Lengths must match.
    fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        let dst = self.raw_parts();
        same_len("copy_from_host", src.len(), dst.len)?;
        crate::graph::mode_gate::refuse_sync_call(dst.ctx, "a synchronous copy from the host")?;
        dst.tracker.wait(Access::Write)?;
        dst.ctx.bind()?;
        let bytes = std::mem::size_of_val(src);
        let lib = dst.ctx.lib();
        // SAFETY: `src` is readable for `bytes`; `dst.ptr` is live device
        // memory of `bytes` bytes with no queued use.
        let result = unsafe {
            lib.aclrtMemcpy(
                dst.ptr,
                bytes,
                src.as_ptr().cast(),
                bytes,
                aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        };
        check(lib, "aclrtMemcpy", result)
    }

    /// Copies another device range into this one synchronously (possibly
    /// from another device). Lengths must match.
    fn copy_from_device<S: DeviceSlice<T> + ?Sized>(&mut self, src: &S) -> Result<()> {
        let (s, d) = (src.raw_parts(), self.raw_parts());
        same_len("copy_from_device", s.len, d.len)?;
        crate::graph::mode_gate::refuse_sync_call(d.ctx, "a synchronous device-to-device copy")?;
        s.tracker.wait(Access::Read)?;
        d.tracker.wait(Access::Write)?;
        d.ctx.bind()?;
        let bytes = d.len * std::mem::size_of::<T>();
        let lib = d.ctx.lib();
        // SAFETY: both ranges are live device memory of `bytes` bytes with no
        // queued use; `&mut self` excludes overlap with `src`.
        let result = unsafe {
            lib.aclrtMemcpy(
                d.ptr,
                bytes,
                s.ptr,
                bytes,
                aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE,
            )
        };
        check(lib, "aclrtMemcpy", result)
    }

    /// Sets every byte to `value` synchronously (`aclrtMemset`).
    fn fill_bytes(&mut self, value: u8) -> Result<()> {
        let d = self.raw_parts();
        crate::graph::mode_gate::refuse_sync_call(d.ctx, "a synchronous memset")?;
        d.tracker.wait(Access::Write)?;
        d.ctx.bind()?;
        let bytes = d.len * std::mem::size_of::<T>();
        let lib = d.ctx.lib();
        // SAFETY: live device memory of `bytes` bytes with no queued use.
        check(lib, "aclrtMemset", unsafe {
            lib.aclrtMemset(d.ptr, bytes, i32::from(value), bytes)
        })
    }

    /// A mutable view of `range` (element indices).
    fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'_, T>> {
        let parts = self.raw_parts();
        let r = resolve_range(range, parts.len)?;
        // SAFETY: `r` is within the range; `&mut self` makes the view unique.
        Ok(unsafe { DeviceViewMut::from_parts(parts, r.start, r.len()) })
    }
}

/// Checks that `parts` lives on the device of `ctx`.
#[inline]
pub(crate) fn same_device(what: &str, parts: &RawParts<'_>, ctx: &Context) -> Result<()> {
    if parts.ctx.device_id() == ctx.device_id() {
        Ok(())
    } else {
        other_device(what, parts.ctx.device_id(), ctx.device_id())
    }
}

#[cold]
fn other_device(what: &str, memory: u32, stream: u32) -> Result<()> {
    Err(Error::invalid(format!(
        "{what}: the memory is on device {memory} but the stream is on device {stream}"
    )))
}
