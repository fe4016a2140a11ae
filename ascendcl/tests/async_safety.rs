//! The async-safety contract, checked at run time on the mock with slow
//! streams: where a missing synchronize would read stale data, or free memory
//! still in use, the tests see fresh data and the mock sees no misuse.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl_mock::Misuse;

const DELAY: Duration = Duration::from_millis(40);

#[test]
fn waiting_on_the_pending_download_makes_fresh_data_visible() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[42u32; 1024])?;
        let mut host = HostBuffer::<u32>::zeroed(&ctx, 1024)?;
        stream.copy_device_to_host(&device, &mut host)?.wait()?;
        assert!(host.iter().all(|&v| v == 42));
        Ok(())
    });
}

#[test]
fn the_mock_really_shows_stale_data_without_a_synchronize() {
    // The control experiment for the tests below, with raw calls.
    common::check(|env| {
        let (_device, ctx) = env.device0();
        // Long enough that a stalled CI machine still reads before the copy runs.
        env.slow_streams(Duration::from_millis(300));
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[42u32; 1024])?;
        let mut host = HostBuffer::<u32>::zeroed(&ctx, 1024)?;
        let lib = env.session.library();
        let dst = host.as_mut_slice()?.as_mut_ptr();
        // SAFETY: both buffers outlive the copy: we synchronize below before
        // either is dropped, and nothing reads `host` through Rust meanwhile.
        let code = unsafe {
            lib.aclrtMemcpyAsync(
                dst.cast(),
                4096,
                device.as_device_ptr(),
                4096,
                ascendcl::sys::aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST,
                stream.as_raw(),
            )
        }
        .unwrap();
        assert_eq!(code, 0);
        // SAFETY: reading a plain u32 the device has not written yet (the
        // stream is delayed); a racy read of plain data, for the experiment.
        let stale = unsafe { std::ptr::read_volatile(dst) };
        assert_eq!(
            stale, 0,
            "without a synchronize the host sees the old value"
        );
        stream.synchronize()?;
        assert_eq!(host[0], 42);
        Ok(())
    });
}

#[test]
fn dropping_a_pending_operation_synchronizes_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let input = HostBuffer::from_slice(&ctx, &[7u8; 4096])?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        drop(stream.copy_host_to_device(&input, &mut device)?);
        assert!(stream.query()?, "the drop waited for the copy");
        assert_eq!(device.to_vec()?, vec![7u8; 4096]);
        Ok(())
    });
}

#[test]
fn a_leaked_pending_guard_still_cannot_expose_stale_host_data() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[5u16; 512])?;
        let mut host = HostBuffer::<u16>::zeroed(&ctx, 512)?;
        std::mem::forget(stream.copy_device_to_host(&device, &mut host)?);
        // The borrow ended without a wait; the tracker makes the read wait.
        assert!(
            host.iter().all(|&v| v == 5),
            "fresh data after a forgotten guard"
        );
        Ok(())
    });
}

#[test]
fn freeing_a_device_buffer_waits_for_its_queued_use() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let input = HostBuffer::from_slice(&ctx, &[1u64; 2048])?;
        let mut device = DeviceBuffer::<u64>::alloc(&ctx, 2048)?;
        std::mem::forget(stream.copy_host_to_device(&input, &mut device)?);
        drop(device); // must not free memory the queued copy still writes
        stream.synchronize()?;
        assert_eq!(
            env.session.misuse(Misuse::UseAfterFree),
            0,
            "{}",
            env.session.misuse_log()
        );
        Ok(())
    });
}

#[test]
fn freeing_a_pinned_source_waits_for_the_copy_reading_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let input = HostBuffer::from_slice(&ctx, &[3u32; 4096])?;
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, 4096)?;
        std::mem::forget(stream.copy_host_to_device(&input, &mut device)?);
        drop(input); // the copy reads it after the delay
        assert_eq!(device.to_vec()?, vec![3u32; 4096]);
        Ok(())
    });
}

#[test]
fn use_on_a_second_stream_is_ordered_after_the_first() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (first, second) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let input = HostBuffer::from_slice(&ctx, &[11i32; 1000])?;
        let mut device = DeviceBuffer::<i32>::zeroed(&ctx, 1000)?;
        let mut output = HostBuffer::<i32>::zeroed(&ctx, 1000)?;
        let upload = first.copy_host_to_device(&input, &mut device)?;
        // Queued on another stream while the upload is still delayed: the
        // tracker makes `second` wait for `first` with an event.
        let download = second.copy_device_to_host(upload.destination(), &mut output)?;
        download.wait()?;
        assert!(
            output.iter().all(|&v| v == 11),
            "the download saw the upload's data"
        );
        upload.wait()?;
        Ok(())
    });
}

#[test]
fn synchronous_copies_wait_for_queued_asynchronous_ones() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let input = HostBuffer::from_slice(&ctx, &[8u8; 100])?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 100)?;
        std::mem::forget(stream.copy_host_to_device(&input, &mut device)?);
        // A synchronous write after the queued one must land last.
        device.copy_from_host(&[9u8; 100])?;
        stream.synchronize()?;
        assert_eq!(device.to_vec()?, vec![9u8; 100]);
        Ok(())
    });
}

#[test]
fn raw_work_reported_with_record_use_is_waited_for() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::<u8>::zeroed(&ctx, 64)?;
        let lib = env.session.library();
        // SAFETY: the buffer is live and the fill is reported to it below,
        // so its drop waits for the fill.
        let code = unsafe {
            lib.aclrtMemsetAsync(
                device.as_device_ptr().cast_mut(),
                64,
                1,
                64,
                stream.as_raw(),
            )
        }
        .unwrap();
        assert_eq!(code, 0);
        device.record_use(&stream)?;
        assert_eq!(
            device.to_vec()?,
            vec![1u8; 64],
            "the read waited for the raw fill"
        );
        Ok(())
    });
}
