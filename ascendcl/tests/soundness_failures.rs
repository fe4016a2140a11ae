//! The async-safety promise after runtime failures, attacked with safe code:
//! when the first wait for a queued operation needs the event marking its
//! stream position, that event cannot be recorded and a stream synchronize
//! fails too (a double failure), on every kind of queued operation; the
//! memory must then stay unreachable until a device-wide wait of the right
//! device succeeds. (Launches record no event: the failure moved from the
//! launch to the first wait, which is where these tests inject it.) Also:
//! bad sizes never panic, and events never cross devices.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange};
use ascendcl_mock::Fault;

const INJECTED: i32 = ascendcl::sys::ACL_ERROR_RT_DRV_INTERNAL_ERROR;
const DELAY: Duration = Duration::from_millis(60);
const N: usize = 1024;

/// Makes the next event record and the next stream synchronize fail: the
/// next wait cannot mark the work it waits for.
fn double_failure(env: &common::Env) {
    env.inject(Fault::nth("aclrtRecordEvent", 1, INJECTED));
    env.inject(Fault::nth("aclrtSynchronizeStream", 1, INJECTED));
}

fn assert_injected<T: std::fmt::Debug>(result: ascendcl::Result<T>) {
    let error = result.expect_err("the double failure must be reported");
    assert_eq!(error.code(), Some(INJECTED), "{error}");
}

#[test]
fn after_a_double_failure_an_upload_is_still_waited_for_before_its_source_is_overwritten() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let mut input = HostBuffer::from_slice(&ctx, &[4u32; N])?;
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, N)?;
        stream.copy_host_to_device(&input, &mut device)?.detach();
        double_failure(env);
        input.as_mut_slice()?.fill(0); // must wait for the unmarkable upload
        assert_eq!(device.to_vec()?, vec![4u32; N]);
        Ok(())
    });
}

#[test]
fn after_a_double_failure_a_download_is_waited_for_before_the_host_reads() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[8u16; N])?;
        let mut host = HostBuffer::<u16>::zeroed(&ctx, N)?;
        stream.copy_device_to_host(&device, &mut host)?.detach();
        double_failure(env);
        assert!(host.iter().all(|&v| v == 8), "stale pinned data");
        drop(device);
        Ok(())
    });
}

#[test]
fn after_a_double_failure_device_copies_fills_and_recorded_uses_are_waited_for() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let source = DeviceBuffer::from_host(&ctx, &[5u8; N])?;
        let mut copy = DeviceBuffer::<u8>::zeroed(&ctx, N)?;
        stream.copy_device_to_device(&source, &mut copy)?.detach();
        double_failure(env);
        assert_eq!(copy.to_vec()?, vec![5u8; N]);
        stream.fill_bytes(&mut copy, 6)?.detach();
        double_failure(env);
        assert_eq!(copy.to_vec()?, vec![6u8; N]);
        copy.record_use(&stream)?;
        double_failure(env);
        copy.free()?;
        Ok(())
    });
}

#[test]
fn after_a_double_failure_an_allocator_block_is_not_reused_before_its_work_ran() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let input = HostBuffer::from_slice(&ctx, &[2u32; N])?;
        let mut block = allocator.alloc::<u32>(&stream, N)?;
        stream.copy_host_to_device(&input, &mut block)?.detach();
        double_failure(env);
        let address = block.as_device_ptr();
        drop(block); // pending in the cache: no event covers the upload yet
        let again = allocator.alloc::<u32>(&stream, N)?;
        assert_eq!(again.as_device_ptr(), address, "the cache reused the block");
        assert_eq!(
            again.to_vec()?,
            vec![2u32; N],
            "reused before the upload ran"
        );
        Ok(())
    });
}

#[test]
fn after_a_double_failure_a_mapping_is_not_unmapped_before_its_work_ran() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?;
        let range = VirtualRange::reserve(&ctx, page, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
        let mut mapping = range.map(0, &physical)?;
        stream.fill_bytes(&mut mapping, 3)?.detach();
        double_failure(env);
        assert_eq!(mapping.slice(..16)?.to_vec()?, vec![3u8; 16]);
        mapping.unmap()?;
        Ok(())
    });
}

#[test]
fn unmarkable_work_of_another_device_is_waited_for_on_that_device() {
    common::check(|env| {
        let (_device0, ctx0) = env.device0();
        let device1 = Device::open(&env.rt, 1)?;
        let ctx1 = device1.default_context();
        env.slow_streams(Duration::from_millis(150));
        let stream1 = Stream::new(&ctx1)?;
        let on_device1 = DeviceBuffer::from_host(&ctx1, &[9u64; N])?;
        // Pinned memory of device 0's context, written by device 1's stream.
        let mut host = HostBuffer::<u64>::zeroed(&ctx0, N)?;
        stream1
            .copy_device_to_host(&on_device1, &mut host)?
            .detach();
        double_failure(env);
        // Synchronizing device 0 would hand out stale data here.
        assert!(
            host.as_slice()?.iter().all(|&v| v == 9),
            "waited on the wrong device"
        );
        Ok(())
    });
}

#[test]
fn unmarkable_work_that_cannot_be_waited_for_blocks_every_access_until_a_wait_succeeds() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[1u32; N])?;
        let mut host = HostBuffer::<u32>::zeroed(&ctx, N)?;
        stream.copy_device_to_host(&device, &mut host)?.detach();
        env.inject(Fault::always("aclrtRecordEvent", INJECTED));
        env.inject(Fault::always("aclrtSynchronizeStream", INJECTED));
        env.inject(Fault::always("aclrtSynchronizeDevice", INJECTED));
        assert_injected(host.as_slice());
        assert_injected(host.as_mut_slice().map(|s| s.len()));
        let deref = catch_unwind(AssertUnwindSafe(|| host[0]));
        assert!(
            deref.is_err(),
            "Deref handed out memory the device may still write"
        );
        env.session.clear_faults();
        let _ = ascendcl::take_deferred_errors();
        assert!(host.as_slice()?.iter().all(|&v| v == 1));
        drop(device);
        Ok(())
    });
}

#[test]
fn huge_sizes_are_errors_not_panics() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        type Attempt<'a> = Box<dyn Fn() -> bool + 'a>;
        let attempts: Vec<(&str, Attempt)> = vec![
            (
                "VirtualRange::reserve(usize::MAX)",
                Box::new(|| VirtualRange::reserve(&ctx, usize::MAX, PageSize::Huge2M).is_err()),
            ),
            (
                "PhysicalMemory::alloc(usize::MAX)",
                Box::new(|| PhysicalMemory::alloc(&ctx, usize::MAX, PageSize::Huge2M).is_err()),
            ),
            (
                "expandable_with_page(usize::MAX)",
                Box::new(|| {
                    CachingAllocator::new(&ctx, AllocatorConfig::expandable_with_page(usize::MAX))
                        .is_err()
                }),
            ),
            (
                "DeviceBuffer::alloc(usize::MAX)",
                Box::new(|| DeviceBuffer::<u64>::alloc(&ctx, usize::MAX).is_err()),
            ),
            (
                "HostBuffer::zeroed(usize::MAX)",
                Box::new(|| HostBuffer::<u32>::zeroed(&ctx, usize::MAX).is_err()),
            ),
        ];
        for (what, attempt) in attempts {
            let outcome = catch_unwind(AssertUnwindSafe(&attempt));
            assert_eq!(
                outcome.ok(),
                Some(true),
                "{what} must be an error, not a panic"
            );
        }
        Ok(())
    });
}

#[test]
fn an_event_is_never_recorded_on_a_stream_of_another_device_but_may_be_waited_for() {
    common::check(|env| {
        let (_device0, ctx0) = env.device0();
        let device1 = Device::open(&env.rt, 1)?;
        let stream1 = Stream::new(&device1.default_context())?;
        let event0 = Event::new(&ctx0)?;
        let recorded = event0.record(&stream1);
        assert!(
            matches!(recorded, Err(ascendcl::Error::InvalidArgument(_))),
            "{recorded:?}"
        );
        assert!(
            !env.calls().iter().any(|c| c == "aclrtRecordEvent"),
            "refused before any FFI call"
        );
        // CANN 8.5.0 queues cross-device waits (event.cc 597-621).
        let stream0 = Stream::new(&ctx0)?;
        event0.record(&stream0)?;
        stream1.wait_event(&event0)?;
        stream1.synchronize()?;
        Ok(())
    });
}
