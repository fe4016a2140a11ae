//! A randomized alloc/free stress of both backends, checked against a model:
//! live blocks never overlap, every byte written comes back, the statistics
//! add up, and after `empty_cache` nothing is left on the device.

mod common;

use std::collections::BTreeMap;

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::prelude::*;

/// splitmix64: a tiny deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Live {
    block: Block<u32>,
    id: u32,
}

fn pattern(id: u32, len: usize) -> Vec<u32> {
    (0..len as u32)
        .map(|i| id.wrapping_mul(2_654_435_761) ^ i)
        .collect()
}

fn stress(env: &common::Env, config: AllocatorConfig, seed: u64) -> ascendcl::Result<()> {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx)?;
    let allocator = CachingAllocator::new(&ctx, config)?;
    let mut rng = Rng(seed);
    let mut live: Vec<Live> = Vec::new();
    let mut spans: BTreeMap<usize, (usize, u32)> = BTreeMap::new();
    let mut requested = 0usize;
    for id in 0..500u32 {
        if live.is_empty() || rng.below(100) < 55 {
            let len = if rng.below(10) < 6 {
                1 + rng.below(16 << 10)
            } else {
                (256 << 10) + rng.below(1 << 20)
            } as usize;
            let mut block = allocator.alloc::<u32>(&stream, len)?;
            let (start, end) = (
                block.as_device_ptr() as usize,
                block.as_device_ptr() as usize + len * 4,
            );
            assert!(
                spans.range(start..end).next().is_none(),
                "block {id} overlaps a live block"
            );
            if let Some((_, &(prev_end, other))) = spans.range(..start).next_back() {
                assert!(prev_end <= start, "block {id} starts inside block {other}");
            }
            spans.insert(start, (end, id));
            block.copy_from_host(&pattern(id, len))?;
            requested += len * 4;
            live.push(Live { block, id });
        } else {
            let victim = live.swap_remove(rng.below(live.len() as u64) as usize);
            assert_eq!(
                victim.block.to_vec()?,
                pattern(victim.id, victim.block.len()),
                "block {} changed",
                victim.id
            );
            spans.remove(&(victim.block.as_device_ptr() as usize));
            requested -= victim.block.len() * 4;
        }
        let stats = allocator.stats();
        assert_eq!(stats.requested.current, requested);
        // Rounding to 512 bytes, plus (fixed segments only) large blocks not
        // split when at most 1 MiB would remain.
        let slack = stats.allocated.current - requested;
        assert!(
            slack <= live.len() * ((1 << 20) + 512),
            "{slack} bytes of slack for {} blocks",
            live.len()
        );
        assert_eq!(
            stats.active.current, stats.allocated.current,
            "nothing is pending: every use was synchronous"
        );
        assert!(stats.reserved.current >= stats.allocated.current);
        assert_eq!(stats.allocations - stats.frees, live.len() as u64);
    }
    for entry in live.drain(..) {
        assert_eq!(entry.block.to_vec()?, pattern(entry.id, entry.block.len()));
    }
    allocator.empty_cache()?;
    let stats = allocator.stats();
    assert_eq!((stats.reserved.current, stats.allocated.current), (0, 0));
    assert!(stats.reserved.peak > 0 && stats.fragmentation() >= 0.0);
    Ok(())
}

#[test]
fn random_allocations_on_fixed_segments_match_the_model() {
    common::check(|env| stress(env, AllocatorConfig::segments(), 0xA5CE_0001));
}

#[test]
fn random_allocations_on_expandable_segments_match_the_model() {
    common::check(|env| stress(env, AllocatorConfig::expandable(), 0xA5CE_0002));
}
