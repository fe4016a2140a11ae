//! The pooled tail events that waits queued on a stream still refer to.
//!
//! A launch ordered after another stream's work queues
//! `aclrtStreamWaitEvent(its stream, E)` with E that stream's tail event
//! ([`crate::lane`]). The wait runs when the waiting stream reaches it, which
//! may be long after the launch returned; until then E must not go back to
//! the context's pool, or the next party to take it records it elsewhere and
//! the queued wait may be released by that record instead. CANN promises
//! that a wait keeps the record it was queued behind only for events made
//! by `aclrtCreateEventExWithFlag` ("the task saved in the latest event is
//! used and will not be affected by subsequent calling of aclrtRecordEvent",
//! CANN 8.0 application development API, aclrtRecordEvent,
//! aclcppdevg_03_0083); the pool's events come from
//! `aclrtCreateEventWithFlag(ACL_EVENT_SYNC)`, for which it promises nothing
//! of the kind, and the mock releases such a wait at the next record's
//! completion. So the waiting stream's lane holds an `Arc` of every event its
//! queued waits use, tagged with the position of the launch they precede,
//! and lets go of it once that position is known finished, or when the
//! stream is destroyed (`aclrtDestroyStream` waits for the stream's work).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::event::TailEvent;

/// Held events, oldest position first.
#[derive(Default)]
pub(crate) struct HeldEvents {
    held: VecDeque<(u64, Arc<TailEvent>)>,
}

impl HeldEvents {
    /// Holds `events` until `position` (of the waiting stream) has finished.
    pub(crate) fn hold(&mut self, position: u64, events: Vec<Arc<TailEvent>>) {
        self.held.extend(events.into_iter().map(|e| (position, e)));
    }

    /// Lets go of the events held for positions below `completed`. (Holds
    /// arrive in position order but for launches racing from several
    /// threads; one out of order is only let go of a little later.)
    pub(crate) fn release_below(&mut self, completed: u64) {
        while self.held.front().is_some_and(|(p, _)| *p < completed) {
            self.held.pop_front();
        }
    }

    /// The oldest position held for, if any.
    pub(crate) fn oldest(&self) -> Option<u64> {
        self.held.front().map(|(p, _)| *p)
    }

    /// How many events are held.
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }

    /// The stream is destroyed, which waited for its work: every wait has
    /// run.
    pub(crate) fn release_all(&mut self) {
        self.held.clear();
    }
}

impl Drop for HeldEvents {
    /// Events still held may be referred to by a wait that has not run (the
    /// stream was not destroyed by us, or its destroy failed): they are
    /// leaked rather than handed to the next party.
    fn drop(&mut self) {
        for (_, event) in self.held.drain(..) {
            std::mem::forget(event);
        }
    }
}
