//! Views of part of a pinned host buffer, usable by asynchronous copies.
//!
//! `host.slice(..n)` and `host.slice_mut(..n)` borrow a [`HostBuffer`] like
//! `&buffer[..n]` and `&mut buffer[..n]` do, but stay *tracked* memory: an
//! asynchronous copy accepts them as its source or destination and moves
//! exactly their elements, so a batch smaller than its staging buffer uploads
//! only its own bytes.
//!
//! A queued use of a view is recorded on its buffer's tracker. The tracking is
//! therefore per buffer, not per element: while an upload from `host.slice(..n)`
//! may still run, writing *any* element of `host` from the host waits for it
//! (conservative, never unsound). To keep filling one half while the other
//! half uploads, use two buffers (the pipeline example's ring does).

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, RangeBounds};

use crate::error::Result;
use crate::memory::{DeviceCopy, HostBuffer, RawParts, resolve_range, sealed};
use crate::tracker::Access;

/// Pinned host memory holding `T`s that an asynchronous copy can read: a
/// [`HostBuffer`] or a view of one. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not pinned host memory: an asynchronous copy cannot read from it",
    label = "not pinned host memory holding `{T}`s",
    note = "async copies need pinned memory: `HostBuffer::from_slice(&ctx, &data)?` copies a Vec or slice \
            into a pinned buffer once (reuse it for every batch), and `host.slice(..n)` uploads part of one",
    note = "or copy synchronously, with no pinned memory: `device.copy_from_host(&data)?`"
)]
pub trait HostSlice<T: DeviceCopy>: sealed::Sealed {}

/// Pinned host memory an asynchronous copy can write: a [`HostBuffer`] or a
/// mutable view of one. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not pinned host memory that an asynchronous copy can write into",
    label = "not writable pinned host memory holding `{T}`s",
    note = "async copies need pinned memory: download into `HostBuffer::zeroed(&ctx, n)?` (or \
            `host.slice_mut(..n)`; a shared `host.slice(..)` cannot be written) and read it after `wait()`",
    note = "or copy synchronously, with no pinned memory: `device.to_vec()?` or `device.copy_to_host(&mut vec)?`"
)]
pub trait HostSliceMut<T: DeviceCopy>: HostSlice<T> {}

impl<T: DeviceCopy> HostSlice<T> for HostBuffer<T> {}
impl<T: DeviceCopy> HostSliceMut<T> for HostBuffer<T> {}
impl<T: DeviceCopy> HostSlice<T> for HostView<'_, T> {}
impl<T: DeviceCopy> HostSlice<T> for HostViewMut<'_, T> {}
impl<T: DeviceCopy> HostSliceMut<T> for HostViewMut<'_, T> {}

/// A shared view of part of a [`HostBuffer`], for the source of an upload.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::prelude::*;
/// let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
/// let stream = Stream::new(&ctx)?;
/// let staging = HostBuffer::from_slice(&ctx, &[1u32, 2, 3, 4, 5, 6, 7, 8])?;
/// let mut device = DeviceBuffer::<u32>::zeroed(&ctx, 8)?;
/// // A batch of 3: only 3 elements cross the bus.
/// stream
///     .copy_host_to_device(&staging.slice(..3)?, &mut device.slice_mut(..3)?)?
///     .wait()?;
/// assert_eq!(device.to_vec()?, vec![1, 2, 3, 0, 0, 0, 0, 0]);
/// assert!(staging.slice(4..9).is_err()); // out of bounds: an error, not a panic
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct HostView<'a, T: DeviceCopy> {
    parts: RawParts<'a>,
    _elements: PhantomData<&'a [T]>,
}

/// A mutable view of part of a [`HostBuffer`], for the destination of a
/// download.
///
/// Reading the buffer before the download into the view has been waited on
/// does not compile:
///
/// ```compile_fail,E0502
/// # fn f(stream: &ascendcl::Stream, device: &ascendcl::DeviceBuffer<f32>,
/// #      host: &mut ascendcl::HostBuffer<f32>) -> ascendcl::Result<()> {
/// use ascendcl::DeviceSlice;
/// let mut part = host.slice_mut(..4)?;
/// let download = stream.copy_device_to_host(&device.slice(..4)?, &mut part)?;
/// println!("{}", host[0]); // error: `host` is mutably borrowed by `part`
/// download.wait()?;
/// # Ok(()) }
/// ```
pub struct HostViewMut<'a, T: DeviceCopy> {
    parts: RawParts<'a>,
    _elements: PhantomData<&'a mut [T]>,
}

/// The parts of `range` (already checked against `parts.len`) of `parts`.
fn sub_parts<T>(parts: RawParts<'_>, range: std::ops::Range<usize>) -> RawParts<'_> {
    RawParts {
        // Stays inside the allocation: `range.end <= parts.len`.
        ptr: parts.ptr.cast::<T>().wrapping_add(range.start).cast(),
        len: range.len(),
        ctx: parts.ctx,
        tracker: parts.tracker,
    }
}

impl<T: DeviceCopy> HostBuffer<T> {
    /// A shared view of `range` (element indices), usable as the source of
    /// an asynchronous copy. An empty or out-of-bounds range is an error.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<HostView<'_, T>> {
        let parts = sealed::Sealed::raw_parts(self);
        let range = resolve_range(range, parts.len)?;
        Ok(HostView {
            parts: sub_parts::<T>(parts, range),
            _elements: PhantomData,
        })
    }

    /// A mutable view of `range` (element indices), usable as the
    /// destination of an asynchronous copy. An empty or out-of-bounds range
    /// is an error.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<HostViewMut<'_, T>> {
        let parts = sealed::Sealed::raw_parts(self);
        let range = resolve_range(range, parts.len)?;
        Ok(HostViewMut {
            parts: sub_parts::<T>(parts, range),
            _elements: PhantomData,
        })
    }
}

macro_rules! view_common {
    ($view:ident) => {
        impl<T: DeviceCopy> $view<'_, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.parts.len
            }

            /// Always false: views are never empty.
            pub fn is_empty(&self) -> bool {
                self.parts.len == 0
            }

            /// Waits for queued copies writing the buffer, then gives access;
            /// unlike `Deref`, reports a failed wait (and never panics).
            pub fn as_slice(&self) -> Result<&[T]> {
                self.parts.tracker.wait(Access::Read)?;
                // SAFETY: no queued write to the buffer remains (only reads
                // can be queued while this view borrows it); the range lies
                // inside the live buffer the view borrows.
                Ok(unsafe { std::slice::from_raw_parts(self.parts.ptr.cast(), self.parts.len) })
            }
        }

        impl<T: DeviceCopy> sealed::Sealed for $view<'_, T> {
            fn raw_parts(&self) -> RawParts<'_> {
                RawParts {
                    ptr: self.parts.ptr,
                    len: self.parts.len,
                    ctx: self.parts.ctx,
                    tracker: self.parts.tracker,
                }
            }
        }

        /// # Panics
        /// As `Deref` of [`HostBuffer`]: if queued work writing the buffer
        /// cannot be waited for. [`as_slice`](Self::as_slice) returns the error instead.
        impl<T: DeviceCopy> Deref for $view<'_, T> {
            type Target = [T];

            fn deref(&self) -> &[T] {
                self.parts
                    .tracker
                    .wait_or_panic(Access::Read, "host buffer access");
                // SAFETY: as in `as_slice`.
                unsafe { std::slice::from_raw_parts(self.parts.ptr.cast(), self.parts.len) }
            }
        }

        impl<T: DeviceCopy> std::fmt::Debug for $view<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($view))
                    .field("ptr", &self.parts.ptr)
                    .field("len", &self.parts.len)
                    .finish()
            }
        }

        // SAFETY: a view is a borrowed range of pinned memory plus shared
        // references to thread-safe bookkeeping; T is Send + Sync (DeviceCopy).
        unsafe impl<T: DeviceCopy> Send for $view<'_, T> {}
        // SAFETY: as above; shared access only reads.
        unsafe impl<T: DeviceCopy> Sync for $view<'_, T> {}
    };
}

view_common!(HostView);
view_common!(HostViewMut);

impl<T: DeviceCopy> HostViewMut<'_, T> {
    /// Mutable counterpart of `as_slice`: waits for every queued copy using
    /// the buffer.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.parts.tracker.wait(Access::Write)?;
        // SAFETY: no queued use of the buffer remains; the view borrows the
        // buffer mutably, so it is the only access and none can be queued.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.parts.ptr.cast(), self.parts.len) })
    }
}

impl<T: DeviceCopy> DerefMut for HostViewMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.parts
            .tracker
            .wait_or_panic(Access::Write, "host buffer access");
        // SAFETY: as in `as_mut_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.parts.ptr.cast(), self.parts.len) }
    }
}
