//! Remembering every queued use of a piece of memory that may still run.
//!
//! Every buffer (device memory, pinned host memory, an allocator block, a VMM
//! mapping) has one [`UseTracker`]. It upholds this invariant:
//!
//! > **Every operation queued on any stream that may still touch the memory
//! > is either in the tracker's use set, or covered by a use in it** — ordered
//! > before that use by stream order or by an event wait, so that the use
//! > completing implies the operation completed.
//!
//! A use is a launch's position in its stream ([`QueuedAt`], see
//! [`crate::lane`]): launching records no event. Four rules keep it true:
//!
//! 1. **Queuing is one critical section** ([`enqueue`]): under the locks of
//!    every tracker the operation touches (taken in address order, so two
//!    threads cannot deadlock), the stream is ordered after each conflicting
//!    use on another stream of its context (a wait on that stream's tail
//!    event, recorded then if none covers the use), the operation is queued
//!    and given its position under its lane's lock, and the position is
//!    added to the set. A concurrent enqueue sees either the state before or
//!    the state after, never a queued use that is missing. A conflicting use
//!    that cannot be waited on with an event (another context or device, or
//!    one no event can be recorded for) is waited for on the host *before*
//!    the critical section, with no lock held, and the critical section is
//!    then entered afresh: no lock of ours is ever held across a wait for
//!    the device.
//! 2. **Positions follow the stream's order**: the position is taken in the
//!    same critical section of the lane as the launch, and a tail event is
//!    recorded under that lock too, so an event covering position `p` was
//!    recorded after every launch at or before `p` was queued. An event that
//!    a queued wait refers to stays with the waiting lane, out of the pool,
//!    until that wait is known to have run (`crate::held_events`): it is
//!    never recorded again under a wait it should release.
//! 3. **Uses leave the set only when proven finished**: a host wait on an
//!    event covering them (or a stream or device-wide synchronize) returned,
//!    a host callback queued after them started, or a
//!    later write on some stream was ordered after the use (the write's
//!    position then covers it). A failed wait removes nothing.
//! 4. **Work no event can mark is waited for device-wide**: if no event can
//!    be taken or recorded for a position (the runtime refuses, or the
//!    stream is being destroyed and no event covers it), only a device-wide
//!    synchronize of the stream's device proves it finished; until one
//!    succeeds, every access fails.
//!
//! Reads do not conflict with reads: two streams may read one buffer at the
//! same time. A host access waits for the uses it conflicts with: a shared
//! (`&`) access for writes, an exclusive (`&mut`) access, a free or an unmap
//! for everything. Because queuing a write needs `&mut` (or the memory's own
//! owner), no write can be queued between such a wait and the access.
//!
//! Leaking a [`Pending`](crate::Pending) guard with `mem::forget` only ends the
//! borrow early: the tracker still holds the use, so the next access waits.
//! The model check in `model/` explores every interleaving of threads'
//! enqueues, lazy event records, waits and device progress over this
//! protocol (positions, tail events, completed positions), on one context
//! (the host waits of cross-context ordering are outside it: they only
//! remove uses a completed wait proved finished, as a host access does).

mod enqueue;
#[cfg(test)]
mod model;
mod uses;
mod wait;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::Result;
use crate::lane::{Launch, QueuedAt};

pub(crate) use enqueue::{FailedLaunch, enqueue};
pub(crate) use uses::Access;
use uses::{QueuedUse, UseSet};
pub(crate) use wait::synchronize_device;

/// One use in a tracker's set: a launch, by its position in its stream.
pub(crate) type Use = QueuedAt;

impl QueuedUse for QueuedAt {
    fn stream(&self) -> Option<u64> {
        Some(self.stream_id())
    }

    fn same(&self, other: &QueuedAt) -> bool {
        QueuedAt::same(self, other)
    }

    fn is_complete(&self) -> bool {
        self.is_known_complete()
    }

    type Fresh<'a> = Launch<'a>;

    fn fresh_stream(fresh: Launch<'_>) -> Option<u64> {
        Some(fresh.lane.stream_id)
    }

    fn keep(fresh: Launch<'_>) -> QueuedAt {
        fresh.to_queued_at()
    }

    #[inline]
    fn become_later(&mut self, later: Launch<'_>) {
        if Arc::ptr_eq(&self.lane, later.lane) {
            // No handle taken or dropped: a steady loop on one stream
            // touches no reference count here.
            self.position = later.position;
        } else {
            *self = later.to_queued_at();
        }
    }
}

/// The queued uses of one piece of memory.
#[derive(Default)]
pub(crate) struct UseTracker {
    /// False only while the set is empty (read without the lock as a fast path).
    maybe_pending: AtomicBool,
    uses: Mutex<UseSet<Use>>,
}

impl std::fmt::Debug for UseTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UseTracker")
            .field("maybe_pending", &self.maybe_pending.load(Ordering::Relaxed))
            .finish()
    }
}

impl UseTracker {
    #[inline]
    fn lock(&self) -> MutexGuard<'_, UseSet<Use>> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Publishes whether the set is empty; called with the lock held.
    #[inline]
    fn publish(&self, set: &UseSet<Use>) {
        self.maybe_pending.store(!set.is_empty(), Ordering::Release);
    }

    /// Whether queued work may still use the memory.
    #[inline]
    pub(crate) fn maybe_pending(&self) -> bool {
        self.maybe_pending.load(Ordering::Acquire)
    }

    /// Whether a queued read of the memory may still run: asks each read's
    /// stream (recording a tail event if none covers it), without waiting.
    /// Never `false` too early; a failed query counts as still running.
    pub(crate) fn reads_running(&self) -> bool {
        if !self.maybe_pending() {
            return false;
        }
        let reads: Vec<Use> = self.lock().reads().to_vec();
        reads.iter().any(|u| !u.is_complete().unwrap_or(false))
    }

    /// Waits until no queued use conflicts with a host access of kind
    /// `access`. On error nothing is forgotten: the next access waits again.
    #[inline]
    pub(crate) fn wait(&self, access: Access) -> Result<()> {
        if !self.maybe_pending() {
            return Ok(());
        }
        self.wait_slow(access)
    }

    #[cold]
    fn wait_slow(&self, access: Access) -> Result<()> {
        let conflicts: Vec<Use> = self.lock().conflicts(access).cloned().collect();
        // Waited without the lock: other threads may queue reads meanwhile
        // (never writes: those need the access this wait is for).
        let mut finished = Vec::with_capacity(conflicts.len());
        let mut result = Ok(());
        for u in conflicts {
            match u.wait() {
                Ok(()) => finished.push(u),
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
        }
        let mut set = self.lock();
        // Even after an error, what finished before it is done.
        set.remove_finished(&finished);
        self.publish(&set);
        result
    }

    /// As [`UseTracker::wait`] for `Deref`, which cannot return an error:
    /// after a failed wait, tries a device-wide synchronize of every device
    /// that may hold the work; after that fails too, the error is parked and
    /// this panics rather than hand out memory the device may still write.
    pub(crate) fn wait_or_panic(&self, access: Access, during: &'static str) {
        if let Err(first) = self.wait(access) {
            crate::deferred::park(during, first);
            if let Err(second) = self.wait_device_wide() {
                panic!(
                    "{during}: queued work using this memory could not be waited for \
                     ({second}); use as_slice()/as_mut_slice() to get the error instead"
                );
            }
        }
    }

    /// Device-wide synchronize of every device any remembered use is on;
    /// forgets the uses on success.
    pub(crate) fn wait_device_wide(&self) -> Result<()> {
        let all: Vec<Use> = self.lock().conflicts(Access::Write).cloned().collect();
        let mut synced: Vec<u32> = Vec::new();
        for u in &all {
            if !synced.contains(&u.context().device_id()) {
                u.lane.wait_device_wide()?;
                synced.push(u.context().device_id());
            }
        }
        let mut set = self.lock();
        set.remove_finished(&all);
        self.publish(&set);
        Ok(())
    }

    /// Before releasing the memory from a destructor: waits for every use,
    /// trying again and then device-wide. Returns false (the error parked)
    /// only if all of that failed, in which case queued work may still use
    /// the memory and it must be leaked.
    pub(crate) fn wait_before_release(&self, during: &'static str) -> bool {
        if self.wait(Access::Write).is_ok() || self.wait(Access::Write).is_ok() {
            return true;
        }
        match self.wait_device_wide() {
            Ok(()) => true,
            Err(error) => {
                crate::deferred::park(during, error);
                false
            }
        }
    }

    /// Takes every use out, for memory handed back to an allocator.
    pub(crate) fn take_all(&self) -> Vec<Use> {
        if !self.maybe_pending() {
            return Vec::new();
        }
        let mut set = self.lock();
        let all = set.take_all();
        self.publish(&set);
        all
    }

    /// Adds uses inherited from the memory's previous owner.
    pub(crate) fn inherit(&self, uses: Vec<Use>) {
        if uses.is_empty() {
            return;
        }
        let mut set = self.lock();
        set.inherit(uses);
        self.publish(&set);
    }

    /// Forgets the uses that `done` having finished proves finished: those
    /// at or before it on its stream handle.
    #[inline]
    pub(crate) fn finished(&self, done: &QueuedAt) {
        let mut set = self.lock();
        set.forget(|u| Arc::ptr_eq(&u.lane, &done.lane) && u.position <= done.position);
        self.publish(&set);
    }
}
