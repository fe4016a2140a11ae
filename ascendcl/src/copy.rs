//! Asynchronous copies and fills, queued on a stream.
//!
//! Each returns a [`Pending`] that borrows the buffers until the operation
//! has finished. The steps of queuing are always the same:
//!
//! 1. take a marker event from the context's pool (failing here queues nothing);
//! 2. order the operation after uses of the buffers on other streams;
//! 3. queue the operation;
//! 4. record the marker after it and store it in both buffers' trackers.
//!
//! If recording the marker fails after the operation was queued, the stream
//! is synchronized before the error is returned, so nothing is left running
//! untracked (and if even that fails, the buffers demand a device-wide
//! synchronize before any further use).

use std::sync::Arc;

use ascendcl_sys::{aclrtMemcpyKind, aclrtStream};

use crate::call::check;
use crate::error::Result;
use crate::event::Marker;
use crate::memory::{
    DeviceCopy, DeviceSlice, DeviceSliceMut, HostBuffer, Tracked, same_device as slice_same_device,
    same_len, sealed::Sealed,
};
use crate::pending::Pending;
use crate::stream::Stream;
use crate::tracker::UseTracker;

impl Stream {
    /// Queues a copy of pinned host memory into device memory.
    pub fn copy_host_to_device<'a, T, D>(
        &'a self,
        src: &'a HostBuffer<T>,
        dst: &'a mut D,
    ) -> Result<Pending<'a, D>>
    where
        T: DeviceCopy,
        D: DeviceSliceMut<T> + ?Sized,
    {
        let (s, d) = (src.raw_parts(), dst.raw_parts());
        same_len("copy_host_to_device", s.len, d.len)?;
        slice_same_device("copy_host_to_device", &d, self.context())?;
        let (to, from, bytes) = (d.ptr, s.ptr.cast_const(), d.len * size_of::<T>());
        self.enqueue(Some(s.tracker), dst, |lib, stream| {
            // SAFETY: `from` is pinned host memory and `to` device memory, both
            // `bytes` long and kept alive and unaliased by the returned Pending
            // (and by the trackers until the marker completes).
            check(lib, "aclrtMemcpyAsync", unsafe {
                lib.aclrtMemcpyAsync(
                    to,
                    bytes,
                    from,
                    bytes,
                    aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
                    stream,
                )
            })
        })
    }

    /// Queues a copy of device memory into pinned host memory.
    pub fn copy_device_to_host<'a, T, S>(
        &'a self,
        src: &'a S,
        dst: &'a mut HostBuffer<T>,
    ) -> Result<Pending<'a, HostBuffer<T>>>
    where
        T: DeviceCopy,
        S: DeviceSlice<T> + ?Sized,
    {
        let (s, d) = (src.raw_parts(), dst.raw_parts());
        same_len("copy_device_to_host", s.len, d.len)?;
        slice_same_device("copy_device_to_host", &s, self.context())?;
        let (to, from, bytes) = (d.ptr, s.ptr.cast_const(), d.len * size_of::<T>());
        self.enqueue(Some(s.tracker), dst, |lib, stream| {
            // SAFETY: as in copy_host_to_device, in the other direction.
            check(lib, "aclrtMemcpyAsync", unsafe {
                lib.aclrtMemcpyAsync(
                    to,
                    bytes,
                    from,
                    bytes,
                    aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
                    stream,
                )
            })
        })
    }

    /// Queues a copy between two device ranges of this stream's device.
    pub fn copy_device_to_device<'a, T, S, D>(
        &'a self,
        src: &'a S,
        dst: &'a mut D,
    ) -> Result<Pending<'a, D>>
    where
        T: DeviceCopy,
        S: DeviceSlice<T> + ?Sized,
        D: DeviceSliceMut<T> + ?Sized,
    {
        let (s, d) = (src.raw_parts(), dst.raw_parts());
        same_len("copy_device_to_device", s.len, d.len)?;
        slice_same_device("copy_device_to_device", &s, self.context())?;
        slice_same_device("copy_device_to_device", &d, self.context())?;
        let (to, from, bytes) = (d.ptr, s.ptr.cast_const(), d.len * size_of::<T>());
        self.enqueue(Some(s.tracker), dst, |lib, stream| {
            // SAFETY: two live device ranges of `bytes` bytes; `&mut dst`
            // excludes overlap with `src`.
            check(lib, "aclrtMemcpyAsync", unsafe {
                lib.aclrtMemcpyAsync(
                    to,
                    bytes,
                    from,
                    bytes,
                    aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE,
                    stream,
                )
            })
        })
    }

    /// Queues setting every byte of `dst` to `value`.
    pub fn fill_bytes<'a, T, D>(&'a self, dst: &'a mut D, value: u8) -> Result<Pending<'a, D>>
    where
        T: DeviceCopy,
        D: DeviceSliceMut<T> + ?Sized,
    {
        let d = dst.raw_parts();
        slice_same_device("fill_bytes", &d, self.context())?;
        let (to, bytes) = (d.ptr, d.len * size_of::<T>());
        self.enqueue(None, dst, |lib, stream| {
            // SAFETY: live device memory of `bytes` bytes, kept by the Pending.
            check(lib, "aclrtMemsetAsync", unsafe {
                lib.aclrtMemsetAsync(to, bytes, i32::from(value), bytes, stream)
            })
        })
    }

    /// The four steps of the module docs.
    fn enqueue<'a, D: Tracked + ?Sized>(
        &'a self,
        source: Option<&'a UseTracker>,
        dst: &'a mut D,
        queue: impl FnOnce(&ascendcl_sys::Library, aclrtStream) -> Result<()>,
    ) -> Result<Pending<'a, D>> {
        let raw = self.bound()?;
        let mut marker = Marker::take(self.context())?;
        let dst_tracker = dst.raw_parts().tracker;
        if let Some(source) = source {
            source.order_before(self, raw)?;
        }
        dst_tracker.order_before(self, raw)?;
        queue(self.context().lib(), raw)?;
        if let Err(error) = marker.record(self, raw) {
            if self.synchronize().is_err() {
                source
                    .into_iter()
                    .chain([dst_tracker])
                    .for_each(UseTracker::set_unknown_use);
            }
            return Err(error);
        }
        let marker = Arc::new(marker);
        if let Some(source) = source {
            source.set_last_use(&marker);
        }
        dst_tracker.set_last_use(&marker);
        Ok(Pending::new(self, marker, source, dst))
    }
}
