//! Hints that fit the situation: an elapsed time asked of an unrecorded
//! event is a usage error, and out of memory only suggests expandable
//! segments to an allocator that does not use them.

mod common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl::{Category, Error};

const MIB: usize = 1 << 20;

#[test]
fn elapsed_on_an_event_never_recorded_hints_at_recording_it_not_at_resetting_the_device() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let start = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        let end = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
        end.record(&stream)?;
        end.synchronize()?;
        let error = start.elapsed(&end).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("never recorded"), "{text}");
        assert!(text.contains("record both events"), "{text}");
        assert!(!text.contains("reset the device"), "{text}");
        // A real device fault keeps the device hint.
        assert!(
            Category::DeviceFault
                .hint()
                .is_some_and(|h| h.contains("reset the device"))
        );
        Ok(())
    });
}

#[test]
fn elapsed_on_events_without_timestamps_hints_at_the_timeline_flag() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let start = Event::with_flags(&ctx, EventFlags::SYNC)?;
        let end = Event::with_flags(&ctx, EventFlags::SYNC)?;
        start.record(&stream)?;
        end.record(&stream)?;
        end.synchronize()?;
        let text = start.elapsed(&end).unwrap_err().to_string();
        assert!(text.contains("EventFlags::TIMELINE"), "{text}");
        Ok(())
    });
}

/// Runs the mock out of memory through `config` and returns the error text.
fn out_of_memory_text(env: &common::Env, config: AllocatorConfig) -> String {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, config).expect("allocator");
    let held = allocator
        .alloc::<u8>(&stream, 40 * MIB)
        .expect("40 MiB fits");
    let error = allocator.alloc::<u8>(&stream, 40 * MIB).unwrap_err();
    assert!(matches!(error, Error::OutOfMemory(_)), "{error:?}");
    drop(held);
    allocator.empty_cache().expect("empty_cache");
    error.to_string()
}

#[test]
fn out_of_memory_suggests_expandable_segments_only_to_fixed_segments() {
    let env = common::env();
    env.session
        .mock()
        .set_hbm_bytes(64 * MIB as u64)
        .expect("set HBM");
    let fixed = out_of_memory_text(&env, AllocatorConfig::segments());
    assert!(fixed.contains("AllocatorConfig::expandable()"), "{fixed}");
    let expandable = out_of_memory_text(&env, AllocatorConfig::expandable());
    assert!(!expandable.contains("switch to"), "{expandable}");
    assert!(
        expandable.contains("expandable segments are already in use")
            || expandable.contains("reserve_factor"),
        "{expandable}"
    );
    env.assert_clean();
}
