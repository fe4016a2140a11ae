//! The cost of the safe layer: the same operations through the raw
//! `ascendcl-sys` call (`overhead/raw/<op>`) and through `ascendcl`
//! (`overhead/safe/<op>`). Target: safe/raw ≤ 1.02 (median) for every op.
//!
//! `cargo bench --bench overhead`. Compare the two rows of an op from the
//! same run; on the mock they measure the binding layer, not an NPU.

use std::ffi::c_void;

use ascendcl::prelude::*;
use ascendcl::sys::{self, aclrtMemMallocPolicy, aclrtMemcpyKind};
use ascendcl_examples::bench::{BenchEnv, warm_up};
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

    // Each row returns the call's natural result (criterion black-boxes it);
    // the warm-up checks that the call succeeds.
    let mut raw = c.benchmark_group("overhead/raw");
    raw.bench_function("stream_query", |b| {
        let mut status = sys::aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED;
        // SAFETY: a live stream of the current context and a valid out-pointer.
        let mut op = || unsafe { lib.aclrtStreamQuery(raw_stream, &mut status) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    raw.bench_function("event_record", |b| {
        // SAFETY: a live event and stream of the current context.
        let op = || unsafe { lib.aclrtRecordEvent(raw_event, raw_stream) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    raw.bench_function("sync_h2d_copy_4k", |b| {
        let kind = aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE;
        let (src, dst) = (host.as_ptr().cast(), raw_device);
        // SAFETY: `host` and the device buffer are both COPY_BYTES long and
        // live; nothing else uses them.
        let op = || unsafe { lib.aclrtMemcpy(dst, COPY_BYTES, src, COPY_BYTES, kind) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    raw.bench_function("malloc_free_4k", |b| {
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
    raw.bench_function("synchronize_idle_stream", |b| {
        // SAFETY: a live stream of the current context.
        let op = || unsafe { lib.aclrtSynchronizeStream(raw_stream) };
        warm_up(|| assert_eq!(op(), Ok(0)));
        b.iter(op)
    });
    raw.finish();

    let mut safe = c.benchmark_group("overhead/safe");
    let stream = &env.stream;
    safe.bench_function("stream_query", |b| {
        warm_up(|| assert!(stream.query().is_ok()));
        b.iter(|| stream.query())
    });
    safe.bench_function("event_record", |b| {
        warm_up(|| assert!(event.record(stream).is_ok()));
        b.iter(|| event.record(stream))
    });
    safe.bench_function("sync_h2d_copy_4k", |b| {
        warm_up(|| assert!(device.copy_from_host(&host).is_ok()));
        b.iter(|| device.copy_from_host(&host))
    });
    safe.bench_function("malloc_free_4k", |b| {
        let op = || DeviceBuffer::<u8>::alloc(&env.ctx, COPY_BYTES).map(drop);
        warm_up(|| assert!(op().is_ok()));
        b.iter(op)
    });
    safe.bench_function("synchronize_idle_stream", |b| {
        warm_up(|| assert!(stream.synchronize().is_ok()));
        b.iter(|| stream.synchronize())
    });
    safe.finish();
    env.stream.synchronize().expect("drain the recorded events");
}

criterion_group!(benches, overhead);
criterion_main!(benches);
