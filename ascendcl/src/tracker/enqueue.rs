//! Queuing an operation: order, queue and record in one critical section.

use std::sync::Arc;

use ascendcl_sys::{Library, aclrtStream};

use crate::call::check;
use crate::callback;
use crate::error::Result;
use crate::event::Marker;
use crate::stream::Stream;
use crate::tracker::{Access, Unmarked, Use, UseTracker, wait};

/// Queues an operation touching the memory of `touches` on `stream`
/// (`raw`, its bound handle), following rule 1 of the module docs, and
/// returns the marker recorded after it.
///
/// Nothing is queued if taking a marker, ordering or queuing fails. If the
/// marker cannot be recorded after the operation was queued, the stream is
/// synchronized before the error is returned; if even that fails, every
/// tracker keeps an unmarked use (rule 3).
pub(crate) fn enqueue(
    stream: &Stream,
    raw: aclrtStream,
    touches: &[(&UseTracker, Access)],
    queue: impl FnOnce(&'static Library, aclrtStream) -> Result<()>,
) -> Result<Arc<Marker>> {
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
    let queued = ordered.and_then(|()| queue(lib, raw));
    let result = match queued {
        Err(error) => Err(error),
        Ok(()) => match marker.record(stream, raw) {
            Ok(()) => {
                let marker = Arc::new(marker);
                for (set, &(_, access)) in sets.iter_mut().zip(&entries) {
                    set.record(access, Use::Marked(marker.clone()));
                }
                Ok(marker)
            }
            Err(error) => {
                // The operation is queued but unmarked: drain the stream, or
                // remember that only a device-wide wait covers it.
                let drained = !callback::is_running_on(stream.inner.id)
                    // SAFETY: a live stream of the current context.
                    && check(lib, "aclrtSynchronizeStream", unsafe {
                        lib.aclrtSynchronizeStream(raw)
                    })
                    .is_ok();
                if !drained {
                    let unmarked = Arc::new(Unmarked { ctx: ctx.clone() });
                    for set in &mut sets {
                        set.record_unmarked(Use::Unmarked(unmarked.clone()));
                    }
                }
                Err(error)
            }
        },
    };
    for (set, (tracker, _)) in sets.iter().zip(&entries) {
        tracker.publish(set);
    }
    result
}
