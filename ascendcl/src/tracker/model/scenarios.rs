//! The scenarios the model check explores, and the checks: the current
//! protocol holds in every interleaving, the planted bugs are caught.

use super::{Action, Protocol, World, explore};
use crate::tracker::uses::Access;

use Access::{Read, Write};

fn enqueue(stream: usize, touches: &[(usize, Access)]) -> Action {
    Action::Enqueue {
        stream,
        touches: touches.to_vec(),
    }
}

fn host(buffer: usize, access: Access) -> Action {
    Action::Host { buffer, access }
}

/// Two threads upload the same shared source (buffer 0) into buffers 1 and
/// 2 on two streams, forgetting the guards; once both are joined, the owner
/// overwrites (or frees) the source and reads the two destinations.
fn concurrent_readers(protocol: Protocol) -> World {
    World::new(
        protocol,
        3,
        2,
        vec![
            vec![enqueue(0, &[(0, Read), (1, Write)])],
            vec![enqueue(1, &[(0, Read), (2, Write)])],
            vec![
                Action::Join(vec![0, 1]),
                host(0, Write),
                host(1, Read),
                host(2, Read),
            ],
        ],
    )
}

/// One thread writes a buffer on stream 0, then reads it on stream 1 into
/// another buffer, then waits the first `Pending` (whose marker the second
/// use may have replaced), then frees both.
fn pending_after_reuse(protocol: Protocol) -> World {
    World::new(
        protocol,
        2,
        2,
        vec![vec![
            enqueue(0, &[(0, Write)]),
            enqueue(0, &[(0, Read), (1, Write)]),
            enqueue(1, &[(0, Write)]),
            Action::WaitPending { n: 0 },
            Action::WaitPending { n: 1 },
            host(0, Write),
            host(1, Write),
        ]],
    )
}

/// Shared reads on two streams while the owner's earlier write is queued
/// on a third, then the owner frees it.
fn write_then_shared_reads(protocol: Protocol) -> World {
    World::new(
        protocol,
        3,
        3,
        vec![
            vec![
                enqueue(2, &[(0, Write)]),
                enqueue(0, &[(0, Read), (1, Write)]),
                host(1, Write),
            ],
            vec![enqueue(1, &[(0, Read), (2, Write)]), host(2, Read)],
        ],
    )
}

#[test]
fn every_interleaving_of_concurrent_readers_keeps_every_use() {
    let states = explore(concurrent_readers(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn every_interleaving_of_a_pending_wait_after_reuse_waits_for_the_work() {
    let states = explore(pending_after_reuse(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn every_interleaving_of_a_write_then_shared_reads_is_ordered() {
    let states = explore(write_then_shared_reads(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn the_checker_finds_the_lost_use_of_the_previous_single_slot_tracker() {
    let violation = explore(concurrent_readers(Protocol::PreviousSingleSlot)).unwrap_err();
    assert!(
        violation.contains("host Write of buffer 0 while op"),
        "{violation}"
    );
}

/// Two threads launch on one stream, each writing its own buffer, then
/// each reads its buffer from the host: the second thread's wait may record
/// the stream's tail event before the first thread's launch is queued.
fn two_threads_on_one_stream(protocol: Protocol) -> World {
    World::new(
        protocol,
        2,
        1,
        vec![
            vec![enqueue(0, &[(0, Write)]), host(0, Read)],
            vec![enqueue(0, &[(1, Write)]), host(1, Read)],
        ],
    )
}

/// Many uses share one stream's tail event: three launches on stream 0,
/// then a launch on stream 1 ordered after two of them, then host waits.
fn shared_tail_event(protocol: Protocol) -> World {
    World::new(
        protocol,
        3,
        2,
        vec![vec![
            enqueue(0, &[(0, Write)]),
            enqueue(0, &[(1, Write)]),
            enqueue(1, &[(0, Read), (1, Read), (2, Write)]),
            enqueue(0, &[(0, Write)]),
            host(2, Read),
            Action::WaitPending { n: 0 },
            host(0, Write),
            host(1, Write),
        ]],
    )
}

#[test]
fn every_interleaving_of_two_threads_launching_on_one_stream_waits_for_each_launch() {
    let states = explore(two_threads_on_one_stream(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn every_interleaving_of_uses_sharing_a_tail_event_is_ordered() {
    let states = explore(shared_tail_event(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn the_checker_finds_a_position_taken_outside_the_launch_critical_section() {
    let violation = explore(two_threads_on_one_stream(
        Protocol::PositionOutsideCriticalSection,
    ))
    .unwrap_err();
    assert!(
        violation.contains("host Read of buffer") && violation.contains("while op"),
        "{violation}"
    );
}

/// Thread 0 orders a launch on stream 1 after its write on stream 0 (the
/// waits are queued before the launch, in a step of their own) while thread
/// 1, on other buffers, launches on stream 1 and waits for it from the host
/// (recording stream 1's tail event) in between; then everything is read.
fn launch_between_ordering_and_launch(protocol: Protocol) -> World {
    World::new(
        protocol,
        3,
        2,
        vec![
            vec![
                enqueue(0, &[(0, Write)]),
                enqueue(1, &[(0, Read), (1, Write)]),
                host(1, Read),
                host(0, Write),
            ],
            vec![enqueue(1, &[(2, Write)]), host(2, Read), host(2, Write)],
        ],
    )
}

#[test]
fn every_interleaving_of_launches_between_another_enqueues_ordering_and_launch_is_ordered() {
    let states = explore(launch_between_ordering_and_launch(Protocol::Current)).unwrap();
    assert!(states > 100, "explored only {states} states");
}

/// The consumer (stream 1) is ordered after the producer's write of buffer
/// 0 (stream 0) by a wait on stream 0's tail event; the producer's next
/// write and the consumer's next read record a newer tail; then a host wait
/// on an idle stream (2) records a pooled event. Reused while the first
/// wait is still queued, that event's record releases it early.
fn pooled_event_under_a_queued_wait(protocol: Protocol) -> World {
    World::new(
        protocol,
        5,
        3,
        vec![vec![
            enqueue(0, &[(0, Write)]),
            enqueue(1, &[(0, Read), (1, Write)]),
            enqueue(0, &[(2, Write)]),
            enqueue(1, &[(2, Read), (3, Write)]),
            enqueue(2, &[(4, Write)]),
            Action::WaitPending { n: 4 },
        ]],
    )
}

#[test]
fn every_interleaving_of_a_consumer_whose_wait_event_could_be_reused_stays_ordered() {
    let states = explore(pooled_event_under_a_queued_wait(Protocol::Current)).unwrap();
    assert!(states > 40, "explored only {states} states");
}

#[test]
fn the_checker_finds_a_pooled_event_reused_under_a_queued_wait() {
    let violation = explore(pooled_event_under_a_queued_wait(
        Protocol::PoolReuseUnderQueuedWait,
    ))
    .unwrap_err();
    assert!(
        violation.contains("ran while op") && violation.contains("buffer 0"),
        "{violation}"
    );
}
