//! Waits that must neither hang nor hold our locks: no lock of the crate is
//! held across a host wait for the device, a host callback is never stuck
//! behind one, a destructor run inside a callback of its own stream refuses
//! instead of hanging, every handle of a default stream is that one stream to
//! the deadlock checks, `Detached` handles neither return early nor block on
//! drop, and objects used from many short-lived streams keep no event per
//! stream. Every wait is bounded, so a regression fails instead of hanging CI.
//!
//! Where a test needs the main thread to be inside a host wait while a
//! callback runs, the callback first sleeps (`SETTLE`): if the main thread
//! were slower than that, the test would pass without exercising the
//! interleaving, never fail spuriously.

mod common;
mod hccl_support;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Resource;
use hccl_support::communicators;

/// Longer than any healthy wait here; a hang shows as this timeout.
const BOUND: Duration = Duration::from_secs(30);
/// How long a callback lets the main thread reach its host wait.
const SETTLE: Duration = Duration::from_millis(200);

/// Runs `f` on a thread of its own and returns its result. If it has not
/// returned within `bound`, it is deadlocked: the whole test binary exits
/// with a message (a panic would unwind into destructors that wait for the
/// same stuck work, and hang).
fn within<T: Send + 'static>(
    bound: Duration,
    f: impl FnOnce() -> ascendcl::Result<T> + Send + 'static,
) -> ascendcl::Result<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    match rx.recv_timeout(bound) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("deadlock: still waiting after {bound:?} ({error})");
            std::process::exit(1)
        }
    }
}

#[test]
fn a_callback_reading_a_pinned_buffer_is_not_blocked_by_an_enqueue_host_waiting_for_its_stream() {
    common::check(|env| {
        let (_device0, ctx0) = env.device0();
        let device1 = Device::open(&env.rt, 1)?;
        let ctx1 = device1.default_context();
        // A second context on device 0: its streams cannot wait on ctx0's
        // events, so ordering after them is a host wait.
        let other = Context::new(&Device::open(&env.rt, 0)?)?;
        let gated = Stream::new(&other)?;
        let staging = Arc::new(HostBuffer::from_slice(&ctx0, &[7u32; 64])?);
        let mut target = DeviceBuffer::<u32>::zeroed(&ctx0, 64)?;
        let source = DeviceBuffer::from_host(&other, &[9u32; 64])?;

        let (tx, rx) = mpsc::channel();
        let (read_in_callback, callback_ctx) = (staging.clone(), ctx1.clone());
        gated.launch_host_fn(move || {
            std::thread::sleep(SETTLE);
            // Reads the pinned buffer the main thread's enqueue touches: in
            // an upload to device 1, which takes the buffer's tracker lock.
            let outcome = (|| {
                let stream = Stream::new(&callback_ctx)?;
                let mut on_device1 = DeviceBuffer::<u32>::zeroed(&callback_ctx, 64)?;
                stream
                    .copy_host_to_device(&*read_in_callback, &mut on_device1)?
                    .wait()?;
                on_device1.to_vec()
            })();
            tx.send(outcome).expect("receiver alive");
        })?;
        // Behind the callback on the other context: a write of `target`.
        gated.copy_device_to_device(&source, &mut target)?.detach();

        // Reads `staging`, writes `target`: ordered after the write on the
        // other context by a host wait, which ends only after the callback.
        let uploaded = within(BOUND, move || {
            let stream0 = Stream::new(&ctx0)?;
            stream0
                .copy_host_to_device(&*staging, &mut target)?
                .wait()?;
            target.to_vec()
        })?;
        let in_callback = rx
            .recv_timeout(BOUND)
            .expect("the callback was not blocked behind the enqueue's wait")?;
        assert_eq!(in_callback, vec![7; 64]);
        assert_eq!(uploaded, vec![7; 64], "the upload ran after the copy");
        gated.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_callback_queuing_a_collective_is_not_blocked_by_a_launch_host_waiting_for_its_stream() {
    common::check(|env| {
        let (devices, comms) = communicators(env, 2)?;
        let comms: Vec<Arc<Communicator>> = comms.into_iter().map(Arc::new).collect();
        let ctx0 = devices[0].default_context();
        let other = Context::new(&devices[0])?;
        let gated = Stream::new(&other)?;
        let mut grads = DeviceBuffer::<f32>::zeroed(&ctx0, 16)?;
        let ones = DeviceBuffer::from_host(&other, &[1.0f32; 16])?;
        let (tx, rx) = mpsc::channel();
        let (comm0, callback_ctx) = (comms[0].clone(), ctx0.clone());
        gated.launch_host_fn(move || {
            std::thread::sleep(SETTLE);
            // Rank 0's first collective, from the callback.
            let queued = Stream::new(&callback_ctx).and_then(|stream| {
                comm0.barrier(&stream)?.detach();
                Ok(())
            });
            tx.send(queued).expect("receiver alive");
        })?;
        gated.copy_device_to_device(&ones, &mut grads)?.detach();

        let rank1 = {
            let comm1 = comms[1].clone();
            std::thread::spawn(move || -> ascendcl::Result<Vec<f32>> {
                let ctx1 = comm1.device().default_context();
                let stream = Stream::new(&ctx1)?;
                let mut grads = DeviceBuffer::from_host(&ctx1, &[2.0f32; 16])?;
                comm1.barrier(&stream)?.wait()?;
                comm1
                    .all_reduce_in_place(&mut grads, ReduceOp::Sum, &stream)?
                    .wait()?;
                grads.to_vec()
            })
        };
        // Rank 0's second collective: host-waits for the copy on the other
        // context (behind the callback) before it is launched.
        let comm0 = comms[0].clone();
        let reduced = within(BOUND, move || {
            let stream0 = Stream::new(&ctx0)?;
            comm0
                .all_reduce_in_place(&mut grads, ReduceOp::Sum, &stream0)?
                .wait()?;
            grads.to_vec()
        })?;
        rx.recv_timeout(BOUND)
            .expect("the callback was not blocked on the communicator")?;
        assert_eq!(reduced, vec![3.0; 16]);
        assert_eq!(rank1.join().expect("rank 1")?, vec![3.0; 16]);
        gated.synchronize()?;
        Ok(())
    });
}

#[test]
fn dropping_a_communicator_in_a_callback_of_a_stream_it_queued_on_is_refused_not_a_hang() {
    let env = common::env();
    let (devices, comms) = communicators(&env, 2).expect("two communicators");
    let mut comms = comms.into_iter();
    let (comm0, comm1) = (comms.next().expect("rank 0"), comms.next().expect("rank 1"));
    let ctx0 = devices[0].default_context();
    let stream = Stream::new(&ctx0).expect("stream");
    let slot: Arc<Mutex<Option<Communicator>>> = Arc::new(Mutex::new(None));
    let (tx, rx) = mpsc::channel();
    let in_callback = slot.clone();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    stream
        .launch_host_fn(move || {
            gate_rx
                .recv_timeout(BOUND)
                .expect("the collective was queued");
            drop(in_callback.lock().expect("slot").take());
            tx.send(()).expect("receiver alive");
        })
        .expect("callback queued");
    // A collective queued behind the callback on the same stream.
    let rank1 = std::thread::spawn(move || -> ascendcl::Result<()> {
        let ctx1 = comm1.device().default_context();
        let s = Stream::new(&ctx1)?;
        comm1.barrier(&s)?.wait()?;
        comm1.destroy()
    });
    comm0.barrier(&stream).expect("barrier").detach();
    *slot.lock().expect("slot") = Some(comm0);
    gate_tx.send(()).expect("callback alive");
    rx.recv_timeout(BOUND)
        .expect("the drop in the callback returned");
    // The refused drop parked its error; parked errors are the process's,
    // so the next synchronizing call of either thread reports it.
    let here = stream.synchronize();
    let there = rank1.join().expect("rank 1");
    let reported: Vec<String> = [&here, &there]
        .into_iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(
        reported[0].contains("leaked") && reported[0].contains("callback"),
        "{}",
        reported[0]
    );
    stream
        .synchronize()
        .expect("the barrier ran after the callback");
    assert!(ascendcl::take_deferred_errors().is_empty());
    // The communicator was leaked on purpose (its collective could not be
    // waited for there); the next session's reset reclaims it.
}

#[test]
fn every_handle_of_a_default_stream_is_that_stream_to_the_callback_deadlock_checks() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let first = Stream::default_of(&ctx);
        // Another handle, even through another Device handle of device 0.
        let second = Stream::default_of(&Device::open(&env.rt, 0)?.default_context());
        assert!(first.same_as(&second));
        assert!(!first.same_as(&Stream::new(&ctx)?));
        let (tx, rx) = mpsc::channel();
        first.launch_host_fn(move || {
            let refused = matches!(second.synchronize(), Err(ascendcl::Error::WouldDeadlock(_)));
            tx.send(refused).expect("receiver alive");
        })?;
        assert!(
            rx.recv_timeout(BOUND)
                .expect("the callback returned instead of waiting for its own stream"),
            "synchronizing the own default stream through a second handle is WouldDeadlock"
        );
        first.synchronize()?;
        drop(device);
        Ok(())
    });
}

#[test]
fn detached_wait_reports_a_parked_error_only_after_its_operation_finished() {
    let env = common::env();
    let (_device, ctx) = env.device0();
    env.slow_streams(Duration::from_millis(100));
    let stream = Stream::new(&ctx).expect("stream");
    let source = DeviceBuffer::from_host(&ctx, &[5u8; 256]).expect("source");
    let mut target = DeviceBuffer::<u8>::zeroed(&ctx, 256).expect("target");
    let detached = stream
        .copy_device_to_device(&source, &mut target)
        .expect("copy queued")
        .detach();
    // An unrelated destructor parks an error (both of its tries fail; that
    // stream is leaked, and the next session's reset reclaims it).
    let code = 507_000;
    env.inject(ascendcl_mock::Fault::nth("aclrtDestroyStream", 1, code));
    env.inject(ascendcl_mock::Fault::nth("aclrtDestroyStream", 2, code));
    drop(Stream::new(&ctx).expect("second stream"));
    env.session.clear_faults();
    let parked = detached.wait().expect_err("the parked error is reported");
    assert!(
        parked.to_string().contains("aclrtDestroyStream"),
        "{parked}"
    );
    // Reported only once the copy had run.
    assert!(
        stream.query().expect("query"),
        "the copy finished before wait returned"
    );
    env.slow_streams(Duration::ZERO);
    assert_eq!(target.to_vec().expect("read back"), vec![5; 256]);
}

#[test]
fn dropping_a_detached_handle_never_destroys_its_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(50));
        let source = DeviceBuffer::from_host(&ctx, &[3u16; 32])?;
        let mut target = DeviceBuffer::<u16>::zeroed(&ctx, 32)?;
        let stream = Stream::new(&ctx)?;
        let detached = stream.copy_device_to_device(&source, &mut target)?.detach();
        assert!(detached.stream().is_some_and(|s| s.same_as(&stream)));
        // The last stream handle goes first: its destroy waits for the copy.
        drop(stream);
        assert!(detached.stream().is_none());
        assert!(detached.is_complete()?);
        let calls_before = env.session.call_count("aclrtDestroyStream");
        drop(detached);
        assert_eq!(env.session.call_count("aclrtDestroyStream"), calls_before);
        assert_eq!(target.to_vec()?, vec![3; 32]);
        Ok(())
    });
}

/// Live events after `rounds` short-lived streams each used `f` once.
fn events_after_short_lived_streams(
    env: &common::Env,
    ctx: &Context,
    rounds: usize,
    mut f: impl FnMut(&Stream) -> ascendcl::Result<()>,
) -> ascendcl::Result<u64> {
    for _ in 0..rounds {
        let stream = Stream::new(ctx)?;
        f(&stream)?;
        stream.synchronize()?;
    }
    Ok(env.session.live(Resource::Event))
}

#[test]
fn a_weight_read_by_detached_ops_from_many_streams_keeps_no_event_per_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let weight = DeviceBuffer::from_host(&ctx, &[1.5f32; 8])?;
        let mut outs: Vec<DeviceBuffer<f32>> = (0..4)
            .map(|_| DeviceBuffer::zeroed(&ctx, 8))
            .collect::<Result<_, _>>()?;
        let mut round = 0;
        let live = events_after_short_lived_streams(env, &ctx, 300, |stream| {
            let out = &mut outs[round % 4];
            round += 1;
            ops::relu(&Tensor::new(&weight, &[8])?, TensorMut::new(out, &[8])?)?
                .launch(stream, Workspace::none())?
                .detach();
            Ok(())
        })?;
        assert!(live <= 8, "{live} events alive after 300 streams");
        Ok(())
    });
}

#[test]
fn a_repeatable_operator_launched_from_many_streams_keeps_no_event_per_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut relu =
            ops::relu(&Tensor::new(&x, &[2])?, TensorMut::new(&mut y, &[2])?)?.into_repeatable()?;
        let live = events_after_short_lived_streams(env, &ctx, 300, |stream| {
            relu.launch(
                stream,
                &[&Tensor::new(&x, &[2])?],
                vec![TensorMut::new(&mut y, &[2])?],
                Workspace::none(),
            )?
            .wait()
        })?;
        assert!(live <= 8, "{live} events alive after 300 streams");
        drop(relu);
        assert_eq!(y.to_vec()?, vec![0.0, 2.0]);
        Ok(())
    });
}

#[test]
fn a_communicator_used_from_many_streams_keeps_no_event_per_stream() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 1)?;
        let comm = &comms[0];
        let ctx = comm.device().default_context();
        let mut grads = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let live = events_after_short_lived_streams(env, &ctx, 300, |stream| {
            comm.all_reduce_in_place(&mut grads, ReduceOp::Sum, stream)?
                .wait()
        })?;
        assert!(live <= 8, "{live} events alive after 300 streams");
        Ok(())
    });
}
