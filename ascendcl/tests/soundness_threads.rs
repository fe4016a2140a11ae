//! The async-safety promise under concurrent use and aliasing, attacked as a
//! hostile user would with safe code only: guards forgotten, two threads
//! released together on a barrier, repeated to catch a race. The mock's
//! misuse detection (use after free, unordered streams) must stay silent and
//! the data must be the data of the program order. CI runs this file again
//! with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;

use std::sync::Barrier;
use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange};

const DELAY: Duration = Duration::from_millis(1);
const ROUNDS: usize = 100;
const N: usize = 4096;

#[test]
fn two_threads_reading_one_pinned_buffer_are_both_waited_for_before_it_is_overwritten_or_freed() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        for round in 0..ROUNDS {
            let old = round as u32;
            let mut shared = HostBuffer::from_slice(&ctx, &vec![old; N])?;
            let mut a = DeviceBuffer::<u32>::alloc(&ctx, N)?;
            let mut b = DeviceBuffer::<u32>::alloc(&ctx, N)?;
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                let (shared, barrier) = (&shared, &barrier);
                let ta = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s1.copy_host_to_device(shared, &mut a)?);
                    Ok(())
                });
                let tb = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s2.copy_host_to_device(shared, &mut b)?);
                    Ok(())
                });
                ta.join().expect("thread a")?;
                tb.join().expect("thread b")
            })?;
            // Both uploads may still be queued: overwriting must wait for both.
            shared.as_mut_slice()?.fill(u32::MAX);
            assert_eq!(
                a.to_vec()?,
                vec![old; N],
                "round {round}: copy a read newer data"
            );
            assert_eq!(
                b.to_vec()?,
                vec![old; N],
                "round {round}: copy b read newer data"
            );
            drop(shared);
        }
        Ok(())
    });
}

#[test]
fn two_threads_downloading_one_device_buffer_are_both_waited_for_before_it_is_freed() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        for round in 0..ROUNDS {
            let value = 7 + round as u16;
            let shared = DeviceBuffer::from_host(&ctx, &vec![value; N])?;
            let mut a = HostBuffer::<u16>::zeroed(&ctx, N)?;
            let mut b = HostBuffer::<u16>::zeroed(&ctx, N)?;
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                let (shared, barrier) = (&shared, &barrier);
                let ta = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s1.copy_device_to_host(shared, &mut a)?);
                    Ok(())
                });
                let tb = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s2.copy_device_to_host(shared, &mut b)?);
                    Ok(())
                });
                ta.join().expect("thread a")?;
                tb.join().expect("thread b")
            })?;
            drop(shared); // must wait for both downloads
            assert!(a.iter().all(|&v| v == value), "round {round}: download a");
            assert!(b.iter().all(|&v| v == value), "round {round}: download b");
        }
        Ok(())
    });
}

#[test]
fn a_write_after_concurrent_reads_on_two_streams_is_ordered_after_both() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2, s3) = (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
        for round in 0..ROUNDS / 2 {
            let mut shared = DeviceBuffer::from_host(&ctx, &vec![1u8; N])?;
            let mut a = DeviceBuffer::<u8>::alloc(&ctx, N)?;
            let mut b = DeviceBuffer::<u8>::alloc(&ctx, N)?;
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                let (shared, barrier) = (&shared, &barrier);
                let ta = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s1.copy_device_to_device(shared, &mut a)?);
                    Ok(())
                });
                let tb = scope.spawn(|| -> ascendcl::Result<()> {
                    barrier.wait();
                    std::mem::forget(s2.copy_device_to_device(shared, &mut b)?);
                    Ok(())
                });
                ta.join().expect("thread a")?;
                tb.join().expect("thread b")
            })?;
            // A queued overwrite on a third stream must wait for both reads.
            std::mem::forget(s3.fill_bytes(&mut shared, 9)?);
            assert_eq!(
                a.to_vec()?,
                vec![1u8; N],
                "round {round}: a saw the overwrite"
            );
            assert_eq!(
                b.to_vec()?,
                vec![1u8; N],
                "round {round}: b saw the overwrite"
            );
            assert_eq!(shared.to_vec()?, vec![9u8; N]);
        }
        Ok(())
    });
}

#[test]
fn a_pending_wait_means_the_work_ran_even_after_its_buffers_were_used_again() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(30));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let input = HostBuffer::from_slice(&ctx, &[3u32; N])?;
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, N)?;
        let (mut out1, mut out2) = (
            HostBuffer::<u32>::zeroed(&ctx, N)?,
            HostBuffer::<u32>::zeroed(&ctx, N)?,
        );
        let mut other = DeviceBuffer::<u32>::alloc(&ctx, N)?;
        let upload = s1.copy_host_to_device(&input, &mut device)?;
        // Both buffers of the upload are used again, on both streams.
        std::mem::forget(s2.copy_device_to_host(upload.destination(), &mut out1)?);
        std::mem::forget(s1.copy_device_to_host(upload.destination(), &mut out2)?);
        std::mem::forget(s2.copy_host_to_device(&input, &mut other)?);
        let address = upload.destination().as_device_ptr();
        upload.wait()?;
        // Peek at the device memory without the tracker: the upload's data
        // must be there once `wait` returned.
        let mut peek = vec![0u32; N];
        let lib = env.session.library();
        // SAFETY: `peek` is writable for N u32; `address` is live device
        // memory of N u32 (`device` is alive); only queued reads remain.
        let code = unsafe {
            lib.aclrtMemcpy(
                peek.as_mut_ptr().cast(),
                N * 4,
                address,
                N * 4,
                ascendcl::sys::aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        }
        .expect("aclrtMemcpy");
        assert_eq!(code, 0);
        assert_eq!(peek, vec![3u32; N], "wait returned before the upload ran");
        assert!(out1.iter().chain(out2.iter()).all(|&v| v == 3));
        drop(other);
        Ok(())
    });
}

#[test]
fn a_second_live_mapping_of_one_physical_allocation_is_refused_until_the_first_is_unmapped() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?;
        let range = VirtualRange::reserve(&ctx, 4 * page, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
        let first = range.map(0, &physical)?;
        let second = range.map(2 * page, &physical);
        assert!(
            matches!(second, Err(ascendcl::Error::AlreadyMapped(_))),
            "{second:?}"
        );
        let other_range = VirtualRange::reserve(&ctx, 2 * page, PageSize::Huge2M)?;
        assert!(matches!(
            other_range.map(0, &physical),
            Err(ascendcl::Error::AlreadyMapped(_))
        ));
        first.unmap()?;
        let again = range.map(2 * page, &physical)?;
        assert_eq!(again.offset(), 2 * page);
        Ok(())
    });
}
