//! The collectives, as methods of [`Communicator`].
//!
//! Every one is checked before any HCCL call — buffer sizes against the
//! count and the rank count, ranks against the size, buffers and stream on
//! the communicator's device, a reduction's element type and op against
//! what HCCL reduces ([`supports_reduction`](super::supports_reduction)) —
//! and then queued like an operator (see
//! [`Communicator::launch`]). Counts are the buffers' lengths: the element
//! type `T` gives the dtype.

use std::ffi::c_void;

use crate::error::Result;
use crate::hccl::launch::{Touches, count, expect_len};
use crate::hccl::{CollectivePending, Communicator, HcclElement, ReduceOp, support};
use crate::memory::{DeviceSlice, DeviceSliceMut};
use crate::stream::Stream;
use crate::tracker::Access;

impl Communicator {
    /// Queues `recv = op(send of every rank)` on `stream`. `send` and `recv`
    /// hold the same number of elements, on every rank.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::hccl::{Communicator, ReduceOp};
    /// use ascendcl::prelude::*;
    /// let devices: Vec<_> = (0..2).map(|i| Device::open(&rt, i)).collect::<Result<_, _>>()?;
    /// let comms = Communicator::init_all(&devices)?;
    /// let sums = std::thread::scope(|s| {
    ///     let joins: Vec<_> = comms.iter().map(|comm| s.spawn(move || {
    ///         let ctx = comm.device().default_context();
    ///         let stream = Stream::new(&ctx)?;
    ///         let rank = comm.rank() as f32;
    ///         let x = DeviceBuffer::from_host(&ctx, &[rank, 10.0 + rank])?;
    ///         let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    ///         comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?.wait()?;
    ///         y.to_vec()
    ///     })).collect();
    ///     joins.into_iter().map(|j| j.join().unwrap()).collect::<Result<Vec<_>, _>>()
    /// })?;
    /// assert_eq!(sums, vec![vec![1.0, 21.0]; 2]);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn all_reduce<'a, T, S, R>(
        &'a self,
        send: &'a S,
        recv: &'a mut R,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclAllReduce";
        support::check_reduction(OP, T::DATA_TYPE, op)?;
        let (s, r) = (send.raw_parts(), recv.raw_parts());
        expect_len(OP, "receive", r.len, Some(s.len))?;
        let mut touches = Touches::new(self, OP);
        touches.add("send", &s, Access::Read)?;
        touches.add("receive", &r, Access::Write)?;
        let (sp, rp, n) = (s.ptr, r.ptr, count(s.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: both buffers are live device memory of `n` elements of
            // T on the comm's device, borrowed and tracked until the marker
            // recorded after this launch.
            unsafe { hccl.HcclAllReduce(sp, rp, n, T::DATA_TYPE, op.raw(), comm, raw) }
        })
    }

    /// As [`all_reduce`](Communicator::all_reduce), in place: `buf` is both
    /// sent and received (the usual gradient all-reduce).
    pub fn all_reduce_in_place<'a, T, B>(
        &'a self,
        buf: &'a mut B,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        B: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclAllReduce";
        support::check_reduction(OP, T::DATA_TYPE, op)?;
        let b = buf.raw_parts();
        let mut touches = Touches::new(self, OP);
        touches.add("in-place", &b, Access::Write)?;
        let (p, n) = (b.ptr, count(b.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: as in all_reduce; send and receive are the same buffer.
            unsafe { hccl.HcclAllReduce(p, p, n, T::DATA_TYPE, op.raw(), comm, raw) }
        })
    }

    /// Queues copying the root's `buf` into every other rank's `buf` (in
    /// place). `root < size()`, and every rank passes the same length.
    pub fn broadcast<'a, T, B>(
        &'a self,
        buf: &'a mut B,
        root: u32,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        B: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclBroadcast";
        self.check_rank(OP, "root", root)?;
        let b = buf.raw_parts();
        let mut touches = Touches::new(self, OP);
        touches.add("broadcast", &b, Access::Write)?;
        let (p, n) = (b.ptr, count(b.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: live device memory of `n` elements, borrowed mutably
            // and tracked until the marker after this launch.
            unsafe { hccl.HcclBroadcast(p, n, T::DATA_TYPE, root, comm, raw) }
        })
    }

    /// Queues the concatenation of every rank's `send` into `recv`, in rank
    /// order: `recv` holds `send.len() * size()` elements.
    pub fn all_gather<'a, T, S, R>(
        &'a self,
        send: &'a S,
        recv: &'a mut R,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclAllGather";
        let (s, r) = (send.raw_parts(), recv.raw_parts());
        expect_len(OP, "receive", r.len, s.len.checked_mul(self.size as usize))?;
        let mut touches = Touches::new(self, OP);
        touches.add("send", &s, Access::Read)?;
        touches.add("receive", &r, Access::Write)?;
        let (sp, rp, n) = (s.ptr, r.ptr, count(s.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: `send` holds n and `recv` n * size elements of T, live,
            // borrowed and tracked until the marker after this launch.
            unsafe { hccl.HcclAllGather(sp, rp, n, T::DATA_TYPE, comm, raw) }
        })
    }

    /// Queues a reduction of every rank's `send` (`recv.len() * size()`
    /// elements) whose slice `rank()` lands in `recv`.
    pub fn reduce_scatter<'a, T, S, R>(
        &'a self,
        send: &'a S,
        recv: &'a mut R,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclReduceScatter";
        support::check_reduction(OP, T::DATA_TYPE, op)?;
        let (s, r) = (send.raw_parts(), recv.raw_parts());
        expect_len(OP, "send", s.len, r.len.checked_mul(self.size as usize))?;
        let mut touches = Touches::new(self, OP);
        touches.add("send", &s, Access::Read)?;
        touches.add("receive", &r, Access::Write)?;
        let (sp, rp, n) = (s.ptr, r.ptr, count(r.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: `send` holds n * size and `recv` n elements of T, live,
            // borrowed and tracked until the marker after this launch.
            unsafe { hccl.HcclReduceScatter(sp, rp, n, T::DATA_TYPE, op.raw(), comm, raw) }
        })
    }

    /// Queues `recv = op(send of every rank)` on the root only; `recv` has
    /// `send.len()` elements on every rank and is written on the root.
    pub fn reduce<'a, T, S, R>(
        &'a self,
        send: &'a S,
        recv: &'a mut R,
        op: ReduceOp,
        root: u32,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclReduce";
        support::check_reduction(OP, T::DATA_TYPE, op)?;
        self.check_rank(OP, "root", root)?;
        let (s, r) = (send.raw_parts(), recv.raw_parts());
        expect_len(OP, "receive", r.len, Some(s.len))?;
        let mut touches = Touches::new(self, OP);
        touches.add("send", &s, Access::Read)?;
        touches.add("receive", &r, Access::Write)?;
        let (sp, rp, n) = (s.ptr, r.ptr, count(s.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: both buffers hold n elements of T, live, borrowed and
            // tracked until the marker after this launch.
            unsafe { hccl.HcclReduce(sp, rp, n, T::DATA_TYPE, op.raw(), root, comm, raw) }
        })
    }

    /// Queues slice `r` of the root's `send` (`recv.len() * size()`
    /// elements) into rank `r`'s `recv`. Only the root needs `send` (HCCL
    /// reads it there only, hicann/hccl v8.5.0 src/ops/scatter/scatter_op.cc:88-92);
    /// other ranks may pass `None::<&DeviceBuffer<T>>`.
    pub fn scatter<'a, T, S, R>(
        &'a self,
        send: Option<&'a S>,
        recv: &'a mut R,
        root: u32,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclScatter";
        self.check_rank(OP, "root", root)?;
        let r = recv.raw_parts();
        let mut touches = Touches::new(self, OP);
        let send_ptr = match send.map(|s| s.raw_parts()) {
            Some(s) => {
                expect_len(OP, "send", s.len, r.len.checked_mul(self.size as usize))?;
                touches.add("send", &s, Access::Read)?;
                s.ptr
            }
            None if root == self.rank => {
                return Err(crate::Error::invalid(format!(
                    "{OP}: the root (rank {root}) must pass the send buffer"
                )));
            }
            None => std::ptr::null_mut::<c_void>(),
        };
        touches.add("receive", &r, Access::Write)?;
        let (rp, n) = (r.ptr, count(r.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: `recv` holds n elements, the root's `send` n * size
            // (null elsewhere, which HCCL accepts off the root), live,
            // borrowed and tracked until the marker after this launch.
            unsafe { hccl.HcclScatter(send_ptr, rp, n, T::DATA_TYPE, root, comm, raw) }
        })
    }

    /// Queues sending `buf` to rank `dest`, which must queue a matching
    /// [`recv`](Communicator::recv) of the same length.
    pub fn send<'a, T, S>(
        &'a self,
        buf: &'a S,
        dest: u32,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
    {
        const OP: &str = "HcclSend";
        self.check_peer(OP, "destination", dest)?;
        let b = buf.raw_parts();
        let mut touches = Touches::new(self, OP);
        touches.add("send", &b, Access::Read)?;
        let (p, n) = (b.ptr, count(b.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: n elements of live device memory, borrowed and tracked
            // until the marker after this launch.
            unsafe { hccl.HcclSend(p, n, T::DATA_TYPE, dest, comm, raw) }
        })
    }

    /// Queues receiving `buf.len()` elements from rank `src`.
    pub fn recv<'a, T, R>(
        &'a self,
        buf: &'a mut R,
        src: u32,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclRecv";
        self.check_peer(OP, "source", src)?;
        let b = buf.raw_parts();
        let mut touches = Touches::new(self, OP);
        touches.add("receive", &b, Access::Write)?;
        let (p, n) = (b.ptr, count(b.len));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: n elements of live device memory, borrowed mutably and
            // tracked until the marker after this launch.
            unsafe { hccl.HcclRecv(p, n, T::DATA_TYPE, src, comm, raw) }
        })
    }

    /// Queues an all-to-all of equal blocks: block `j` of `send` goes to
    /// rank `j`, which stores it as block `rank()` of its `recv`. Both hold
    /// `size()` blocks of the same length.
    pub fn all_to_all<'a, T, S, R>(
        &'a self,
        send: &'a S,
        recv: &'a mut R,
        stream: &'a Stream,
    ) -> Result<CollectivePending<'a>>
    where
        T: HcclElement,
        S: DeviceSlice<T> + ?Sized,
        R: DeviceSliceMut<T> + ?Sized,
    {
        const OP: &str = "HcclAlltoAll";
        let (s, r) = (send.raw_parts(), recv.raw_parts());
        let size = self.size as usize;
        if s.len % size != 0 {
            return Err(crate::Error::invalid(format!(
                "{OP}: the send buffer's {} elements are not {size} equal blocks",
                s.len
            )));
        }
        expect_len(OP, "receive", r.len, Some(s.len))?;
        let mut touches = Touches::new(self, OP);
        touches.add("send", &s, Access::Read)?;
        touches.add("receive", &r, Access::Write)?;
        let (sp, rp, n) = (s.ptr, r.ptr, count(s.len / size));
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: both hold size blocks of n elements of T, live,
            // borrowed and tracked until the marker after this launch.
            unsafe { hccl.HcclAlltoAll(sp, n, T::DATA_TYPE, rp, n, T::DATA_TYPE, comm, raw) }
        })
    }

    /// Queues a barrier: work queued on `stream` after it runs only once
    /// every rank has reached it.
    pub fn barrier<'a>(&'a self, stream: &'a Stream) -> Result<CollectivePending<'a>> {
        const OP: &str = "HcclBarrier";
        let touches = Touches::new(self, OP);
        self.launch(OP, stream, touches, |hccl, comm, raw| {
            // SAFETY: a live comm and a live stream of its device.
            unsafe { hccl.HcclBarrier(comm, raw) }
        })
    }

    fn check_peer(&self, op: &str, what: &str, peer: u32) -> Result<()> {
        self.check_rank(op, what, peer)?;
        if peer == self.rank {
            return Err(crate::Error::invalid(format!(
                "{op}: the {what} is this rank ({peer}); send and recv pair two different ranks"
            )));
        }
        Ok(())
    }
}
