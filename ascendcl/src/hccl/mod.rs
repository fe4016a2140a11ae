//! HCCL collective communication: communicators and stream-ordered
//! collectives between devices (one thread per device, or one process per
//! device).
//!
//! * [`RootInfo`] is the 4108-byte rendezvous blob made on the root rank and
//!   sent to the others out of band.
//! * A [`Communicator`] is one rank, bound to a [`Device`]:
//!   from a root info ([`Communicator::init_root_info`], one call per rank)
//!   or for several devices of this process at once
//!   ([`Communicator::init_all`]).
//! * Collectives ([`all_reduce`](Communicator::all_reduce),
//!   [`broadcast`](Communicator::broadcast), [`all_gather`](Communicator::all_gather),
//!   [`reduce_scatter`](Communicator::reduce_scatter), [`reduce`](Communicator::reduce),
//!   [`scatter`](Communicator::scatter), [`send`](Communicator::send) /
//!   [`recv`](Communicator::recv), [`all_to_all`](Communicator::all_to_all),
//!   [`barrier`](Communicator::barrier)) are queued on a stream of the
//!   communicator's device and follow the crate's
//!   [async-safety contract](crate::safety) like copies and operators: send
//!   buffers are borrowed shared and receive buffers mutably by the
//!   returned [`CollectivePending`] until it is waited on, and every buffer's
//!   tracker remembers the launch, so host access waits for it even if the
//!   guard is leaked. Counts, buffer sizes, roots and peers are checked
//!   against the rank count before any HCCL call; the dtype comes from the
//!   element type ([`HcclElement`]).
//! * HCCL statuses are [`Error::Hccl`] with their name
//!   and a hint; a function this CANN lacks is
//!   [`Error::NotSupported`].
//! * A [`Watchdog`] polls a communicator for asynchronous errors.
//!
//! The libraries (`libhccl.so`, and `libhcomm.so` on CANN 8.5+) are opened on
//! first use, next to the runtime library (see [`ascendcl_sys::hccl`]); on
//! the mock they are the mock's. Every rank must issue the same collectives
//! in the same order with the same count, dtype, op and root.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::hccl::{Communicator, ReduceOp};
//! use ascendcl::prelude::*;
//! let devices: Vec<_> = (0..2).map(|i| Device::open(&rt, i)).collect::<Result<_, _>>()?;
//! let comms = Communicator::init_all(&devices)?;
//! std::thread::scope(|s| {
//!     let ranks: Vec<_> = comms.iter().map(|comm| s.spawn(move || -> ascendcl::Result<Vec<f32>> {
//!         let ctx = comm.device().default_context();
//!         let stream = Stream::new(&ctx)?;
//!         let mut grads = DeviceBuffer::from_host(&ctx, &[1.0f32 + comm.rank() as f32; 3])?;
//!         comm.all_reduce_in_place(&mut grads, ReduceOp::Sum, &stream)?.wait()?;
//!         grads.to_vec()
//!     })).collect();
//!     for rank in ranks {
//!         assert_eq!(rank.join().unwrap()?, vec![3.0; 3]);
//!     }
//!     Ok::<(), ascendcl::Error>(())
//! })?;
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod collectives;
mod communicator;
mod element;
mod json;
mod launch;
mod launch_env;
mod pending;
mod rank_table;
mod rendezvous;
mod root_info;
pub(crate) mod support;
mod watchdog;

use ascendcl_sys::{Hccl, HcclResult, SymbolError};

use crate::device::Device;
use crate::error::{Error, HcclError, Result};

pub use communicator::{Communicator, DESTROY_ATTEMPTS, DESTROY_RETRY_SLEEP};
pub use element::{Bf16Bits, F16Bits, HcclElement, ReduceOp, dtype_size};
pub use launch_env::{
    Convention, DEFAULT_MASTER_PORT, LaunchEnv, first_slurm_host, local_device, visible_devices,
};
pub use pending::CollectivePending;
pub use rank_table::{RankTable, RankTableDevice, join_from_env, join_rank_table};
pub use rendezvous::{connect_timeout, join};
pub use root_info::RootInfo;
pub use support::supports_reduction;
pub use watchdog::Watchdog;

/// The HCCL libraries of `device`'s runtime.
pub(crate) fn library(device: &Device) -> Result<&'static Hccl> {
    Ok(ascendcl_sys::hccl_for(Some(device.runtime().library()))?)
}

/// `Ok(())` for `HCCL_SUCCESS`; the typed error otherwise. A missing
/// function is [`Error::NotSupported`].
pub(crate) fn check(
    hccl: &Hccl,
    function: &'static str,
    result: std::result::Result<HcclResult, SymbolError>,
) -> Result<()> {
    match result {
        Ok(HcclResult::HCCL_SUCCESS) => Ok(()),
        Ok(code) => Err(HcclError::new(code, function, error_string(hccl, code)).into()),
        Err(missing) => Err(Error::NotSupported { source: missing }),
    }
}

/// The library's text for `code`, if it has the function and gives one.
pub(crate) fn error_string(hccl: &Hccl, code: HcclResult) -> Option<String> {
    // SAFETY: takes any code; returns null or a static NUL-terminated string.
    let ptr = unsafe { hccl.HcclGetErrorString(code) }.ok()?;
    crate::call::owned_c_string(ptr)
}
