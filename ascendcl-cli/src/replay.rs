//! Replaying an allocation trace through an allocation strategy on a device.
//!
//! Four strategies are compared on the same [`Trace`]:
//!
//! * [`Strategy::Raw`]: one `aclrtMalloc`/`aclrtFree` per tensor (no cache);
//!   reserved memory is what the device reports as used;
//! * [`Strategy::Segments`]: the caching allocator on fixed segments with
//!   torch_npu's policy, rule for rule (the baseline: what torch_npu does);
//! * [`Strategy::SegmentsExactCache`]: the same plus this crate's exact-size
//!   cache of recently freed blocks;
//! * [`Strategy::Expandable`]: the caching allocator on expandable segments.
//!
//! The replay times every allocation and every free, samples reserved and
//! live bytes, and stops at the first out-of-memory error.

use std::collections::HashMap;
use std::time::Instant;

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator, DEFAULT_EXACT_SIZE_CACHE};
use ascendcl::{Context, Device, DeviceBuffer, Error, Stream};

use crate::alloc_trace::{OpKind, Schedule, Trace, TrainConfig, resnet50_trace};

/// An allocation strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// `aclrtMalloc` / `aclrtFree` per tensor.
    Raw,
    /// Caching allocator, fixed segments, torch_npu's policy.
    Segments,
    /// Fixed segments with the exact-size cache on top of torch_npu's policy.
    SegmentsExactCache,
    /// Caching allocator, expandable segments with 2 MiB pages.
    Expandable,
}

impl Strategy {
    /// Every strategy, in report order.
    pub const ALL: [Strategy; 4] = [
        Strategy::Raw,
        Strategy::Segments,
        Strategy::SegmentsExactCache,
        Strategy::Expandable,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Raw => "raw_aclrtMalloc",
            Strategy::Segments => "fixed_segments",
            Strategy::SegmentsExactCache => "fixed+exact_cache",
            Strategy::Expandable => "expandable_segments",
        }
    }
}

/// What one replay measured.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Whether the whole trace ran (false: out of memory at `failed_at`).
    pub completed: bool,
    /// Index of the op that ran out of memory.
    pub failed_at: Option<usize>,
    /// Peak of the bytes the trace holds live.
    pub peak_live_bytes: u64,
    /// Peak of the bytes held from the device.
    pub peak_reserved_bytes: u64,
    /// Nanoseconds of each alloc+free pair (alloc time + free time of one tensor).
    pub pair_ns: Vec<u64>,
    /// `aclrtMapMem` calls.
    pub maps: u64,
    /// `aclrtUnmapMem` calls.
    pub unmaps: u64,
    /// Out-of-memory recoveries (cache released, allocation retried).
    pub oom_retries: u64,
    /// `(live, reserved)` bytes sampled every `sample_every` ops.
    pub series: Vec<(u64, u64)>,
}

impl Outcome {
    /// `peak_reserved / peak_live`.
    pub fn reserved_over_live(&self) -> f64 {
        if self.peak_live_bytes == 0 {
            0.0
        } else {
            self.peak_reserved_bytes as f64 / self.peak_live_bytes as f64
        }
    }

    /// A percentile (0–100; values outside are clamped) of the alloc+free
    /// pair latency, in ns; 0 when nothing was timed.
    pub fn pair_percentile(&self, p: f64) -> u64 {
        let p = p.clamp(0.0, 100.0);
        let mut sorted = self.pair_ns.clone();
        sorted.sort_unstable();
        match sorted.len() {
            0 => 0,
            n => sorted[((n - 1) as f64 * p / 100.0).round() as usize],
        }
    }
}

/// A live tensor of the replay; only ever dropped (that is the free).
#[allow(dead_code)]
enum Live {
    Raw(DeviceBuffer<u8>),
    Cached(Block<u8>),
}

/// Replays `trace` with `strategy` on `device`, sampling every
/// `sample_every` ops (0: no series).
///
/// The trace need not pass [`Trace::check`]: a free of an id that is not
/// live is skipped, an id allocated again frees its previous buffer, and
/// live bytes count what was allocated, whatever a free says.
pub fn replay(
    device: &Device,
    trace: &Trace,
    strategy: Strategy,
    sample_every: usize,
) -> ascendcl::Result<Outcome> {
    let ctx = device.default_context();
    let streams = [Stream::new(&ctx)?, Stream::new(&ctx)?];
    let allocator = match strategy {
        Strategy::Raw => None,
        Strategy::Segments => Some(CachingAllocator::new(&ctx, AllocatorConfig::segments())?),
        Strategy::SegmentsExactCache => Some(CachingAllocator::new(
            &ctx,
            AllocatorConfig::segments().with_exact_size_cache(DEFAULT_EXACT_SIZE_CACHE),
        )?),
        Strategy::Expandable => Some(CachingAllocator::new(&ctx, AllocatorConfig::expandable())?),
    };
    let total = device.memory_info()?.total as u64;
    // Bytes the device reports in use beyond what was in use at the start
    // (saturating: other processes may free memory meanwhile).
    let baseline_used = total.saturating_sub(device.memory_info()?.free as u64);
    let used_since_start = || -> ascendcl::Result<u64> {
        let used = total.saturating_sub(device.memory_info()?.free as u64);
        Ok(used.saturating_sub(baseline_used))
    };
    let mut outcome = Outcome {
        completed: true,
        ..Outcome::default()
    };
    // id -> (buffer, ns its allocation took, bytes allocated).
    let mut live: HashMap<u64, (Live, u64, u64)> = HashMap::with_capacity(4096);
    let mut live_bytes = 0u64;
    for (index, op) in trace.ops.iter().enumerate() {
        match op.kind {
            OpKind::Alloc => {
                let stream = &streams[(op.stream as usize).min(1)];
                let start = Instant::now();
                let result = alloc(&ctx, allocator.as_ref(), stream, op.bytes as usize);
                let elapsed = start.elapsed().as_nanos() as u64;
                match result {
                    Ok(buffer) => {
                        live_bytes = live_bytes.saturating_add(op.bytes);
                        if let Some((_, _, replaced)) =
                            live.insert(op.id, (buffer, elapsed, op.bytes))
                        {
                            live_bytes -= replaced;
                        }
                    }
                    Err(error) if error.is_out_of_memory() => {
                        outcome.completed = false;
                        outcome.failed_at = Some(index);
                        break;
                    }
                    Err(error) => return Err(error),
                }
            }
            OpKind::Free => {
                if let Some((buffer, alloc_ns, bytes)) = live.remove(&op.id) {
                    let start = Instant::now();
                    drop(buffer);
                    outcome
                        .pair_ns
                        .push(alloc_ns + start.elapsed().as_nanos() as u64);
                    live_bytes -= bytes;
                }
            }
        }
        outcome.peak_live_bytes = outcome.peak_live_bytes.max(live_bytes);
        if strategy == Strategy::Raw && op.kind == OpKind::Alloc {
            outcome.peak_reserved_bytes = outcome.peak_reserved_bytes.max(used_since_start()?);
        }
        if sample_every > 0 && index % sample_every == 0 {
            let reserved = match &allocator {
                Some(a) => a.reserved_bytes() as u64,
                None => used_since_start()?,
            };
            outcome.series.push((live_bytes, reserved));
        }
    }
    drop(live);
    if let Some(allocator) = &allocator {
        let stats = allocator.stats();
        outcome.peak_reserved_bytes = stats.reserved.peak as u64;
        outcome.maps = stats.maps;
        outcome.unmaps = stats.unmaps;
        outcome.oom_retries = stats.oom_retries;
        allocator.empty_cache()?;
    }
    for stream in &streams {
        stream.synchronize()?;
    }
    Ok(outcome)
}

fn alloc(
    ctx: &Context,
    allocator: Option<&CachingAllocator>,
    stream: &Stream,
    bytes: usize,
) -> ascendcl::Result<Live> {
    match allocator {
        None => DeviceBuffer::<u8>::alloc(ctx, bytes).map(Live::Raw),
        Some(allocator) => allocator.alloc::<u8>(stream, bytes).map(Live::Cached),
    }
}

/// The largest batch `b` for which `make_trace(b)` replays without running
/// out of memory, searched between `low` (must fit) and `high`.
///
/// # Errors
/// [`Error::InvalidArgument`] if `high` is below `low`,
/// [`Error::InvalidState`] if `low` does not fit, and any replay error.
pub fn max_batch_before_oom(
    device: &Device,
    strategy: Strategy,
    low: u32,
    high: u32,
    make_trace: impl Fn(u32) -> Trace,
) -> ascendcl::Result<u32> {
    if high < low {
        return Err(Error::InvalidArgument(format!(
            "batch search range {low}..={high} is empty"
        )));
    }
    let fits = |batch: u32| -> ascendcl::Result<bool> {
        Ok(replay(device, &make_trace(batch), strategy, 0)?.completed)
    };
    if !fits(low)? {
        return Err(Error::InvalidState(format!(
            "{} runs out of memory already at batch {low}",
            strategy.name()
        )));
    }
    // good fits, bad does not (or is past `high`); u64 so `high + 1` cannot overflow.
    let (mut good, mut bad) = (u64::from(low), u64::from(high) + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        // mid < bad <= high + 1, so it fits in a u32.
        if fits(mid as u32)? {
            good = mid
        } else {
            bad = mid
        }
    }
    Ok(good as u32)
}

/// The trace that probes a batch size: three varying steps below `batch` (so
/// a cache has seen other shapes), then one step at it. A batch of 0 probes
/// nothing: its trace is empty.
pub fn probe_trace(batch: u32, seed: u64, config: &TrainConfig) -> Trace {
    // Both schedules are valid for any batch of at least 1; batch 0 fails
    // the first (an empty range 1..=0) and gets the empty schedule.
    let schedule = Schedule::varying(seed ^ u64::from(batch), 3, (batch / 2).max(1), batch)
        .and_then(|warmup| {
            let mut batches = warmup.batches().to_vec();
            batches.push(batch);
            Schedule::from_batches(batches)
        })
        .unwrap_or_default();
    resnet50_trace(&schedule, config)
}
