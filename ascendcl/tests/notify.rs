//! `Notify`, `Stream::record_notify`, `Stream::wait_notify`: a wait holds its
//! stream until a record releases it, whichever is queued first; the notify
//! outlives its queued tasks; buffers stay ordered by their own trackers, not
//! by the notify.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Error, Notify};

#[test]
fn a_wait_queued_before_the_record_on_another_stream_is_released_by_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(10));
        let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let ready = Notify::new(&ctx)?;
        let waited = consumer.wait_notify(&ready, None)?;
        std::thread::sleep(Duration::from_millis(40));
        assert!(!waited.is_complete()?, "held until the record runs");
        producer.record_notify(&ready)?.wait()?;
        waited.wait()?;
        Ok(())
    });
}

#[test]
fn a_buffer_written_before_a_record_reads_right_after_the_wait() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(10));
        let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let ready = Notify::new(&ctx)?;
        let mut data = DeviceBuffer::<u32>::alloc(&ctx, 4)?;
        let input = HostBuffer::from_slice(&ctx, &[5u32; 4])?;
        producer.copy_host_to_device(&input, &mut data)?.detach();
        producer.record_notify(&ready)?;
        consumer.wait_notify(&ready, None)?;
        let mut host = HostBuffer::<u32>::zeroed(&ctx, 4)?;
        consumer.copy_device_to_host(&data, &mut host)?.wait()?;
        assert_eq!(host.as_slice()?, &[5; 4]);
        Ok(())
    });
}

#[test]
fn dropping_the_notify_waits_for_its_queued_wait() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(20));
        let stream = Stream::new(&ctx)?;
        let ready = Notify::new(&ctx)?;
        stream.record_notify(&ready)?;
        let waited = stream.wait_notify(&ready, None)?;
        drop(ready); // destroyed only after both tasks ran: no misuse
        assert!(waited.is_complete()?);
        Ok(())
    });
}

#[test]
fn a_timeout_that_is_not_whole_seconds_is_refused_before_anything_is_queued() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let ready = Notify::new(&ctx)?;
        for bad in [
            Duration::ZERO,
            Duration::from_millis(1500),
            Duration::from_secs(u64::from(u32::MAX)),
        ] {
            let refused = stream.wait_notify(&ready, Some(bad)).unwrap_err();
            assert!(matches!(refused, Error::InvalidArgument(_)), "{refused}");
        }
        assert!(!env.calls().iter().any(|c| c == "aclrtWaitAndResetNotify"));
        stream.record_notify(&ready)?;
        stream
            .wait_notify(&ready, Some(Duration::from_secs(5)))?
            .wait()?;
        Ok(())
    });
}
