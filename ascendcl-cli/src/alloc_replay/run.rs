//! What `ascendcl alloc-replay` runs: replays a ResNet-50 training allocation trace (batch size varying from
//! step to step, as real loaders do) through four strategies on one device
//! ([`Strategy::ALL`]):
//! raw `aclrtMalloc`/`aclrtFree`, the caching allocator on fixed segments
//! with torch_npu's policy (the baseline), the same with the exact-size
//! cache, and on expandable segments; then searches the largest batch each strategy
//! can train without running out of memory.
//!
//! ```text
//! ascendcl alloc-replay [--mock] --json [--dump-trace FILE]
//!     [--steps 20] [--seed 7] [--dtype fp32|fp16|bf16] [--no-max-batch]
//! ascendcl alloc-replay [--mock] --trace FILE [--json]
//! ```
//!
//! `--trace FILE` replays a recorded trace instead (e.g. the one
//! `train_resnet --record-trace FILE` writes from its own allocator), with
//! no batch search.
//!
//! One JSON object per strategy with `--json`, a table otherwise. On the
//! mock the device is a 64 GB card (60.96 GiB usable); on an Atlas card it is
//! whatever the card reports. The batch searches take seconds to minutes:
//! their progress goes to stderr.

use ascendcl::Device;

use crate::alloc_trace::{Dtype, Schedule, TrainConfig, max_batch_by_live_bytes, resnet50_trace};
use crate::progress::Progress;
use crate::replay::{Strategy, max_batch_before_oom, probe_trace, replay};

/// The options [`run`] reads, from the command line (`super::AllocReplayArgs`).
pub(super) struct Options {
    json: bool,
    trace: Option<String>,
    dump_trace: Option<String>,
    steps: usize,
    seed: u64,
    dtype: Dtype,
    max_batch: bool,
    mock: bool,
    progress: Progress,
}

impl Options {
    pub(super) fn new(args: &super::AllocReplayArgs) -> Options {
        Options {
            json: args.json,
            trace: args.trace.clone(),
            dump_trace: args.dump_trace.clone(),
            steps: args.steps as usize,
            seed: args.seed,
            dtype: args.dtype,
            max_batch: !args.no_max_batch,
            mock: args.mock,
            progress: Progress::new(!args.quiet),
        }
    }
}

/// Runs the replays and prints their results; errors reading the recorded
/// trace are [`super::InputError`]s.
pub(super) fn run(options: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let (rt, backend) = crate::backend::runtime(options.mock)?;
    let device = Device::open(&rt, 0)?;
    let total = device.memory_info()?.total;
    let config = TrainConfig {
        dtype: options.dtype,
        ..TrainConfig::default()
    };
    let schedule = Schedule::varying(options.seed, options.steps, 48, 96)?;
    let recorded = match &options.trace {
        Some(path) => Some(super::read_trace(path)?),
        None => None,
    };
    let max_batch_search = options.max_batch && recorded.is_none();
    let trace = match recorded {
        Some(trace) => trace,
        None => resnet50_trace(&schedule, &config),
    };
    if let Some(path) = &options.dump_trace {
        trace.to_json_lines(std::io::BufWriter::new(std::fs::File::create(path)?))?;
    }
    let live_limit = max_batch_by_live_bytes(total as u64, &config);
    // A recorded trace has its own steps and no batch-size model.
    let (steps, live_limit_json) = match &options.trace {
        Some(_) => (
            trace.meta.batches.len().saturating_sub(1),
            "null".to_string(),
        ),
        None => (options.steps, live_limit.to_string()),
    };
    if !options.json {
        println!("backend: {backend}");
        if options.trace.is_some() {
            println!(
                "trace: recorded from {}, {} steps, {} ops, peak live {} KiB",
                trace.meta.model,
                trace.meta.batches.len(),
                trace.ops.len(),
                trace.peak_live_bytes() >> 10
            );
        } else {
            println!(
                "trace: ResNet-50 {:?}, {} steps, batches {:?}…, {} ops; HBM {:.2} GiB; live bytes allow batch {live_limit}",
                options.dtype,
                options.steps,
                &schedule.batches()[..schedule.steps().min(6)],
                trace.ops.len(),
                total as f64 / (1u64 << 30) as f64
            );
        }
        println!(
            "{:<20} {:>14} {:>16} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>6}",
            "strategy",
            "peak live GiB",
            "peak reserved GiB",
            "res/live",
            "max batch",
            "p50 ns",
            "p99 ns",
            "maps",
            "unmaps",
            "OOMr"
        );
    }
    for strategy in Strategy::ALL {
        options
            .progress
            .step(&format!("replaying {}", strategy.name()));
        let outcome = replay(&device, &trace, strategy, 0)?;
        if !outcome.completed {
            return Err(format!(
                "{} ran out of memory on the varying-batch trace",
                strategy.name()
            )
            .into());
        }
        let max_batch = if max_batch_search {
            let high = live_limit + live_limit / 16;
            let name = strategy.name();
            options
                .progress
                .step(&format!("{name}: largest batch in 64..={high}"));
            Some(max_batch_before_oom(&device, strategy, 64, high, |b| {
                options.progress.step(&format!("{name}: trying batch {b}"));
                probe_trace(b, options.seed, &config)
            })?)
        } else {
            None
        };
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let (p50, p99) = (outcome.pair_percentile(50.0), outcome.pair_percentile(99.0));
        if options.json {
            println!(
                "{{\"strategy\":\"{}\",\"backend\":\"{}\",\"dtype\":\"{:?}\",\"steps\":{},\"peak_live_bytes\":{},\
                 \"peak_reserved_bytes\":{},\"reserved_over_live\":{:.4},\"max_batch_before_oom\":{},\
                 \"max_batch_by_live_bytes\":{},\"alloc_free_p50_ns\":{},\"alloc_free_p99_ns\":{},\
                 \"maps\":{},\"unmaps\":{},\"oom_retries\":{}}}",
                strategy.name(),
                if rt.is_mock() { "mock" } else { "device" },
                options.dtype,
                steps,
                outcome.peak_live_bytes,
                outcome.peak_reserved_bytes,
                outcome.reserved_over_live(),
                max_batch.map_or("null".to_string(), |b| b.to_string()),
                live_limit_json,
                p50,
                p99,
                outcome.maps,
                outcome.unmaps,
                outcome.oom_retries
            );
        } else {
            println!(
                "{:<20} {:>14.3} {:>16.3} {:>9.4} {:>9} {:>9} {:>9} {:>8} {:>8} {:>6}",
                strategy.name(),
                gib(outcome.peak_live_bytes),
                gib(outcome.peak_reserved_bytes),
                outcome.reserved_over_live(),
                max_batch.map_or("-".to_string(), |b| b.to_string()),
                p50,
                p99,
                outcome.maps,
                outcome.unmaps,
                outcome.oom_retries
            );
        }
    }
    Ok(())
}
