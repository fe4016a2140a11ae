//! Views: sub-ranges of device memory that borrow their buffer.

use std::marker::PhantomData;

use crate::memory::{DeviceCopy, DeviceMemory, DeviceSlice, DeviceSliceMut, RawParts, sealed};

/// A shared view of part of a device buffer.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let buffer = DeviceBuffer::from_host(&ctx, &[1u32, 2, 3, 4])?;
/// assert_eq!(buffer.slice(1..3)?.to_vec()?, vec![2, 3]);
/// assert!(buffer.slice(3..9).is_err()); // out of bounds: an error, not a panic
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct DeviceView<'a, T: DeviceCopy> {
    parts: RawParts<'a>,
    _elements: PhantomData<&'a [T]>,
}

/// A mutable view of part of a device buffer.
pub struct DeviceViewMut<'a, T: DeviceCopy> {
    parts: RawParts<'a>,
    _elements: PhantomData<&'a mut [T]>,
}

/// The parts of `len` elements starting at element `start` of `parts`.
/// Device addresses are never dereferenced by the host, so plain address
/// arithmetic (`wrapping_add`) is used.
fn sub_parts<T>(parts: RawParts<'_>, start: usize, len: usize) -> RawParts<'_> {
    RawParts {
        ptr: parts
            .ptr
            .cast::<u8>()
            .wrapping_add(start * std::mem::size_of::<T>())
            .cast(),
        len,
        ctx: parts.ctx,
        tracker: parts.tracker,
    }
}

impl<'a, T: DeviceCopy> DeviceView<'a, T> {
    /// # Safety
    /// `start + len` must not exceed `parts.len`.
    pub(crate) unsafe fn from_parts(parts: RawParts<'a>, start: usize, len: usize) -> Self {
        DeviceView {
            parts: sub_parts::<T>(parts, start, len),
            _elements: PhantomData,
        }
    }
}

impl<'a, T: DeviceCopy> DeviceViewMut<'a, T> {
    /// # Safety
    /// `start + len` must not exceed `parts.len`, and no other view of the
    /// same elements may exist.
    pub(crate) unsafe fn from_parts(parts: RawParts<'a>, start: usize, len: usize) -> Self {
        DeviceViewMut {
            parts: sub_parts::<T>(parts, start, len),
            _elements: PhantomData,
        }
    }
}

impl<T: DeviceCopy> sealed::Sealed for DeviceView<'_, T> {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.parts.ptr,
            len: self.parts.len,
            ctx: self.parts.ctx,
            tracker: self.parts.tracker,
        }
    }
}

impl<T: DeviceCopy> sealed::Sealed for DeviceViewMut<'_, T> {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.parts.ptr,
            len: self.parts.len,
            ctx: self.parts.ctx,
            tracker: self.parts.tracker,
        }
    }
}

impl<T: DeviceCopy> DeviceMemory for DeviceView<'_, T> {}
impl<T: DeviceCopy> DeviceMemory for DeviceViewMut<'_, T> {}
impl<T: DeviceCopy> DeviceSlice<T> for DeviceView<'_, T> {}
impl<T: DeviceCopy> DeviceSlice<T> for DeviceViewMut<'_, T> {}
impl<T: DeviceCopy> DeviceSliceMut<T> for DeviceViewMut<'_, T> {}

// SAFETY: a view is an address range in device memory plus shared references
// to thread-safe bookkeeping; T is Send + Sync (DeviceCopy).
unsafe impl<T: DeviceCopy> Send for DeviceView<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for DeviceView<'_, T> {}
// SAFETY: as above; the mutable view is unique by construction.
unsafe impl<T: DeviceCopy> Send for DeviceViewMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for DeviceViewMut<'_, T> {}

impl<T: DeviceCopy> std::fmt::Debug for DeviceView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceView")
            .field("ptr", &self.parts.ptr)
            .field("len", &self.parts.len)
            .finish()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceViewMut")
            .field("ptr", &self.parts.ptr)
            .field("len", &self.parts.len)
            .finish()
    }
}
