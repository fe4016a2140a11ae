//! Asynchronous copies and fills, queued on a stream.
//!
//! Each returns a [`Pending`] that borrows the buffers until the operation
//! has finished, and is queued through the tracker's one critical section
//! (`tracker::enqueue`: order after conflicting uses, queue, record the
//! marker), so the buffers remember the operation whatever happens to the
//! guard.

use ascendcl_sys::{aclrtMemcpyKind, aclrtStream};

use crate::call::check;
use crate::error::Result;
use crate::memory::{
    DeviceCopy, DeviceSlice, DeviceSliceMut, HostSlice, HostSliceMut, RawParts, Tracked,
    same_device as slice_same_device, same_len,
};
use crate::pending::Pending;
use crate::stream::Stream;
use crate::tracker::{self, Access, FailedLaunch, UseTracker};

impl Stream {
    /// Queues a copy of pinned host memory into device memory.
    ///
    /// The source is a [`HostBuffer`](crate::HostBuffer) or a view of part
    /// of one ([`HostBuffer::slice`](crate::HostBuffer::slice)); the
    /// destination a device buffer, view or block of the same length. Only
    /// those elements are copied.
    pub fn copy_host_to_device<'a, T, S, D>(
        &'a self,
        src: &'a S,
        dst: &'a mut D,
    ) -> Result<Pending<'a, D>>
    where
        T: DeviceCopy,
        S: HostSlice<T> + ?Sized,
        D: DeviceSliceMut<T> + ?Sized,
    {
        slice_same_device("copy_host_to_device", &dst.raw_parts(), self.context())?;
        self.memcpy_async::<T, D>(
            "copy_host_to_device",
            src.raw_parts(),
            dst,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }

    /// Queues a copy of device memory into pinned host memory: a
    /// [`HostBuffer`](crate::HostBuffer) or a mutable view of part of one
    /// ([`HostBuffer::slice_mut`](crate::HostBuffer::slice_mut)).
    pub fn copy_device_to_host<'a, T, S, D>(
        &'a self,
        src: &'a S,
        dst: &'a mut D,
    ) -> Result<Pending<'a, D>>
    where
        T: DeviceCopy,
        S: DeviceSlice<T> + ?Sized,
        D: HostSliceMut<T> + ?Sized,
    {
        let s = src.raw_parts();
        slice_same_device("copy_device_to_host", &s, self.context())?;
        self.memcpy_async::<T, _>(
            "copy_device_to_host",
            s,
            dst,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )
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
        let s = src.raw_parts();
        slice_same_device("copy_device_to_device", &s, self.context())?;
        slice_same_device("copy_device_to_device", &dst.raw_parts(), self.context())?;
        self.memcpy_async::<T, D>(
            "copy_device_to_device",
            s,
            dst,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE,
        )
    }

    /// The common part of the three copies: equal lengths, then
    /// `aclrtMemcpyAsync` through [`Stream::enqueue`].
    fn memcpy_async<'a, T, D: Tracked + ?Sized>(
        &'a self,
        what: &str,
        src: RawParts<'a>,
        dst: &'a mut D,
        kind: aclrtMemcpyKind,
    ) -> Result<Pending<'a, D>> {
        let d = dst.raw_parts();
        same_len(what, src.len, d.len)?;
        let (to, from, bytes) = (d.ptr, src.ptr.cast_const(), d.len * size_of::<T>());
        self.enqueue(Some(src.tracker), dst, |lib, stream| {
            // SAFETY: `from` and `to` are live memory of `bytes` bytes (pinned
            // host memory or device memory, as `kind` says), kept alive and
            // unaliased by the returned Pending and by the trackers until the
            // marker recorded after the copy completes; `&mut dst` excludes
            // overlap with the source.
            check(lib, "aclrtMemcpyAsync", unsafe {
                lib.aclrtMemcpyAsync(to, bytes, from, bytes, kind, stream)
            })
        })
    }

    /// Queues setting every byte of `dst` to `value`.
    ///
    /// Like every [`Pending`] (a copy's too), the returned guard **blocks
    /// when dropped** until the fill has run: `stream.fill_bytes(..)?;`
    /// alone is a synchronous fill. To queue it and move on, call
    /// [`Pending::detach`]: `dst` stays tracked, so reading it from the host,
    /// freeing it or using it on another stream still waits for (or is
    /// ordered after) the fill, and work queued later on this stream runs
    /// after it by stream order.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::prelude::*;
    /// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
    /// let stream = Stream::new(&ctx)?;
    /// let mut device = DeviceBuffer::<u8>::alloc(&ctx, 4)?;
    /// stream.fill_bytes(&mut device, 7)?.detach(); // queued, not waited for
    /// assert_eq!(device.to_vec()?, vec![7; 4]); // the read waits for the fill
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
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

    /// Queues through [`tracker::enqueue`]: the source is read, the
    /// destination written.
    fn enqueue<'a, D: Tracked + ?Sized>(
        &'a self,
        source: Option<&'a UseTracker>,
        dst: &'a mut D,
        queue: impl FnOnce(&'static ascendcl_sys::Library, aclrtStream) -> Result<()>,
    ) -> Result<Pending<'a, D>> {
        let raw = self.bound()?;
        let dst_tracker = dst.raw_parts().tracker;
        let marker = match source {
            Some(src) => tracker::enqueue(
                self,
                raw,
                &[(src, Access::Read), (dst_tracker, Access::Write)],
                FailedLaunch::NothingQueued,
                queue,
            )?,
            None => tracker::enqueue(
                self,
                raw,
                &[(dst_tracker, Access::Write)],
                FailedLaunch::NothingQueued,
                queue,
            )?,
        };
        Ok(Pending::new(self, marker, source, dst))
    }
}
