//! A steady tracked launch makes no heap allocation: the tensors, trackers
//! and locks of one launch are kept inline, and a buffer's use set reuses its
//! storage. Counted by a global allocator that counts the calling thread's
//! allocations (the C mock allocates with `malloc` and is not counted, so
//! this is the safe layer's own cost). The numbers of the launch-cost bench
//! (`docs/benchmarks.md#launch-cost`) come from the same counter.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards every call to `System` unchanged; the counter is a
// thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: `ptr` came from `System` with `layout`: the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The calling thread's allocations made by `launches` after a warm-up run.
fn allocations_of(mut launches: impl FnMut() -> ascendcl::Result<()>) -> ascendcl::Result<u64> {
    launches()?; // first uses size each buffer's use set
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..4 {
        launches()?;
    }
    Ok(ALLOCATIONS.with(Cell::get) - before)
}

#[test]
fn a_steady_async_copy_allocates_nothing() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let host = HostBuffer::from_slice(&ctx, &[1u8; 4096])?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        let n = allocations_of(|| {
            stream.copy_host_to_device(&host, &mut device)?.detach();
            Ok(())
        })?;
        assert_eq!(n, 0, "allocations in 4 async copies");
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_fresh_operator_launch_allocates_nothing() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32; 16])?;
        let w = DeviceBuffer::from_host(&ctx, &[0.25f32; 9])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
        let window = ops::Window::square(1, 1);
        let relu = allocations_of(|| {
            ops::relu(&Tensor::new(&x, &[4, 4])?, TensorMut::new(&mut y, &[4, 4])?)?
                .launch(&stream, Workspace::none())?
                .detach();
            Ok(())
        })?;
        assert_eq!(relu, 0, "allocations in 4 fresh ReLUs");
        let conv = allocations_of(|| {
            ops::convolution(
                &Tensor::new(&x, &[1, 1, 4, 4])?,
                &Tensor::new(&w, &[1, 1, 3, 3])?,
                None,
                &window,
                1,
                TensorMut::new(&mut y, &[1, 1, 4, 4])?,
                ops::CubeMath::KeepDtype,
            )?
            .launch(&stream, Workspace::none())?
            .detach();
            Ok(())
        })?;
        assert_eq!(conv, 0, "allocations in 4 fresh convolutions");
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_repeatable_launch_with_an_array_of_outputs_allocates_nothing() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut relu =
            ops::relu(&Tensor::new(&x, &[2])?, TensorMut::new(&mut y, &[2])?)?.into_repeatable()?;
        let n = allocations_of(|| {
            relu.launch(
                &stream,
                &[&Tensor::new(&x, &[2])?],
                [TensorMut::new(&mut y, &[2])?],
                Workspace::none(),
            )?
            .detach();
            Ok(())
        })?;
        assert_eq!(n, 0, "allocations in 4 repeatable launches");
        stream.synchronize()?;
        drop(relu);
        assert_eq!(y.to_vec()?, vec![0.0, 2.0]);
        Ok(())
    });
}

#[test]
fn a_steady_all_reduce_launch_allocates_nothing_on_any_rank() {
    common::check(|env| {
        let devices = [Device::open(&env.rt, 0)?, Device::open(&env.rt, 1)?];
        let comms = Communicator::init_all(&devices)?;
        let counts = std::thread::scope(|s| {
            let joins: Vec<_> = comms
                .iter()
                .map(|comm| {
                    s.spawn(move || -> ascendcl::Result<u64> {
                        let ctx = comm.device().default_context();
                        let _current = ctx.make_current()?;
                        let stream = Stream::new(&ctx)?;
                        let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?;
                        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
                        let n = allocations_of(|| {
                            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
                                .detach();
                            Ok(())
                        })?;
                        stream.synchronize()?;
                        assert_eq!(y.to_vec()?, vec![2.0, 4.0]);
                        Ok(n)
                    })
                })
                .collect();
            joins
                .into_iter()
                .map(|j| j.join().expect("a rank panicked"))
                .collect::<ascendcl::Result<Vec<u64>>>()
        })?;
        assert_eq!(counts, vec![0, 0], "allocations in 4 all-reduces per rank");
        Ok(())
    });
}
