//! Device and pinned host memory.
//!
//! * [`DeviceBuffer<T>`]: device memory from `aclrtMalloc`, freed on drop.
//! * [`DeviceView`] / [`DeviceViewMut`]: sub-ranges of device memory.
//! * [`HostBuffer<T>`]: pinned host memory from `aclrtMallocHost`, the only
//!   host memory asynchronous copies accept (the runtime copies pageable
//!   memory synchronously anyway).
//! * [`HostView`] / [`HostViewMut`]: parts of a pinned buffer, for copies of
//!   fewer elements than the buffer holds.
//! * [`DeviceSlice`] / [`DeviceSliceMut`]: what every kind of device memory
//!   can do: synchronous copies, fills, views.
//!
//! Element types are plain data ([`DeviceCopy`]): any bit pattern is a valid
//! value, so bytes coming back from the device are always a valid `T`.

mod device_buffer;
mod host_buffer;
mod host_view;
mod slice;
mod view;

pub use device_buffer::{DeviceBuffer, MallocPolicy};
pub use host_buffer::HostBuffer;
pub use host_view::{HostSlice, HostSliceMut, HostView, HostViewMut};
pub use slice::{DeviceMemory, DeviceSlice, DeviceSliceMut, Tracked};
pub use view::{DeviceView, DeviceViewMut};

pub(crate) use slice::{RawParts, same_device, sealed};

use crate::error::{Error, Result};

/// Plain data that can live in device memory: `Copy`, no padding, no
/// pointers, every bit pattern valid (`bytemuck::Pod`), shareable between
/// threads. Implemented for every such type, including your own
/// `#[derive(Pod, Zeroable)]` structs and, with the `half` feature, `f16`/`bf16`.
pub trait DeviceCopy: bytemuck::Pod + Send + Sync {}

impl<T: bytemuck::Pod + Send + Sync> DeviceCopy for T {}

/// Bytes taken by `len` elements of `T`; rejects zero lengths, zero-sized
/// types and overflow before any FFI call.
pub(crate) fn bytes_for<T>(len: usize) -> Result<usize> {
    let size = std::mem::size_of::<T>();
    if size == 0 {
        return Err(Error::invalid(format!(
            "{} is zero-sized; device memory needs a sized element",
            std::any::type_name::<T>()
        )));
    }
    if len == 0 {
        return Err(Error::invalid(
            "zero-length buffers are not allowed (the runtime rejects 0-byte allocations)",
        ));
    }
    len.checked_mul(size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{len} elements of {} bytes overflow the address space",
                size
            ))
        })
}

/// Checks that a copy moves whole buffers of equal length.
#[inline]
pub(crate) fn same_len(what: &str, src: usize, dst: usize) -> Result<()> {
    if src == dst {
        Ok(())
    } else {
        unequal_len(what, src, dst)
    }
}

#[cold]
fn unequal_len(what: &str, src: usize, dst: usize) -> Result<()> {
    Err(Error::invalid(format!(
        "{what}: source has {src} elements but destination has {dst}; slice one side to match"
    )))
}

/// Resolves a range against `len`, without panicking.
pub(crate) fn resolve_range(
    range: impl std::ops::RangeBounds<usize>,
    len: usize,
) -> Result<std::ops::Range<usize>> {
    use std::ops::Bound;
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s
            .checked_add(1)
            .ok_or_else(|| Error::invalid("range start overflows"))?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e
            .checked_add(1)
            .ok_or_else(|| Error::invalid("range end overflows"))?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::invalid(format!(
            "range {start}..{end} is out of bounds for {len} elements"
        )));
    }
    if start == end {
        return Err(Error::invalid(format!("range {start}..{end} is empty")));
    }
    Ok(start..end)
}
