//! 05 — the caching allocator: fixed segments vs expandable segments on the
//! same workload, their statistics, emptying the cache, and recovering from
//! running out of memory.
//!
//! `cargo run --example 05_allocator`

use std::process::ExitCode;

use ascendcl::Error;
use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator, Statistics};
use ascendcl::prelude::*;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

const MIB: usize = 1 << 20;

/// "162 MiB", "60.00 GiB".
fn size(bytes: usize) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", (bytes + MIB / 2) / MIB)
    }
}

fn print_stats(when: &str, s: &Statistics) {
    println!(
        "  {when}: allocated {} (peak {}), reserved {} (peak {}), free in cache {} \
         (largest {}, fragmentation {:.0}%), hits/misses {}/{}, device allocs/frees {}/{}, maps/unmaps {}/{}",
        size(s.allocated.current),
        size(s.allocated.peak),
        size(s.reserved.current),
        size(s.reserved.peak),
        size(s.free_bytes),
        size(s.largest_free_block),
        s.fragmentation() * 100.0,
        s.cache_hits,
        s.cache_misses,
        s.device_allocations,
        s.device_frees,
        s.maps,
        s.unmaps
    );
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;

    let mut peaks = Vec::new();
    for (name, config) in [
        ("fixed segments", AllocatorConfig::segments()),
        ("expandable segments", AllocatorConfig::expandable()),
    ] {
        println!("{name}:");
        // Expandable segments reserve their address ranges here (no memory).
        let allocator = CachingAllocator::new(&ctx, config)?;
        peaks.push((name, workload(&allocator, &stream)?));
        out_of_memory(&allocator, &stream)?;
    }
    let summary: Vec<String> = peaks
        .iter()
        .map(|(name, peak)| format!("{name} {}", size(*peak)))
        .collect();
    println!(
        "same workload, peak reserved memory: {} (live memory peaked at 160 MiB)",
        summary.join(", ")
    );
    Ok(())
}

/// A few sizes, holes, a bigger request, and emptying the cache. Returns the
/// peak of reserved memory.
fn workload(allocator: &CachingAllocator, stream: &Stream) -> ascendcl::Result<usize> {
    // A small request (≤ 1 MiB comes from the small pool) and eight 20 MiB
    // activations. Blocks are device memory like DeviceBuffer; writing one
    // is an ordinary copy.
    let mut small = allocator.alloc::<f32>(stream, 1000)?;
    small.copy_from_host(&[1.0; 1000])?;
    let mut activations = Vec::new();
    for _ in 0..8 {
        activations.push(allocator.alloc::<u8>(stream, 20 * MIB)?);
    }
    print_stats("9 blocks live", &allocator.stats());

    // Free every other activation: 80 MiB is free, but in four 20 MiB holes.
    let mut index = 0;
    activations.retain(|_| {
        index += 1;
        index % 2 == 0
    });
    print_stats("every other 20 MiB block freed", &allocator.stats());

    // Ask for 40 MiB. Fixed segments cannot merge the holes (each is its own
    // segment) and ask the device for more; expandable segments remap the
    // free pages behind one contiguous range of addresses.
    let big = allocator.alloc::<u8>(stream, 40 * MIB)?;
    print_stats("then 40 MiB allocated", &allocator.stats());

    // Freed blocks go back to the cache, not to the device: the same request
    // again is a cache hit.
    drop(big);
    let again = allocator.alloc::<u8>(stream, 40 * MIB)?;
    println!(
        "  40 MiB freed and asked for again: {} cache hits so far",
        allocator.stats().cache_hits
    );

    drop((small, activations, again));
    // Everything is free but still reserved: the cache keeps it for reuse.
    // `empty_cache` gives it back to the device (waiting for queued work
    // on pending blocks first, so nothing in use is freed).
    let all_freed = allocator.stats();
    print_stats("all freed", &all_freed);
    allocator.empty_cache()?;
    print_stats("after empty_cache", &allocator.stats());
    // Start the next part with fresh peaks.
    allocator.reset_peaks();
    Ok(all_freed.reserved.peak)
}

/// Fills the device with 4 GiB blocks until the allocator gives up, then
/// frees some and allocates again.
fn out_of_memory(allocator: &CachingAllocator, stream: &Stream) -> ascendcl::Result<()> {
    const BLOCK: usize = 4 << 30;
    // Never written: on the mock, unwritten memory costs no host RAM.
    let mut blocks: Vec<Block<u8>> = Vec::new();
    let error = loop {
        match allocator.alloc::<u8>(stream, BLOCK) {
            Ok(block) => blocks.push(block),
            Err(error) => break error,
        }
        if blocks.len() > 64 {
            return Err(Error::InvalidState(
                "256 GiB allocated without running out of memory".into(),
            ));
        }
    };
    // Only running out of memory is expected here; anything else is a failure.
    let Error::OutOfMemory(oom) = &error else {
        return Err(error);
    };
    let code = match error.code() {
        Some(code) => format!("runtime code {code}"),
        None => "the reserved address range was full".to_string(),
    };
    println!(
        "  after {} blocks of 4 GiB, the allocator ran out of memory ({} retry after emptying its cache; {code}):",
        blocks.len(),
        oom.stats.oom_retries,
    );
    for line in error.to_string().lines() {
        println!("    | {line}");
    }
    // Recovery: free some blocks and the same request succeeds (from the
    // cache: the freed block is reused without asking the device).
    blocks.truncate(blocks.len() / 2);
    let block = allocator.alloc::<u8>(stream, BLOCK)?;
    println!(
        "  freed half of them; 4 GiB allocated again at {:p} ({} live blocks)",
        block.as_device_ptr(),
        blocks.len() + 1
    );
    drop((block, blocks));
    allocator.empty_cache()?;
    print_stats(
        "after freeing everything and empty_cache",
        &allocator.stats(),
    );
    Ok(())
}
