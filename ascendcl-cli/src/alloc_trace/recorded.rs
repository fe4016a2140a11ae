//! Traces recorded from a real program's caching allocator
//! ([`CachingAllocator::start_recording`](ascendcl::alloc::CachingAllocator::start_recording)),
//! in the same form as the generated ResNet-50 trace, so `ascendcl alloc-replay` can
//! replay either.

use ascendcl::alloc::{Request, RequestKind};

use super::{Dtype, GradMode, OpKind, Optimizer, Trace, TraceMeta, TraceOp};

/// Builds a trace from recorded requests. Step 0 is setup: what it
/// allocates and the program frees only at the end is persistent. Streams
/// are numbered in order of first use (a third and later stream count as
/// the second). `batch` is the batch size of every step.
pub fn from_requests(model: &str, requests: &[Request], batch: u32) -> Trace {
    let mut streams: Vec<u64> = Vec::new();
    let mut stream_index = |s: u64| -> u32 {
        match streams.iter().position(|&x| x == s) {
            Some(i) => i.min(1) as u32,
            None => {
                streams.push(s);
                (streams.len() - 1).min(1) as u32
            }
        }
    };
    let ops: Vec<TraceOp> = requests
        .iter()
        .map(|r| TraceOp {
            step: r.step,
            kind: match r.kind {
                RequestKind::Alloc => OpKind::Alloc,
                RequestKind::Free => OpKind::Free,
            },
            id: r.id,
            bytes: r.bytes,
            stream: stream_index(r.stream),
        })
        .collect();
    let last_step = ops.iter().map(|op| op.step).max().unwrap_or(0);
    let persistent = ops
        .iter()
        .filter(|op| op.kind == OpKind::Alloc && op.step == 0)
        .map(|op| op.id)
        .collect();
    Trace {
        ops,
        meta: TraceMeta {
            model: model.to_string(),
            dtype: Dtype::Fp32,
            optimizer: Optimizer::SgdMomentum,
            grads: GradMode::Keep,
            batches: vec![batch; last_step as usize + 1],
            persistent,
        },
    }
}
