//! Pipelines: several transfers in flight at once, and copies of part of a
//! pinned buffer. Checked on the mock with slow streams, so a transfer that
//! was not waited for where it must be shows as wrong data, and with the
//! mock's misuse counters (its happens-before model of streams and events
//! flags unordered accesses), which must stay at zero.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;

const DELAY: Duration = Duration::from_millis(5);

/// The batch of step `step`: `len` values that name the step and the index.
fn batch(step: usize, len: usize) -> Vec<u32> {
    (0..len).map(|i| (step * 1000 + i) as u32).collect()
}

#[test]
fn a_ring_of_detached_uploads_over_two_staging_buffers_compiles_and_every_batch_arrives_intact() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (copy, compute) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const CAP: usize = 64;
        let sizes = [64usize, 17, 40, 1, 64, 33, 8];
        let mut staging = [
            HostBuffer::<u32>::zeroed(&ctx, CAP)?,
            HostBuffer::zeroed(&ctx, CAP)?,
        ];
        let mut device = [
            DeviceBuffer::<u32>::zeroed(&ctx, CAP)?,
            DeviceBuffer::zeroed(&ctx, CAP)?,
        ];
        let mut results = HostBuffer::<u32>::zeroed(&ctx, CAP * sizes.len())?;
        let mut in_flight: [Option<Detached>; 2] = [None, None];
        let mut offset = 0;
        for (step, &n) in sizes.iter().enumerate() {
            let slot = step % 2;
            // The slot's previous upload may still run: writing its staging
            // buffer waits for it (the tracker), so nothing here must.
            staging[slot][..n].copy_from_slice(&batch(step, n));
            // One statement: the views are temporaries that live until its
            // end, and `detach` ends their borrows before that.
            in_flight[slot] = Some(
                copy.copy_host_to_device(
                    &staging[slot].slice(..n)?,
                    &mut device[slot].slice_mut(..n)?,
                )?
                .detach(),
            );
            // "Compute" on the other stream: it is ordered after the upload
            // by the device buffer's tracker (an event wait), not by us.
            let mut out = results.slice_mut(offset..offset + n)?;
            compute
                .copy_device_to_host(&device[slot].slice(..n)?, &mut out)?
                .detach();
            offset += n;
        }
        // Every upload's errors, reported here.
        for upload in in_flight.into_iter().flatten() {
            upload.wait()?;
        }
        // Reading the results waits for the downloads (the tracker).
        let mut offset = 0;
        for (step, &n) in sizes.iter().enumerate() {
            assert_eq!(
                &results[offset..offset + n],
                &batch(step, n)[..],
                "batch {step}"
            );
            offset += n;
        }
        Ok(())
    });
}

#[test]
fn writing_a_staging_buffer_after_detaching_its_upload_waits_for_the_upload() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        // Long enough that the write below would land before the copy runs
        // if it did not wait.
        env.slow_streams(Duration::from_millis(100));
        let stream = Stream::new(&ctx)?;
        let mut staging = HostBuffer::from_slice(&ctx, &[1u32; 256])?;
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, 256)?;
        let upload = stream.copy_host_to_device(&staging, &mut device)?.detach();
        assert!(!upload.is_complete()?, "the stream is slow: not done yet");
        staging.fill(2); // waits for the upload
        assert!(upload.is_complete()?);
        upload.wait()?;
        assert_eq!(device.to_vec()?, vec![1u32; 256]);
        Ok(())
    });
}

#[test]
fn an_upload_from_a_host_view_moves_only_the_views_elements() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let staging = HostBuffer::from_slice(&ctx, &[7u32; 16])?;
        let mut device = DeviceBuffer::from_host(&ctx, &[0u32; 16])?;
        env.session.clear_journal();
        stream
            .copy_host_to_device(&staging.slice(4..7)?, &mut device.slice_mut(10..13)?)?
            .wait()?;
        let copies: Vec<String> = env
            .session
            .journal()
            .into_iter()
            .filter(|e| e.function() == "aclrtMemcpyAsync")
            .map(|e| e.line)
            .collect();
        assert_eq!(copies.len(), 1, "{copies:?}");
        assert!(copies[0].contains("\"count\":12"), "3 u32s: {}", copies[0]);
        let mut expected = [0u32; 16];
        expected[10..13].fill(7);
        assert_eq!(device.to_vec()?, expected);
        Ok(())
    });
}

#[test]
fn a_download_into_a_host_view_is_waited_for_before_the_buffer_is_read() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(50));
        let stream = Stream::new(&ctx)?;
        let device = DeviceBuffer::from_host(&ctx, &[9u16; 8])?;
        let mut host = HostBuffer::<u16>::zeroed(&ctx, 8)?;
        stream
            .copy_device_to_host(&device.slice(..3)?, &mut host.slice_mut(2..5)?)?
            .detach();
        assert_eq!(&host[..], &[0, 0, 9, 9, 9, 0, 0, 0]);
        Ok(())
    });
}

#[test]
fn copies_between_views_of_different_lengths_are_refused_before_any_runtime_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let staging = HostBuffer::<u8>::zeroed(&ctx, 8)?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 8)?;
        env.session.clear_journal();
        let error = stream
            .copy_host_to_device(&staging.slice(..3)?, &mut device.slice_mut(..4)?)
            .unwrap_err();
        assert!(error.to_string().contains("slice one side"), "{error}");
        assert!(staging.slice(..0).is_err() && staging.slice(5..9).is_err());
        assert!(env.calls().iter().all(|f| f != "aclrtMemcpyAsync"));
        Ok(())
    });
}

#[test]
fn a_detached_handle_waits_for_its_stream_when_a_later_write_covered_its_marker() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(20));
        let stream = Stream::new(&ctx)?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 64)?;
        let first = stream.fill_bytes(&mut device, 3)?.detach();
        // A second write of `device` covers the first fill: the tracker
        // drops the first marker, which nothing else holds.
        let second = stream.fill_bytes(&mut device, 5)?.detach();
        first.wait()?; // the stream is synchronized instead: both are done
        assert!(second.is_complete()?);
        second.wait()?;
        assert_eq!(device.to_vec()?, vec![5u8; 64]);
        Ok(())
    });
}

#[test]
fn dropping_a_detached_handle_never_blocks_and_the_buffers_still_wait() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(100));
        let stream = Stream::new(&ctx)?;
        let mut device = DeviceBuffer::<u32>::zeroed(&ctx, 32)?;
        let fill = stream.fill_bytes(&mut device, 0xff)?.detach();
        let started = std::time::Instant::now();
        drop(fill);
        assert!(started.elapsed() < Duration::from_millis(90));
        assert_eq!(device.to_vec()?, vec![u32::MAX; 32]);
        Ok(())
    });
}
