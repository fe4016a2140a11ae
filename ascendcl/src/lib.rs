//! Safe Rust bindings to Huawei's AscendCL runtime (CANN): devices, contexts,
//! streams, events, device and pinned host memory.
//!
//! # The model
//!
//! * A [`Runtime`] is the loaded library plus the process-wide `aclInit`.
//! * A [`Device`] is one NPU, opened with `aclrtSetDevice`. It has a default
//!   [`Context`]; more can be created. Contexts are per-thread state in
//!   AscendCL; this crate binds the right one before every call, so every
//!   object works from every thread.
//! * A [`Stream`] is an in-order queue of device work; an [`Event`] is a
//!   marker in a stream.
//! * [`DeviceBuffer`] owns device memory, [`HostBuffer`] owns pinned host
//!   memory. Synchronous copies are methods of the [`DeviceSlice`] and
//!   [`DeviceSliceMut`] traits (in the [`prelude`]); asynchronous ones are
//!   methods of [`Stream`] that return a [`Pending`].
//!
//! Objects keep their parents alive (buffer → context → device → runtime), so
//! no drop order can break anything.
//!
//! # The async-safety contract
//!
//! Safe code can never read, write, reuse or free memory that queued work may
//! still use:
//!
//! * an asynchronous copy borrows its buffers until its [`Pending`] is waited
//!   on or dropped, so touching them too early does not compile;
//! * every buffer remembers every queued use that has not provably finished
//!   (one read per stream, and the last write): dropping it, reading a pinned
//!   buffer from the host, or a synchronous copy waits for the uses it
//!   conflicts with, and using it on another stream is ordered after them
//!   with events. This holds even if a `Pending` is leaked with
//!   `mem::forget`, when threads share buffers, and after runtime failures.
//!
//! The rules, the failure cases and the known limits are in [`safety`].
//!
//! # Quick start (runs on the mock here; on an Atlas card use `Runtime::init()`)
//!
//! ```
//! use ascendcl::prelude::*;
//! # fn main() -> ascendcl::Result<()> {
//! # let rt = Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! // let rt = Runtime::init()?;
//! let device = Device::open(&rt, 0)?;
//! let ctx = device.default_context();
//! let stream = Stream::new(&ctx)?;
//!
//! let input = HostBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
//! let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, input.len())?;
//! let mut output = HostBuffer::<f32>::zeroed(&ctx, input.len())?;
//!
//! stream.copy_host_to_device(&input, &mut on_device)?.wait()?;
//! let download = stream.copy_device_to_host(&on_device, &mut output)?;
//! download.wait()?; // without this line, reading `output` below does not compile
//! assert_eq!(&output[..], &[1.0, 2.0, 3.0, 4.0]);
//! # Ok(()) }
//! ```
//!
//! # Errors
//!
//! Every fallible call returns [`Result`]; see [`Error`] for what an error
//! carries. Nothing in this crate panics on bad input: lengths, ranges,
//! device ids and timeouts are checked before any FFI call.

pub mod alloc;
mod call;
mod callback;
mod context;
mod copy;
mod deferred;
mod device;
pub mod error;
mod event;
pub mod hccl;
mod memory;
pub mod ops;
mod pending;
mod queued;
mod runtime;
pub mod safety;
mod stream;
mod tracker;
pub mod validate;
pub mod vmm;

pub use ascendcl_sys as sys;
pub use context::{Context, CurrentContext, forget_current_context};
pub use deferred::take_deferred_errors;
pub use device::{Device, MemoryInfo, Utilization};
pub use error::{AclError, Category, Error, Result};
pub use event::{Event, EventFlags};
pub use memory::{
    DeviceBuffer, DeviceCopy, DeviceMemory, DeviceSlice, DeviceSliceMut, DeviceView, DeviceViewMut,
    HostBuffer, HostSlice, HostSliceMut, HostView, HostViewMut, MallocPolicy, Tracked,
};
pub use pending::{Detached, Pending};
pub use runtime::{RunMode, Runtime};
pub use stream::{Stream, StreamFlags};

/// The types and traits most programs need.
pub mod prelude {
    pub use crate::{
        Context, Detached, Device, DeviceBuffer, DeviceSlice, DeviceSliceMut, Event, EventFlags,
        HostBuffer, Pending, Runtime, Stream, StreamFlags,
    };
}
