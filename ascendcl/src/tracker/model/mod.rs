//! Model check of the tracker protocol: every interleaving of a few host
//! threads and a simulated device, explored exhaustively.
//!
//! The simulated device has in-order streams whose heads run in any order
//! (an event wait runs only once its event has completed). Host threads run
//! scripts that respect Rust's borrow rules (a buffer written by a thread is
//! owned by it; shared buffers are only read) through the same [`UseSet`] as
//! the real tracker, with the real code's atomic steps: a whole enqueue is one
//! step (it runs under the trackers' locks); a host wait snapshots under the
//! lock, blocks without it, and forgets what it waited for under it again.
//!
//! Two properties are checked in every reachable state:
//! * the device never runs an operation while a conflicting one queued
//!   earlier has not run (a data race on device or pinned memory);
//! * a host access, a free, or a `Pending::wait` returning never happens
//!   while a conflicting queued operation has not run.
//!
//! To show the checker has teeth, the tracker of the previous release (one
//! "last use" slot, updated after the queueing in a separate critical
//! section, `Pending` trusting a vanished marker) is modelled too and must
//! fail.

use std::collections::{HashSet, VecDeque};

use super::uses::{Access, QueuedUse, UseSet};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FakeUse {
    marker: usize,
    stream: u64,
}

impl QueuedUse for FakeUse {
    fn stream(&self) -> Option<u64> {
        Some(self.stream)
    }
    fn same(&self, other: &Self) -> bool {
        self.marker == other.marker
    }
    // Never proven complete without a wait: the model explores the protocol
    // without the pruning of finished reads (which only forgets uses a query
    // proved finished).
    fn is_complete(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// This crate's protocol.
    Current,
    /// The previous one: one slot, recorded in a second critical section,
    /// a `Pending` whose marker vanished returns at once.
    PreviousSingleSlot,
}

#[derive(Debug, Clone)]
enum Tracker {
    Current(UseSet<FakeUse>),
    Previous(Option<FakeUse>),
}

impl Tracker {
    fn new(protocol: Protocol) -> Tracker {
        match protocol {
            Protocol::Current => Tracker::Current(UseSet::default()),
            Protocol::PreviousSingleSlot => Tracker::Previous(None),
        }
    }

    fn conflicts(&self, access: Access) -> Vec<FakeUse> {
        match self {
            Tracker::Current(set) => set.conflicts(access).cloned().collect(),
            Tracker::Previous(last) => last.iter().cloned().collect(),
        }
    }

    fn to_order_after(&self, access: Access, stream: u64) -> Vec<FakeUse> {
        match self {
            Tracker::Current(set) => set.to_order_after(access, stream),
            Tracker::Previous(last) => last
                .iter()
                .filter(|u| u.stream != stream)
                .cloned()
                .collect(),
        }
    }

    fn record(&mut self, access: Access, new: FakeUse) {
        match self {
            Tracker::Current(set) => set.record(access, new),
            Tracker::Previous(last) => *last = Some(new),
        }
    }

    fn remove_finished(&mut self, done: &[FakeUse]) {
        match self {
            Tracker::Current(set) => set.remove_finished(done),
            Tracker::Previous(last) => {
                if last.as_ref().is_some_and(|l| done.contains(l)) {
                    *last = None;
                }
            }
        }
    }

    fn holds(&self, marker: usize) -> bool {
        self.conflicts(Access::Write)
            .iter()
            .any(|u| u.marker == marker)
    }

    fn key(&self) -> String {
        format!("{self:?}")
    }
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

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Phase {
    Start,
    /// Enqueue planned (previous protocol only): uses to order after.
    Planned(Vec<Vec<FakeUse>>),
    /// Queued (previous protocol only), marker not yet stored.
    Queued(usize),
    /// Blocked until these markers complete, then forgets them.
    Waiting(Vec<FakeUse>),
    /// Blocked until this op has run (a stream synchronize covers it).
    WaitingStream(usize),
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
    marker: usize,
    stream: usize,
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
    complete: Vec<bool>,
    ops: Vec<Op>,
    threads: Vec<Thread>,
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
            complete: Vec::new(),
            ops: Vec::new(),
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
        key += &format!("{:?}{:?}", self.streams, self.complete);
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

    fn new_marker(&mut self) -> usize {
        self.complete.push(false);
        self.complete.len() - 1
    }

    /// Queues the op itself (after the waits), returns its index.
    fn queue(
        &mut self,
        stream: usize,
        touches: &[(usize, Access)],
        order_after: &[Vec<FakeUse>],
    ) -> usize {
        for uses in order_after {
            for u in uses {
                self.streams[stream].push_back(DeviceOp::Wait(u.marker));
            }
        }
        let marker = self.new_marker();
        let op = self.ops.len();
        self.ops.push(Op {
            touches: touches.to_vec(),
            ran: false,
            marker,
            stream,
        });
        self.streams[stream].push_back(DeviceOp::Run(op));
        self.streams[stream].push_back(DeviceOp::Record(marker));
        op
    }

    fn store(&mut self, op: usize) {
        let (stream, marker) = (self.ops[op].stream, self.ops[op].marker);
        for (b, a) in self.ops[op].touches.clone() {
            self.trackers[b].record(
                a,
                FakeUse {
                    marker,
                    stream: stream as u64,
                },
            );
        }
    }

    /// Steps thread `t`, if it can move. `Err` is a violated property.
    fn step_thread(&mut self, t: usize) -> Option<Result<(), String>> {
        let thread = &self.threads[t];
        let action = thread.script.get(thread.pc)?.clone();
        let phase = thread.phase.clone();
        let result = match (action, phase) {
            (Action::Enqueue { stream, touches }, Phase::Start) => {
                let plan: Vec<Vec<FakeUse>> = touches
                    .iter()
                    .map(|&(b, a)| self.trackers[b].to_order_after(a, stream as u64))
                    .collect();
                match self.protocol {
                    Protocol::Current => {
                        let op = self.queue(stream, &touches, &plan);
                        self.store(op);
                        self.threads[t].queued.push(op);
                        self.advance(t);
                    }
                    Protocol::PreviousSingleSlot => self.threads[t].phase = Phase::Planned(plan),
                }
                Ok(())
            }
            (Action::Enqueue { stream, touches }, Phase::Planned(plan)) => {
                let op = self.queue(stream, &touches, &plan);
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
                self.threads[t].phase = Phase::Waiting(self.trackers[buffer].conflicts(access));
                Ok(())
            }
            (Action::Host { buffer, access }, Phase::Waiting(uses)) => {
                if !uses.iter().all(|u| self.complete[u.marker]) {
                    return None;
                }
                self.trackers[buffer].remove_finished(&uses);
                self.advance(t);
                match self.unfinished_conflict(buffer, access, self.ops.len()) {
                    Some(op) => Err(format!(
                        "host {access:?} of buffer {buffer} while op {op} may run"
                    )),
                    None => Ok(()),
                }
            }
            (Action::WaitPending { n }, Phase::Start) => {
                let op = self.threads[t].queued[n];
                let marker = self.ops[op].marker;
                let alive = self.trackers.iter().any(|tr| tr.holds(marker));
                self.threads[t].phase = match (alive, self.protocol) {
                    (true, _) => Phase::Waiting(vec![FakeUse { marker, stream: 0 }]),
                    (false, Protocol::Current) => Phase::WaitingStream(op),
                    // The previous Pending trusted a vanished marker.
                    (false, Protocol::PreviousSingleSlot) => Phase::Waiting(Vec::new()),
                };
                Ok(())
            }
            (Action::WaitPending { n }, Phase::Waiting(uses)) => {
                if !uses.iter().all(|u| self.complete[u.marker]) {
                    return None;
                }
                let op = self.threads[t].queued[n];
                for tr in &mut self.trackers {
                    tr.remove_finished(&uses);
                }
                self.advance(t);
                self.check_ran(op)
            }
            (Action::WaitPending { n }, Phase::WaitingStream(op)) => {
                // A stream synchronize returns once everything queued on the
                // stream so far has run; modelled as: the op's record ran.
                if !self.complete[self.ops[op].marker] {
                    return None;
                }
                let _ = n;
                self.advance(t);
                self.check_ran(op)
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
            DeviceOp::Wait(marker) if !self.complete[marker] => return None,
            DeviceOp::Wait(_) => Ok(()),
            DeviceOp::Record(marker) => {
                self.complete[marker] = true;
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

/// Explores every interleaving; returns the states seen, or the first
/// violation with the steps that led to it.
fn explore(start: World) -> Result<usize, String> {
    let mut seen = HashSet::new();
    let mut stack = vec![(start, Vec::<String>::new())];
    while let Some((world, trail)) = stack.pop() {
        if !seen.insert(world.key()) {
            continue;
        }
        let mut moved = false;
        let actors = world.threads.len() + world.streams.len();
        for actor in 0..actors {
            let mut next = world.clone();
            let (step, name) = if actor < world.threads.len() {
                (next.step_thread(actor), format!("thread {actor}"))
            } else {
                let s = actor - world.threads.len();
                (next.step_device(s), format!("stream {s}"))
            };
            match step {
                None => {}
                Some(Err(violation)) => {
                    return Err(format!(
                        "{violation}\nafter: {}",
                        [trail, vec![name]].concat().join(", ")
                    ));
                }
                Some(Ok(())) => {
                    moved = true;
                    let mut trail = trail.clone();
                    trail.push(name);
                    stack.push((next, trail));
                }
            }
        }
        if !moved && !world.done() {
            return Err(format!("deadlock after: {}", trail.join(", ")));
        }
    }
    Ok(seen.len())
}

mod scenarios;
