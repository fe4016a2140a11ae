//! The device-wide wait, refused where it would deadlock.

use crate::call::check;
use crate::callback;
use crate::context::Context;
use crate::error::{Error, Result};

/// `aclrtSynchronizeDevice` on `ctx`'s device; refused from a host callback
/// on that device (the callback's own stream could never drain), and while
/// a capture this crate began is under way on it (CANN refuses with 107027
/// and invalidates the capture).
pub(crate) fn synchronize_device(ctx: &Context) -> Result<()> {
    crate::graph::mode_gate::refuse_device_sync(ctx.device_id(), "a device-wide wait")?;
    if let Some(running) = callback::running() {
        if running.device == ctx.device_id() {
            return Err(Error::WouldDeadlock(format!(
                "a host callback on device {} cannot wait for the whole device: its own \
                 stream is blocked until the callback returns",
                running.device
            )));
        }
    }
    ctx.bind()?;
    let lib = ctx.lib();
    // SAFETY: no arguments; `ctx` is current.
    check(lib, "aclrtSynchronizeDevice", unsafe {
        lib.aclrtSynchronizeDevice()
    })
}
