//! Model check of the tracker protocol: every interleaving of a few host
//! threads and a simulated device, explored exhaustively.
//!
//! The simulated device has in-order streams whose heads run in any order
//! (an event wait runs only once its event has completed). Host threads run
//! scripts that respect Rust's borrow rules (a buffer written by a thread is
//! owned by it; shared buffers are only read) through the same [`UseSet`] as
//! the real tracker, with the real code's atomic steps and the lazy-marker
//! protocol of `crate::lane`: a use is (stream, position); an enqueue is two
//! steps under its trackers' locks (which block other threads' enqueues and
//! waits on those trackers, see `locks.rs`): ordering (the events of the
//! conflicting uses, the waits queued on the stream), then the launch with
//! its position taken under the lane's lock and the use stored; between the
//! two, threads on other trackers may launch on the same stream or record
//! its tail event, as in the real code; an event is recorded at a stream's tail only
//! when something waits, covering every position taken so far there, and is
//! cached per stream; a host wait snapshots under the tracker lock, obtains
//! events (one step, under the lanes' locks), blocks without any lock, then
//! advances the streams' completed positions and forgets what it waited for.
//!
//! Two properties are checked in every reachable state:
//! * the device never runs an operation while a conflicting one queued
//!   earlier has not run (a data race on device or pinned memory);
//! * a host access, a free, or a `Pending::wait` returning never happens
//!   while a conflicting queued operation has not run.
//!
//! Tail events come from a pool (`pool.rs`): a record takes a slot nothing
//! refers to, and a wait is released by its slot's latest record, as the
//! mock does for `aclrtCreateEventWithFlag` events; a wait queued on a
//! stream refers to its slot until the launch after it has run
//! (`crate::held_events`).
//!
//! To show the checker has teeth, three broken protocols are modelled too
//! and must fail: a position taken in a critical section of its own, before
//! the launch (an event recorded in between covers a position whose work is
//! queued after it); the tracker of an earlier release (one "last use"
//! slot, updated after the queueing in a separate critical section); and a
//! pool that takes back an event a queued wait still refers to (a later
//! record on another stream releases that wait early).

use std::collections::VecDeque;

use super::uses::{Access, QueuedUse};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FakeUse {
    stream: u64,
    position: u64,
}

impl QueuedUse for FakeUse {
    fn stream(&self) -> Option<u64> {
        Some(self.stream)
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
    // Never proven complete without a wait: the model explores the protocol
    // without the pruning of finished reads (which only forgets uses a
    // completed position or event proved finished).
    fn is_complete(&self) -> bool {
        false
    }
    type Fresh<'a> = &'a FakeUse;
    fn fresh_stream(fresh: &FakeUse) -> Option<u64> {
        Some(fresh.stream)
    }
    fn keep(fresh: &FakeUse) -> FakeUse {
        fresh.clone()
    }
    fn become_later(&mut self, later: &FakeUse) {
        *self = later.clone();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// This crate's protocol.
    Current,
    /// Planted bug: the position is taken in a critical section of its own,
    /// before the launch is queued.
    PositionOutsideCriticalSection,
    /// An earlier one: one slot, recorded in a second critical section.
    PreviousSingleSlot,
    /// Planted bug (the one `crate::held_events` fixed): a pooled event
    /// goes back to the pool as soon as no lane caches it and no host
    /// thread waits on it, although a wait queued on another stream still
    /// refers to it.
    PoolReuseUnderQueuedWait,
}

#[derive(Debug, Clone)]
enum Action {
    /// Queue an operation touching buffers on a stream.
    Enqueue {
        stream: usize,
        touches: Vec<(usize, Access)>,
    },
    /// Host access to a buffer (a read through `&`, a write through `&mut`,
    /// or a free).
    Host { buffer: usize, access: Access },
    /// `Pending::wait` of this thread's `n`th enqueue.
    WaitPending { n: usize },
    /// Waits until these threads have finished (a scoped-thread join: what
    /// lets an owner write memory it lent to other threads).
    Join(Vec<usize>),
}

/// An event obtained for a wait: its id, its stream, the positions it covers.
type Covering = (usize, usize, u64);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Phase {
    Start,
    /// Enqueue planned (previous protocol only): uses to order after.
    Planned(Vec<Vec<FakeUse>>),
    /// Queued (previous protocol only), use not yet stored.
    Queued(usize),
    /// Position taken, launch not yet queued (planted bug only).
    Positioned(u64),
    /// Waits queued on the stream, trackers locked, launch not yet queued.
    Ordered,
    /// A wait saw these uses under the tracker lock.
    Snapshot(Vec<FakeUse>),
    /// Blocked until these events complete, then forgets the uses.
    Waiting(Vec<FakeUse>, Vec<Covering>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum DeviceOp {
    Wait(usize),
    Run(usize),
    Record(usize),
}

#[derive(Debug, Clone)]
struct Op {
    touches: Vec<(usize, Access)>,
    ran: bool,
    stream: usize,
    position: u64,
}

/// A stream's lane: positions taken, completed, and the cached tail event.
#[derive(Debug, Clone, Default)]
struct Lane {
    next: u64,
    completed: u64,
    tail: Option<(usize, u64)>,
}

#[derive(Debug, Clone)]
struct Thread {
    script: Vec<Action>,
    pc: usize,
    phase: Phase,
    /// The ops this thread queued, in order.
    queued: Vec<usize>,
}

#[derive(Debug, Clone)]
struct World {
    protocol: Protocol,
    trackers: Vec<Tracker>,
    streams: Vec<VecDeque<DeviceOp>>,
    lanes: Vec<Lane>,
    complete: Vec<bool>,
    ops: Vec<Op>,
    threads: Vec<Thread>,
    /// The thread holding each tracker's lock across an enqueue.
    held: Vec<Option<usize>>,
    /// The pooled event (slot) of each record, and each slot's latest
    /// record (`pool.rs`).
    pool: pool::Pool,
}

fn conflict(a: Access, b: Access) -> bool {
    a == Access::Write || b == Access::Write
}

impl World {
    fn new(protocol: Protocol, buffers: usize, streams: usize, scripts: Vec<Vec<Action>>) -> World {
        World {
            protocol,
            trackers: (0..buffers).map(|_| Tracker::new(protocol)).collect(),
            streams: vec![VecDeque::new(); streams],
            lanes: vec![Lane::default(); streams],
            complete: Vec::new(),
            ops: Vec::new(),
            held: vec![None; buffers],
            pool: pool::Pool::default(),
            threads: scripts
                .into_iter()
                .map(|script| Thread {
                    script,
                    pc: 0,
                    phase: Phase::Start,
                    queued: Vec::new(),
                })
                .collect(),
        }
    }

    fn key(&self) -> String {
        let mut key = String::new();
        for t in &self.trackers {
            key += &t.key();
        }
        key += &format!(
            "{:?}{:?}{:?}{:?}{:?}",
            self.streams, self.lanes, self.complete, self.held, self.pool
        );
        for op in &self.ops {
            key += if op.ran { "r" } else { "q" };
        }
        for t in &self.threads {
            key += &format!("|{}{:?}{:?}", t.pc, t.phase, t.queued);
        }
        key
    }

    /// Whether an unfinished op queued before `before` conflicts with
    /// `access` of `buffer`.
    fn unfinished_conflict(&self, buffer: usize, access: Access, before: usize) -> Option<usize> {
        (0..before).find(|&i| {
            let op = &self.ops[i];
            !op.ran
                && op
                    .touches
                    .iter()
                    .any(|&(b, a)| b == buffer && conflict(a, access))
        })
    }

    /// The event covering `u` (`Lane::event_covering`): none if its position
    /// is known complete, the cached tail event if it covers it, else one
    /// recorded now at the stream's tail.
    fn event_for(&mut self, u: &FakeUse) -> Option<Covering> {
        let s = u.stream as usize;
        let lane = &self.lanes[s];
        if u.position < lane.completed {
            return None;
        }
        if let Some((event, covers)) = lane.tail.filter(|&(_, c)| u.position < c) {
            return Some((event, s, covers));
        }
        self.complete.push(false);
        let event = self.complete.len() - 1;
        let slot = self.free_slot();
        self.pool.record(event, slot);
        self.streams[s].push_back(DeviceOp::Record(event));
        let covers = self.lanes[s].next;
        self.lanes[s].tail = Some((event, covers));
        Some((event, s, covers))
    }

    /// Queues the op itself after waits on the events of `order_after`,
    /// at `position` (taken now if `None`); returns its index.
    fn queue(
        &mut self,
        stream: usize,
        touches: &[(usize, Access)],
        order_after: &[Vec<FakeUse>],
        position: Option<u64>,
    ) -> usize {
        self.order(stream, order_after);
        self.launch(stream, touches, position)
    }

    /// Queues on `stream` a wait on the event of each use of `order_after`.
    fn order(&mut self, stream: usize, order_after: &[Vec<FakeUse>]) {
        for uses in order_after {
            for u in uses {
                if let Some((event, _, _)) = self.event_for(u) {
                    self.streams[stream].push_back(DeviceOp::Wait(event));
                    // Until the launch that follows has run: its waits have.
                    self.pool.hold_for_next_launch(stream, event);
                }
            }
        }
    }

    /// Queues the op at `position` (taken now if `None`); returns its index.
    fn launch(
        &mut self,
        stream: usize,
        touches: &[(usize, Access)],
        position: Option<u64>,
    ) -> usize {
        let position = position.unwrap_or_else(|| self.take_position(stream));
        let op = self.ops.len();
        self.ops.push(Op {
            touches: touches.to_vec(),
            ran: false,
            stream,
            position,
        });
        self.streams[stream].push_back(DeviceOp::Run(op));
        self.pool.launched(
            stream,
            op,
            self.protocol == Protocol::PoolReuseUnderQueuedWait,
        );
        op
    }

    fn take_position(&mut self, stream: usize) -> u64 {
        let lane = &mut self.lanes[stream];
        lane.next += 1;
        lane.next - 1
    }

    fn use_of(&self, op: usize) -> FakeUse {
        FakeUse {
            stream: self.ops[op].stream as u64,
            position: self.ops[op].position,
        }
    }

    fn store(&mut self, op: usize) {
        let u = self.use_of(op);
        for (b, a) in self.ops[op].touches.clone() {
            self.trackers[b].record(a, &u);
        }
    }

    fn plan(&self, touches: &[(usize, Access)], stream: usize) -> Vec<Vec<FakeUse>> {
        touches
            .iter()
            .map(|&(b, a)| self.trackers[b].to_order_after(a, stream as u64))
            .collect()
    }

    /// Steps thread `t`, if it can move. `Err` is a violated property.
    fn step_thread(&mut self, t: usize) -> Option<Result<(), String>> {
        let thread = &self.threads[t];
        let action = thread.script.get(thread.pc)?.clone();
        let phase = thread.phase.clone();
        let result = match (action, phase) {
            (Action::Enqueue { stream, touches }, Phase::Start) => {
                match self.protocol {
                    Protocol::Current | Protocol::PoolReuseUnderQueuedWait => {
                        let buffers: Vec<usize> = touches.iter().map(|&(b, _)| b).collect();
                        if !self.lock_all(t, &buffers) {
                            return None;
                        }
                        let plan = self.plan(&touches, stream);
                        self.order(stream, &plan);
                        self.threads[t].phase = Phase::Ordered;
                    }
                    Protocol::PositionOutsideCriticalSection => {
                        let position = self.take_position(stream);
                        self.threads[t].phase = Phase::Positioned(position);
                    }
                    Protocol::PreviousSingleSlot => {
                        self.threads[t].phase = Phase::Planned(self.plan(&touches, stream))
                    }
                }
                Ok(())
            }
            (Action::Enqueue { stream, touches }, Phase::Positioned(position)) => {
                let plan = self.plan(&touches, stream);
                let op = self.queue(stream, &touches, &plan, Some(position));
                self.store(op);
                self.threads[t].queued.push(op);
                self.advance(t);
                Ok(())
            }
            (Action::Enqueue { stream, touches }, Phase::Ordered) => {
                let op = self.launch(stream, &touches, None);
                self.store(op);
                self.unlock_all(t);
                self.threads[t].queued.push(op);
                self.advance(t);
                Ok(())
            }
            (Action::Enqueue { stream, touches }, Phase::Planned(plan)) => {
                let op = self.queue(stream, &touches, &plan, None);
                self.threads[t].queued.push(op);
                self.threads[t].phase = Phase::Queued(op);
                Ok(())
            }
            (Action::Enqueue { .. }, Phase::Queued(op)) => {
                self.store(op);
                self.advance(t);
                Ok(())
            }
            (Action::Host { buffer, access }, Phase::Start) => {
                if !self.free_for(t, &[buffer]) {
                    return None;
                }
                self.threads[t].phase = Phase::Snapshot(self.trackers[buffer].conflicts(access));
                Ok(())
            }
            (Action::WaitPending { n }, Phase::Start) => {
                let u = self.use_of(self.threads[t].queued[n]);
                self.threads[t].phase = Phase::Snapshot(vec![u]);
                Ok(())
            }
            (_, Phase::Snapshot(uses)) => {
                let events = uses.iter().filter_map(|u| self.event_for(u)).collect();
                self.threads[t].phase = Phase::Waiting(uses, events);
                Ok(())
            }
            (action, Phase::Waiting(uses, events)) => {
                if !events.iter().all(|&(e, _, _)| self.complete[e]) {
                    return None;
                }
                // Forgetting the uses takes the trackers' locks.
                let buffers: Vec<usize> = match action {
                    Action::Host { buffer, .. } => vec![buffer],
                    Action::WaitPending { n } => {
                        let op = &self.ops[self.threads[t].queued[n]];
                        op.touches.iter().map(|&(b, _)| b).collect()
                    }
                    _ => Vec::new(),
                };
                if !self.free_for(t, &buffers) {
                    return None;
                }
                for &(_, s, covers) in &events {
                    let lane = &mut self.lanes[s];
                    lane.completed = lane.completed.max(covers);
                }
                self.advance(t);
                match action {
                    Action::Host { buffer, access } => {
                        self.trackers[buffer].remove_finished(&uses);
                        match self.unfinished_conflict(buffer, access, self.ops.len()) {
                            Some(op) => Err(format!(
                                "host {access:?} of buffer {buffer} while op {op} may run"
                            )),
                            None => Ok(()),
                        }
                    }
                    Action::WaitPending { n } => {
                        for (b, _) in self.ops[self.threads[t].queued[n]].touches.clone() {
                            self.trackers[b].remove_finished(&uses);
                        }
                        self.check_ran(self.threads[t].queued[n])
                    }
                    other => Err(format!("model error: {other:?} waiting")),
                }
            }
            (Action::Join(others), Phase::Start) => {
                let finished = |o: &usize| {
                    let other = &self.threads[*o];
                    other.pc == other.script.len()
                };
                if !others.iter().all(finished) {
                    return None;
                }
                self.advance(t);
                Ok(())
            }
            (action, phase) => Err(format!("model error: {action:?} in {phase:?}")),
        };
        Some(result)
    }

    fn check_ran(&self, op: usize) -> Result<(), String> {
        if self.ops[op].ran {
            Ok(())
        } else {
            Err(format!("Pending::wait of op {op} returned before it ran"))
        }
    }

    fn advance(&mut self, t: usize) {
        self.threads[t].pc += 1;
        self.threads[t].phase = Phase::Start;
    }

    /// Runs the head of stream `s`, if it can run.
    fn step_device(&mut self, s: usize) -> Option<Result<(), String>> {
        let head = self.streams[s].front()?.clone();
        let result = match head {
            // A pooled event's wait is released by the slot's latest record
            // (the mock's model of `aclrtCreateEventWithFlag` events).
            DeviceOp::Wait(marker) if !self.complete[self.pool.latest(marker)] => return None,
            DeviceOp::Wait(_) => Ok(()),
            DeviceOp::Record(event) => {
                self.complete[event] = true;
                Ok(())
            }
            DeviceOp::Run(op) => {
                self.ops[op].ran = true;
                let touches = self.ops[op].touches.clone();
                touches
                    .iter()
                    .find_map(|&(b, a)| self.unfinished_conflict(b, a, op).map(|o| (b, o)))
                    .map_or(Ok(()), |(b, o)| {
                        Err(format!("op {op} ran while op {o} may still use buffer {b}"))
                    })
            }
        };
        self.streams[s].pop_front();
        Some(result)
    }

    fn done(&self) -> bool {
        self.threads.iter().all(|t| t.pc == t.script.len())
    }
}

mod explore;
mod locks;
mod pool;
mod protocol_tracker;
mod scenarios;

use explore::explore;
use protocol_tracker::Tracker;
