//! A thread's capture mode (`graph::with_thread_mode`): which synchronous
//! copies a capture under way forbids on it, decided as CANN's
//! `Context::IsCaptureModeSupport` decides (v8.5.0 `context.cc`), before any
//! FFI call, and the mock agreeing wherever the safe layer lets a call
//! through (the capture is not invalidated).

mod common;

use ascendcl::graph::{self, Capture, CaptureMode};
use ascendcl::ops;
use ascendcl::prelude::*;

fn refused(r: &ascendcl::Result<()>) -> bool {
    matches!(r, Err(ascendcl::Error::InvalidState(m)) if m.contains("107030"))
}

/// A one-operator capture that must still end and replay correctly.
fn relu_capture_replays(stream: &Stream, cap: Capture<'_>) -> ascendcl::Result<()> {
    let mut graph = cap.end()?;
    graph.launch(stream)?.wait()?;
    Ok(())
}

#[test]
fn a_relaxed_thread_may_copy_synchronously_during_a_global_capture_and_the_capture_survives() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let (mut x, mut y) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 2)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 2)?,
        );
        let mut other = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut cap = Capture::begin(&stream, CaptureMode::Global)?;
        let (bx, by) = (cap.bind(&mut x)?, cap.bind(&mut y)?);
        cap.launch(
            |v| ops::relu(&v.view(bx, &[2])?, v.view_mut(by, &[2])?),
            ops::Workspace::none(),
        )?;
        std::thread::scope(|s| {
            s.spawn(|| -> ascendcl::Result<()> {
                assert!(refused(&other.copy_from_host(&[1.0, 2.0])));
                graph::with_thread_mode(&env.rt, CaptureMode::Relaxed, || {
                    other.copy_from_host(&[3.0, 4.0])
                })??;
                // The mode is back to GLOBAL after the closure.
                assert!(refused(&other.fill_bytes(0)));
                Ok(())
            })
            .join()
            .expect("no panic")
        })?;
        relu_capture_replays(&stream, cap)?;
        assert_eq!(other.to_vec()?, vec![3.0, 4.0]);
        let copies = env
            .session
            .journal()
            .iter()
            .filter(|e| e.function() == "aclrtMemcpy")
            .map(|e| e.ret())
            .collect::<Vec<_>>();
        assert_eq!(copies, [0, 0], "the relaxed copy and to_vec, both accepted");
        Ok(())
    });
}

#[test]
fn a_thread_in_thread_local_mode_may_copy_during_another_threads_global_capture_but_not_during_its_own()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut other = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let cap = Capture::begin(&stream, CaptureMode::Global)?;
        // This (the capturing) thread: THREAD_LOCAL still refuses, as it captures.
        let own = graph::with_thread_mode(&env.rt, CaptureMode::ThreadLocal, || {
            other.copy_from_host(&[1.0, 2.0])
        })?;
        assert!(refused(&own), "{own:?}");
        std::thread::scope(|s| {
            s.spawn(|| {
                graph::with_thread_mode(&env.rt, CaptureMode::ThreadLocal, || {
                    other.copy_from_host(&[5.0, 6.0])
                })
            })
            .join()
            .expect("no panic")
        })??;
        drop(cap.end()?);
        assert_eq!(other.to_vec()?, vec![5.0, 6.0]);
        Ok(())
    });
}

#[test]
fn a_global_capture_in_one_context_does_not_refuse_synchronous_copies_in_another() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let ctx1 = Device::open(&env.rt, 1)?.default_context();
        let stream = Stream::new(&ctx)?;
        let mut here = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut there = DeviceBuffer::<f32>::zeroed(&ctx1, 2)?;
        let cap = Capture::begin(&stream, CaptureMode::Global)?;
        assert!(refused(&here.copy_from_host(&[1.0, 2.0])));
        there.copy_from_host(&[7.0, 8.0])?;
        drop(cap.end()?);
        assert_eq!(there.to_vec()?, vec![7.0, 8.0]);
        Ok(())
    });
}

#[test]
fn the_thread_mode_is_restored_when_the_closure_panics() {
    common::quiet_panics_containing("planted panic");
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut other = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let cap = Capture::begin(&stream, CaptureMode::Global)?;
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ =
                graph::with_thread_mode(&env.rt, CaptureMode::Relaxed, || panic!("planted panic"));
        }));
        assert!(panicked.is_err());
        assert!(refused(&other.copy_from_host(&[1.0, 2.0])));
        let exchanges: Vec<i64> = env
            .session
            .journal()
            .iter()
            .filter(|e| e.function() == "aclmdlRICaptureThreadExchangeMode")
            .filter_map(|e| e.raw_field("mode").and_then(|m| m.parse().ok()))
            .collect();
        assert_eq!(exchanges.len(), 2, "set, then restored: {exchanges:?}");
        drop(cap.end()?);
        Ok(())
    });
}
