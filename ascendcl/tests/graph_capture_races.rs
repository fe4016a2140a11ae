//! A capture beginning on a stream while other threads launch on it: no
//! tracked launch or host function lands in the capture (each either runs
//! normally or is refused with a typed error), because the capture's begin
//! and every launch take the stream lane's critical section. Found by the
//! hostile review of the graph layer: the launch checked "capturing" before
//! a host wait with no lock held, then queued into the capture.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ascendcl::Context;
use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

/// The tasks `aclmdlRICaptureEnd` reported in the journal, last first.
fn captured_tasks(env: &common::Env) -> Vec<String> {
    env.session
        .journal()
        .iter()
        .filter(|e| e.function() == "aclmdlRICaptureEnd")
        .filter_map(|e| e.raw_field("tasks").map(str::to_string))
        .collect()
}

#[test]
fn an_operator_launch_that_host_waits_while_a_capture_begins_is_refused_not_captured() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let other = Context::new(&device)?;
        let (s, s2) = (Stream::new(&ctx)?, Stream::new(&other)?);
        // x2 gets a slow write on another context: a launch reading it on `s`
        // waits for it on the host, with no lock held.
        let src = DeviceBuffer::from_host(&other, &[-1.0f32, 2.0, -3.0, 4.0])?;
        let mut x2 = DeviceBuffer::<f32>::zeroed(&other, 4)?;
        env.slow_streams(Duration::from_millis(300));
        ops::relu(&Tensor::new(&src, &[4])?, TensorMut::new(&mut x2, &[4])?)?
            .launch(&s2, Workspace::none())?
            .detach();
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let (mut a, mut b) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
        );
        let (racer, graph) = std::thread::scope(|scope| -> ascendcl::Result<_> {
            let (s_ref, x2_ref, y_ref) = (&s, &x2, &mut y);
            let racer = scope.spawn(move || -> ascendcl::Result<()> {
                ops::relu(&Tensor::new(x2_ref, &[4])?, TensorMut::new(y_ref, &[4])?)?
                    .launch(s_ref, Workspace::none())?
                    .wait()
            });
            std::thread::sleep(Duration::from_millis(100));
            let mut cap = Capture::begin(&s, CaptureMode::Relaxed)?;
            let (ba, bb) = (cap.bind(&mut a)?, cap.bind(&mut b)?);
            cap.launch(
                |v| ops::relu(&v.view(ba, &[4])?, v.view_mut(bb, &[4])?),
                Workspace::none(),
            )?;
            let racer = racer.join().expect("no panic");
            Ok((racer, cap.end()?))
        })?;
        env.slow_streams(Duration::ZERO);
        match racer {
            Err(ascendcl::Error::InvalidState(m)) => assert!(m.contains("being captured"), "{m}"),
            other => panic!("the racing launch: {other:?}"),
        }
        assert_eq!(
            captured_tasks(env),
            ["1"],
            "only the capture's own operator"
        );
        assert_eq!(
            y.to_vec()?,
            vec![0.0; 4],
            "the refused launch wrote nothing"
        );
        drop(graph);
        drop((x2, src));
        Ok(())
    });
}

#[test]
fn host_functions_launched_while_captures_begin_and_end_all_run_and_none_is_captured() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let s = Stream::new(&ctx)?;
        let ran = Arc::new(AtomicU64::new(0));
        let (launched, refused) = (AtomicU64::new(0), AtomicU64::new(0));
        let stop = AtomicBool::new(false);
        let mut captures = 0;
        std::thread::scope(|scope| -> ascendcl::Result<()> {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let r = ran.clone();
                    match s.launch_host_fn(move || {
                        r.fetch_add(1, Ordering::SeqCst);
                    }) {
                        Ok(()) => launched.fetch_add(1, Ordering::SeqCst),
                        Err(_) => refused.fetch_add(1, Ordering::SeqCst),
                    };
                }
            });
            let deadline = Instant::now() + Duration::from_millis(1500);
            while Instant::now() < deadline {
                // Begin may find the stream busy more often than it retries.
                if let Ok(cap) = Capture::begin(&s, CaptureMode::Relaxed) {
                    drop(cap.end());
                    captures += 1;
                }
            }
            stop.store(true, Ordering::Relaxed);
            Ok(())
        })?;
        s.synchronize()?;
        assert!(captures > 0, "no capture began");
        assert_eq!(
            ran.load(Ordering::SeqCst),
            launched.load(Ordering::SeqCst),
            "every host function accepted ran ({} refused)",
            refused.load(Ordering::SeqCst)
        );
        let tasks = captured_tasks(env);
        assert!(
            tasks.iter().all(|t| t == "0"),
            "a capture took work: {tasks:?}"
        );
        Ok(())
    });
}

#[test]
fn queries_event_records_and_waits_racing_capture_begins_are_refused_never_captured() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let s = Stream::new(&ctx)?;
        let ev = Event::new(&ctx)?;
        // Recorded once before the race: a wait on an event never recorded
        // is refused by CANN for its own reason (107000), which the race's
        // first record, refused while a capture runs, would otherwise leave.
        ev.record(&s)?;
        s.synchronize()?;
        let stop = AtomicBool::new(false);
        let (typed, untyped) = (AtomicU64::new(0), AtomicU64::new(0));
        let untyped_msgs = std::sync::Mutex::new(Vec::<String>::new());
        let (mut captures, mut failed_ends) = (0u64, 0u64);
        let mut end_errors = Vec::new();
        std::thread::scope(|scope| -> ascendcl::Result<()> {
            scope.spawn(|| {
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    let r = match i % 3 {
                        0 => s.query().map(|_| ()),
                        1 => ev.record(&s),
                        _ => s.wait_event(&ev),
                    };
                    match r {
                        Ok(()) => {}
                        Err(ascendcl::Error::InvalidState(m)) if m.contains("being captured") => {
                            typed.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            untyped.fetch_add(1, Ordering::Relaxed);
                            let mut v = untyped_msgs.lock().unwrap();
                            if v.len() < 5 {
                                v.push(e.to_string());
                            }
                        }
                    }
                }
            });
            let deadline = Instant::now() + Duration::from_millis(1500);
            while Instant::now() < deadline {
                if let Ok(cap) = Capture::begin(&s, CaptureMode::Relaxed) {
                    captures += 1;
                    match cap.end() {
                        Ok(g) => drop(g),
                        Err(e) => {
                            failed_ends += 1;
                            if end_errors.len() < 5 {
                                end_errors.push(e.to_string());
                            }
                        }
                    }
                }
            }
            stop.store(true, Ordering::Relaxed);
            Ok(())
        })?;
        let _ = s.synchronize();
        let _ = ascendcl::take_deferred_errors();
        assert!(
            captures > 0 && typed.load(Ordering::Relaxed) > 0,
            "the race did not happen"
        );
        assert_eq!(
            (failed_ends, untyped.load(Ordering::Relaxed)),
            (0, 0),
            "a call the stream refuses while captured reached CANN during a capture: {end_errors:?} {:?}",
            untyped_msgs.lock().unwrap()
        );
        Ok(())
    });
}
