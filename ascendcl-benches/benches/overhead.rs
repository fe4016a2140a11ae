//! The cost of the safe layer: the same operations through the raw
//! `ascendcl-sys` call (`overhead/raw/<op>`) and through `ascendcl`
//! (`overhead/safe/<op>`). Target: safe/raw ≤ 1.02 (median) for every op.
//!
//! `cargo bench --bench overhead`. Compare the two rows of an op from the
//! same run; on the mock they measure the binding layer, not an NPU.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use ascendcl::prelude::*;
use ascendcl::sys::{self, aclrtMemMallocPolicy, aclrtMemcpyKind};
use ascendcl_benches::{BenchEnv, warm_up};
use criterion::{Criterion, criterion_group, criterion_main};

const COPY_BYTES: usize = 4096;

fn overhead(c: &mut Criterion) {
    let env = BenchEnv::open();
    let lib = env.rt.library();
    let raw_stream = env.stream.as_raw();
    let event = Event::new(&env.ctx).expect("event");
    let raw_event = event.as_raw();
    let host = vec![7u8; COPY_BYTES];
    let mut device = DeviceBuffer::<u8>::alloc(&env.ctx, COPY_BYTES).expect("buffer");
    let raw_device = device.as_device_ptr().cast_mut();
    // Raw calls act on the calling thread's current context.
    let _current = env.ctx.make_current().expect("bind");

    // Each op is measured raw then safe, back to back, so the two rows see
    // the same machine state. Each row returns the call's natural result
    // (criterion black-boxes it); the warm-up checks that the call succeeds.
    // Ops that queue work (event_record) are drained before the next row,
    // so the mock's stream worker does not compete with the next one.
    let stream = &env.stream;
    let drain = || stream.synchronize().expect("drain queued work");
    let mut group = c.benchmark_group("overhead");

    group.bench_function("raw/stream_query", |b| {
        let mut status = sys::aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED;
        // SAFETY: a live stream of the current context and a valid out-pointer.
        let mut op = || unsafe { lib.aclrtStreamQuery(raw_stream, &mut status) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    group.bench_function("safe/stream_query", |b| {
        warm_up(|| assert!(stream.query().is_ok()));
        b.iter(|| stream.query())
    });

    // Every sample starts from an empty queue: recording queues a marker that
    // the stream's worker runs concurrently, and a backlog would slow the
    // row that inherits it.
    let timed_from_empty = |iters: u64, op: &dyn Fn()| {
        drain();
        let start = Instant::now();
        (0..iters).for_each(|_| op());
        let elapsed = start.elapsed();
        drain();
        elapsed
    };
    group.bench_function("raw/event_record", |b| {
        // SAFETY: a live event and stream of the current context.
        let op = || unsafe { lib.aclrtRecordEvent(raw_event, raw_stream) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter_custom(|iters| timed_from_empty(iters, &|| assert_eq!(black_box(op()), Ok(0))))
    });
    group.bench_function("safe/event_record", |b| {
        warm_up(|| assert!(event.record(stream).is_ok()));
        b.iter_custom(|iters| {
            timed_from_empty(iters, &|| assert!(black_box(event.record(stream)).is_ok()))
        })
    });

    group.bench_function("raw/sync_h2d_copy_4k", |b| {
        let kind = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
        let (src, dst) = (host.as_ptr().cast(), raw_device);
        // SAFETY: `host` and the device buffer are both COPY_BYTES long and
        // live; nothing else uses them.
        let op = || unsafe { lib.aclrtMemcpy(dst, COPY_BYTES, src, COPY_BYTES, kind) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    group.bench_function("safe/sync_h2d_copy_4k", |b| {
        warm_up(|| assert!(device.copy_from_host(&host).is_ok()));
        b.iter(|| device.copy_from_host(&host))
    });

    group.bench_function("raw/malloc_free_4k", |b| {
        let policy = aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST;
        let op = || {
            let mut ptr: *mut c_void = std::ptr::null_mut();
            // SAFETY: valid out-pointer; the context is current.
            let code = unsafe { lib.aclrtMalloc(&mut ptr, COPY_BYTES, policy) }?;
            // SAFETY: the pointer just allocated, freed once.
            let freed = unsafe { lib.aclrtFree(ptr) }?;
            Ok::<_, sys::SymbolError>(code | freed)
        };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    group.bench_function("safe/malloc_free_4k", |b| {
        let op = || DeviceBuffer::<u8>::alloc(&env.ctx, COPY_BYTES).map(drop);
        warm_up(|| assert!(op().is_ok()));
        b.iter(op)
    });

    group.bench_function("raw/synchronize_idle_stream", |b| {
        // SAFETY: a live stream of the current context.
        let op = || unsafe { lib.aclrtSynchronizeStream(raw_stream) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    group.bench_function("safe/synchronize_idle_stream", |b| {
        warm_up(|| assert!(stream.synchronize().is_ok()));
        b.iter(|| stream.synchronize())
    });
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
