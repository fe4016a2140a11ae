//! Host cost of launching an operator: a 1-element ReLU, so the kernel is
//! negligible and what is measured is the launch path.
//!
//! * `ops/raw/fresh` vs `ops/safe/fresh`: the raw sys sequence (two
//!   `aclCreateTensor`, phase 1, phase 2, two `aclDestroyTensor`) against
//!   `ops::relu(..)?.launch(..)?.detach()` (the same calls plus the tracker:
//!   order checks and bookkeeping, no runtime call more);
//! * `ops/raw/repeatable` vs `ops/safe/repeatable`: a repeatable executor
//!   re-pointed and launched (`aclSetInputTensorAddr`,
//!   `aclSetOutputTensorAddr`, phase 2) against [`Repeatable::launch`].
//!
//! * `ops/raw/conv` vs `ops/safe/conv`: a fresh 3×3 convolution on a 4×4
//!   image (three descriptors and four int arrays, both phases).
//!
//! `cargo bench --bench ops`. Launches are timed in chunks of 256 from an
//! empty queue; the queue is drained (untimed) between chunks.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ascendcl::ops::{self, Repeatable, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::sys::{self, aclFormat, aclOpExecutor, aclTensor};
use ascendcl_benches::raw_ops::RawOps;
use ascendcl_benches::{BenchEnv, warm_up};
use criterion::{Criterion, criterion_group, criterion_main};

const CHUNK: u64 = 256;

fn launch_overhead(c: &mut Criterion) {
    let env = BenchEnv::open();
    let (ctx, stream) = (&env.ctx, &env.stream);
    let aclnn = sys::aclnn::aclnn_for(Some(env.rt.library())).expect("aclnn libraries");
    let x = DeviceBuffer::from_host(ctx, &[-1.0f32]).expect("x");
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, 1).expect("y");
    let (raw_x, raw_y) = (x.as_device_ptr().cast_mut(), y.as_device_ptr().cast_mut());
    let raw_stream = stream.as_raw();
    let raw = RawOps {
        aclnn,
        stream: raw_stream,
        workspace: std::ptr::null_mut(),
        workspace_len: 0,
    };
    let _current = ctx.make_current().expect("bind");
    let drain = || stream.synchronize().expect("drain");
    let chunked = |iters: u64, op: &mut dyn FnMut()| {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let n = left.min(CHUNK);
            drain();
            let start = Instant::now();
            (0..n).for_each(|_| op());
            total += start.elapsed();
            left -= n;
        }
        drain();
        total
    };
    let mut group = c.benchmark_group("ops");

    group.bench_function("raw/fresh", |b| {
        // SAFETY: live 1-element buffers, drained before they are freed.
        let mut op = || unsafe { raw.relu(raw_x, raw_y, 1) };
        warm_up(&mut op);
        drain();
        b.iter_custom(|iters| chunked(iters, &mut op))
    });
    group.bench_function("safe/fresh", |b| {
        let mut op = || {
            let launched = ops::relu(
                &Tensor::new(&x, &[1]).unwrap(),
                TensorMut::new(&mut y, &[1]).unwrap(),
            )
            .and_then(|p| p.launch(stream, Workspace::none()));
            black_box(launched.expect("launch")).detach();
        };
        warm_up(&mut op);
        drain();
        b.iter_custom(|iters| chunked(iters, &mut op))
    });

    // Repeatable: phase 1 once, then re-point and launch.
    let (shape, strides, storage) = ([1i64], [1i64], [1i64]);
    // SAFETY: as in raw_fresh; these descriptors and the executor live
    // until the end of the bench and the queue is drained before.
    let (a, b_desc, executor) = unsafe {
        let f32 = sys::aclDataType::ACL_FLOAT;
        let nd = aclFormat::ACL_FORMAT_ND;
        let a = aclnn
            .aclCreateTensor(
                shape.as_ptr(),
                1,
                f32,
                strides.as_ptr(),
                0,
                nd,
                storage.as_ptr(),
                1,
                raw_x,
            )
            .unwrap();
        let b = aclnn
            .aclCreateTensor(
                shape.as_ptr(),
                1,
                f32,
                strides.as_ptr(),
                0,
                nd,
                storage.as_ptr(),
                1,
                raw_y,
            )
            .unwrap();
        let (mut ws, mut ex): (u64, *mut aclOpExecutor) = (0, std::ptr::null_mut());
        assert_eq!(
            aclnn.aclnnReluGetWorkspaceSize(a, b, &mut ws, &mut ex),
            Ok(0)
        );
        assert_eq!(aclnn.aclSetAclOpExecutorRepeatable(ex), Ok(0));
        (a, b, ex)
    };
    let raw_repeat = |a: *mut aclTensor, b: *mut aclTensor| {
        // SAFETY: our repeatable executor and its descriptors, live buffers.
        unsafe {
            assert_eq!(aclnn.aclSetInputTensorAddr(executor, 0, a, raw_x), Ok(0));
            assert_eq!(aclnn.aclSetOutputTensorAddr(executor, 0, b, raw_y), Ok(0));
            assert_eq!(
                aclnn.aclnnRelu(std::ptr::null_mut(), 0, executor, raw_stream),
                Ok(0)
            );
        }
    };
    group.bench_function("raw/repeatable", |bch| {
        warm_up(|| raw_repeat(a, b_desc));
        drain();
        bch.iter_custom(|iters| chunked(iters, &mut || raw_repeat(a, b_desc)))
    });
    let mut repeatable: Repeatable = ops::relu(
        &Tensor::new(&x, &[1]).unwrap(),
        TensorMut::new(&mut y, &[1]).unwrap(),
    )
    .and_then(|p| p.into_repeatable())
    .expect("repeatable");
    group.bench_function("safe/repeatable", |bch| {
        let mut op = || {
            let launched = repeatable.launch(
                stream,
                &[&Tensor::new(&x, &[1]).unwrap()],
                [TensorMut::new(&mut y, &[1]).unwrap()],
                Workspace::none(),
            );
            black_box(launched.expect("launch")).detach();
        };
        warm_up(&mut op);
        drain();
        bch.iter_custom(|iters| chunked(iters, &mut op))
    });
    group.finish();
    drain();
    drop(repeatable);
    // SAFETY: the raw executor and descriptors, no queued launch left.
    unsafe {
        aclnn.aclDestroyAclOpExecutor(executor).unwrap();
        aclnn.aclDestroyTensor(a).unwrap();
        aclnn.aclDestroyTensor(b_desc).unwrap();
    }
}

fn conv_launch_overhead(c: &mut Criterion) {
    let env = BenchEnv::open();
    let (ctx, stream) = (&env.ctx, &env.stream);
    let aclnn = sys::aclnn::aclnn_for(Some(env.rt.library())).expect("aclnn libraries");
    let x = DeviceBuffer::from_host(ctx, &[0.5f32; 16]).expect("x");
    let w = DeviceBuffer::from_host(ctx, &[0.25f32; 9]).expect("w");
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, 16).expect("y");
    let (rx, rw, ry) = (
        x.as_device_ptr().cast_mut(),
        w.as_device_ptr().cast_mut(),
        y.as_device_ptr().cast_mut(),
    );
    let raw_stream = stream.as_raw();
    let raw = RawOps {
        aclnn,
        stream: raw_stream,
        workspace: std::ptr::null_mut(),
        workspace_len: 0,
    };
    let _current = ctx.make_current().expect("bind");
    let drain = || stream.synchronize().expect("drain");
    let chunked = |iters: u64, op: &mut dyn FnMut()| {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let n = left.min(CHUNK);
            drain();
            let start = Instant::now();
            (0..n).for_each(|_| op());
            total += start.elapsed();
            left -= n;
        }
        drain();
        total
    };
    let window = ops::Window::square(1, 1);
    let mut group = c.benchmark_group("ops");
    group.bench_function("raw/conv", |b| {
        // SAFETY: live buffers of 16, 9 and 16 f32, drained before they are freed.
        let mut op = || unsafe { raw.conv3x3(rx, rw, ry) };
        warm_up(&mut op);
        drain();
        b.iter_custom(|iters| chunked(iters, &mut op))
    });
    group.bench_function("safe/conv", |b| {
        let mut op = || {
            let launched = ops::convolution(
                &Tensor::new(&x, &[1, 1, 4, 4]).unwrap(),
                &Tensor::new(&w, &[1, 1, 3, 3]).unwrap(),
                None,
                &window,
                1,
                TensorMut::new(&mut y, &[1, 1, 4, 4]).unwrap(),
                ops::CubeMath::KeepDtype,
            )
            .and_then(|p| p.launch(stream, Workspace::none()));
            black_box(launched.expect("launch")).detach();
        };
        warm_up(&mut op);
        drain();
        b.iter_custom(|iters| chunked(iters, &mut op))
    });
    group.finish();
    drain();
}

criterion_group!(benches, launch_overhead, conv_launch_overhead);
criterion_main!(benches);
