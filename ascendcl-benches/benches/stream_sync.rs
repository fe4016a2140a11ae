//! Synchronization latency: an idle stream, a stream after N queued copies,
//! and waiting for an event versus the whole stream.
//!
//! `cargo bench --bench stream_sync`. On the mock the queued copies run on a
//! worker thread with no modelled transfer time, so the numbers show the
//! cost of the hand-off, not of an NPU's DMA engines.

use std::hint::black_box;

use ascendcl::prelude::*;
use ascendcl_benches::{BenchEnv, warm_up};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const COPY_ELEMENTS: usize = 1024;

fn stream_sync(c: &mut Criterion) {
    let env = BenchEnv::open();
    let stream = &env.stream;
    let input = HostBuffer::from_slice(&env.ctx, &[1u32; COPY_ELEMENTS]).expect("pinned input");
    let mut device = DeviceBuffer::<u32>::alloc(&env.ctx, COPY_ELEMENTS).expect("device buffer");
    let raw = env.stream.as_raw();
    let lib = env.rt.library();
    let _current = env.ctx.make_current().expect("bind");

    // Raw queuing keeps the bench about synchronization, not about Pending
    // bookkeeping (a Pending waits when dropped).
    let queue_copy = || {
        // SAFETY: both buffers are COPY_ELEMENTS u32 long and stay alive
        // until the synchronize that follows every call.
        let code = unsafe {
            lib.aclrtMemcpyAsync(
                device.as_device_ptr().cast_mut(),
                COPY_ELEMENTS * 4,
                input.as_ptr().cast(),
                COPY_ELEMENTS * 4,
                ascendcl::sys::aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
                raw,
            )
        };
        assert_eq!(code.expect("symbol"), 0);
    };

    let mut group = c.benchmark_group("stream_sync");
    group.bench_function("idle_stream", |b| {
        warm_up(|| stream.synchronize().expect("sync"));
        b.iter(|| stream.synchronize().expect("sync"))
    });
    for queued in [1usize, 8, 64] {
        group.bench_with_input(
            BenchmarkId::new("after_queued_copies", queued),
            &queued,
            |b, &queued| {
                let round = || {
                    (0..queued).for_each(|_| queue_copy());
                    stream.synchronize().expect("sync");
                };
                warm_up(round);
                b.iter(round)
            },
        );
    }
    let event = Event::with_flags(&env.ctx, EventFlags::SYNC).expect("event");
    group.bench_function("event_sync_after_copy", |b| {
        let round = || {
            queue_copy();
            event.record(stream).expect("record");
            event.synchronize().expect("event sync");
        };
        warm_up(round);
        b.iter(round)
    });
    group.bench_function("stream_sync_after_copy", |b| {
        let round = || {
            queue_copy();
            stream.synchronize().expect("sync");
        };
        warm_up(round);
        b.iter(round)
    });
    group.finish();
    black_box(&mut device);
}

criterion_group!(benches, stream_sync);
criterion_main!(benches);
