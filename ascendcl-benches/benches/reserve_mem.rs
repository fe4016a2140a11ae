//! Cost of the VMM operations per page size, and of an alloc+free pair per
//! allocation strategy (cache hit, and miss including giving the memory back).
//!
//! `cargo bench --bench reserve_mem`. Target (issue "reserve_mem"): a cached
//! alloc+free pair under 100 ns median. On the mock the VMM rows measure the
//! binding and the mock's bookkeeping, not the driver.

use std::hint::black_box;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange};
use ascendcl_benches::{BenchEnv, warm_up};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const MIB: usize = 1 << 20;

fn vmm(c: &mut Criterion, env: &BenchEnv) {
    let mut group = c.benchmark_group("reserve_mem/vmm");
    for (name, page, kind) in [
        ("2MiB", 2 * MIB, PageSize::Huge2M),
        ("20MiB", 20 * MIB, PageSize::Huge2M),
        ("1GiB", 1 << 30, PageSize::Huge1G),
    ] {
        group.bench_with_input(
            BenchmarkId::new("reserve_release", name),
            &page,
            |b, &page| {
                let op =
                    || drop(VirtualRange::reserve(&env.ctx, 64 * page, kind).expect("reserve"));
                warm_up(op);
                b.iter(op)
            },
        );
        let range = VirtualRange::reserve(&env.ctx, 4 * page, kind).expect("reserve");
        let physical = PhysicalMemory::alloc(&env.ctx, page, kind).expect("physical page");
        group.bench_with_input(BenchmarkId::new("map_unmap", name), &page, |b, _| {
            let op = || {
                range
                    .map(page, &physical)
                    .expect("map")
                    .unmap()
                    .expect("unmap")
            };
            warm_up(op);
            b.iter(op)
        });
        group.bench_with_input(
            BenchmarkId::new("alloc_free_physical", name),
            &page,
            |b, &page| {
                let op = || drop(PhysicalMemory::alloc(&env.ctx, page, kind).expect("physical"));
                warm_up(op);
                b.iter(op)
            },
        );
    }
    group.finish();
}

fn allocators(c: &mut Criterion, env: &BenchEnv) {
    let stream = &env.stream;
    let mut group = c.benchmark_group("reserve_mem/alloc_free");
    for bytes in [4096usize, 4 * MIB] {
        group.bench_with_input(
            BenchmarkId::new("raw_aclrtMalloc", bytes),
            &bytes,
            |b, &bytes| {
                let op = || {
                    drop(black_box(
                        DeviceBuffer::<u8>::alloc(&env.ctx, bytes).expect("alloc"),
                    ))
                };
                warm_up(op);
                b.iter(op)
            },
        );
        for (name, config) in [
            ("segments", AllocatorConfig::segments()),
            (
                "segments_exact_cache",
                AllocatorConfig::segments().with_exact_size_cache(8),
            ),
            ("expandable", AllocatorConfig::expandable()),
        ] {
            let allocator = CachingAllocator::new(&env.ctx, config).expect("allocator");
            group.bench_with_input(
                BenchmarkId::new(format!("{name}_cache_hit"), bytes),
                &bytes,
                |b, &bytes| {
                    let op = || {
                        drop(black_box(
                            allocator.alloc::<u8>(stream, bytes).expect("alloc"),
                        ))
                    };
                    warm_up(op);
                    b.iter(op)
                },
            );
            group.bench_with_input(
                BenchmarkId::new(format!("{name}_miss_and_release"), bytes),
                &bytes,
                |b, &bytes| {
                    let op = || {
                        drop(black_box(
                            allocator.alloc::<u8>(stream, bytes).expect("alloc"),
                        ));
                        allocator.empty_cache().expect("empty cache");
                    };
                    warm_up(op);
                    b.iter(op)
                },
            );
        }
    }
    group.finish();
}

fn reserve_mem(c: &mut Criterion) {
    let env = BenchEnv::open();
    vmm(c, &env);
    allocators(c, &env);
}

criterion_group!(benches, reserve_mem);
criterion_main!(benches);
