//! Device and event facts: engine utilization, peer access, event
//! timestamps.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;

#[test]
fn utilization_reports_busy_engines_while_a_stream_has_work_and_never_memory() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let idle = device.utilization()?;
        assert_eq!(
            (idle.cube, idle.vector, idle.memory),
            (Some(0), Some(0), None)
        );
        env.slow_streams(Duration::from_millis(50));
        let stream = Stream::new(&ctx)?;
        let mut buffer = DeviceBuffer::<u8>::alloc(&ctx, 64)?;
        let fill = stream.fill_bytes(&mut buffer, 1)?;
        assert_eq!(device.utilization()?.cube, Some(100));
        fill.wait()?;
        assert_eq!(device.utilization()?.cube, Some(0));
        Ok(())
    });
}

#[test]
fn every_device_can_access_its_peers_and_itself() {
    common::check(|env| {
        let (d0, _) = env.device0();
        let d1 = Device::open(&env.rt, 1)?;
        assert!(d0.can_access_peer(&d1)?);
        assert!(d1.can_access_peer(&d0)?);
        assert!(
            d0.can_access_peer(&d0)?,
            "its own memory, without asking the runtime"
        );
        Ok(())
    });
}

#[test]
fn timestamps_order_completed_timeline_events_and_agree_with_elapsed() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(10));
        let stream = Stream::new(&ctx)?;
        let start = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        let end = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        start.record(&stream)?;
        let mut buffer = DeviceBuffer::<u8>::alloc(&ctx, 64)?;
        stream.fill_bytes(&mut buffer, 2)?.wait()?;
        end.record(&stream)?;
        stream.synchronize()?;
        let between = end.timestamp()? - start.timestamp()?;
        let elapsed = start.elapsed(&end)?;
        let diff = between.abs_diff(elapsed);
        assert!(
            diff < Duration::from_micros(10),
            "{between:?} vs {elapsed:?}"
        );
        Ok(())
    });
}

#[test]
fn an_unrecorded_event_has_no_timestamp() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let event = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        let err = event.timestamp().unwrap_err();
        assert_eq!(err.code(), Some(507000), "{err:?}");
        Ok(())
    });
}
