//! Adversarial review of the async-safety promise (safe code only), part:
//! panics on bad input, repeatable executors, workspaces, devices, panics mid-operation. Each test is named after the invariant it checks; the holes
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

// ---------------------------------------------------------------- panics

#[test]
fn a_view_whose_element_count_overflows_never_panics() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::<f32>::zeroed(&ctx, 8)?;
        // Zero strides: every element is element 0, so the bounds check passes.
        let huge = 1usize << 40;
        let view = Tensor::strided(&x, &[huge, huge], &[0, 0], 0);
        let Ok(view) = view else {
            return Ok(()); // refused up front: fine
        };
        let numel = catch_unwind(AssertUnwindSafe(|| view.numel()));
        assert!(numel.is_ok(), "Tensor::numel panicked on a valid view");
        Ok(())
    });
}

/// A user type converting into a workspace; its conversion panics.
struct Bomb;

impl<'a> From<Bomb> for Workspace<'a> {
    fn from(_: Bomb) -> Workspace<'a> {
        panic!("the workspace conversion panics");
    }
}

#[test]
fn a_panic_during_launch_does_not_leak_the_executor() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0, -3.0, 4.0])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let prepared = ops::relu(&Tensor::new(&x, &[4])?, TensorMut::new(&mut y, &[4])?)?;
        let launched = catch_unwind(AssertUnwindSafe(|| {
            prepared.launch(&stream, Bomb).map(|p| p.detach())
        }));
        assert!(launched.is_err(), "the conversion panicked");
        // common::check asserts the executor was destroyed (no live handle).
        Ok(())
    });
}

// ------------------------------------------------------- repeatable executors

#[test]
fn a_repeatable_executor_launched_on_two_streams_orders_its_aliasing_launches() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(5));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const N: usize = 1024;
        let mut a = DeviceBuffer::from_host(&ctx, &[-1.0f32; N])?;
        let mut b = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
        let mut relu =
            ops::relu(&Tensor::new(&a, &[N])?, TensorMut::new(&mut b, &[N])?)?.into_repeatable()?;
        for round in 0..10 {
            // a -> b on s1, then b -> a on s2, then a -> b on s1 ...
            let (s_first, s_second) = if round % 2 == 0 {
                (&s1, &s2)
            } else {
                (&s2, &s1)
            };
            relu.launch(
                s_first,
                &[&Tensor::new(&a, &[N])?],
                vec![TensorMut::new(&mut b, &[N])?],
                Workspace::none(),
            )?
            .detach();
            relu.launch(
                s_second,
                &[&Tensor::new(&b, &[N])?],
                vec![TensorMut::new(&mut a, &[N])?],
                Workspace::none(),
            )?
            .detach();
        }
        drop(relu); // waits for both streams, then destroys the executor
        assert_eq!(a.to_vec()?, vec![0.0f32; N]);
        assert_eq!(b.to_vec()?, vec![0.0f32; N]);
        Ok(())
    });
}

#[test]
fn a_repeatable_executor_moved_to_another_thread_mid_flight_keeps_its_launches_ordered() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(5));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        const N: usize = 512;
        let x = DeviceBuffer::from_host(&ctx, &[2.0f32; N])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
        let mut muls = ops::muls(
            &Tensor::new(&x, &[N])?,
            3.0f32,
            TensorMut::new(&mut y, &[N])?,
        )?
        .into_repeatable()?;
        muls.launch(
            &s1,
            &[&Tensor::new(&x, &[N])?],
            vec![TensorMut::new(&mut y, &[N])?],
            Workspace::none(),
        )?
        .detach();
        let mut z = DeviceBuffer::<f32>::zeroed(&ctx, N)?;
        std::thread::scope(|scope| {
            scope
                .spawn(|| -> ascendcl::Result<()> {
                    // y is read on s2 while s1 may still write it.
                    muls.launch(
                        &s2,
                        &[&Tensor::new(&y, &[N])?],
                        vec![TensorMut::new(&mut z, &[N])?],
                        Workspace::none(),
                    )?
                    .detach();
                    Ok(())
                })
                .join()
                .expect("thread")
        })?;
        drop(muls);
        assert_eq!(z.to_vec()?, vec![18.0f32; N]);
        Ok(())
    });
}

#[test]
fn a_repeatable_in_place_operator_relaunches_on_new_memory() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut a = DeviceBuffer::from_host(&ctx, &[1.0f32; 64])?;
        let mut b = DeviceBuffer::from_host(&ctx, &[2.0f32; 64])?;
        let src = DeviceBuffer::from_host(&ctx, &[7.0f32; 64])?;
        // inplace_copy: selfRef is written, src read.
        let mut copy =
            ops::inplace_copy(TensorMut::new(&mut a, &[64])?, &Tensor::new(&src, &[64])?)?
                .into_repeatable()?;
        let launched = copy.launch(
            &stream,
            &[&Tensor::new(&src, &[64])?],
            vec![TensorMut::new(&mut b, &[64])?],
            Workspace::none(),
        );
        let launched = launched.map(|p| p.wait());
        assert!(
            matches!(launched, Ok(Ok(()))),
            "a repeatable InplaceCopy could not be relaunched: {launched:?}"
        );
        drop(copy);
        assert_eq!(b.to_vec()?, vec![7.0f32; 64]);
        assert_eq!(
            src.to_vec()?,
            vec![7.0f32; 64],
            "the source was never written"
        );
        let mut zero = ops::inplace_zero(TensorMut::new(&mut a, &[64])?)?.into_repeatable()?;
        let launched = zero
            .launch(
                &stream,
                &[],
                vec![TensorMut::new(&mut b, &[64])?],
                Workspace::none(),
            )
            .map(|p| p.wait());
        assert!(
            matches!(launched, Ok(Ok(()))),
            "a repeatable InplaceZero could not be relaunched: {launched:?}"
        );
        drop(zero);
        assert_eq!(b.to_vec()?, vec![0.0f32; 64]);
        Ok(())
    });
}

// ----------------------------------------------------------------- workspaces

/// `a @ a` for a 2x2 `a` (the mock's Matmul asks for a workspace).
fn prepare_matmul<'a>(
    a: &'a DeviceBuffer<f32>,
    out: &'a mut DeviceBuffer<f32>,
) -> ascendcl::Result<ops::Prepared<'a>> {
    let t = Tensor::new(a, &[2, 2])?;
    ops::matmul(
        &t,
        &t.clone(),
        TensorMut::new(out, &[2, 2])?,
        ops::CubeMath::KeepDtype,
    )
}

#[test]
fn a_workspace_buffer_written_on_another_stream_is_ordered_before_the_launch() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let size = prepare_matmul(&a, &mut out)?.workspace_size() as usize;
        let mut ws = DeviceBuffer::<u8>::alloc(&ctx, size.max(1))?;
        s1.fill_bytes(&mut ws, 7)?.detach(); // a pending write on s1
        prepare_matmul(&a, &mut out)?.launch(&s2, &mut ws)?.detach();
        // and a later read of the workspace on s1: ordered after the matmul
        let mut host = HostBuffer::<u8>::zeroed(&ctx, ws.len())?;
        s1.copy_device_to_host(&ws, &mut host)?.detach();
        drop(ws);
        assert_eq!(out.to_vec()?, vec![7.0, 10.0, 15.0, 22.0]);
        Ok(())
    });
}

#[test]
fn an_allocator_workspace_is_not_handed_to_another_stream_before_the_launch_ran() {
    for config in [AllocatorConfig::segments(), AllocatorConfig::expandable()] {
        common::check(|env| {
            let (_device, ctx) = env.device0();
            env.slow_streams(DELAY);
            let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
            let allocator = CachingAllocator::new(&ctx, config.clone())?;
            let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
            let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
            let size = prepare_matmul(&a, &mut out)?.workspace_size() as usize;
            prepare_matmul(&a, &mut out)?
                .launch(&s1, &allocator)?
                .detach();
            // Another stream asks for the same size at once, and writes it.
            let mut other = allocator.alloc::<u8>(&s2, size)?;
            s2.fill_bytes(&mut other, 9)?.detach();
            // The launch stream asks again: reuse in stream order, then the
            // block moves to s2.
            let mut again = allocator.alloc::<u8>(&s1, size)?;
            s2.fill_bytes(&mut again, 1)?.detach();
            drop(other);
            drop(again);
            allocator.empty_cache()?;
            assert_eq!(out.to_vec()?, vec![7.0, 10.0, 15.0, 22.0]);
            Ok(())
        });
    }
}

// ------------------------------------------------------------------- devices

#[test]
fn a_repeatable_executor_is_launched_only_on_the_device_it_was_prepared_for() {
    common::check(|env| {
        let (_device0, ctx0) = env.device0();
        let device1 = Device::open(&env.rt, 1)?;
        let ctx1 = device1.default_context();
        let x0 = DeviceBuffer::from_host(&ctx0, &[-1.0f32, 2.0, -3.0, 4.0])?;
        let mut y0 = DeviceBuffer::<f32>::zeroed(&ctx0, 4)?;
        let mut relu = ops::relu(&Tensor::new(&x0, &[4])?, TensorMut::new(&mut y0, &[4])?)?
            .into_repeatable()?;
        // Everything of device 1: the per-launch checks all pass, but the
        // executor (and whatever device state phase 1 built) is device 0's.
        let stream1 = Stream::new(&ctx1)?;
        let x1 = DeviceBuffer::from_host(&ctx1, &[-1.0f32, 2.0, -3.0, 4.0])?;
        let mut y1 = DeviceBuffer::<f32>::zeroed(&ctx1, 4)?;
        let launched = relu
            .launch(
                &stream1,
                &[&Tensor::new(&x1, &[4])?],
                vec![TensorMut::new(&mut y1, &[4])?],
                Workspace::none(),
            )
            .map(|p| p.wait());
        assert!(
            launched.is_err(),
            "a device-0 executor was launched on a device-1 stream"
        );
        drop(relu);
        Ok(())
    });
}

// ------------------------------------------------------- panics mid-operation

/// A user type converting into a scalar; its conversion panics.
struct ScalarBomb;

impl From<ScalarBomb> for ops::Scalar {
    fn from(_: ScalarBomb) -> ops::Scalar {
        panic!("the scalar conversion panics");
    }
}

#[test]
fn a_panic_during_phase_one_leaks_no_descriptor() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let t = Tensor::new(&x, &[4])?;
        let out = TensorMut::new(&mut y, &[4])?;
        let prepared = catch_unwind(AssertUnwindSafe(|| {
            ops::add(&t, &t.clone(), ScalarBomb, out).map(drop)
        }));
        assert!(prepared.is_err(), "the conversion panicked");
        Ok(())
    });
}

#[test]
fn a_panicking_thread_holding_a_pending_guard_still_leaves_the_buffers_tracked() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        const N: usize = 4096;
        let device = DeviceBuffer::from_host(&ctx, &[6u16; N])?;
        let mut host = HostBuffer::<u16>::zeroed(&ctx, N)?;
        let panicked = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let download = stream
                        .copy_device_to_host(&device, &mut host)
                        .expect("queued");
                    std::mem::forget(download);
                    panic!("the thread dies with the download queued");
                })
                .join()
        });
        assert!(panicked.is_err());
        assert!(host.iter().all(|&v| v == 6), "stale pinned data");
        Ok(())
    });
}

#[test]
fn a_repeatable_executor_dropped_in_a_callback_before_its_launch_is_not_destroyed_early() {
    check_no_misuse(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 256])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        let relu = Arc::new(Mutex::new(
            ops::relu(&Tensor::new(&x, &[256])?, TensorMut::new(&mut y, &[256])?)?
                .into_repeatable()?,
        ));
        let gate = Arc::new(Barrier::new(2));
        let (in_callback, callback_gate) = (relu.clone(), gate.clone());
        env.session.clear_journal();
        stream.launch_host_fn(move || {
            callback_gate.wait();
            drop(in_callback); // the last handle: its launch comes after us
        })?;
        relu.lock()
            .expect("lock")
            .launch(
                &stream,
                &[&Tensor::new(&x, &[256])?],
                vec![TensorMut::new(&mut y, &[256])?],
                Workspace::none(),
            )?
            .detach();
        drop(relu);
        gate.wait();
        let _ = stream.synchronize();
        assert!(
            !destroyed_without_a_successful_wait(env),
            "the executor was destroyed inside a callback, before its launch queued after the callback ran"
        );
        Ok(())
    });
}

#[test]
fn a_mapping_whose_work_cannot_be_waited_for_keeps_its_physical_memory() {
    check_no_misuse(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(DELAY);
        let stream = Stream::new(&ctx)?;
        let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?;
        let range = VirtualRange::reserve(&ctx, page, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
        let mut mapping = range.map(0, &physical)?;
        stream.fill_bytes(&mut mapping, 3)?.detach();
        env.inject(Fault::always("aclrtSynchronizeEvent", INJECTED));
        env.inject(Fault::always("aclrtSynchronizeDevice", INJECTED));
        drop(mapping); // cannot wait: must leak the mapping and its memory
        drop(physical);
        drop(range);
        env.session.clear_faults();
        stream.synchronize_timeout(Duration::from_secs(5)).ok();
        Ok(())
    });
}

#[test]
fn an_out_of_memory_retry_reuses_a_block_of_another_stream_only_after_its_work() {
    for config in [AllocatorConfig::segments(), AllocatorConfig::expandable()] {
        common::check(|env| {
            env.session.set_hbm_bytes(64 << 20).expect("hbm");
            let (_device, ctx) = env.device0();
            env.slow_streams(DELAY);
            let (s1, s2, s3) = (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
            let allocator = CachingAllocator::new(&ctx, config.clone())?;
            let len = 40 << 20;
            let mut big = allocator.alloc::<u8>(&s1, len)?;
            s2.fill_bytes(&mut big, 1)?.detach(); // slow, on another stream
            drop(big); // pending
            // A third stream needs the memory: the allocator must wait.
            let mut again = allocator.alloc::<u8>(&s3, len)?;
            s3.fill_bytes(&mut again, 2)?.detach();
            drop(again);
            allocator.empty_cache()?;
            Ok(())
        });
    }
}

#[test]
fn a_callback_dropping_the_last_handle_of_its_own_stream_does_not_hang() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let (tx, rx) = std::sync::mpsc::channel();
        let last = stream.clone();
        stream.launch_host_fn(move || {
            drop(last); // the last handle once the host dropped its own
            tx.send(()).ok();
        })?;
        drop(stream);
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the callback destroying its own stream hung");
        std::thread::sleep(Duration::from_millis(50));
        let _ = ascendcl::take_deferred_errors();
        Ok(())
    });
}
