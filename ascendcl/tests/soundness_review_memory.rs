//! Adversarial review of the async-safety promise (safe code only), part:
//! VMM mappings, allocator blocks, host callbacks, aliasing. Each test is named after the invariant it checks; the holes
//! this review found are fixed, and these tests keep them closed. CI runs them
//! again with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

#![allow(unused_imports)]

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use ascendcl::StreamFlags;
use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange};
use ascendcl_mock::Fault;

use common::review::{
    DELAY, INJECTED, assert_no_misuse, check_no_misuse, destroyed_without_a_successful_wait,
};

// ------------------------------------------------------------------ VMM

#[test]
fn a_mapping_whose_unmap_fails_never_has_its_physical_memory_freed_while_mapped() {
    let env = common::env();
    let (_device, ctx) = env.device0();
    let result = (|| -> ascendcl::Result<()> {
        let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?;
        let range = VirtualRange::reserve(&ctx, page, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
        let mapping = range.map(0, &physical)?;
        env.inject(Fault::always("aclrtUnmapMem", INJECTED));
        assert!(
            mapping.unmap().is_err(),
            "unmap fails (and the retry in Drop too)"
        );
        // The user lets go of the physical allocation and the range: the
        // mapping is still in place, so neither may be released.
        drop(physical);
        drop(range);
        Ok(())
    })();
    env.session.clear_faults();
    result.expect("setup");
    let _ = ascendcl::take_deferred_errors();
    assert_no_misuse(&env);
}

#[test]
fn a_detached_operator_writing_a_mapping_is_waited_for_before_the_unmap() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?;
        let range = VirtualRange::reserve(&ctx, page, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
        let mut mapping = range.map(0, &physical)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 1024])?;
        ops::relu(
            &Tensor::new(&x, &[1024])?,
            TensorMut::with_dtype(&mut mapping, &[1024], ops::DType::F32)?,
        )?
        .launch(&stream, Workspace::none())?
        .detach();
        mapping.unmap()?; // must wait for the relu writing it
        // Map again and read through the new mapping: the relu's zeros.
        let mapping = range.map(0, &physical)?;
        assert_eq!(mapping.slice(..16)?.to_vec()?, vec![0u8; 16]);
        drop(mapping);
        Ok(())
    });
}

// ----------------------------------------------------------------- allocator

#[test]
fn a_block_dropped_on_another_thread_with_queued_work_is_reused_only_in_order() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(2));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let host = HostBuffer::from_slice(&ctx, &[5u8; 4096])?;
        for _ in 0..20 {
            let mut block = allocator.alloc::<u8>(&s1, 4096)?;
            // Written on s2 (not the block's stream), then moved to a thread
            // and dropped there with the write still queued.
            s2.copy_host_to_device(&host, &mut block)?.detach();
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    barrier.wait();
                    drop(block);
                });
                barrier.wait();
                // Meanwhile: the block's own stream asks for the same size,
                // and another thread empties the cache.
                let next = allocator.alloc::<u8>(&s1, 4096);
                let emptied = allocator.empty_cache();
                (next, emptied)
            })
            .1?;
        }
        let mut last = allocator.alloc::<u8>(&s1, 4096)?;
        s1.fill_bytes(&mut last, 1)?.detach();
        drop(last);
        drop(host);
        allocator.empty_cache()?;
        Ok(())
    });
}

#[test]
fn empty_cache_racing_frees_of_blocks_with_queued_work_never_unmaps_used_pages() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(1));
        let streams = [Stream::new(&ctx)?, Stream::new(&ctx)?];
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let barrier = Barrier::new(3);
        std::thread::scope(|scope| -> ascendcl::Result<()> {
            let workers: Vec<_> = (0..2)
                .map(|t| {
                    let (allocator, barrier, streams) = (&allocator, &barrier, &streams);
                    scope.spawn(move || -> ascendcl::Result<()> {
                        for round in 0..30 {
                            let s = &streams[(t + round) % 2];
                            let other = &streams[(t + round + 1) % 2];
                            // Sizes across small/large pools and page boundaries.
                            let len = [512usize, 3 << 20, 700 << 10][(round + t) % 3];
                            let mut b = allocator.alloc::<u8>(s, len)?;
                            other.fill_bytes(&mut b, t as u8)?.detach();
                            barrier.wait();
                            drop(b);
                        }
                        Ok(())
                    })
                })
                .collect();
            for _ in 0..30 {
                barrier.wait();
                allocator.empty_cache()?;
            }
            for w in workers {
                w.join().expect("worker")?;
            }
            Ok(())
        })?;
        allocator.empty_cache()?;
        assert_eq!(allocator.stats().reserved.current, 0);
        Ok(())
    });
}

#[test]
fn a_block_used_as_an_operator_output_on_another_stream_is_not_reused_early() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        let x = DeviceBuffer::from_host(&ctx, &[3.0f32; 256])?;
        let mut y = allocator.alloc::<f32>(&s1, 256)?;
        ops::muls(
            &Tensor::new(&x, &[256])?,
            2.0f32,
            TensorMut::new(&mut y, &[256])?,
        )?
        .launch(&s2, &allocator)?
        .detach();
        drop(y); // pending on s2's work
        // s2 (not the block's stream) asks for it: must not get it early.
        let mut z = allocator.alloc::<f32>(&s2, 256)?;
        s1.fill_bytes(&mut z, 0)?.detach();
        let mut w = allocator.alloc::<f32>(&s1, 256)?;
        s2.fill_bytes(&mut w, 0)?.detach();
        drop((z, w));
        Ok(())
    });
}

// ----------------------------------------------------------------- callbacks

#[test]
fn a_callback_writing_a_pinned_buffer_waits_for_an_upload_reading_it_on_another_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const N: usize = 4096;
        let host = Arc::new(Mutex::new(HostBuffer::from_slice(&ctx, &[4u32; N])?));
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, N)?;
        {
            let guard = host.lock().expect("lock");
            s2.copy_host_to_device(&*guard, &mut device)?.detach();
        }
        let in_callback = host.clone();
        s1.launch_host_fn(move || {
            let mut guard = in_callback.lock().expect("lock");
            guard.fill(0); // DerefMut: waits for the upload on s2
        })?;
        s1.synchronize()?;
        assert_eq!(device.to_vec()?, vec![4u32; N]);
        drop(host);
        Ok(())
    });
}

#[test]
fn a_callback_freeing_the_last_handle_of_a_buffer_used_after_it_leaks_instead_of_freeing() {
    let env = common::env();
    let (_device, ctx) = env.device0();
    let result = (|| -> ascendcl::Result<()> {
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let buffer = Arc::new(Mutex::new(DeviceBuffer::<u8>::zeroed(&ctx, 4096)?));
        let gate = Arc::new(Barrier::new(2));
        let (in_callback, callback_gate) = (buffer.clone(), gate.clone());
        stream.launch_host_fn(move || {
            callback_gate.wait();
            drop(in_callback); // may be the last handle
        })?;
        {
            let mut guard = buffer.lock().expect("lock");
            stream.fill_bytes(&mut *guard, 3)?.detach(); // after the callback
        }
        drop(buffer);
        gate.wait();
        let _ = stream.synchronize();
        let _ = stream.synchronize();
        Ok(())
    })();
    let _ = result;
    let _ = ascendcl::take_deferred_errors();
    assert_no_misuse(&env);
}

// ------------------------------------------------------------------- aliasing

#[test]
fn overlapping_tensor_views_of_one_buffer_are_ordered_against_a_later_write_on_another_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const N: usize = 1024;
        let mut a = DeviceBuffer::from_host(&ctx, &[1.0f32; 2 * N])?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
        {
            // a[0..N] + a[N/2..N/2+N]: two views overlapping in a[N/2..N].
            let lo = Tensor::new(&a, &[N])?;
            let mid = Tensor::strided(&a, &[N], &[1], N / 2)?;
            ops::add(&lo, &mid, 1.0f32, TensorMut::new(&mut out, &[N])?)?
                .launch(&s1, Workspace::none())?
                .detach();
            // A transposed (strided) view of the same memory, read on s2.
            let t = Tensor::new(&a, &[2, N])?.t()?;
            let mut out2 = DeviceBuffer::<f32>::zeroed(&ctx, 2 * N)?;
            ops::relu(&t, TensorMut::strided(&mut out2, &[N, 2], &[1, N], 0)?)?
                .launch(&s2, Workspace::none())?
                .detach();
            drop(out2); // waits for the relu writing it
        }
        // Then the buffer is overwritten on s2: ordered after the read on s1.
        s2.fill_bytes(&mut a, 0)?.detach();
        assert_eq!(out.to_vec()?, vec![2.0f32; N]);
        assert!(a.to_vec()?.iter().all(|&v| v == 0.0));
        Ok(())
    });
}

#[test]
fn an_in_place_operator_and_a_reader_of_its_memory_on_another_stream_are_ordered() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const N: usize = 512;
        let mut a = DeviceBuffer::from_host(&ctx, &[1.0f32; N])?;
        let b = DeviceBuffer::from_host(&ctx, &[2.0f32; N])?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
        for _ in 0..3 {
            ops::inplace_add(
                TensorMut::new(&mut a, &[N])?,
                &Tensor::new(&b, &[N])?,
                1.0f32,
            )?
            .launch(&s1, Workspace::none())?
            .detach();
            // Reading `a` while s1 may still update it in place.
            ops::muls(
                &Tensor::new(&a, &[N])?,
                1.0f32,
                TensorMut::new(&mut out, &[N])?,
            )?
            .launch(&s2, Workspace::none())?
            .detach();
        }
        assert_eq!(out.to_vec()?, vec![7.0f32; N]);
        assert_eq!(a.to_vec()?, vec![7.0f32; N]);
        Ok(())
    });
}

#[test]
fn an_operator_whose_output_view_is_too_small_or_of_another_dtype_is_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 64])?;
        let mut small = DeviceBuffer::<f32>::zeroed(&ctx, 8)?;
        let t = Tensor::new(&x, &[8, 8])?;
        // Cast to f64 into an f32 view: 8-byte elements would overrun it.
        let cast = ops::cast(
            &Tensor::new(&x, &[8])?,
            ops::DType::F64,
            TensorMut::new(&mut small, &[8])?,
        )
        .map(drop);
        assert!(cast.is_err(), "cast into a view of another dtype");
        // A matrix product into a view smaller than its result.
        let mm = ops::mm(
            &t,
            &t.clone(),
            TensorMut::new(&mut small, &[2, 4])?,
            ops::CubeMath::KeepDtype,
        )
        .map(drop);
        assert!(mm.is_err(), "mm into a smaller view");
        // Broadcasting that would need a larger output.
        let add = ops::add(
            &t,
            &Tensor::new(&x, &[8, 1])?,
            1.0f32,
            TensorMut::new(&mut small, &[8])?,
        )
        .map(drop);
        assert!(add.is_err(), "add into a smaller view");
        // Reductions into a view of the wrong shape.
        let sum = ops::reduce_sum(
            &t,
            &[0],
            false,
            ops::DType::F32,
            TensorMut::new(&mut small, &[4])?,
        )
        .map(drop);
        assert!(sum.is_err(), "reduce_sum into a smaller view");
        let mut idx = DeviceBuffer::<i32>::zeroed(&ctx, 8)?;
        if let Ok(p) = ops::argmax(&t, 1, false, TensorMut::new(&mut idx, &[8])?) {
            p.launch(&stream, Workspace::none())?.wait()?; // int32 allowed: must stay in bounds
        }
        Ok(())
    });
}

#[test]
fn work_of_a_destroyed_stream_is_still_ordered_before_later_uses() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let s2 = Stream::new(&ctx)?;
        const N: usize = 4096;
        let host = HostBuffer::from_slice(&ctx, &[3u8; N])?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::segments())?;
        let mut block;
        {
            let s1 = Stream::new(&ctx)?;
            s1.copy_host_to_device(&host, &mut device)?.detach();
            block = allocator.alloc::<u8>(&s1, N)?;
            s1.copy_device_to_device(&device, &mut block)?.detach();
            s1.destroy()?; // the runtime drains it first
        }
        // The markers were recorded on the destroyed stream.
        let mut other = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        s2.copy_device_to_device(&block, &mut other)?.detach();
        drop(block);
        let again = allocator.alloc::<u8>(&s2, N)?;
        assert_eq!(other.to_vec()?, vec![3u8; N]);
        drop(again);
        Ok(())
    });
}
