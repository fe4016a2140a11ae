//! The context's pool of tail events in the model: a record takes a pooled
//! event (a slot) that nothing refers to, and a wait on a slot is released
//! by the slot's latest record, as the mock does for the
//! `aclrtCreateEventWithFlag` events the pool holds. What refers to a slot:
//! a lane caching it as its tail, a host thread waiting on it, and (this
//! crate's protocol, `crate::held_events`) a wait queued on a stream, until
//! the launch queued right after that wait has run.

use super::{Phase, World};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(super) struct Pool {
    /// Each record's slot.
    slot_of: Vec<usize>,
    /// Each slot's latest record.
    latest: Vec<usize>,
    /// Slots waited on by waits queued on a stream whose launch is not yet
    /// queued: (stream, record).
    pending: Vec<(usize, usize)>,
    /// Slots held for a launch: (record, op).
    held: Vec<(usize, usize)>,
}

impl Pool {
    pub(super) fn record(&mut self, record: usize, slot: usize) {
        if slot == self.latest.len() {
            self.latest.push(record);
        } else {
            self.latest[slot] = record;
        }
        self.slot_of.push(slot);
    }

    /// The latest record of `record`'s slot.
    pub(super) fn latest(&self, record: usize) -> usize {
        self.latest[self.slot_of[record]]
    }

    pub(super) fn hold_for_next_launch(&mut self, stream: usize, record: usize) {
        self.pending.push((stream, record));
    }

    /// The launch `op` on `stream` was queued: the waits queued before it
    /// on that stream are held until it has run, or (the planted bug)
    /// forgotten at once.
    pub(super) fn launched(&mut self, stream: usize, op: usize, forget: bool) {
        let (mine, others): (Vec<_>, Vec<_>) =
            self.pending.drain(..).partition(|&(s, _)| s == stream);
        self.pending = others;
        if !forget {
            self.held
                .extend(mine.into_iter().map(|(_, record)| (record, op)));
        }
    }
}

impl World {
    /// A slot nothing refers to (the lowest), or a new one.
    pub(super) fn free_slot(&self) -> usize {
        let pool = &self.pool;
        let slot = |record: usize| pool.slot_of[record];
        let mut used = vec![false; pool.latest.len()];
        for lane in &self.lanes {
            if let Some((record, _)) = lane.tail {
                used[slot(record)] = true;
            }
        }
        for &(_, record) in &pool.pending {
            used[slot(record)] = true;
        }
        for &(record, op) in &pool.held {
            if !self.ops[op].ran {
                used[slot(record)] = true;
            }
        }
        for thread in &self.threads {
            if let Phase::Waiting(_, events) = &thread.phase {
                for &(record, _, _) in events {
                    used[slot(record)] = true;
                }
            }
        }
        used.iter().position(|u| !u).unwrap_or(used.len())
    }
}
