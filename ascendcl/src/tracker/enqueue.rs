//! Queuing an operation: order, queue and record in one critical section.

use std::sync::Arc;

use ascendcl_sys::{Library, aclrtStream};

use crate::call::check;
use crate::error::{Error, Result};
use crate::event::Marker;
use crate::stream::Stream;
use crate::tracker::uses::QueuedUse;
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
/// No lock is held across a host wait: a conflicting use that the stream
/// cannot be ordered after with an event (one on another context or device,
/// or unmarked work) is waited for with every tracker unlocked, and the
/// critical section starts again. Under the locks only calls that return at
/// once are made (event waits, the launch, the marker's record), so a host
/// callback or another rank's thread that needs one of these trackers, or
/// the caller's own locks taken inside `queue`, is never blocked behind a
/// wait for the device. The loop ends: after a round of host waits the only
/// new conflicts can be reads queued meanwhile, and those conflict only with
/// a write, which needs the exclusive access the caller holds.
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
    let mut sets = loop {
        let sets: Vec<_> = entries.iter().map(|(t, _)| t.lock()).collect();
        let host_waits: Vec<Use> = sets
            .iter()
            .zip(&entries)
            .flat_map(|(set, &(_, access))| set.to_order_after(access, stream.inner.id))
            .filter(|u| !event_waitable(u, stream))
            .collect();
        if host_waits.is_empty() {
            break sets;
        }
        drop(sets);
        wait_unlocked(&entries, &host_waits)?;
        ctx.bind()?;
    };

    let lib = ctx.lib();
    let ordered = (|| -> Result<()> {
        for (set, &(_, access)) in sets.iter_mut().zip(&entries) {
            for u in set.to_order_after(access, stream.inner.id) {
                let Use::Marked(m) = &u else {
                    // The loop above host-waited for every other kind.
                    return Err(Error::InvalidState(
                        "an unmarked use was left to order after".into(),
                    ));
                };
                // SAFETY: a live stream of the current context and a live
                // pooled ACL_EVENT_SYNC event of the same context.
                check(lib, "aclrtStreamWaitEvent", unsafe {
                    lib.aclrtStreamWaitEvent(raw, m.raw())
                })?;
            }
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
        Err(failure.unwrap_or_else(|| Error::InvalidState("nothing queued".into())))
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

/// Whether `stream` can be ordered after `u` by waiting on its marker: a
/// marked use of the stream's own context. Anything else needs a host wait.
fn event_waitable(u: &Use, stream: &Stream) -> bool {
    matches!(u, Use::Marked(m) if m.context().same_as(stream.context()))
}

/// Host-waits for `uses` with no tracker locked, then forgets them in every
/// tracker of `entries` that still holds them. On error what finished before
/// it is forgotten and the rest kept.
fn wait_unlocked(entries: &[(&UseTracker, Access)], uses: &[Use]) -> Result<()> {
    let mut finished = Vec::with_capacity(uses.len());
    let mut result = Ok(());
    for u in uses {
        if finished.iter().any(|f: &Use| f.same(u)) {
            continue;
        }
        match wait::finish(u) {
            Ok(()) => finished.push(u.clone()),
            Err(error) => {
                result = Err(error);
                break;
            }
        }
    }
    for (tracker, _) in entries {
        let mut set = tracker.lock();
        set.remove_finished(&finished);
        tracker.publish(&set);
    }
    result
}
