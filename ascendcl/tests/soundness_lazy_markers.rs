//! The lazy-markers protocol (a use is a stream position, events are
//! recorded at a stream's tail only when something waits) attacked with safe
//! code: several threads on one stream, two handles of one default stream,
//! streams dropped under their buffers' uses, blocks reused on other streams,
//! guards outliving their streams, host callbacks, other contexts, failed
//! waits, and a communicator shared by threads. The data must always be the
//! data of the program order and the mock's misuse detection must stay
//! silent. CI runs this file again with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;
#[path = "hccl_support/mod.rs"]
mod hccl_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex, mpsc};
use std::time::Duration;

use ascendcl::Context;
use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::hccl::ReduceOp;
use ascendcl::prelude::*;
use ascendcl_mock::Fault;

const DELAY: Duration = Duration::from_millis(1);
const N: usize = 1024;
/// Long enough that a deadlock, not a slow machine, is the only way to miss it.
const BOUND: Duration = Duration::from_secs(20);
const INJECTED: i32 = 507_000;

/// Runs `f` on its own thread and fails the test if it does not return
/// within [`BOUND`] (a deadlock), instead of hanging the suite.
fn within_bound<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(BOUND) {
        Ok(value) => value,
        Err(_) => panic!("{what}: did not return within {BOUND:?} (deadlock)"),
    }
}

#[test]
fn uses_queued_by_several_threads_on_one_stream_are_covered_by_the_tail_event_a_reader_takes() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        const THREADS: usize = 4;
        const ROUNDS: usize = 30;
        let barrier = Barrier::new(THREADS);
        std::thread::scope(|scope| {
            let joins: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (stream, barrier, ctx) = (&stream, &barrier, &ctx);
                    scope.spawn(move || -> ascendcl::Result<()> {
                        let mut device = DeviceBuffer::<u8>::zeroed(ctx, N)?;
                        barrier.wait();
                        for round in 0..ROUNDS {
                            let value = (t * ROUNDS + round) as u8;
                            // Forgotten: only the tracker's position remembers it,
                            // interleaved with the other threads' launches.
                            std::mem::forget(stream.fill_bytes(&mut device, value)?);
                            assert_eq!(
                                device.to_vec()?,
                                vec![value; N],
                                "thread {t} round {round}: read before its fill ran"
                            );
                        }
                        Ok(())
                    })
                })
                .collect();
            joins
                .into_iter()
                .try_for_each(|j| j.join().expect("a launching thread panicked"))
        })
    });
}

#[test]
fn a_waiter_on_another_thread_never_sees_a_launch_that_raced_its_tail_event_as_finished() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        for round in 0..20u8 {
            let mut a = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            let mut b = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| -> ascendcl::Result<()> {
                let (stream, barrier) = (&stream, &barrier);
                let a = &mut a;
                let writer = scope.spawn(move || -> ascendcl::Result<()> {
                    barrier.wait();
                    for _ in 0..5 {
                        std::mem::forget(stream.fill_bytes(a, round)?);
                    }
                    Ok(())
                });
                std::mem::forget(stream.fill_bytes(&mut b, round.wrapping_add(1))?);
                barrier.wait();
                // Takes (and caches) a tail event while the writer queues.
                assert_eq!(b.to_vec()?, vec![round.wrapping_add(1); N]);
                writer.join().expect("writer")
            })?;
            // The writer's fills may be after the cached event: must still wait.
            assert_eq!(a.to_vec()?, vec![round; N], "round {round}");
        }
        Ok(())
    });
}

#[test]
fn two_default_stream_handles_of_one_context_order_and_wait_as_one_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (first, second) = (Stream::default_of(&ctx), Stream::default_of(&ctx));
        let other = Stream::new(&ctx)?;
        for round in 0..10u8 {
            let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
            std::mem::forget(first.fill_bytes(&mut device, round)?);
            // Same real stream through another handle (another lane).
            std::mem::forget(second.copy_device_to_host(&device, &mut host)?);
            assert_eq!(host.as_slice()?, &vec![round; N][..], "round {round}");
            // A write on another stream is ordered after both lanes' uses.
            std::mem::forget(first.fill_bytes(&mut device, 0xAA)?);
            std::mem::forget(second.copy_device_to_host(&device, &mut host)?);
            std::mem::forget(other.fill_bytes(&mut device, 0x55)?);
            assert_eq!(host.as_slice()?, &vec![0xAA; N][..], "round {round}");
            assert_eq!(device.to_vec()?, vec![0x55; N], "round {round}");
        }
        Ok(())
    });
}

#[test]
fn buffers_written_on_a_dropped_stream_are_waited_for_before_they_are_read() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        for round in 0..10u8 {
            let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
            let stream = Stream::new(&ctx)?;
            std::mem::forget(stream.fill_bytes(&mut device, round)?);
            std::mem::forget(stream.copy_device_to_host(&device, &mut host)?);
            drop(stream); // retires the lane: one covering event
            assert_eq!(host.as_slice()?, &vec![round; N][..], "round {round}");
            assert_eq!(device.to_vec()?, vec![round; N], "round {round}");
        }
        Ok(())
    });
}

#[test]
fn a_failed_record_when_a_stream_is_dropped_leaves_its_uses_to_a_device_wide_wait() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
        let other = Stream::new(&ctx)?;
        let stream = Stream::new(&ctx)?;
        std::mem::forget(stream.fill_bytes(&mut device, 7)?);
        std::mem::forget(stream.copy_device_to_host(&device, &mut host)?);
        env.inject(Fault::always("aclrtRecordEvent", INJECTED));
        drop(stream); // the retire's record fails
        // Another stream cannot take an event: it host-waits (device-wide).
        std::mem::forget(other.fill_bytes(&mut device, 9)?);
        assert_eq!(host.as_slice()?, &vec![7; N][..]);
        env.session.clear_faults();
        assert_eq!(device.to_vec()?, vec![9; N]);
        Ok(())
    });
}

#[test]
fn a_failed_record_and_device_wide_wait_after_a_stream_is_dropped_refuse_the_read_until_one_succeeds()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
        let device = DeviceBuffer::<u8>::from_host(&ctx, &[3; N])?;
        let stream = Stream::new(&ctx)?;
        std::mem::forget(stream.copy_device_to_host(&device, &mut host)?);
        env.inject(Fault::always("aclrtRecordEvent", INJECTED));
        env.inject(Fault::always("aclrtSynchronizeDevice", INJECTED));
        drop(stream);
        assert!(host.as_slice().is_err(), "read handed out unproven memory");
        assert!(host.as_slice().is_err(), "a failed wait forgot the use");
        env.session.clear_faults();
        assert_eq!(host.as_slice()?, &[3; N][..]);
        let _ = ascendcl::take_deferred_errors();
        Ok(())
    });
}

#[test]
fn a_block_reused_on_another_stream_after_its_stream_was_dropped_waits_for_the_old_work() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let s2 = Stream::new(&ctx)?;
        for round in 0..10u8 {
            let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
            let s1 = Stream::new(&ctx)?;
            let mut block = allocator.alloc::<u8>(&s1, N)?;
            std::mem::forget(s1.fill_bytes(&mut block, round)?);
            std::mem::forget(s1.copy_device_to_host(&block, &mut host)?);
            drop(block); // back to the cache with s1's uses
            drop(s1);
            let mut reused = allocator.alloc::<u8>(&s2, N)?;
            std::mem::forget(s2.fill_bytes(&mut reused, 0xEE)?);
            assert_eq!(host.as_slice()?, &vec![round; N][..], "round {round}");
            assert_eq!(reused.to_vec()?, vec![0xEE; N], "round {round}");
        }
        Ok(())
    });
}

#[test]
fn detached_guards_wait_and_poll_correctly_after_their_stream_is_gone() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
        let stream = Stream::new(&ctx)?;
        let fill = stream.fill_bytes(&mut device, 5)?.detach();
        let copy = stream.copy_device_to_host(&device, &mut host)?.detach();
        drop(stream);
        assert!(fill.stream().is_none());
        // The buffers still hold the lane: the retire's event answers.
        copy.wait()?;
        assert!(fill.is_complete()?);
        fill.wait()?;
        assert_eq!(host.as_slice()?, &[5; N][..]);
        // Nothing holds the lane any more: the destroy waited.
        let stream = Stream::new(&ctx)?;
        let late = stream.fill_bytes(&mut device, 6)?.detach();
        drop(stream);
        assert_eq!(device.to_vec()?, vec![6; N]);
        drop(device);
        assert!(late.is_complete()?);
        late.wait()?;
        Ok(())
    });
}

#[test]
fn a_host_callback_reads_a_buffer_written_before_it_on_its_own_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::<u32>::from_host(&ctx, &[4; N])?;
        let host = Arc::new(Mutex::new(HostBuffer::<u32>::zeroed(&ctx, N)?));
        {
            let mut guard = host.lock().expect("lock");
            std::mem::forget(stream.copy_device_to_host(&device, &mut *guard)?);
        }
        let (tx, rx) = mpsc::channel();
        let in_callback = host.clone();
        stream.launch_host_fn(move || {
            let guard = in_callback.lock().expect("lock");
            let read = guard.as_slice().map(|s| s.iter().all(|&v| v == 4));
            tx.send(read.map_err(|e| e.to_string()))
                .expect("receiver alive");
        })?;
        let read = rx.recv_timeout(BOUND).expect("the callback returned");
        assert_eq!(read, Ok(true), "the copy queued before the callback");
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_host_callback_that_drops_the_last_handle_of_another_stream_does_not_hang() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let other = Stream::new(&ctx)?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        std::mem::forget(other.fill_bytes(&mut device, 8)?);
        let (tx, rx) = mpsc::channel();
        stream.launch_host_fn(move || {
            drop(other); // retires and destroys it from the runtime's thread
            tx.send(()).expect("receiver alive");
        })?;
        rx.recv_timeout(BOUND).expect("the callback returned");
        assert_eq!(device.to_vec()?, vec![8; N]);
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn uses_on_a_stream_of_another_context_are_host_waited_before_a_write() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let other_ctx = Context::new(&device)?;
        let theirs = Stream::new(&other_ctx)?;
        let ours = Stream::new(&ctx)?;
        for round in 0..10u8 {
            let source = DeviceBuffer::<u8>::from_host(&ctx, &vec![round; N])?;
            let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
            std::mem::forget(theirs.copy_device_to_host(&source, &mut host)?);
            let mut target = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            // Reads the host buffer on our stream after their write to it.
            std::mem::forget(ours.copy_host_to_device(&host, &mut target)?);
            assert_eq!(target.to_vec()?, vec![round; N], "round {round}");
        }
        drop((theirs, ours));
        drop(other_ctx);
        Ok(())
    });
}

#[test]
fn a_failed_event_wait_keeps_the_use_and_a_retry_waits_for_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let source = DeviceBuffer::<u8>::from_host(&ctx, &[2; N])?;
        let mut host = HostBuffer::<u8>::zeroed(&ctx, N)?;
        std::mem::forget(stream.copy_device_to_host(&source, &mut host)?);
        env.inject(Fault::always("aclrtSynchronizeEvent", INJECTED));
        assert!(host.as_slice().is_err());
        assert!(
            host.as_slice().is_err(),
            "the cached event's failed wait proved nothing"
        );
        env.session.clear_faults();
        assert_eq!(host.as_slice()?, &[2; N][..]);
        Ok(())
    });
}

#[test]
fn a_failed_event_query_never_reports_a_guard_complete() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(50));
        let stream = Stream::new(&ctx)?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        let pending = stream.fill_bytes(&mut device, 1)?;
        env.inject(Fault::always("aclrtQueryEventStatus", INJECTED));
        assert!(pending.is_complete().is_err());
        env.session.clear_faults();
        let detached = pending.detach();
        detached.wait()?;
        assert_eq!(device.to_vec()?, vec![1; N]);
        Ok(())
    });
}

#[test]
fn threads_launching_collectives_of_one_communicator_on_new_stream_handles_do_not_deadlock() {
    within_bound("collectives from two threads", || {
        common::check(|env| {
            let (_devices, comms) = hccl_support::communicators(env, 1)?;
            let comm = &comms[0];
            let ctx = comm.device().default_context();
            let fixed = Stream::new(&ctx)?;
            let x = DeviceBuffer::<f32>::from_host(&ctx, &[1.0; 16])?;
            const LAUNCHES: usize = 200;
            let done = AtomicBool::new(false);
            std::thread::scope(|scope| -> ascendcl::Result<()> {
                let (fixed, x, ctx, done) = (&fixed, &x, &ctx, &done);
                let a = scope.spawn(move || -> ascendcl::Result<()> {
                    // Buffers of its own: the two threads' launches overlap.
                    let x = DeviceBuffer::<f32>::from_host(ctx, &[1.0; 16])?;
                    let mut y = DeviceBuffer::<f32>::zeroed(ctx, 16)?;
                    while !done.load(Ordering::Acquire) {
                        comm.all_reduce(&x, &mut y, ReduceOp::Sum, fixed)?.detach();
                    }
                    assert_eq!(y.to_vec()?, vec![1.0; 16]);
                    Ok(())
                });
                // Each launch through a handle new to the communicator prunes
                // its list, which looks at the fixed stream's lane while the
                // other thread launches there.
                let mut y = DeviceBuffer::<f32>::zeroed(ctx, 16)?;
                for _ in 0..LAUNCHES {
                    let fresh = Stream::new(ctx)?;
                    let launched = comm.all_reduce(x, &mut y, ReduceOp::Sum, &fresh);
                    if launched.is_err() {
                        done.store(true, Ordering::Release);
                    }
                    launched?.detach();
                }
                done.store(true, Ordering::Release);
                assert_eq!(y.to_vec()?, vec![1.0; 16]);
                a.join().expect("thread a")
            })
        });
    });
}

#[test]
fn buffers_of_a_two_rank_all_reduce_are_waited_for_by_a_read_and_by_another_stream() {
    common::check(|env| {
        let (_devices, comms) = hccl_support::communicators(env, 2)?;
        env.slow_streams(DELAY);
        let sums = hccl_support::on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let (stream, other) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
            let x = DeviceBuffer::<f32>::from_host(&ctx, &[comm.rank() as f32 + 1.0; N])?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
                .detach();
            // Another stream copies the result: ordered after the collective.
            let mut host = HostBuffer::<f32>::zeroed(&ctx, N)?;
            std::mem::forget(other.copy_device_to_host(&y, &mut host)?);
            let copied = host.as_slice()?.to_vec();
            Ok((copied, y.to_vec()?))
        })?;
        for (copied, read) in sums {
            assert_eq!(copied, vec![3.0; N], "the copy ran before the collective");
            assert_eq!(read, vec![3.0; N]);
        }
        Ok(())
    });
}

#[test]
fn a_host_callback_launching_on_its_own_stream_while_the_host_launches_there_does_not_deadlock() {
    within_bound("launches from a callback", || {
        common::check(|env| {
            let (_device, ctx) = env.device0();
            env.slow_streams(Duration::from_micros(100));
            let stream = Stream::new(&ctx)?;
            let from_callback = Arc::new(Mutex::new(DeviceBuffer::<u8>::zeroed(&ctx, N)?));
            let mut ours = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
            for round in 0..20u8 {
                let (buffer, launcher) = (from_callback.clone(), stream.clone());
                stream.launch_host_fn(move || {
                    let mut buffer = buffer.lock().expect("lock");
                    let queued = launcher.fill_bytes(&mut *buffer, round).map(|p| p.detach());
                    assert!(queued.is_ok(), "the callback's launch failed: {queued:?}");
                })?;
                std::mem::forget(stream.fill_bytes(&mut ours, round)?);
            }
            stream.synchronize()?;
            assert_eq!(ours.to_vec()?, vec![19; N]);
            let last = from_callback.lock().expect("lock").to_vec()?;
            assert_eq!(last, vec![19; N]);
            drop(stream);
            Ok(())
        });
    });
}
