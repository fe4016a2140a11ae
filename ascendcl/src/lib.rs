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
//! # Quick start
//!
//! ```toml
//! [dependencies]
//! ascendcl = "0.1"
//!
//! [dev-dependencies]
//! ascendcl = { version = "0.1", features = ["mock"] } # Runtime::mock() in tests
//! ```
//!
//! A program finds CANN's `libascendcl.so` with [`Runtime::init`] (see
//! [`ascendcl_sys::library`](ascendcl_sys::library()) for where it looks)
//! and passes the runtime to the code that uses the card:
//!
//! ```no_run
//! use ascendcl::prelude::*;
//!
//! fn main() -> ascendcl::Result<()> {
//!     let rt = Runtime::init()?; // on an Atlas card
//!     println!("{:?}", add_one(&rt, &[1.0, 2.0, 3.0, 4.0])?);
//!     Ok(())
//! }
//!
//! /// Uploads `data`, adds 1 on the way back, and returns it.
//! fn add_one(rt: &Runtime, data: &[f32]) -> ascendcl::Result<Vec<f32>> {
//!     let device = Device::open(rt, 0)?;
//!     let ctx = device.default_context();
//!     let stream = Stream::new(&ctx)?;
//!
//!     let input = HostBuffer::from_slice(&ctx, data)?;
//!     let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, input.len())?;
//!     let mut output = HostBuffer::<f32>::zeroed(&ctx, input.len())?;
//!
//!     stream.copy_host_to_device(&input, &mut on_device)?.wait()?;
//!     let download = stream.copy_device_to_host(&on_device, &mut output)?;
//!     download.wait()?; // without this line, reading `output` below does not compile
//!     Ok(output.iter().map(|x| x + 1.0).collect())
//! }
//! ```
//!
//! Its tests run the same code on the behavioural mock, with no card and no
//! CANN: `Runtime::mock()` (feature `mock`, module `ascendcl::mock`) instead
//! of `Runtime::init()`, with faults on demand and a check that nothing
//! leaked:
//!
#![cfg_attr(feature = "mock", doc = "```")]
#![cfg_attr(not(feature = "mock"), doc = "```ignore")]
//! # use ascendcl::prelude::*;
//! # // add_one exactly as above
//! # fn add_one(rt: &Runtime, data: &[f32]) -> ascendcl::Result<Vec<f32>> {
//! #     let device = Device::open(rt, 0)?;
//! #     let ctx = device.default_context();
//! #     let stream = Stream::new(&ctx)?;
//! #     let input = HostBuffer::from_slice(&ctx, data)?;
//! #     let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, input.len())?;
//! #     let mut output = HostBuffer::<f32>::zeroed(&ctx, input.len())?;
//! #     stream.copy_host_to_device(&input, &mut on_device)?.wait()?;
//! #     let download = stream.copy_device_to_host(&on_device, &mut output)?;
//! #     download.wait()?;
//! #     Ok(output.iter().map(|x| x + 1.0).collect())
//! # }
//! use ascendcl::mock::Fault;
//! use ascendcl::sys::ACL_ERROR_RT_MEMORY_ALLOCATION;
//!
//! // The body of a `#[test] fn ...() -> ascendcl::Result<()>` in your tests:
//! # fn main() -> ascendcl::Result<()> {
//! let rt = Runtime::mock()?; // on the mock, for this test alone
//! assert_eq!(add_one(&rt, &[1.0, 2.0])?, [2.0, 3.0]);
//!
//! rt.inject(Fault::nth("aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION))?;
//! let error = add_one(&rt, &[1.0, 2.0]).unwrap_err();
//! assert_eq!(error.code(), Some(ACL_ERROR_RT_MEMORY_ALLOCATION));
//! rt.check_clean()?; // nothing leaked on the error path
//! # Ok(()) }
//! ```
//!
//! # Running your own program on the mock
//!
//! Tests take the mock with `Runtime::mock()` (above). A program that calls
//! [`Runtime::init`] — your binary, an example, a benchmark — runs on the
//! mock unchanged when `ASCENDCL_LIBRARY` names the mock's library, which
//! `ascendcl-mock install` puts on disk:
//!
//! ```sh
//! cargo install ascendcl-mock --features cli
//! ascendcl-mock install --prefix "$HOME/.local/ascendcl-mock"
//! ASCENDCL_LIBRARY="$HOME/.local/ascendcl-mock/lib/libascendcl.so" cargo run --bin your-program
//! ```
//!
//! The mock's own settings (`ASCENDCL_MOCK_DEVICE_COUNT`, `ASCENDCL_MOCK_HBM_BYTES`,
//! faults, traces: `ascendcl_mock::ENV_VARS`) apply there too. A program that
//! should always run on the mock (a demo, a CI job) can instead depend on
//! `ascendcl-mock` and open it in place of `Runtime::init()`:
//! `Runtime::with_library(ascendcl_mock::library()?)`. `ascendcl doctor`
//! (the `ascendcl-cli` crate) says which library a program would load.
//!
//! # Errors
//!
//! Every fallible call returns [`Result`]; see [`Error`] for what an error
//! carries. Nothing in this crate panics on bad input: lengths, ranges,
//! device ids and timeouts are checked before any FFI call.
//!
//! An [`Error`] prints the same helpful message with `{}` and `{:?}` (what
//! failed, the code and its name, the runtime's text, a hint), so the
//! `fn main() -> ascendcl::Result<()>` above prints it when it fails, as do
//! `unwrap()` and a failing test; `{:#?}` prints the structure instead:
//!
//! ```text
//! Error: could not load the AscendCL runtime library; tried:
//!   - /opt/cann/lib64/libascendcl.so (from ASCENDCL_LIBRARY): no such file
//! Set ASCENDCL_LIBRARY to the path of libascendcl.so ...
//! hint: `ascendcl doctor` (cargo install ascendcl-cli) checks this machine's CANN install, ...
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod alloc;
mod backend;
mod call;
mod callback;
mod context;
mod copy;
mod deferred;
mod device;
mod device_limits;
pub mod dump;
pub mod dvpp;
pub mod error;
mod event;
mod few;
pub mod graph;
pub mod hccl;
mod held_events;
mod lane;
mod latest_markers;
mod memory;
#[cfg(feature = "mock")]
#[cfg_attr(docsrs, doc(cfg(feature = "mock")))]
pub mod mock;
mod notify;
pub mod ops;
mod pending;
pub mod profiling;
mod queued;
mod runtime;
pub mod safety;
mod stream;
pub mod tensor_file;
mod tracker;
pub mod validate;
mod value;
mod verified_names;
pub mod vmm;
#[cfg(feature = "safetensors")]
#[cfg_attr(docsrs, doc(cfg(feature = "safetensors")))]
pub mod weights;

pub use ascendcl_sys as sys;
pub use backend::Backend;
pub use context::{Context, CurrentContext, forget_current_context};
pub use deferred::take_deferred_errors;
pub use device::{Device, MemoryInfo, Utilization};
pub use device_limits::{CoreKind, DeviceStatus, StreamPriorityRange};
pub use error::{AclError, Category, Error, Result};
pub use event::{Event, EventFlags};
pub use memory::{
    DeviceBuffer, DeviceCopy, DeviceMemory, DeviceSlice, DeviceSliceMut, DeviceView, DeviceViewMut,
    HostBuffer, HostSlice, HostSliceMut, HostView, HostViewMut, MallocPolicy, Tracked,
};
pub use notify::Notify;
pub use pending::{Detached, Pending};
pub use runtime::{RunMode, Runtime};
pub use stream::{Stream, StreamFlags};
pub use value::{ValueCondition, ValueWord};

/// The types and traits most programs need.
pub mod prelude {
    pub use crate::{
        Context, Detached, Device, DeviceBuffer, DeviceSlice, DeviceSliceMut, Event, EventFlags,
        HostBuffer, Pending, Runtime, Stream, StreamFlags,
    };
}
