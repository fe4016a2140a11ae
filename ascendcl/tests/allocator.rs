//! The caching allocator: cache hits without device calls, pools and
//! segments, expandable growth at stable addresses, stream-aware reuse,
//! out-of-memory recovery, and failures half-way through a grow.

mod common;

use std::time::Duration;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl::{Error, Stream};
use ascendcl_mock::{Fault, Resource};

const MIB: usize = 1 << 20;

fn backends() -> [AllocatorConfig; 2] {
    [AllocatorConfig::segments(), AllocatorConfig::expandable()]
}

#[test]
fn a_cached_allocation_after_a_free_makes_no_device_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        for config in backends() {
            let allocator = CachingAllocator::new(&ctx, config)?;
            let first = allocator.alloc::<u8>(&stream, 3 * MIB)?;
            let address = first.as_device_ptr();
            drop(first);
            env.session.clear_journal();
            let again = allocator.alloc::<u8>(&stream, 3 * MIB)?;
            assert_eq!(again.as_device_ptr(), address, "the same block came back");
            drop(again);
            assert!(
                env.calls().is_empty(),
                "no ACL call for a cache hit: {:?}",
                env.calls()
            );
            let stats = allocator.stats();
            assert_eq!(
                (stats.allocations, stats.frees, stats.cache_hits),
                (2, 2, 1)
            );
        }
        Ok(())
    });
}

#[test]
fn requests_are_padded_by_32_bytes_rounded_to_512_and_segments_come_in_2_and_20_mib() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        // torch_npu's rules: 32 bytes of pad, then 512-byte rounding. 11 MiB
        // (+ 512) gets a segment of its own, rounded to 12 MiB, and the rest
        // (under 1 MiB) is not split off; 3 MiB opens a 20 MiB segment.
        let huge = allocator.alloc::<u8>(&stream, 11 * MIB)?;
        let large = allocator.alloc::<u8>(&stream, 3 * MIB)?;
        let small = allocator.alloc::<u8>(&stream, 1000)?;
        let stats = allocator.stats();
        assert_eq!(stats.requested.current, 1000 + 3 * MIB + 11 * MIB);
        assert_eq!(stats.allocated.current, 1536 + (3 * MIB + 512) + 12 * MIB);
        assert_eq!(stats.reserved.current, 2 * MIB + 20 * MIB + 12 * MIB);
        assert_eq!(stats.device_allocations, 3);
        drop((small, large, huge));
        allocator.empty_cache()?;
        assert_eq!(allocator.stats().reserved.current, 0);
        assert_eq!(env.session.live(Resource::DeviceBuffer), 0);
        Ok(())
    });
}

#[test]
fn expandable_blocks_spanning_pages_read_back_and_grow_at_stable_addresses() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let pattern: Vec<u32> = (0..(5 * MIB / 4) as u32).collect();
        let mut first = allocator.alloc::<u32>(&stream, pattern.len())?;
        first.copy_from_host(&pattern)?;
        let second = allocator.alloc::<u8>(&stream, 7 * MIB)?;
        assert_eq!(
            second.as_device_ptr() as usize - first.as_device_ptr() as usize,
            5 * MIB,
            "the segment grew right after the first block, without moving it"
        );
        assert_eq!(
            first.to_vec()?,
            pattern,
            "a block over three pages reads back"
        );
        let stats = allocator.stats();
        assert_eq!(stats.reserved.current, 12 * MIB);
        assert_eq!(stats.maps, 6);
        assert_eq!(env.session.live(Resource::Mapping), 6);
        drop((first, second));
        allocator.empty_cache()?;
        let stats = allocator.stats();
        assert_eq!((stats.reserved.current, stats.unmaps), (0, 6));
        assert_eq!(env.session.live(Resource::Physical), 0);
        Ok(())
    });
}

#[test]
fn a_block_freed_with_queued_work_is_reused_only_by_its_own_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(40));
        let (own, other) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let mut block = allocator.alloc::<u8>(&own, MIB)?;
        let address = block.as_device_ptr();
        std::mem::forget(own.fill_bytes(&mut block, 3)?);
        drop(block); // the fill is still queued
        assert_eq!(
            allocator.stats().active.current,
            MIB,
            "kept aside while its work runs"
        );
        let elsewhere = allocator.alloc::<u8>(&other, MIB)?;
        assert_ne!(
            elsewhere.as_device_ptr(),
            address,
            "another stream must not get it yet"
        );
        let same_stream = allocator.alloc::<u8>(&own, MIB)?;
        assert_eq!(
            same_stream.as_device_ptr(),
            address,
            "its own stream reuses it in stream order"
        );
        assert_eq!(
            same_stream.to_vec()?,
            vec![3u8; MIB],
            "host access waits for the earlier fill"
        );
        Ok(())
    });
}

#[test]
fn out_of_memory_releases_the_cache_retries_and_then_fails_with_statistics() {
    common::check(|env| {
        env.session
            .set_hbm_bytes(64 * MIB as u64)
            .expect("before the device is used");
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        for config in backends() {
            let config_pad = config.pad_bytes;
            let allocator = CachingAllocator::new(&ctx, config)?;
            // Fill the cache with many 4 MiB blocks, then free them all.
            let blocks: Vec<_> = (0..12)
                .map(|_| allocator.alloc::<u8>(&stream, 4 * MIB))
                .collect::<Result<_, _>>()?;
            drop(blocks);
            // 40 MiB fits only once the cached segments or pages are released.
            let big = allocator.alloc::<u8>(&stream, 40 * MIB)?;
            assert!(allocator.stats().oom_retries <= 1);
            let err = allocator.alloc::<u8>(&stream, 40 * MIB).unwrap_err();
            let Error::OutOfMemory(oom) = &err else {
                panic!("{err:?}")
            };
            assert!(err.is_out_of_memory());
            // The device refuses (207001), or for expandable segments the
            // 1.125 × HBM address range is full first: no runtime code then.
            assert!(err.code().is_none_or(|c| c == 207001), "{err}");
            assert_eq!(oom.requested, 40 * MIB);
            let padded = (40 * MIB + config_pad).div_ceil(512) * 512;
            assert_eq!(oom.stats.allocated.current, padded);
            assert!(oom.device_free.is_some_and(|(_, total)| total == 64 * MIB));
            assert!(
                err.to_string()
                    .contains("out of device memory allocating 40 MiB"),
                "{err}"
            );
            drop(big);
            allocator.empty_cache()?;
        }
        Ok(())
    });
}

#[test]
fn a_grow_that_fails_half_way_rolls_back_the_pages_it_mapped() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        for (function, code) in [
            ("aclrtMallocPhysical", 507899),
            ("aclrtMapMem", 507899),
            ("aclrtMallocPhysical", 207001),
        ] {
            env.inject(if code == 207001 {
                Fault::always(function, code)
            } else {
                Fault::nth(function, 3, code)
            });
            let err = allocator.alloc::<u8>(&stream, 8 * MIB).unwrap_err();
            env.session.clear_faults();
            assert_eq!(err.code(), Some(code), "{function}: {err}");
            assert_eq!(
                env.session.live(Resource::Mapping),
                0,
                "{function}: mapped pages rolled back"
            );
            assert_eq!(allocator.stats().allocated.current, 0);
            allocator.empty_cache()?;
            assert_eq!(
                env.session.live(Resource::Physical),
                0,
                "{function}: physical pages freed"
            );
        }
        let ok = allocator.alloc::<u8>(&stream, 8 * MIB)?;
        assert_eq!(env.session.live(Resource::Mapping), 4);
        drop(ok);
        Ok(())
    });
}

#[test]
fn statistics_report_the_largest_free_run_and_fragmentation() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let a = allocator.alloc::<u8>(&stream, 2 * MIB)?;
        let b = allocator.alloc::<u8>(&stream, 2 * MIB)?;
        let c = allocator.alloc::<u8>(&stream, 2 * MIB)?;
        drop(b);
        let stats = allocator.stats();
        assert_eq!(
            (
                stats.reserved.current,
                stats.free_bytes,
                stats.largest_free_block
            ),
            (6 * MIB, 2 * MIB, 2 * MIB)
        );
        assert_eq!(stats.fragmentation(), 0.0, "all free memory is one run");
        drop(a);
        let stats = allocator.stats();
        assert_eq!(
            (stats.free_bytes, stats.largest_free_block),
            (4 * MIB, 4 * MIB),
            "neighbours merged"
        );
        drop(c);
        // Without torch_npu's 32-byte pad, so that 4 MiB blocks tile exactly.
        let config = AllocatorConfig {
            pad_bytes: 0,
            ..AllocatorConfig::segments()
        };
        let segments = CachingAllocator::new(&ctx, config)?;
        let blocks: Vec<_> = (0..4)
            .map(|_| segments.alloc::<u8>(&stream, 4 * MIB))
            .collect::<Result<_, _>>()?;
        let mut blocks = blocks.into_iter();
        let (first, _second, third, _fourth) =
            (blocks.next(), blocks.next(), blocks.next(), blocks.next());
        drop((first, third));
        let stats = segments.stats();
        // Two 4 MiB holes and the 4 MiB left at the segment's end: 12 MiB free,
        // the largest piece a third of it.
        assert_eq!(
            (stats.free_bytes, stats.largest_free_block),
            (12 * MIB, 4 * MIB)
        );
        assert!(
            (stats.fragmentation() - 2.0 / 3.0).abs() < 1e-9,
            "{}",
            stats.fragmentation()
        );
        Ok(())
    });
}
