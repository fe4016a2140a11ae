//! `Block<T>`: device memory from a caching allocator.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, PoisonError};

use crate::alloc::AllocatorInner;
use crate::alloc::state::Granted;
use crate::memory::{DeviceCopy, DeviceMemory, DeviceSlice, DeviceSliceMut, RawParts, sealed};
use crate::tracker::UseTracker;

/// `len` elements of `T` from a [`CachingAllocator`](crate::alloc::CachingAllocator).
///
/// Works like a [`DeviceBuffer`](crate::DeviceBuffer) (copies, views, the
/// async-safety contract); dropping it returns the memory to the allocator's
/// cache. If queued work still uses it, the block is reused only by its own
/// stream (in stream order) until that work has completed.
pub struct Block<T: DeviceCopy> {
    owner: Arc<AllocatorInner>,
    pool: usize,
    index: u32,
    ptr: *mut c_void,
    len: usize,
    requested: usize,
    stream: u64,
    tracker: UseTracker,
    /// The id its allocation was recorded under (0 when not recording).
    record: u64,
    _elements: PhantomData<T>,
}

// SAFETY: device memory plus thread-safe bookkeeping; T is Send + Sync.
unsafe impl<T: DeviceCopy> Send for Block<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for Block<T> {}

impl<T: DeviceCopy> std::fmt::Debug for Block<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> Block<T> {
    pub(crate) fn new(
        owner: Arc<AllocatorInner>,
        granted: Granted,
        len: usize,
        requested: usize,
        stream: u64,
        record: u64,
    ) -> Self {
        let tracker = UseTracker::default();
        tracker.inherit(granted.inherited);
        Block {
            owner,
            pool: granted.pool,
            index: granted.index,
            ptr: granted.addr as *mut c_void,
            len,
            requested,
            stream,
            tracker,
            record,
            _elements: PhantomData,
        }
    }
}

impl<T: DeviceCopy> Drop for Block<T> {
    fn drop(&mut self) {
        self.owner
            .recorder
            .free(self.record, self.requested, self.stream);
        let last_use = self.tracker.take_all();
        let mut state = self
            .owner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.release(self.pool, self.index, self.requested, self.stream, last_use);
    }
}

impl<T: DeviceCopy> sealed::Sealed for Block<T> {
    fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            ptr: self.ptr,
            len: self.len,
            ctx: &self.owner.ctx,
            tracker: &self.tracker,
        }
    }
}

impl<T: DeviceCopy> DeviceMemory for Block<T> {}
impl<T: DeviceCopy> DeviceSlice<T> for Block<T> {}
impl<T: DeviceCopy> DeviceSliceMut<T> for Block<T> {}
