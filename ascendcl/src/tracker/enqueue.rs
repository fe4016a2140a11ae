//! Queuing an operation: order, queue and record in one critical section.

use std::sync::Arc;

use ascendcl_sys::{Library, aclrtStream};

use crate::call::check;
use crate::error::Result;
use crate::event::TailEvent;
use crate::few::Few;
use crate::lane::Launch;
use crate::stream::Stream;
use crate::tracker::uses::QueuedUse;
use crate::tracker::{Access, Use, UseTracker};

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
/// returns its position in the stream.
///
/// No event is recorded for the operation itself: its position is taken in
/// the same critical section as the launch ([`Lane::queue`]), and an event is
/// recorded only when something must wait for it (see [`crate::lane`]).
/// Ordering after a conflicting use on another stream of the same context
/// takes that stream's tail event (recording one only if none covers the
/// use) and queues a wait on it.
///
/// No lock is held across a host wait: a conflicting use that the stream
/// cannot be ordered after with an event (one on another context or device,
/// or one no event can be recorded for) is waited for with every tracker
/// unlocked, and the critical section starts again. Under the locks only
/// calls that return at once are made (event records and waits, the
/// launch), so a host callback or another rank's thread that needs one of
/// these trackers, or the caller's own locks taken inside `queue`, is never
/// blocked behind a wait for the device. The loop ends: after a round of
/// host waits the only new conflicts can be reads queued meanwhile, and
/// those conflict only with a write, which needs the exclusive access the
/// caller holds.
///
/// Nothing is queued if ordering fails, nor if queuing fails with
/// [`FailedLaunch::NothingQueued`]. A launch that failed but may have queued
/// work is remembered like a successful one.
///
/// [`Lane::queue`]: crate::lane::Lane::queue
pub(crate) fn enqueue<'s>(
    stream: &'s Stream,
    raw: aclrtStream,
    touches: &[(&UseTracker, Access)],
    failed_launch: FailedLaunch,
    queue: impl FnOnce(&'static Library, aclrtStream) -> Result<()>,
) -> Result<Launch<'s>> {
    stream.check_trackable()?;
    stream.refuse_while_capturing("tracked work")?;
    let ctx = stream.context();

    // One entry per tracker, in address order (a write wins over a read of
    // the same memory), so that two threads always lock in the same order.
    let mut entries: Few<(&UseTracker, Access)> = Few::new();
    for &(tracker, access) in touches {
        match entries.iter_mut().find(|(t, _)| std::ptr::eq(*t, tracker)) {
            Some(entry) if access == Access::Write => entry.1 = Access::Write,
            Some(_) => {}
            None => entries.push((tracker, access)),
        }
    }
    entries.sort_by_key(|(t, _)| *t as *const UseTracker as usize);
    let (mut sets, events) = loop {
        let sets: Few<_> = entries.iter().map(|(t, _)| t.lock()).collect();
        let mut events: Vec<Arc<TailEvent>> = Vec::new();
        let mut host_waits: Vec<Use> = Vec::new();
        for (set, &(_, access)) in sets.iter().zip(&entries) {
            // `to_order_after` without its Vec: no allocation per launch.
            let others = set
                .conflicts(access)
                .filter(|u| u.stream() != Some(stream.inner.id));
            for u in others {
                if !u.context().same_as(ctx) {
                    host_waits.push(u.clone());
                    continue;
                }
                match u.lane.event_to_wait_on(u.position) {
                    Ok(None) => {}
                    Ok(Some(event)) => {
                        if !events.iter().any(|e| Arc::ptr_eq(e, &event)) {
                            events.push(event);
                        }
                    }
                    // No event can mark it: waited for on the host below.
                    Err(_) => host_waits.push(u.clone()),
                }
            }
        }
        if host_waits.is_empty() {
            break (sets, events);
        }
        drop(sets);
        wait_unlocked(&entries, &host_waits)?;
        ctx.bind()?;
    };

    let lib = ctx.lib();
    // The waits and the launch in the lane's critical section, which a
    // capture's begin takes too: none of them can land in a capture.
    let (launched, at) = stream.inner.lane.queue_after_waits(events, |events| {
        for event in events {
            // SAFETY: a live stream of the current context and a live pooled
            // ACL_EVENT_SYNC event of the same context.
            check(lib, "aclrtStreamWaitEvent", unsafe {
                lib.aclrtStreamWaitEvent(raw, event.raw())
            })?;
        }
        queue(lib, raw)
    })?;
    let maybe_queued = match &launched {
        Ok(()) => true,
        // A failed operator launch may have queued some of its kernels.
        Err(_) => failed_launch == FailedLaunch::MayHaveQueued,
    };
    if maybe_queued {
        for (set, &(_, access)) in sets.iter_mut().zip(&entries) {
            set.record(access, at);
        }
    }
    for (set, (tracker, _)) in sets.iter().zip(&entries) {
        tracker.publish(set);
    }
    launched.map(|()| at)
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
        match u.wait() {
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
