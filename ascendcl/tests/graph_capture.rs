//! Graphs (stream capture): a captured step replays correctly with fresh
//! inputs, host access waits for replays, forbidden calls on a capturing
//! stream are typed errors before any FFI call, and failures leak nothing.

mod common;

use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops;
use ascendcl::prelude::*;

#[test]
fn a_captured_relu_replays_with_fresh_inputs_and_its_output_waits_for_each_replay() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(std::time::Duration::from_millis(20));
        let stream = Stream::new(&ctx)?;
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        cap.upload(&input, bx)?;
        cap.launch(
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(by, &[4])?),
            ops::Workspace::none(),
        )?;
        cap.download(by, &output)?;
        env.session.clear_journal();
        let mut graph = cap.end()?;
        assert_eq!(graph.operators(), 1);
        for step in 0..3 {
            let s = step as f32;
            graph
                .host_input_mut(&input)?
                .copy_from_slice(&[-1.0 - s, s, -s, 2.0 * s]);
            graph.launch(&stream)?.detach();
            // Reading the output waits for the replay (slow streams show it).
            assert_eq!(graph.host_output(&output)?, &[0.0, s, 0.0, 2.0 * s]);
        }
        let calls = env.calls();
        let replays = calls
            .iter()
            .filter(|c| *c == "aclmdlRIExecuteAsync")
            .count();
        assert_eq!(replays, 3);
        assert!(
            !calls.iter().any(|c| c == "aclnnRelu"),
            "replays launch no operator: {calls:?}"
        );
        drop(graph);
        drop((x, y));
        Ok(())
    });
}

#[test]
fn synchronizing_querying_or_launching_normally_on_a_capturing_stream_is_refused_before_any_ffi_call()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        env.session.clear_journal();
        assert!(matches!(
            stream.synchronize(),
            Err(ascendcl::Error::InvalidState(_))
        ));
        assert!(matches!(
            stream.query(),
            Err(ascendcl::Error::InvalidState(_))
        ));
        let normal = ops::relu(
            &ops::Tensor::new(&x, &[1])?,
            ops::TensorMut::new(&mut y, &[1])?,
        )?
        .launch(&stream, ops::Workspace::none())
        .map(|p| p.detach());
        assert!(
            matches!(normal, Err(ascendcl::Error::InvalidState(_))),
            "{normal:?}"
        );
        assert!(stream.launch_host_fn(|| {}).is_err());
        let calls = env.calls();
        let forbidden = [
            "aclrtSynchronizeStream",
            "aclrtStreamQuery",
            "aclnnRelu",
            "aclrtLaunchHostFunc",
        ];
        assert!(
            !calls.iter().any(|c| forbidden.contains(&c.as_str())),
            "{calls:?}"
        );
        drop(cap); // ends the capture, discards the graph
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn the_default_stream_and_a_second_capture_of_one_stream_are_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let default = Stream::default_of(&ctx);
        assert!(matches!(
            Capture::begin(&default, CaptureMode::Global),
            Err(ascendcl::Error::InvalidArgument(_))
        ));
        let stream = Stream::new(&ctx)?;
        let first = Capture::begin(&stream, CaptureMode::Relaxed)?;
        assert!(Capture::begin(&stream, CaptureMode::Relaxed).is_err());
        drop(first);
        Ok(())
    });
}

#[test]
fn a_captured_operator_over_memory_not_bound_to_the_capture_is_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        // Memory borrowed for less than 'static cannot even be named inside
        // the builder (it must give a Prepared for every 'v); 'static memory
        // can, and is refused at run time.
        let outside: &'static DeviceBuffer<f32> =
            Box::leak(Box::new(DeviceBuffer::from_host(&ctx, &[1.0f32])?));
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let by = cap.bind(&mut y)?;
        let refused = cap.launch(
            |v| ops::relu(&ops::Tensor::new(outside, &[1])?, v.view_mut(by, &[1])?),
            ops::Workspace::none(),
        );
        assert!(
            matches!(refused, Err(ascendcl::Error::InvalidArgument(_))),
            "{refused:?}"
        );
        // A read and a write view of one buffer in one operator: refused too.
        let aliased = cap.launch(
            |v| ops::relu(&v.view(by, &[1])?, v.view_mut(by, &[1])?),
            ops::Workspace::none(),
        );
        assert!(
            matches!(aliased, Err(ascendcl::Error::InvalidArgument(_))),
            "{aliased:?}"
        );
        drop(cap);
        // SAFETY: the pointer came from Box::leak above; nothing uses it any more.
        drop(unsafe {
            Box::from_raw(outside as *const DeviceBuffer<f32> as *mut DeviceBuffer<f32>)
        });
        Ok(())
    });
}

#[test]
fn an_invalidated_capture_ends_without_a_graph_and_leaves_no_live_executor() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
        cap.launch(
            |v| ops::relu(&v.view(bx, &[2])?, v.view_mut(by, &[2])?),
            ops::Workspace::none(),
        )?;
        // A raw call CANN forbids on a captured stream invalidates the
        // capture (the safe API refuses it before FFI; raw code can make it).
        let lib = env.rt.library();
        // SAFETY: a live stream; the call is refused by the runtime.
        let refused = unsafe { lib.aclrtSynchronizeStream(stream.as_raw()) };
        assert_eq!(refused, Ok(107027));
        let ended = cap.end();
        assert!(ended.is_err(), "an invalidated capture gives no graph");
        // The stream works normally again; common::check finds nothing alive.
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_graph_cannot_be_replayed_on_another_device() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
        cap.launch(
            |v| ops::relu(&v.view(bx, &[2])?, v.view_mut(by, &[2])?),
            ops::Workspace::none(),
        )?;
        let mut graph = cap.end()?;
        let device1 = Device::open(&env.rt, 1)?;
        let other = Stream::new(&device1.default_context())?;
        assert!(matches!(
            graph.launch(&other).map(|p| p.detach()),
            Err(ascendcl::Error::InvalidArgument(_))
        ));
        graph.launch(&stream)?.wait()?;
        drop(graph);
        assert_eq!(y.to_vec()?, vec![0.0, 0.0]);
        Ok(())
    });
}

#[test]
fn a_graph_replays_on_another_stream_after_the_stream_it_was_captured_on_is_destroyed() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let (mut graph, input, output) = {
            let source = Stream::new(&ctx)?;
            let mut cap = Capture::begin(&source, CaptureMode::Global)?;
            let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
            let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
            let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
            cap.upload(&input, bx)?;
            cap.launch(
                |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(by, &[4])?),
                ops::Workspace::none(),
            )?;
            cap.download(by, &output)?;
            (cap.end()?, input, output)
            // `source` is destroyed here.
        };
        env.slow_streams(std::time::Duration::from_millis(20));
        let other = Stream::new(&ctx)?;
        for step in 1..3 {
            let s = step as f32;
            graph
                .host_input_mut(&input)?
                .copy_from_slice(&[s, -s, 3.0 * s, -1.0]);
            graph.launch(&other)?.detach();
            assert_eq!(graph.host_output(&output)?, &[s, 0.0, 3.0 * s, 0.0]);
        }
        drop(graph);
        drop((x, y));
        Ok(())
    });
}

#[test]
fn synchronous_copies_are_refused_where_the_capture_mode_forbids_them_before_any_ffi_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut other = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?;
        let refused = |r: ascendcl::Result<()>| matches!(r, Err(ascendcl::Error::InvalidState(ref m)) if m.contains("107030"));
        // GLOBAL: every thread.
        let cap = Capture::begin(&stream, CaptureMode::Global)?;
        env.session.clear_journal();
        assert!(refused(other.copy_from_host(&[3.0, 4.0])));
        assert!(refused(other.fill_bytes(0)));
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut host = [0.0f32; 2];
                assert!(refused(other.copy_to_host(&mut host)));
            });
        });
        assert!(
            !env.calls()
                .iter()
                .any(|c| c == "aclrtMemcpy" || c == "aclrtMemset"),
            "refused before any FFI call: {:?}",
            env.calls()
        );
        drop(cap.end());
        other.copy_from_host(&[5.0, 6.0])?;
        // THREAD_LOCAL: only the capturing thread.
        let cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        assert!(refused(other.fill_bytes(0)));
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut host = [0.0f32; 2];
                other
                    .copy_to_host(&mut host)
                    .expect("another thread may copy");
                assert_eq!(host, [5.0, 6.0]);
            });
        });
        drop(cap);
        // RELAXED: nowhere.
        let cap = Capture::begin(&stream, CaptureMode::Relaxed)?;
        other.copy_from_host(&[7.0, 8.0])?;
        drop(cap);
        assert_eq!(other.to_vec()?, vec![7.0, 8.0]);
        Ok(())
    });
}

#[test]
fn a_leaked_replay_guard_still_orders_host_access_and_the_graphs_drop_after_the_replay() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(std::time::Duration::from_millis(20));
        let stream = Stream::new(&ctx)?;
        let (mut x, mut y) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 2)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 2)?,
        );
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 2)?);
        let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 2)?);
        cap.upload(&input, bx)?;
        cap.launch(
            |v| ops::relu(&v.view(bx, &[2])?, v.view_mut(by, &[2])?),
            ops::Workspace::none(),
        )?;
        cap.download(by, &output)?;
        let mut graph = cap.end()?;
        graph.host_input_mut(&input)?.copy_from_slice(&[-1.0, 3.0]);
        std::mem::forget(graph.launch(&stream)?);
        // The replay is still running (slow streams): reading waits for it.
        assert_eq!(graph.host_output(&output)?, &[0.0, 3.0]);
        graph.host_input_mut(&input)?.copy_from_slice(&[4.0, -4.0]);
        std::mem::forget(graph.launch(&stream)?);
        // Dropping the graph waits for the replay before destroying the model
        // (the mock counts a destroy under a running replay as misuse).
        drop(graph);
        assert_eq!(y.to_vec()?, vec![4.0, 0.0]);
        Ok(())
    });
}

#[test]
fn device_synchronize_and_events_on_a_capturing_stream_are_refused_before_any_ffi_call() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let other = Device::open(&env.rt, 1)?;
        let stream = Stream::new(&ctx)?;
        let event = Event::new(&ctx)?;
        let cap = Capture::begin(&stream, CaptureMode::Relaxed)?;
        env.session.clear_journal();
        let refused = |r: ascendcl::Result<()>| matches!(r, Err(ascendcl::Error::InvalidState(m)) if m.contains("107027") || m.contains("captured"));
        assert!(refused(device.synchronize()), "device synchronize");
        assert!(refused(
            device.synchronize_timeout(std::time::Duration::from_secs(1))
        ));
        assert!(
            refused(event.record(&stream)),
            "an event recorded in the capture"
        );
        assert!(refused(stream.record(&event)));
        assert!(
            refused(stream.wait_event(&event)),
            "a wait joining the capture"
        );
        assert!(
            !env.calls().iter().any(|c| c.starts_with("aclrt")),
            "refused before FFI: {:?}",
            env.calls()
        );
        // Another device is not captured: its synchronize goes through.
        other.synchronize()?;
        drop(cap.end()?);
        device.synchronize()?;
        event.record(&stream)?;
        event.synchronize()?;
        Ok(())
    });
}
