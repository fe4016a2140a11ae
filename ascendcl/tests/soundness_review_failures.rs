//! Adversarial review of the async-safety promise (safe code only), part:
//! injected failures (allocator, repeatable drop), is_complete, streams whose synchronize proves nothing. Each test is named after the invariant it checks; the holes
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

// ------------------------------------------------------ failures, allocator

#[test]
fn an_allocator_dropped_after_failed_waits_never_frees_a_pending_block_segments() {
    allocator_dropped_after_failed_waits(AllocatorConfig::segments());
}

#[test]
fn an_allocator_dropped_after_failed_waits_never_frees_a_pending_block_expandable() {
    allocator_dropped_after_failed_waits(AllocatorConfig::expandable());
}

fn allocator_dropped_after_failed_waits(config: AllocatorConfig) {
    {
        check_no_misuse(|env| {
            let (_device, ctx) = env.device0();
            env.slow_streams(DELAY);
            let stream = Stream::new(&ctx)?;
            let allocator = CachingAllocator::new(&ctx, config.clone())?;
            let mut block = allocator.alloc::<u8>(&stream, 4096)?;
            stream.fill_bytes(&mut block, 1)?.detach();
            drop(block); // pending: its fill is still queued
            env.inject(Fault::always("aclrtSynchronizeEvent", INJECTED));
            env.inject(Fault::always("aclrtSynchronizeDevice", INJECTED));
            // Both waits fail: the block must be leaked, not freed.
            drop(allocator);
            env.session.clear_faults();
            stream.synchronize_timeout(Duration::from_secs(5)).ok();
            Ok(())
        });
    }
}

#[test]
fn a_block_whose_work_no_wait_can_prove_finished_is_never_freed_with_its_allocator_segments() {
    block_kept_out(AllocatorConfig::segments());
}

#[test]
fn a_block_whose_work_no_wait_can_prove_finished_is_never_freed_with_its_allocator_expandable() {
    block_kept_out(AllocatorConfig::expandable());
}

fn block_kept_out(config: AllocatorConfig) {
    {
        check_no_misuse(|env| {
            let (_device, ctx) = env.device0();
            env.slow_streams(DELAY);
            let stream = Stream::new(&ctx)?;
            let allocator = CachingAllocator::new(&ctx, config.clone())?;
            let mut block = allocator.alloc::<u8>(&stream, 4096)?;
            stream.fill_bytes(&mut block, 1)?.detach();
            // No event can mark the fill, and no wait can prove it finished.
            env.inject(Fault::always("aclrtRecordEvent", INJECTED));
            env.inject(Fault::always("aclrtSynchronizeStream", INJECTED));
            env.inject(Fault::always("aclrtSynchronizeDevice", INJECTED));
            drop(block); // kept pending: its work is not known finished
            env.session.clear_faults();
            // The device now works again, but nobody waited for the fill:
            // the allocator must not free the kept-out block's memory.
            drop(allocator);
            stream.synchronize_timeout(Duration::from_secs(5)).ok();
            Ok(())
        });
    }
}

#[test]
fn an_allocator_page_whose_unmap_fails_is_never_freed_while_mapped() {
    check_no_misuse(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let block = allocator.alloc::<u8>(&stream, 4 << 20)?;
        drop(block);
        env.inject(Fault::always("aclrtUnmapMem", INJECTED));
        allocator.empty_cache()?; // the unmaps fail
        env.session.clear_faults();
        drop(allocator);
        Ok(())
    });
}

// ------------------------------------------------ failures, repeatable drop

#[test]
fn a_repeatable_executor_is_not_destroyed_while_a_launch_may_be_queued_when_the_wait_fails() {
    check_no_misuse(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 256])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        let mut relu = ops::relu(&Tensor::new(&x, &[256])?, TensorMut::new(&mut y, &[256])?)?
            .into_repeatable()?;
        relu.launch(
            &stream,
            &[&Tensor::new(&x, &[256])?],
            vec![TensorMut::new(&mut y, &[256])?],
            Workspace::none(),
        )?
        .detach();
        env.session.clear_journal();
        env.inject(Fault::always("aclrtSynchronizeStream", INJECTED));
        drop(relu);
        env.session.clear_faults();
        let journal = env.session.journal();
        let destroyed_early = journal
            .iter()
            .position(|e| e.function() == "aclDestroyAclOpExecutor" && e.ret() == 0)
            .is_some_and(|i| {
                !journal[..i].iter().any(|e| {
                    matches!(
                        e.function(),
                        "aclrtSynchronizeStream"
                            | "aclrtSynchronizeDevice"
                            | "aclrtSynchronizeEvent"
                    ) && e.ret() == 0
                })
            });
        assert!(
            !destroyed_early,
            "the executor was destroyed although its launch could not be waited for"
        );
        stream.synchronize_timeout(Duration::from_secs(5)).ok();
        Ok(())
    });
}

#[test]
fn a_repeatable_executor_is_not_destroyed_while_an_unmarkable_launch_may_be_queued() {
    check_no_misuse(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 256])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        let mut relu = ops::relu(&Tensor::new(&x, &[256])?, TensorMut::new(&mut y, &[256])?)?
            .into_repeatable()?;
        env.session.clear_journal();
        relu.launch(
            &stream,
            &[&Tensor::new(&x, &[256])?],
            vec![TensorMut::new(&mut y, &[256])?],
            Workspace::none(),
        )?
        .detach();
        // The event that would mark the launch cannot be recorded, and the
        // stream drain fails too: only a device-wide wait proves it ran.
        env.inject(Fault::nth("aclrtRecordEvent", 1, INJECTED));
        env.inject(Fault::nth("aclrtSynchronizeStream", 1, INJECTED));
        drop(relu);
        assert!(
            !destroyed_without_a_successful_wait(env),
            "the executor was destroyed while its unmarked launch may still be queued"
        );
        drop((x, y));
        Ok(())
    });
}

// -------------------------------------------------------------- is_complete

#[test]
fn is_complete_never_answers_true_before_the_operation_ran() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(20));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let host = HostBuffer::from_slice(&ctx, &[1u8; 4096])?;
        let mut a = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        let mut b = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 256])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        for _ in 0..5 {
            let up = s1.copy_host_to_device(&host, &mut a)?;
            assert!(
                !up.is_complete()?,
                "an upload on a slow stream is not done at once"
            );
            up.detach();
            // A use of `a` on another stream covers the upload's marker.
            let down = s2.copy_device_to_device(&a, &mut b)?;
            assert!(!down.is_complete()?);
            down.detach();
            let op = ops::relu(&Tensor::new(&x, &[256])?, TensorMut::new(&mut y, &[256])?)?
                .launch(&s1, Workspace::none())?;
            assert!(!op.is_complete()?);
            let mut polls = 0;
            while !op.is_complete()? {
                polls += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(polls > 0);
            op.wait()?;
        }
        Ok(())
    });
}

// ----------------------------------------- streams whose synchronize is a no-op

#[test]
fn tracked_work_is_refused_on_streams_whose_synchronize_proves_nothing() {
    // Persistent and CPU-scheduled streams return from a synchronize at
    // once: no fallback wait could prove their work finished, so copies,
    // fills, recorded uses and operators refuse them before any FFI call.
    common::check(|env| {
        let (_device, ctx) = env.device0();
        for flags in [StreamFlags::PERSISTENT, StreamFlags::CPU_SCHEDULE] {
            let stream = Stream::with_config(&ctx, 0, flags)?;
            let input = HostBuffer::from_slice(&ctx, &[4u32; 64])?;
            let mut device = DeviceBuffer::<u32>::zeroed(&ctx, 64)?;
            env.session.clear_journal();
            let copy = stream.copy_host_to_device(&input, &mut device).map(drop);
            assert!(
                matches!(copy, Err(ascendcl::Error::InvalidArgument(_))),
                "{copy:?}"
            );
            let fill = stream.fill_bytes(&mut device, 1).map(drop);
            assert!(
                matches!(fill, Err(ascendcl::Error::InvalidArgument(_))),
                "{fill:?}"
            );
            assert!(device.record_use(&stream).is_err());
            let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 8])?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 8)?;
            let relu = ops::relu(&Tensor::new(&x, &[8])?, TensorMut::new(&mut y, &[8])?)?
                .launch(&stream, Workspace::none())
                .map(drop);
            assert!(
                matches!(relu, Err(ascendcl::Error::InvalidArgument(_))),
                "{relu:?}"
            );
            let queued = [
                "aclrtMemcpyAsync",
                "aclrtMemsetAsync",
                "aclnnRelu",
                "aclrtRecordEvent",
            ];
            assert!(
                !env.calls().iter().any(|c| queued.contains(&c.as_str())),
                "refused before queuing: {:?}",
                env.calls()
            );
        }
        Ok(())
    });
}
