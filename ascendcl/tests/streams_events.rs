//! Streams and events: synchronize, timeouts, queries, ordering across
//! streams, timing, host callbacks.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Error, StreamFlags};

#[test]
fn synchronize_timeout_gives_a_typed_timeout_while_work_is_queued() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(300));
        let stream = Stream::new(&ctx)?;
        let mut buffer = DeviceBuffer::<u8>::alloc(&ctx, 64)?;
        let fill = stream.fill_bytes(&mut buffer, 7)?;
        let err = stream
            .synchronize_timeout(Duration::from_millis(20))
            .unwrap_err();
        assert!(err.is_timeout(), "{err:?}");
        assert_eq!(err.code(), Some(507046));
        assert!(!stream.query()?, "the fill is still queued");
        fill.wait()?;
        assert!(stream.query()?);
        stream.synchronize_timeout(Duration::from_millis(20))?;
        assert_eq!(buffer.to_vec()?, vec![7; 64]);
        Ok(())
    });
}

#[test]
fn streams_with_config_accept_known_flags_and_priorities() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream =
            Stream::with_config(&ctx, 3, StreamFlags::FAST_LAUNCH | StreamFlags::FAST_SYNC)?;
        stream.synchronize()?;
        assert!(matches!(
            Stream::with_config(&ctx, 0, StreamFlags(1 << 20)),
            Err(Error::InvalidArgument(_))
        ));
        let default = Stream::default_of(&ctx);
        default.synchronize()?;
        assert!(default.as_raw().is_null());
        stream.destroy()?;
        Ok(())
    });
}

#[test]
fn an_event_makes_a_second_stream_wait_for_the_first() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(30));
        let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let ready = Event::with_flags(&ctx, EventFlags::SYNC)?;
        let produced = Arc::new(AtomicUsize::new(0));
        let seen_by_consumer = Arc::new(AtomicUsize::new(usize::MAX));

        let p = produced.clone();
        producer.launch_host_fn(move || p.store(1, Ordering::SeqCst))?;
        ready.record(&producer)?;
        consumer.wait_event(&ready)?;
        let (p, seen) = (produced.clone(), seen_by_consumer.clone());
        consumer.launch_host_fn(move || seen.store(p.load(Ordering::SeqCst), Ordering::SeqCst))?;

        consumer.synchronize()?;
        assert_eq!(
            seen_by_consumer.load(Ordering::SeqCst),
            1,
            "the consumer ran after the producer's work"
        );
        Ok(())
    });
}

#[test]
fn event_query_and_elapsed_time_follow_the_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        // Long enough that a stalled CI machine still queries before it runs.
        env.slow_streams(Duration::from_millis(150));
        let stream = Stream::new(&ctx)?;
        let start = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        let end = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        assert!(
            !end.query()?,
            "never recorded: NOT_READY (CANN 8.5.0 event.cc:1072-1077)"
        );
        start.record(&stream)?;
        end.record(&stream)?;
        assert!(!end.query()?);
        let err = end
            .synchronize_timeout(Duration::from_millis(1))
            .unwrap_err();
        assert!(err.is_timeout(), "{err:?}");
        assert_eq!(err.code(), Some(507047));
        end.synchronize()?;
        assert!(end.query()?);
        let elapsed = start.elapsed(&end)?;
        assert!(
            elapsed >= Duration::from_millis(140),
            "the second marker ran a stream delay later: {elapsed:?}"
        );
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        Ok(())
    });
}

#[test]
fn host_callbacks_run_in_stream_order_and_their_panics_are_caught() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let order = Arc::new(AtomicUsize::new(0));
        let (first, second) = (order.clone(), order.clone());
        stream.launch_host_fn(move || assert_eq!(first.fetch_add(1, Ordering::SeqCst), 0))?;
        stream.launch_host_fn(move || assert_eq!(second.fetch_add(1, Ordering::SeqCst), 1))?;
        stream.synchronize()?;
        assert_eq!(order.load(Ordering::SeqCst), 2);

        common::quiet_panics_containing("(on purpose)");
        stream.launch_host_fn(|| panic!("boom in a callback (on purpose)"))?;
        let err = stream.synchronize().unwrap_err();
        assert!(
            matches!(&err, Error::CallbackPanicked(text) if text.contains("boom")),
            "{err:?}"
        );
        stream.synchronize()?; // reported once
        Ok(())
    });
}

#[test]
fn device_synchronize_waits_for_every_stream() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(20));
        let streams = [Stream::new(&ctx)?, Stream::new(&ctx)?];
        let done = Arc::new(AtomicUsize::new(0));
        for stream in &streams {
            let done = done.clone();
            stream.launch_host_fn(move || {
                done.fetch_add(1, Ordering::SeqCst);
            })?;
        }
        device.synchronize()?;
        assert_eq!(done.load(Ordering::SeqCst), 2);
        device.synchronize_timeout(Duration::from_millis(100))?;
        Ok(())
    });
}
