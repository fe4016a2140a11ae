//! What a capture copies between the host and bound memory: pinned host
//! buffers the graph owns, uploaded from and downloaded into on the
//! capture's own stream.

use std::ffi::c_void;
use std::marker::PhantomData;

use ascendcl_sys::aclrtMemcpyKind;

use crate::call::check;
use crate::error::{Error, Result};
use crate::graph::Capture;
use crate::graph::capture_launch::hazard_key;
use crate::graph::owned::{HostInput, HostOutput, Owned};
use crate::graph::views::Bound;
use crate::memory::sealed::Sealed;
use crate::memory::{DeviceCopy, HostBuffer};
use crate::tracker::Access;

impl<'g> Capture<'g> {
    /// Gives the graph a pinned host buffer that captured uploads read: the
    /// next replay's input is written through [`Graph::host_input_mut`](crate::graph::Graph::host_input_mut).
    pub fn host_input<T: DeviceCopy>(&mut self, host: HostBuffer<T>) -> HostInput<T> {
        HostInput {
            graph: self.parts.id,
            index: self.own(host, Access::Read),
            _element: PhantomData,
        }
    }

    /// Gives the graph a pinned host buffer that captured downloads write:
    /// read after a replay through [`Graph::host_output`](crate::graph::Graph::host_output).
    pub fn host_output<T: DeviceCopy>(&mut self, host: HostBuffer<T>) -> HostOutput<T> {
        HostOutput {
            graph: self.parts.id,
            index: self.own(host, Access::Write),
            _element: PhantomData,
        }
    }

    pub(super) fn own(&mut self, memory: impl Owned + 'static, access: Access) -> usize {
        self.parts.owned.push(Box::new(memory));
        self.parts
            .owned_access
            .push((self.parts.owned.len() - 1, access));
        self.parts.owned.len() - 1
    }

    fn host_parts<T: DeviceCopy>(&self, graph: u64, index: usize) -> Result<(*mut c_void, usize)> {
        if graph != self.parts.id {
            return Err(Error::invalid(
                "this host buffer belongs to another capture",
            ));
        }
        let host: &HostBuffer<T> = self.parts.owned[index]
            .as_any()
            .downcast_ref()
            .ok_or_else(|| Error::InvalidState("a host buffer of another type".into()))?;
        let parts = host.raw_parts();
        Ok((parts.ptr, parts.len * size_of::<T>()))
    }

    /// Captures a copy of `from` (a host input of this capture) into bound
    /// memory, on the capture's own stream.
    pub fn upload<T: DeviceCopy>(&mut self, from: &HostInput<T>, to: Bound<T>) -> Result<()> {
        let (src, src_bytes) = self.host_parts::<T>(from.graph, from.index)?;
        let dst = self.bound_of(to)?;
        let (dst_ptr, dst_bytes) = (dst.ptr, dst.bytes);
        let uses = [(self.bound_key(to.index), Access::Write)];
        self.hazards.check(0, &uses)?;
        self.copy(
            src,
            dst_ptr,
            src_bytes,
            dst_bytes,
            aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
        )?;
        self.hazards.record(0, &uses);
        self.note(to.index, Access::Write);
        Ok(())
    }

    /// Captures a copy of bound memory into `to` (a host output of this
    /// capture), on the capture's own stream.
    pub fn download<T: DeviceCopy>(&mut self, from: Bound<T>, to: &HostOutput<T>) -> Result<()> {
        let (dst, dst_bytes) = self.host_parts::<T>(to.graph, to.index)?;
        let src = self.bound_of(from)?;
        let (src_ptr, src_bytes) = (src.ptr, src.bytes);
        let uses = [(self.bound_key(from.index), Access::Read)];
        self.hazards.check(0, &uses)?;
        self.copy(
            src_ptr,
            dst,
            src_bytes,
            dst_bytes,
            aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
        )?;
        self.hazards.record(0, &uses);
        Ok(())
    }

    /// The hazard key of bound memory `index`.
    fn bound_key(&self, index: usize) -> usize {
        hazard_key(self.parts.bound[index].resolve(&self.parts.owned).1)
    }

    fn copy(
        &self,
        from: *mut c_void,
        to: *mut c_void,
        from_bytes: usize,
        to_bytes: usize,
        kind: aclrtMemcpyKind,
    ) -> Result<()> {
        if from_bytes != to_bytes {
            return Err(Error::invalid(format!(
                "a captured copy of {from_bytes} bytes into {to_bytes}: the sizes must match"
            )));
        }
        let lib = self.stream.context().lib();
        self.stream.context().bind()?;
        // SAFETY: both ranges are live memory of `from_bytes` bytes (pinned
        // host memory the graph owns, device memory bound for the graph's
        // life) that the graph keeps until its model is destroyed.
        check(lib, "aclrtMemcpyAsync", unsafe {
            lib.aclrtMemcpyAsync(
                to,
                from_bytes,
                from.cast_const(),
                from_bytes,
                kind,
                self.stream.as_raw(),
            )
        })
    }
}
