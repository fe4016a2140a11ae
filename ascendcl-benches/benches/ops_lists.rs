//! Host cost of launching a tensor-list operator (batch ops3b): a fresh
//! `aclnnCat` of four 1-element tensors, the raw sys sequence (five
//! `aclCreateTensor`, `aclCreateTensorList`, both phases,
//! `aclDestroyTensorList`, `aclDestroyTensor` of out) against
//! `ops::cat(..)?.launch(..)?.detach()`.
//!
//! `cargo bench --bench ops_lists`. Launches are timed in chunks of 256
//! from an empty queue; the queue is drained (untimed) between chunks.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::{Duration, Instant};

use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::sys::{self, Aclnn, aclFormat, aclOpExecutor, aclTensor};
use ascendcl_benches::{BenchEnv, warm_up};
use criterion::{Criterion, criterion_group, criterion_main};

const CHUNK: u64 = 256;
const MEMBERS: usize = 4;

/// A 1-element f32 tensor at `addr` (dims 1, or `len` for out).
///
/// # Safety
///
/// `addr` is live device memory of at least `len` f32s.
unsafe fn tensor(aclnn: &Aclnn, addr: *mut c_void, len: i64) -> *mut aclTensor {
    let (shape, strides, storage) = ([len], [1i64], [len]);
    // SAFETY: arrays of one element, live for the call; addr per the contract.
    unsafe {
        aclnn
            .aclCreateTensor(
                shape.as_ptr(),
                1,
                sys::aclDataType::ACL_FLOAT,
                strides.as_ptr(),
                0,
                aclFormat::ACL_FORMAT_ND,
                storage.as_ptr(),
                1,
                addr,
            )
            .unwrap()
    }
}

/// The raw sys sequence of one fresh Cat of MEMBERS 1-element tensors.
fn raw_cat(aclnn: &Aclnn, xs: &[*mut c_void], y: *mut c_void, stream: sys::aclrtStream) {
    // SAFETY: xs and y are live device buffers (1 and MEMBERS f32s); the
    // list owns its tensors and is destroyed after the launch (out
    // separately); the queue is drained before the buffers are freed.
    unsafe {
        let members: Vec<*const aclTensor> = xs
            .iter()
            .map(|&x| tensor(aclnn, x, 1).cast_const())
            .collect();
        let list = aclnn
            .aclCreateTensorList(members.as_ptr(), members.len() as u64)
            .unwrap();
        let out = tensor(aclnn, y, MEMBERS as i64);
        let (mut ws, mut ex): (u64, *mut aclOpExecutor) = (0, std::ptr::null_mut());
        assert_eq!(
            aclnn.aclnnCatGetWorkspaceSize(list, 0, out, &mut ws, &mut ex),
            Ok(0)
        );
        assert_eq!(aclnn.aclnnCat(std::ptr::null_mut(), 0, ex, stream), Ok(0));
        aclnn.aclDestroyTensorList(list).unwrap();
        aclnn.aclDestroyTensor(out).unwrap();
    }
}

fn cat_launch_overhead(c: &mut Criterion) {
    let env = BenchEnv::open();
    let (ctx, stream) = (&env.ctx, &env.stream);
    let aclnn = sys::aclnn::aclnn_for(Some(env.rt.library())).expect("aclnn libraries");
    let xs: Vec<DeviceBuffer<f32>> = (0..MEMBERS)
        .map(|i| DeviceBuffer::from_host(ctx, &[i as f32]).expect("x"))
        .collect();
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, MEMBERS).expect("y");
    let raw_xs: Vec<*mut c_void> = xs.iter().map(|x| x.as_device_ptr().cast_mut()).collect();
    let raw_y = y.as_device_ptr().cast_mut();
    let raw_stream = stream.as_raw();
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
    let mut group = c.benchmark_group("ops_lists");
    group.bench_function("raw/cat4", |b| {
        warm_up(|| raw_cat(aclnn, &raw_xs, raw_y, raw_stream));
        drain();
        b.iter_custom(|iters| chunked(iters, &mut || raw_cat(aclnn, &raw_xs, raw_y, raw_stream)))
    });
    group.bench_function("safe/cat4", |b| {
        let mut op = || {
            let ts: Vec<Tensor<'_>> = xs.iter().map(|x| Tensor::new(x, &[1]).unwrap()).collect();
            let refs: Vec<&Tensor<'_>> = ts.iter().collect();
            let launched = ops::cat(&refs, 0, TensorMut::new(&mut y, &[MEMBERS]).unwrap())
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

criterion_group!(benches, cat_launch_overhead);
criterion_main!(benches);
