//! Shared setup of the criterion benches of the ascendcl crates
//! (`benches/`: `cargo bench` at the workspace root, or `scripts/report.sh`).
//!
//! The benches are a package of their own so that criterion is built only
//! for them, not for every example of the root package.
//!
//! Every bench runs on the device when CANN is found and on the mock
//! otherwise (the mock's numbers measure this crate's overhead and the
//! allocator's bookkeeping, not an NPU). Before measuring, each bench runs its
//! operation [`WARMUP_ITERATIONS`] times: on a card, CANN tunes operators and
//! fills its internal pools during the first hundreds of calls, and the first
//! calls of any kind pay for lazy symbol resolution and context binding.
//! Criterion's own warm-up then runs on top of that.

pub mod allocs;
pub mod calls;
pub mod example_args;
pub mod mlp_step;
pub mod raw_mlp;
pub mod raw_ops;
pub mod repeatable;
pub mod rows;
pub mod step_timing;

use ascendcl::{Context, Device, Runtime, Stream};

/// Iterations run before measuring.
pub const WARMUP_ITERATIONS: usize = 500;

/// What a bench needs: the runtime, device 0, its context and a stream.
#[derive(Debug)]
pub struct BenchEnv {
    /// The runtime.
    pub rt: Runtime,
    /// Device 0.
    pub device: Device,
    /// Its default context.
    pub ctx: Context,
    /// A stream of that context.
    pub stream: Stream,
    /// Which library the numbers come from.
    pub backend: ascendcl::Backend,
}

impl BenchEnv {
    /// Opens device 0 on the device or the mock, and prints the backend.
    ///
    /// # Panics
    /// When no backend can be opened: a bench has nothing to measure then.
    pub fn open() -> BenchEnv {
        let (rt, backend) =
            ascendcl_examples::runtime().unwrap_or_else(|e| panic!("no AscendCL backend: {e}"));
        eprintln!("backend: {backend}");
        let device = Device::open(&rt, 0).unwrap_or_else(|e| panic!("device 0: {e}"));
        let ctx = device.default_context();
        let stream = Stream::new(&ctx).unwrap_or_else(|e| panic!("stream: {e}"));
        BenchEnv {
            rt,
            device,
            ctx,
            stream,
            backend,
        }
    }
}

/// Runs `op` [`WARMUP_ITERATIONS`] times.
pub fn warm_up(mut op: impl FnMut()) {
    for _ in 0..WARMUP_ITERATIONS {
        op();
    }
}
