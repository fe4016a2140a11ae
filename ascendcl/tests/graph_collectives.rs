//! An all-reduce captured into a graph (`Capture::all_reduce_on`): every
//! rank's replay reduces that replay's inputs, and what HCCL would refuse
//! is refused before any call.

mod common;
mod hccl_support;

use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::hccl::ReduceOp;
use ascendcl::ops::{self, Workspace};
use ascendcl::prelude::*;
use hccl_support::{communicators, on_ranks};

#[test]
fn a_captured_gradient_step_with_an_all_reduce_replays_on_two_ranks_with_fresh_inputs() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 2)?;
        let replays = on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let mut x = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
            let mut g = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
            let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
            let (bx, bg) = (cap.bind(&mut x)?, cap.bind(&mut g)?);
            let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
            let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
            cap.upload(&input, bx)?;
            // g = relu(x), then summed over the ranks in place.
            cap.launch(
                |v| ops::relu(&v.view(bx, &[4])?, v.view_mut(bg, &[4])?),
                Workspace::none(),
            )?;
            let origin = cap.origin();
            cap.all_reduce_on(origin, comm, bg, bg, ReduceOp::Sum)?;
            cap.download(bg, &output)?;
            let mut graph = cap.end()?;
            let rank = comm.rank() as f32;
            let mut seen = Vec::new();
            for step in 0..3 {
                let s = step as f32 + 1.0;
                graph
                    .host_input_mut(&input)?
                    .copy_from_slice(&[s + rank, -s, 10.0 * rank, s]);
                graph.launch(&stream)?.detach();
                seen.push(graph.host_output(&output)?.to_vec());
            }
            Ok(seen)
        })?;
        for rank_seen in &replays {
            for (step, got) in rank_seen.iter().enumerate() {
                let s = step as f32 + 1.0;
                // Sum over ranks 0 and 1 of relu(x).
                assert_eq!(got, &vec![2.0 * s + 1.0, 0.0, 10.0, 2.0 * s]);
            }
        }
        Ok(())
    });
}

#[test]
fn a_captured_all_reduce_that_hccl_would_refuse_is_refused_before_any_call() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 2)?;
        let ctx = comms[0].device().default_context();
        let stream = Stream::new(&ctx)?;
        let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let mut u = DeviceBuffer::<f64>::zeroed(&ctx, 4)?;
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let (ba, bb, bu) = (cap.bind(&mut a)?, cap.bind(&mut b)?, cap.bind(&mut u)?);
        env.session.clear_journal();
        let origin = cap.origin();
        let lengths = cap.all_reduce_on(origin, &comms[0], ba, bb, ReduceOp::Sum);
        assert!(
            matches!(lengths, Err(ascendcl::Error::InvalidArgument(_))),
            "{lengths:?}"
        );
        let wide = cap.all_reduce_on(origin, &comms[0], bu, bu, ReduceOp::Sum);
        assert!(
            matches!(wide, Err(ascendcl::Error::InvalidArgument(_))),
            "{wide:?}"
        );
        let elsewhere = cap.all_reduce_on(origin, &comms[1], ba, ba, ReduceOp::Sum);
        assert!(
            matches!(elsewhere, Err(ascendcl::Error::InvalidArgument(_))),
            "{elsewhere:?}"
        );
        assert!(
            !env.calls().iter().any(|c| c.starts_with("Hccl")),
            "{:?}",
            env.calls()
        );
        drop(cap);
        Ok(())
    });
}

#[test]
fn two_collectives_of_one_communicator_on_unordered_branches_are_refused() {
    use ascendcl::hccl::ReduceOp;
    common::check(|env| {
        let (_devices, comms) = hccl_support::communicators(env, 2)?;
        let accepted = hccl_support::on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let (stream, s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
            let mut a = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
            let mut c = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
            let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
            let (ba, bc) = (cap.bind(&mut a)?, cap.bind(&mut c)?);
            let (b1, b2) = (cap.fork(&s1)?, cap.fork(&s2)?);
            cap.all_reduce_on(b1, comm, ba, ba, ReduceOp::Sum)?;
            let second = cap.all_reduce_on(b2, comm, bc, bc, ReduceOp::Sum);
            let ok = second.is_ok();
            let mut graph = cap.end()?;
            graph.launch(&stream)?.wait()?;
            drop(graph);
            Ok(ok)
        })?;
        assert_eq!(
            accepted,
            vec![false, false],
            "two collectives of one communicator were captured on unordered branches"
        );
        Ok(())
    });
}
