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

/// On a 64 MiB card: 30 small blocks fill 15 two-MiB segments, every other
/// one is freed (15 MiB live, 30 MiB held and none of it returnable), then
/// 40 MiB are asked for: 55 MiB would fit the card, but only 34 MiB are
/// free. The error.
fn fragmented_segments_error(env: &common::Env) -> ascendcl::alloc::OutOfMemory {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments()).expect("allocator");
    let mut blocks: Vec<_> = (0..30)
        .map(|_| {
            allocator
                .alloc::<u8>(&stream, MIB - 1024)
                .expect("small blocks fit")
        })
        .collect();
    let mut i = 0;
    blocks.retain(|_| {
        i += 1;
        i % 2 == 0
    });
    let error = allocator.alloc::<u8>(&stream, 40 * MIB).unwrap_err();
    drop(blocks);
    allocator.empty_cache().expect("empty_cache");
    match error {
        Error::OutOfMemory(oom) => *oom,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_fragmented_cache_of_fixed_segments_suggests_expandable_segments() {
    let env = common::env();
    env.session
        .mock()
        .set_hbm_bytes(64 * MIB as u64)
        .expect("set HBM");
    let oom = fragmented_segments_error(&env);
    let text = oom.to_string();
    // 15 MiB live, 30 MiB held, 34 MiB free: 40 MiB would fit in a compacted cache
    assert!(oom.stats.allocated.current < 15 * MIB, "{text}");
    assert_eq!(oom.stats.reserved.current, 30 * MIB, "{text}");
    assert!(text.contains("segments are fragmented"), "{text}");
    assert!(text.contains("AllocatorConfig::expandable()"), "{text}");
    env.assert_clean();
}

#[test]
fn a_full_small_block_range_is_not_blamed_on_reserve_factor() {
    let env = common::env();
    env.session
        .mock()
        .set_hbm_bytes(64 * MIB as u64)
        .expect("set HBM");
    let (device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable()).expect("allocator");
    // the small pool's range is 64 MiB / 8: 8 blocks of just under 1 MiB fill it
    let mut blocks = Vec::new();
    let error = loop {
        match allocator.alloc::<u8>(&stream, MIB - 1024) {
            Ok(block) => blocks.push(block),
            Err(error) => break error,
        }
    };
    let text = error.to_string();
    assert!(blocks.len() <= 8, "{}", blocks.len());
    assert!(text.contains("blocks of at most 1 MiB"), "{text}");
    assert!(!text.contains("reserve_factor"), "{text}");
    drop(blocks);
    allocator.empty_cache().expect("empty_cache");
    drop((allocator, stream, ctx, device));
    env.assert_clean();
}

/// The error of `config`'s allocator asking for `second` bytes while a block
/// of `first` bytes is live (and `fault`, if any, injected after it).
fn second_allocation_error(
    env: &common::Env,
    config: AllocatorConfig,
    first: usize,
    fault: Option<ascendcl_mock::Fault>,
    second: usize,
) -> ascendcl::alloc::OutOfMemory {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, config).expect("allocator");
    let held = allocator
        .alloc::<u8>(&stream, first)
        .expect("the first fits");
    if let Some(fault) = fault {
        env.inject(fault);
    }
    let error = allocator.alloc::<u8>(&stream, second).unwrap_err();
    env.session.mock().clear_faults();
    drop(held);
    allocator.empty_cache().expect("empty_cache");
    match error {
        Error::OutOfMemory(oom) => *oom,
        other => panic!("{other:?}"),
    }
}

#[test]
fn on_a_small_card_the_out_of_memory_hint_follows_the_numbers_not_the_backend() {
    let env = common::env();
    env.session
        .mock()
        .set_hbm_bytes(8 * MIB as u64)
        .expect("set HBM");
    // expandable: 6 MiB live on an 8 MiB card, 4 MiB more asked for
    let oom = second_allocation_error(&env, AllocatorConfig::expandable(), 6 * MIB, None, 4 * MIB);
    let text = oom.to_string();
    let (free, total) = oom.device_free.expect("the mock reports memory");
    assert!(free < 4 * MIB && total == 8 * MIB, "{text}");
    assert!(
        text.contains("need more than the device's 8 MiB of HBM"),
        "{text}"
    );
    // raising the address range would not help
    assert!(!text.contains("reserve_factor"), "{text}");
    // the statistics are in sizes a person reads, not "0.01 GiB"
    assert!(text.contains("allocated 6 MiB (peak 6 MiB)"), "{text}");
    assert!(!text.contains("GiB"), "{text}");

    // fixed segments: a 6 MiB request takes a 20 MiB segment, which an 8 MiB
    // card cannot give, though the request alone fits
    let (device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments()).expect("allocator");
    let text = allocator
        .alloc::<u8>(&stream, 6 * MIB)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("with a 20 MiB segment, more than the 8 MiB free"),
        "{text}"
    );
    assert!(text.contains("AllocatorConfig::expandable()"), "{text}");
    drop((allocator, stream, ctx, device));
    env.assert_clean();
}

#[test]
fn an_injected_device_failure_with_plenty_free_is_not_called_a_shortage() {
    let env = common::env();
    for (config, function) in [
        (AllocatorConfig::expandable(), "aclrtMallocPhysical"),
        (AllocatorConfig::segments(), "aclrtMallocAlign32"),
    ] {
        let fault = ascendcl_mock::Fault::always(function, 207001);
        let oom = second_allocation_error(&env, config, 4096, Some(fault), 64 * MIB);
        let text = oom.to_string();
        assert!(
            text.contains(&format!("runtime: {function} returned 207001")),
            "{text}"
        );
        assert!(text.contains("is not a lack of memory"), "{text}");
        for wrong in [
            "need more than",
            "batch size",
            "fragmented",
            "reserve_factor",
        ] {
            assert!(!text.contains(wrong), "{wrong}: {text}");
        }
    }
    env.assert_clean();
}

#[test]
fn statistics_print_sizes_in_the_unit_that_fits() {
    let env = common::env();
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx).expect("stream");
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments()).expect("allocator");
    let a = allocator.alloc::<u8>(&stream, 512).expect("512 B");
    let b = allocator
        .alloc::<u8>(&stream, 3 * MIB / 2)
        .expect("1.5 MiB");
    let text = allocator.stats().to_string();
    assert!(
        text.starts_with("allocated 1.50 MiB (peak 1.50 MiB), reserved 22 MiB"),
        "{text}"
    );
    drop((a, b));
    allocator.empty_cache().expect("empty_cache");
    assert!(
        allocator
            .stats()
            .to_string()
            .starts_with("allocated 0 B (peak 1.50 MiB), reserved 0 B")
    );
}
