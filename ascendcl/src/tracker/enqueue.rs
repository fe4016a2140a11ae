//! Queuing an operation: order, queue and record in one critical section.

use std::sync::Arc;

use ascendcl_sys::{Library, aclrtStream};

use crate::call::check;
use crate::error::Result;
use crate::event::Marker;
use crate::stream::Stream;
use crate::tracker::{Access, Unmarked, Use, UseTracker, wait};

/// What a failed `queue` call may have left on the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailedLaunch {
    /// Nothing (a runtime call that validates before queuing: copies, fills).
    NothingQueued,
    /// Possibly part of the work (an operator's phase 2 may queue several
    /// kernels before one fails): the failure is tracked like a success.
    MayHaveQueued,
}

/// Queues an operation touching the memory of `touches` on `stream`
/// (`raw`, its bound handle), following rule 1 of the module docs, and
/// returns the marker recorded after it.
///
/// Nothing is queued if taking a marker or ordering fails, nor if queuing
/// fails with [`FailedLaunch::NothingQueued`]. If the marker cannot be
/// recorded after the operation was (or may have been) queued, every tracker
/// keeps an unmarked use (rule 3).
pub(crate) fn enqueue(
    stream: &Stream,
    raw: aclrtStream,
    touches: &[(&UseTracker, Access)],
    failed_launch: FailedLaunch,
    queue: impl FnOnce(&'static Library, aclrtStream) -> Result<()>,
) -> Result<Arc<Marker>> {
    stream.check_trackable()?;
    let ctx = stream.context();
    let mut marker = Marker::take(ctx)?;

    // One entry per tracker, in address order (a write wins over a read of
    // the same memory), so that two threads always lock in the same order.
    let mut entries: Vec<(&UseTracker, Access)> = Vec::with_capacity(touches.len());
    for &(tracker, access) in touches {
        match entries.iter_mut().find(|(t, _)| std::ptr::eq(*t, tracker)) {
            Some(entry) if access == Access::Write => entry.1 = Access::Write,
            Some(_) => {}
            None => entries.push((tracker, access)),
        }
    }
    entries.sort_by_key(|(t, _)| *t as *const UseTracker as usize);
    let mut sets: Vec<_> = entries.iter().map(|(t, _)| t.lock()).collect();

    let lib = ctx.lib();
    let ordered = (|| -> Result<()> {
        for (set, &(_, access)) in sets.iter_mut().zip(&entries) {
            let mut waited = Vec::new();
            for u in set.to_order_after(access, stream.inner.id) {
                match &u {
                    Use::Marked(m) if m.context().same_as(ctx) => {
                        // SAFETY: a live stream of the current context and a
                        // live pooled ACL_EVENT_SYNC event of the same context.
                        check(lib, "aclrtStreamWaitEvent", unsafe {
                            lib.aclrtStreamWaitEvent(raw, m.raw())
                        })?;
                    }
                    // Another context (or device) cannot wait on the event:
                    // the host waits instead; unmarked work needs a device wait.
                    _ => {
                        wait::finish(&u)?;
                        ctx.bind()?;
                        waited.push(u);
                    }
                }
            }
            set.remove_finished(&waited);
        }
        Ok(())
    })();
    // What went wrong, and whether the operation may be queued anyway.
    let (failure, maybe_queued) = match ordered {
        Err(error) => (Some(error), false),
        Ok(()) => match queue(lib, raw) {
            Ok(()) => (None, true),
            // A failed operator launch may have queued some of its kernels.
            Err(error) => (Some(error), failed_launch == FailedLaunch::MayHaveQueued),
        },
    };
    let result = if !maybe_queued {
        Err(failure.unwrap_or_else(|| crate::error::Error::InvalidState("nothing queued".into())))
    } else {
        match marker.record(stream, raw) {
            Ok(()) => {
                let marker = Arc::new(marker);
                for (set, &(_, access)) in sets.iter_mut().zip(&entries) {
                    set.record(access, Use::Marked(marker.clone()));
                }
                match failure {
                    None => Ok(marker),
                    Some(error) => Err(error),
                }
            }
            Err(error) => {
                // The operation is queued but unmarked: remember that only a
                // device-wide wait covers it. (A stream synchronize is not
                // proof: it returns at once on some streams, and a callback
                // cannot wait for its own stream.)
                let unmarked = Arc::new(Unmarked { ctx: ctx.clone() });
                for set in &mut sets {
                    set.record_unmarked(Use::Unmarked(unmarked.clone()));
                }
                Err(failure.unwrap_or(error))
            }
        }
    };
    for (set, (tracker, _)) in sets.iter().zip(&entries) {
        tracker.publish(set);
    }
    result
}
