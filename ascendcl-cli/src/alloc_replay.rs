//! `ascendcl alloc-replay`: replays a ResNet-50 training allocation trace
//! (batch size varying from step to step, as real loaders do) through three
//! strategies on one device: raw `aclrtMalloc`/`aclrtFree`, the caching
//! allocator on fixed segments, and on expandable segments; then searches the
//! largest batch each strategy can train without running out of memory.
//!
//! ```text
//! ascendcl alloc-replay [--mock] [--json] [--dump-trace FILE]
//!     [--steps 20] [--seed 7] [--dtype fp32|fp16|bf16] [--no-max-batch]
//! ascendcl alloc-replay --trace FILE [--mock] [--json]
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
use clap::Args;

use crate::alloc_trace::{
    Dtype, Schedule, Trace, TrainConfig, max_batch_by_live_bytes, resnet50_trace,
};
use crate::progress::Progress;
use crate::replay::{Strategy, max_batch_before_oom, probe_trace, replay};

const EXIT_HELP: &str = "\
Exit status:
  0  every strategy replayed the trace
  2  usage error, or a trace file that cannot be read
  3  no AscendCL library (see `ascendcl doctor`; --mock runs on the bundled mock),
     a runtime call failed, or a strategy ran out of memory on the trace";

/// Replay a ResNet-50 allocation trace (or a recorded one) through three allocation strategies.
///
/// Replays a ResNet-50 training allocation trace (fp32 by default, the batch
/// varying 48-96 from step to step) through raw aclrtMalloc/aclrtFree, the
/// caching allocator on fixed segments and on expandable segments, on device
/// 0; then searches the largest batch each strategy trains without running
/// out of memory. Reports peak live and reserved bytes, the alloc+free
/// latency, maps, unmaps and out-of-memory retries.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct AllocReplayArgs {
    /// One JSON object per strategy (JSON lines) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Replay this recorded trace (JSON lines, e.g. from `train_resnet
    /// --record-trace`) instead of generating one; no batch search.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// Write the replayed trace to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub dump_trace: Option<String>,
    /// Training steps of the generated trace.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps: u32,
    /// Seed of the batch-size schedule.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Precision of the generated trace: fp32, fp16 or bf16 (autocast).
    #[arg(long, default_value = "fp32", value_parser = parse_dtype)]
    pub dtype: Dtype,
    /// Skip the largest-batch search (the slow part).
    #[arg(long)]
    pub no_max_batch: bool,
    /// Run on the mock bundled into this binary instead of this machine's AscendCL library.
    #[arg(long)]
    pub mock: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_dtype(name: &str) -> Result<Dtype, String> {
    Dtype::from_name(name).ok_or(format!("unknown dtype {name} (fp32, fp16, bf16)"))
}

/// The options [`run`] reads, from the command line.
struct Options {
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

/// Why the replay could not run.
enum Failure {
    /// The trace file cannot be read (exit status 2).
    Input(Box<dyn std::error::Error>),
    /// Anything else (exit status 3).
    Run(Box<dyn std::error::Error>),
}

impl<E: std::error::Error + 'static> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::Run(Box::new(error))
    }
}

/// Runs `ascendcl alloc-replay`: results on stdout, progress and errors on
/// stderr; returns the exit status.
pub fn main(args: &AllocReplayArgs) -> u8 {
    let options = Options {
        json: args.json,
        trace: args.trace.clone(),
        dump_trace: args.dump_trace.clone(),
        steps: args.steps as usize,
        seed: args.seed,
        dtype: args.dtype,
        max_batch: !args.no_max_batch,
        mock: args.mock,
        progress: Progress::new(!args.quiet),
    };
    match run(&options) {
        Ok(()) => crate::EXIT_OK,
        Err(Failure::Input(error)) => {
            eprintln!("error: {error}");
            crate::EXIT_USAGE
        }
        Err(Failure::Run(error)) => {
            eprintln!("error: {error}");
            crate::EXIT_FAILED
        }
    }
}

/// Reads the recorded trace at `path`.
fn read_trace(path: &str) -> Result<Trace, Failure> {
    let input = |e: &dyn std::fmt::Display| Failure::Input(format!("{path}: {e}").into());
    let file = std::fs::File::open(path).map_err(|e| input(&e))?;
    let trace = Trace::from_json_lines(std::io::BufReader::new(file)).map_err(|e| input(&e))?;
    trace.check().map_err(|e| input(&e))?;
    Ok(trace)
}

fn run(options: &Options) -> Result<(), Failure> {
    let recorded = match &options.trace {
        Some(path) => Some(read_trace(path)?),
        None => None,
    };
    let (rt, backend) = crate::backend::runtime(options.mock)?;
    let device = Device::open(&rt, 0)?;
    let total = device.memory_info()?.total;
    let config = TrainConfig {
        dtype: options.dtype,
        ..TrainConfig::default()
    };
    let schedule = Schedule::varying(options.seed, options.steps, 48, 96)?;
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
            return Err(Failure::Run(
                format!(
                    "{} ran out of memory on the varying-batch trace",
                    strategy.name()
                )
                .into(),
            ));
        }
        let max_batch = if max_batch_search {
            let high = live_limit + live_limit / 16;
            options.progress.step(&format!(
                "{}: searching the largest batch in 64..={high}",
                strategy.name()
            ));
            Some(max_batch_before_oom(&device, strategy, 64, high, |b| {
                options
                    .progress
                    .step(&format!("{}: batch {b}", strategy.name()));
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
