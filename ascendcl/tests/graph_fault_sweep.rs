//! Fault sweep over stream capture and graph replay: every FFI call of a
//! capture (begin, binds, scratch memory, uploads, operators' two phases,
//! the executors made repeatable, fork and join events, end) and of its
//! replays fails in turn. Every time: no panic, an error comes back (or a
//! destructor's call was retried), nothing stays alive (models, executors,
//! events, memory) and the mock sees no misuse.

mod common;

use ascendcl::Runtime;
use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use common::sweep::sweep;
use std::time::Duration;

/// y = -relu(x) through a scratch intermediate, replayed twice.
fn capture_and_replay(rt: &Runtime) -> ascendcl::Result<()> {
    let ctx = Device::open(rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
    let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
    let x = cap.scratch::<f32>(&alloc, 4)?;
    let hidden = cap.scratch::<f32>(&alloc, 4)?;
    let by = cap.bind(&mut y)?;
    let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
    let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
    cap.upload(&input, x)?;
    cap.launch(
        |v| ops::relu(&v.view(x, &[4])?, v.view_mut(hidden, &[4])?),
        Workspace::none(),
    )?;
    cap.launch(
        |v| ops::neg(&v.view(hidden, &[4])?, v.view_mut(by, &[4])?),
        &alloc,
    )?;
    cap.download(by, &output)?;
    let mut graph = cap.end()?;
    for s in [1.0f32, 2.0] {
        graph
            .host_input_mut(&input)?
            .copy_from_slice(&[-s, s, -s, s]);
        graph.launch(&stream)?.detach();
        assert_eq!(graph.host_output(&output)?, &[0.0, -s, 0.0, -s]);
    }
    drop(graph);
    assert_eq!(y.to_vec()?, vec![0.0, -2.0, 0.0, -2.0]);
    Ok(())
}

/// A side stream forked in, joined back, replayed once.
fn forked_capture(rt: &Runtime) -> ascendcl::Result<()> {
    let ctx = Device::open(rt, 0)?.default_context();
    let (stream, side) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
    let mut x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0])?;
    let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    {
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let (bx, ba, bb) = (cap.bind(&mut x)?, cap.bind(&mut a)?, cap.bind(&mut b)?);
        let branch = cap.fork(&side)?;
        cap.launch_on(
            branch,
            |v| ops::relu(&v.view(bx, &[2])?, v.view_mut(ba, &[2])?),
            Workspace::none(),
        )?;
        cap.join(branch)?;
        cap.launch(
            |v| ops::neg(&v.view(ba, &[2])?, v.view_mut(bb, &[2])?),
            Workspace::none(),
        )?;
        let mut graph = cap.end()?;
        graph.launch(&stream)?.wait()?;
    }
    assert_eq!(b.to_vec()?, vec![0.0, -2.0]);
    Ok(())
}

#[test]
fn failing_any_call_of_a_capture_with_scratch_memory_and_its_replays_returns_an_error_and_leaks_nothing()
 {
    sweep(capture_and_replay, 20);
}

#[test]
fn failing_any_call_of_a_capture_over_two_streams_returns_an_error_and_leaks_nothing() {
    sweep(forked_capture, 15);
}

#[test]
fn a_fork_that_failed_leaves_an_unusable_branch_and_the_next_fork_works() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (stream, s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, ba) = (cap.bind(&mut x)?, cap.bind(&mut a)?);
        env.inject(ascendcl_mock::Fault::nth(
            "aclrtCreateEventExWithFlag",
            1,
            common::sweep::INJECTED,
        ));
        assert!(cap.fork(&s1).is_err(), "the injected fault fails the fork");
        // A perfectly ordinary second fork, then work on it.
        let b = cap.fork(&s2)?;
        cap.launch_on(
            b,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        let graph = cap.end()?;
        drop(graph);
        Ok(())
    });
}

#[test]
fn a_wait_that_would_need_a_device_synchronize_during_a_capture_fails_and_the_capture_survives() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (stream, other) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let src = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let mut z = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        env.slow_streams(Duration::from_millis(50));
        // Eager work on a stream that is NOT captured, still running.
        ops::relu(&Tensor::new(&src, &[4])?, TensorMut::new(&mut z, &[4])?)?
            .launch(&other, Workspace::none())?
            .detach();
        let mut cap = Capture::begin(&stream, CaptureMode::Relaxed)?;
        let (bx, ba) = (cap.bind(&mut x)?, cap.bind(&mut a)?);
        cap.launch(
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        // A host access to z on this thread: its wait cannot record an
        // event (transient fault), so it falls back to a device-wide wait.
        env.inject(ascendcl_mock::Fault::nth(
            "aclrtRecordEvent",
            1,
            common::sweep::INJECTED,
        ));
        let read = z.to_vec();
        let calls = env.calls();
        let synced = calls.iter().any(|c| c == "aclrtSynchronizeDevice");
        let ended = cap.end();
        env.slow_streams(Duration::ZERO);
        assert!(
            matches!(&read, Err(ascendcl::Error::InvalidState(m)) if m.contains("107027")),
            "{read:?}"
        );
        assert!(
            !synced,
            "aclrtSynchronizeDevice was called while a capture was under way on the device"
        );
        drop(ended?);
        Ok(())
    });
}
