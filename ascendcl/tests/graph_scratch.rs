//! Scratch memory of a graph (`Capture::scratch`): owned by the graph,
//! reachable only through captured operators, given back to its allocator
//! only after the graph is dropped.

mod common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops;
use ascendcl::prelude::*;

#[test]
fn an_intermediate_in_scratch_memory_carries_each_replay_from_one_operator_to_the_next() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(std::time::Duration::from_millis(5));
        let stream = Stream::new(&ctx)?;
        let alloc = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let before = alloc.stats().allocated.current;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let x = cap.scratch::<f32>(&alloc, 4)?;
        let hidden = cap.scratch::<f32>(&alloc, 4)?;
        let by = cap.bind(&mut y)?;
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        let output = cap.host_output(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        cap.upload(&input, x)?;
        cap.launch(
            |v| ops::relu(&v.view(x, &[4])?, v.view_mut(hidden, &[4])?),
            ops::Workspace::none(),
        )?;
        cap.launch(
            |v| ops::neg(&v.view(hidden, &[4])?, v.view_mut(by, &[4])?),
            ops::Workspace::none(),
        )?;
        cap.download(by, &output)?;
        let mut graph = cap.end()?;
        let held = alloc.stats().allocated.current;
        assert!(
            held > before,
            "the scratch blocks are the graph's while it lives: {before} -> {held}"
        );
        // Another block taken meanwhile cannot be the graph's scratch memory:
        // fill it, replay, and the graph's results are unaffected.
        let mut other = alloc.alloc::<f32>(&stream, 4)?;
        other.copy_from_host(&[9.0; 4])?;
        for step in 0..3 {
            let s = step as f32 + 1.0;
            graph
                .host_input_mut(&input)?
                .copy_from_slice(&[-s, s, 2.0 * s, -2.0 * s]);
            graph.launch(&stream)?.detach();
            assert_eq!(graph.host_output(&output)?, &[0.0, -s, -2.0 * s, 0.0]);
        }
        assert_eq!(other.to_vec()?, vec![9.0; 4]);
        drop(other);
        drop(graph);
        assert_eq!(
            alloc.stats().allocated.current,
            before,
            "dropping the graph gives its scratch blocks back"
        );
        assert_eq!(y.to_vec()?, vec![0.0, -3.0, -6.0, 0.0]);
        Ok(())
    });
}

#[test]
fn scratch_memory_of_another_device_is_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let other = Device::open(&env.rt, 1)?.default_context();
        let stream = Stream::new(&ctx)?;
        let alloc = CachingAllocator::new(&other, AllocatorConfig::segments())?;
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let refused = cap.scratch::<f32>(&alloc, 4);
        assert!(
            matches!(&refused, Err(ascendcl::Error::InvalidArgument(m)) if m.contains("device 1")),
            "{refused:?}"
        );
        drop(cap);
        Ok(())
    });
}
