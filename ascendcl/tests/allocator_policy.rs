//! The torch_npu policy of fixed segments, rule for rule, and this crate's
//! additions as options: free blocks per stream or shared, the exact-size
//! cache. (Padding, rounding and segment sizes: `allocator.rs`.)

mod common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator, DEFAULT_EXACT_SIZE_CACHE};
use ascendcl::prelude::*;

const MIB: usize = 1 << 20;

#[test]
fn under_torch_npus_policy_a_free_block_is_reused_only_by_the_stream_it_was_allocated_on() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (a, b) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        drop(allocator.alloc::<u8>(&a, 3 * MIB)?);
        let on_b = allocator.alloc::<u8>(&b, 3 * MIB)?;
        let stats = allocator.stats();
        assert_eq!(
            (stats.device_allocations, stats.cache_hits),
            (2, 0),
            "stream b opened its own segment"
        );
        drop(on_b);
        let again_on_a = allocator.alloc::<u8>(&a, 3 * MIB)?;
        assert_eq!(allocator.stats().cache_hits, 1, "stream a reuses its own");
        drop(again_on_a);
        allocator.empty_cache()?;
        Ok(())
    });
}

#[test]
fn with_shared_free_lists_another_stream_reuses_a_free_block() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (a, b) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let config = AllocatorConfig {
            per_stream_free_lists: false,
            ..AllocatorConfig::segments()
        };
        let allocator = CachingAllocator::new(&ctx, config)?;
        let mut first = allocator.alloc::<u32>(&a, MIB)?;
        a.fill_bytes(&mut first, 1)?.wait()?;
        let address = first.as_device_ptr();
        drop(first);
        let mut on_b = allocator.alloc::<u32>(&b, MIB)?;
        assert_eq!(on_b.as_device_ptr(), address, "the same block, on stream b");
        assert_eq!(allocator.stats().device_allocations, 1);
        b.fill_bytes(&mut on_b, 2)?.wait()?;
        assert!(on_b.to_vec()?.iter().all(|&v| v == 0x0202_0202));
        drop(on_b);
        allocator.empty_cache()?;
        Ok(())
    });
}

/// Allocates y, a spacer, x, a spacer (all `size` bytes but the spacers),
/// frees y then x, and returns which of them an allocation of `size` gets.
fn which_equal_block_comes_back(
    allocator: &CachingAllocator,
    stream: &Stream,
    size: usize,
) -> ascendcl::Result<&'static str> {
    let y = allocator.alloc::<u8>(stream, size)?;
    let spacer = allocator.alloc::<u8>(stream, 4096)?;
    let x = allocator.alloc::<u8>(stream, size)?;
    let spacer2 = allocator.alloc::<u8>(stream, 4096)?;
    let (y_addr, x_addr) = (y.as_device_ptr(), x.as_device_ptr());
    assert!(y_addr < x_addr);
    drop(y);
    drop(x);
    let again = allocator.alloc::<u8>(stream, size)?;
    let got = again.as_device_ptr();
    drop((again, spacer, spacer2));
    allocator.empty_cache()?;
    Ok(if got == x_addr {
        "most recently freed"
    } else if got == y_addr {
        "lowest address"
    } else {
        "another block"
    })
}

#[test]
fn torch_npus_policy_takes_the_lowest_address_and_the_exact_size_cache_the_most_recent_block() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let torch = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        assert_eq!(torch.config().exact_size_cache, 0);
        assert_eq!(
            which_equal_block_comes_back(&torch, &stream, 64 * 1024)?,
            "lowest address"
        );
        let cached = CachingAllocator::new(
            &ctx,
            AllocatorConfig::segments().with_exact_size_cache(DEFAULT_EXACT_SIZE_CACHE),
        )?;
        assert_eq!(
            which_equal_block_comes_back(&cached, &stream, 64 * 1024)?,
            "most recently freed"
        );
        Ok(())
    });
}
