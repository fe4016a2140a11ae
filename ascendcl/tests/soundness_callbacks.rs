//! Host callbacks that would wait for their own stream: refused with
//! `Error::WouldDeadlock` (or, for an allocator, made not to wait under a
//! lock), never a silent hang. Every wait here is bounded so that a
//! regression fails instead of hanging CI.

mod common;

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;

/// Longer than any healthy wait here; a hang shows as this timeout.
const BOUND: Duration = Duration::from_secs(30);

fn would_deadlock<T: std::fmt::Debug>(result: ascendcl::Result<T>) -> bool {
    matches!(result, Err(ascendcl::Error::WouldDeadlock(_)))
}

#[test]
fn a_callback_synchronizing_its_own_stream_or_device_gets_an_error() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let (tx, rx) = mpsc::channel();
        let (own, dev) = (stream.clone(), device.clone());
        stream.launch_host_fn(move || {
            let outcome = (
                would_deadlock(own.synchronize()),
                would_deadlock(own.synchronize_timeout(Duration::from_secs(1))),
                would_deadlock(dev.synchronize()),
            );
            tx.send(outcome).expect("receiver alive");
        })?;
        let outcome = rx
            .recv_timeout(BOUND)
            .expect("the callback ran and returned");
        assert_eq!(outcome, (true, true, true));
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_callback_reading_a_buffer_written_after_it_on_its_stream_gets_an_error() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[4u32; 64])?;
        let host = Arc::new(Mutex::new(HostBuffer::<u32>::zeroed(&ctx, 64)?));
        let gate = Arc::new(Barrier::new(2));
        let (tx, rx) = mpsc::channel();
        let (in_callback, callback_gate) = (host.clone(), gate.clone());
        stream.launch_host_fn(move || {
            callback_gate.wait();
            let guard = in_callback.lock().expect("lock");
            let read = guard.as_slice().map(|s| s[0]);
            tx.send(would_deadlock(read)).expect("receiver alive");
        })?;
        {
            // Queued after the callback, on the same stream; guard forgotten.
            let mut guard = host.lock().expect("lock");
            std::mem::forget(stream.copy_device_to_host(&device, &mut *guard)?);
        }
        gate.wait();
        assert!(rx.recv_timeout(BOUND).expect("the callback returned"));
        stream.synchronize()?;
        assert!(host.lock().expect("lock").iter().all(|&v| v == 4));
        Ok(())
    });
}

#[test]
fn a_callback_dropping_a_block_while_empty_cache_waits_for_its_stream_does_not_deadlock() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        let dropped_in_callback = allocator.alloc::<u8>(&stream, 4096)?;
        let mut used_after = allocator.alloc::<u8>(&stream, 4096)?;
        let gate = Arc::new(Barrier::new(2));
        let callback_gate = gate.clone();
        stream.launch_host_fn(move || {
            callback_gate.wait();
            drop(dropped_in_callback); // needs the allocator's lock
        })?;
        std::mem::forget(stream.fill_bytes(&mut used_after, 1)?);
        drop(used_after); // pending: its work comes after the callback
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| tx.send(allocator.empty_cache()).expect("receiver alive"));
            // Let empty_cache start waiting, then release the callback.
            std::thread::sleep(Duration::from_millis(50));
            gate.wait();
            match rx.recv_timeout(BOUND) {
                Ok(result) => result,
                Err(RecvTimeoutError::Timeout) => panic!("empty_cache deadlocked with a callback"),
                Err(RecvTimeoutError::Disconnected) => panic!("empty_cache thread died"),
            }
        })?;
        assert_eq!(
            allocator.stats().reserved.current,
            0,
            "everything was released"
        );
        Ok(())
    });
}

/// A panic payload whose own destructor panics.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("the payload's destructor panics too (on purpose)");
    }
}

#[test]
fn a_callback_panicking_with_a_payload_whose_drop_panics_is_reported_not_aborted() {
    common::quiet_panics_containing("(on purpose)");
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        stream.launch_host_fn(|| std::panic::panic_any(Bomb))?;
        match stream.synchronize() {
            Err(ascendcl::Error::CallbackPanicked(text)) => {
                assert_eq!(text, "non-string panic payload")
            }
            other => panic!("expected the caught panic, got {other:?}"),
        }
        stream.synchronize()?;
        Ok(())
    });
}
