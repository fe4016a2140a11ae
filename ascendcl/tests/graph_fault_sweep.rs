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
use ascendcl::ops::{self, Workspace};
use ascendcl::prelude::*;
use common::sweep::sweep;

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
fn a_capture_cann_never_ends_leaks_what_it_captured_and_its_stream_refuses_work() {
    // Not `common::check`: the mock keeps the capture and its model alive,
    // on purpose; the next test's session resets it.
    let env = common::env();
    let ctx = Device::open(&env.rt, 0).expect("device").default_context();
    let stream = Stream::new(&ctx).expect("stream");
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::segments()).expect("allocator");
    let scenario = || -> ascendcl::Result<()> {
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let x = cap.scratch::<f32>(&alloc, 4)?;
        let y = cap.scratch::<f32>(&alloc, 4)?;
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        cap.upload(&input, x)?;
        cap.launch(
            |v| ops::relu(&v.view(x, &[4])?, v.view_mut(y, &[4])?),
            Workspace::none(),
        )?;
        env.inject(ascendcl_mock::Fault::always(
            "aclmdlRICaptureEnd",
            common::sweep::INJECTED,
        ));
        let ended = cap.end();
        assert_eq!(
            ended.as_ref().err().and_then(ascendcl::Error::code),
            Some(common::sweep::INJECTED),
            "{ended:?}"
        );
        Ok(())
    };
    scenario().expect("the capture itself");
    assert_eq!(
        env.session.call_count("aclmdlRICaptureEnd"),
        3,
        "tried three times"
    );
    let parked = ascendcl::take_deferred_errors();
    assert!(
        parked
            .iter()
            .any(|p| p.to_string().contains("still captures")),
        "{parked:?}"
    );
    assert!(
        matches!(stream.synchronize(), Err(ascendcl::Error::InvalidState(_))),
        "the stream stays captured, as CANN has it"
    );
    assert_eq!(
        env.session.misuse_total(),
        0,
        "nothing the model uses was freed: {}",
        env.session.misuse_log()
    );
    // CANN refuses to destroy a stream it still captures (107027): parked.
    drop(stream);
    let parked = ascendcl::take_deferred_errors();
    assert!(
        parked.iter().all(|p| p.code() == Some(107027)),
        "{parked:?}"
    );
}
