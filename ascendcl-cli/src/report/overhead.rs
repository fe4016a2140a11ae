//! The safe layer's overhead measured with raw and safe calls interleaved.
//!
//! Criterion measures `overhead/raw/<op>` and `overhead/safe/<op>` seconds
//! apart, and on a busy 2-core machine the drift between the two runs is
//! larger than the 2 % being measured. Here each op alternates blocks of raw
//! and safe calls many times and compares the medians of the blocks, so both
//! sides see the same machine state.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use ascendcl::prelude::*;
use ascendcl::sys::{aclrtMemMallocPolicy, aclrtMemcpyKind, aclrtStreamStatus};

/// Raw and safe medians of one op, in ns per call.
#[derive(Debug, Clone)]
pub struct Overhead {
    /// Op name, as in the criterion bench.
    pub op: &'static str,
    /// Median ns per raw call.
    pub raw_ns: f64,
    /// Median ns per safe call.
    pub safe_ns: f64,
}

impl Overhead {
    /// `safe / raw`.
    pub fn ratio(&self) -> f64 {
        self.safe_ns / self.raw_ns
    }
}

/// The median; NaN for no values (zero rounds).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Alternates `rounds` blocks of `calls` raw and safe calls; medians per call.
fn interleave(
    op: &'static str,
    rounds: usize,
    calls: usize,
    mut raw: impl FnMut(),
    mut safe: impl FnMut(),
) -> Overhead {
    let (mut r, mut s) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for _ in 0..calls {
        raw();
        safe();
    }
    for _ in 0..rounds {
        let start = Instant::now();
        (0..calls).for_each(|_| raw());
        r.push(start.elapsed().as_nanos() as f64 / calls as f64);
        let start = Instant::now();
        (0..calls).for_each(|_| safe());
        s.push(start.elapsed().as_nanos() as f64 / calls as f64);
    }
    Overhead {
        op,
        raw_ns: median(r),
        safe_ns: median(s),
    }
}

/// Measures the five ops of the overhead bench on `ctx`.
pub fn measure(ctx: &Context, rounds: usize, calls: usize) -> ascendcl::Result<Vec<Overhead>> {
    let lib = ctx.runtime().library();
    let stream = Stream::new(ctx)?;
    let event = Event::new(ctx)?;
    let host = vec![7u8; 4096];
    let mut device = DeviceBuffer::<u8>::alloc(ctx, 4096)?;
    let (raw_stream, raw_event, raw_device) = (
        stream.as_raw(),
        event.as_raw(),
        device.as_device_ptr().cast_mut(),
    );
    let _current = ctx.make_current()?;
    let mut out = Vec::new();
    out.push(interleave(
        "stream_query",
        rounds,
        calls,
        || {
            let mut status = aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED;
            // SAFETY: a live stream of the current context, a valid out-pointer.
            black_box(unsafe { lib.aclrtStreamQuery(raw_stream, &mut status) }.ok());
        },
        || {
            black_box(stream.query().ok());
        },
    ));
    out.push(interleave(
        "event_record",
        rounds,
        calls,
        || {
            // SAFETY: a live event and stream of the current context.
            black_box(unsafe { lib.aclrtRecordEvent(raw_event, raw_stream) }.ok());
        },
        || {
            black_box(event.record(&stream).ok());
        },
    ));
    stream.synchronize()?;
    let (src, kind) = (
        host.as_ptr().cast::<c_void>(),
        aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
    );
    let copy_raw = || {
        // SAFETY: both buffers are 4096 bytes, live, and used by nothing else.
        black_box(unsafe { lib.aclrtMemcpy(raw_device, 4096, src, 4096, kind) }.ok());
    };
    let mut safe_copy = || {
        black_box(device.copy_from_host(&host).ok());
    };
    out.push(interleave(
        "sync_h2d_copy_4k",
        rounds,
        calls,
        copy_raw,
        &mut safe_copy,
    ));
    out.push(interleave(
        "malloc_free_4k",
        rounds,
        calls,
        || {
            let mut ptr: *mut c_void = std::ptr::null_mut();
            // SAFETY: valid out-pointer; the context is current.
            let _ = unsafe {
                lib.aclrtMalloc(
                    &mut ptr,
                    4096,
                    aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST,
                )
            };
            // SAFETY: the pointer just allocated (or null, which is rejected), freed once.
            let _ = unsafe { lib.aclrtFree(ptr) };
        },
        || {
            black_box(DeviceBuffer::<u8>::alloc(ctx, 4096).ok());
        },
    ));
    out.push(interleave(
        "synchronize_idle_stream",
        rounds,
        calls,
        || {
            // SAFETY: a live stream of the current context.
            black_box(unsafe { lib.aclrtSynchronizeStream(raw_stream) }.ok());
        },
        || {
            black_box(stream.synchronize().ok());
        },
    ));
    Ok(out)
}
