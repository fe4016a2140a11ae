//! Host waits for one queued use, refusing the ones that would deadlock.

use crate::call::check;
use crate::callback;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::tracker::Use;

/// The context whose device holds the use's work.
pub(super) fn context_of(u: &Use) -> &Context {
    match u {
        Use::Marked(marker) => marker.context(),
        Use::Unmarked(unmarked) => &unmarked.ctx,
    }
}

/// Blocks until the use has finished.
pub(super) fn finish(u: &Use) -> Result<()> {
    match u {
        Use::Marked(marker) => {
            callback::refuse_wait_on_own_stream(marker.stream_id, || marker.is_complete())?;
            marker.synchronize()
        }
        Use::Unmarked(unmarked) => synchronize_device(&unmarked.ctx),
    }
}

/// `aclrtSynchronizeDevice` on `ctx`'s device; refused from a host callback
/// on that device (the callback's own stream could never drain).
pub(crate) fn synchronize_device(ctx: &Context) -> Result<()> {
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
