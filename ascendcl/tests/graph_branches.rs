//! Captures over several streams (`Capture::fork` / `join`): side work
//! replays with the right values, the fork and join are the events CANN
//! requires, branches touching one buffer unordered are refused before
//! anything is captured, and a joined or foreign branch takes no work.

mod common;

use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops::{self, Workspace};
use ascendcl::prelude::*;

#[test]
fn work_forked_to_a_side_stream_replays_with_the_join_ordering_it_even_after_the_side_stream_is_gone()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(std::time::Duration::from_millis(2));
        let (stream, side) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut buffers: Vec<DeviceBuffer<f32>> = (0..4)
            .map(|_| DeviceBuffer::<f32>::zeroed(&ctx, 4))
            .collect::<ascendcl::Result<_>>()?;
        let [x, a, b, y] = &mut buffers[..] else {
            unreachable!()
        };
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, ba, bb, by) = (cap.bind(x)?, cap.bind(a)?, cap.bind(b)?, cap.bind(y)?);
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        cap.upload(&input, bx)?;
        let branch = cap.fork(&side)?;
        // a = relu(x) on the side stream, b = -x on the capture's stream.
        cap.launch_on(
            branch,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        cap.launch(
            |v| ops::neg(&v.view(bx, &[4])?, v.view_mut(bb, &[4])?),
            Workspace::none(),
        )?;
        cap.join(branch)?;
        cap.launch(
            |v| {
                ops::add(
                    &v.view(ba, &[4])?,
                    &v.view(bb, &[4])?,
                    2.0f32,
                    v.view_mut(by, &[4])?,
                )
            },
            Workspace::none(),
        )?;
        cap.download(by, &output)?;
        let calls = env.calls();
        for expected in [
            "aclrtCreateEventExWithFlag",
            "aclrtRecordEvent",
            "aclrtStreamWaitEvent",
        ] {
            assert_eq!(
                calls.iter().filter(|c| *c == expected).count(),
                2,
                "{expected}: one for the fork, one for the join: {calls:?}"
            );
        }
        let mut graph = cap.end()?;
        // The side stream is usable again once the capture ended, and the
        // graph replays without it.
        side.synchronize()?;
        drop(side);
        for step in 0..3 {
            let s = step as f32 + 1.0;
            let x = [-s, s, -2.0 * s, 2.0 * s];
            graph.host_input_mut(&input)?.copy_from_slice(&x);
            graph.launch(&stream)?.detach();
            // y = relu(x) + 2 * (-x)
            let expected: Vec<f32> = x.iter().map(|v| v.max(0.0) - 2.0 * v).collect();
            assert_eq!(graph.host_output(&output)?, &expected[..]);
        }
        drop(graph);
        Ok(())
    });
}

#[test]
fn a_buffer_written_on_one_branch_and_used_on_another_without_a_join_is_refused_before_capture() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (stream, side) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let (bx, ba, bb) = (cap.bind(&mut x)?, cap.bind(&mut a)?, cap.bind(&mut b)?);
        let branch = cap.fork(&side)?;
        cap.launch_on(
            branch,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        env.session.clear_journal();
        // Read a on the capture's stream: the side may still be writing it.
        let read = cap.launch(
            |v| ops::neg(&v.view(ba, &[4])?, v.view_mut(bb, &[4])?),
            Workspace::none(),
        );
        assert!(
            matches!(&read, Err(ascendcl::Error::InvalidArgument(m)) if m.contains("branch 1") && m.contains("join")),
            "{read:?}"
        );
        // Write x on the capture's stream: the side may still be reading it.
        let write = cap.launch(
            |v| ops::neg(&v.view(bb, &[4])?, v.view_mut(bx, &[4])?),
            Workspace::none(),
        );
        assert!(
            matches!(&write, Err(ascendcl::Error::InvalidArgument(_))),
            "{write:?}"
        );
        assert!(
            !env.calls().iter().any(|c| c == "aclnnNeg"),
            "refused before phase 2: {:?}",
            env.calls()
        );
        // Reading x on both is fine; after the join, a is readable.
        cap.launch(
            |v| ops::neg(&v.view(bx, &[4])?, v.view_mut(bb, &[4])?),
            Workspace::none(),
        )?;
        cap.join(branch)?;
        cap.launch(
            |v| ops::neg(&v.view(ba, &[4])?, v.view_mut(bb, &[4])?),
            Workspace::none(),
        )?;
        let graph = cap.end()?;
        assert_eq!(graph.operators(), 3);
        Ok(())
    });
}

#[test]
fn a_joined_branch_takes_no_more_work_and_an_unjoined_one_is_joined_at_the_end() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (stream, side, third) = (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, ba) = (cap.bind(&mut x)?, cap.bind(&mut a)?);
        let joined = cap.fork(&side)?;
        cap.join(joined)?;
        let late = cap.launch_on(
            joined,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        );
        assert!(
            matches!(late, Err(ascendcl::Error::InvalidState(_))),
            "{late:?}"
        );
        assert!(matches!(
            cap.join(joined),
            Err(ascendcl::Error::InvalidState(_))
        ));
        // The side stream stays in the capture until it ends (CANN counts it).
        assert!(side.synchronize().is_err());
        let open = cap.fork(&third)?;
        cap.launch_on(
            open,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        // Never joined by hand: the end joins it (CANN would fail with 107025).
        let mut graph = cap.end()?;
        graph.launch(&stream)?.wait()?;
        drop(graph);
        Ok(())
    });
}

#[test]
fn forking_the_capture_stream_itself_a_default_stream_or_another_contexts_stream_is_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ctx1 = Device::open(&env.rt, 1)?.default_context();
        let (stream, side, elsewhere) =
            (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx1)?);
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        env.session.clear_journal();
        assert!(matches!(
            cap.fork(&stream),
            Err(ascendcl::Error::InvalidState(_))
        ));
        assert!(matches!(
            cap.fork(&Stream::default_of(&ctx)),
            Err(ascendcl::Error::InvalidArgument(_))
        ));
        assert!(matches!(
            cap.fork(&elsewhere),
            Err(ascendcl::Error::InvalidArgument(_))
        ));
        let branch = cap.fork(&side)?;
        assert!(matches!(
            cap.fork(&side),
            Err(ascendcl::Error::InvalidState(_))
        ));
        let mut other = Capture::begin(&elsewhere, CaptureMode::ThreadLocal)?;
        let foreign = other.launch_on(
            branch,
            |_| unreachable!("refused before the operator is built"),
            Workspace::none(),
        );
        assert!(
            matches!(foreign, Err(ascendcl::Error::InvalidArgument(_))),
            "{foreign:?}"
        );
        drop(other);
        drop(cap);
        side.synchronize()?;
        stream.synchronize()?;
        Ok(())
    });
}

fn expect_refused(what: &str, r: ascendcl::Result<()>) {
    match r {
        Err(ascendcl::Error::InvalidArgument(_)) | Err(ascendcl::Error::InvalidState(_)) => {}
        other => panic!("{what}: accepted or wrong error: {other:?}"),
    }
}

#[test]
fn scratch_uploads_and_branches_forked_around_joins_are_ordered_or_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (stream, s1, s2, s3) = (
            Stream::new(&ctx)?,
            Stream::new(&ctx)?,
            Stream::new(&ctx)?,
            Stream::new(&ctx)?,
        );
        let alloc = ascendcl::alloc::CachingAllocator::new(
            &ctx,
            ascendcl::alloc::AllocatorConfig::segments(),
        )?;
        let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut c = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut ws = DeviceBuffer::<u8>::zeroed(&ctx, 1 << 16)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, ba, bc) = (cap.bind(&mut x)?, cap.bind(&mut a)?, cap.bind(&mut c)?);
        let tmp = cap.scratch::<f32>(&alloc, 4)?;
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        let b1 = cap.fork(&s1)?;
        let b2 = cap.fork(&s2)?;
        // scratch written on b1
        cap.launch_on(
            b1,
            |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(tmp, &[4])?),
            Workspace::none(),
        )?;
        // read on b2 / origin, download on origin, upload over x (read by b1)
        expect_refused(
            "scratch read on b2",
            cap.launch_on(
                b2,
                |v| ops::neg(&v.view(tmp, &[4])?, v.view_mut(bc, &[4])?),
                Workspace::none(),
            ),
        );
        expect_refused("scratch downloaded", cap.download(tmp, &output));
        expect_refused("upload over x read by b1", cap.upload(&input, bx));
        // a join of b1; b2 (forked before it) still may not read tmp
        cap.join(b1)?;
        expect_refused(
            "b2 after b1's join",
            cap.launch_on(
                b2,
                |v| ops::neg(&v.view(tmp, &[4])?, v.view_mut(bc, &[4])?),
                Workspace::none(),
            ),
        );
        // a branch forked after the join may
        let b3 = cap.fork(&s3)?;
        cap.launch_on(
            b3,
            |v| ops::neg(&v.view(tmp, &[4])?, v.view_mut(ba, &[4])?),
            Workspace::none(),
        )?;
        // origin writes a while b3 wrote it
        expect_refused(
            "origin writes a",
            cap.launch(
                |v| ops::neg(&v.view(bx, &[4])?, v.view_mut(ba, &[4])?),
                Workspace::none(),
            ),
        );
        // all-reduce-free: workspace buffer on two branches
        cap.launch_on(
            b2,
            |v| {
                ops::add(
                    &v.view(bx, &[4])?,
                    &v.view(bx, &[4])?,
                    1.0f32,
                    v.view_mut(bc, &[4])?,
                )
            },
            &mut ws,
        )?;
        drop(cap);
        Ok(())
    });
}
