//! `ascendcl alloc-replay`: replays a ResNet-50 training allocation trace
//! (batch size varying from step to step, as real loaders do) through the
//! four strategies of [`Strategy::ALL`](crate::replay::Strategy::ALL) on one
//! device: raw `aclrtMalloc`/`aclrtFree`, the caching allocator on fixed
//! segments with torch_npu's policy, the same with the exact-size cache, and
//! on expandable segments; then searches the largest batch each strategy can
//! train without running out of memory.
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

mod run;

use clap::Args;

use crate::alloc_trace::{Dtype, Trace};

const EXIT_HELP: &str = "\
Exit status:
  0  every strategy replayed the trace
  2  usage error, or a trace file that cannot be read
  3  no AscendCL library (see `ascendcl doctor`; --mock runs on the bundled mock),
     a runtime call failed, or a strategy ran out of memory on the trace";

/// Replay a ResNet-50 allocation trace (or a recorded one) through four allocation strategies.
///
/// Replays a ResNet-50 training allocation trace (fp32 by default, the batch
/// varying 48-96 from step to step) on device 0 through four strategies:
/// raw_aclrtMalloc (aclrtMalloc/aclrtFree per tensor), fixed_segments (the
/// caching allocator on fixed segments, torch_npu's policy),
/// fixed+exact_cache (the same with the exact-size cache) and
/// expandable_segments (expandable segments, 2 MiB pages); then searches the
/// largest batch each strategy trains without running out of memory. Reports
/// peak live and reserved bytes, the alloc+free latency, maps, unmaps and
/// out-of-memory retries.
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

/// A recorded trace that cannot be used: a missing or malformed file, or a
/// trace that breaks the lifetime rules ([`Trace::check`]). Exit status 2.
#[derive(Debug)]
pub struct InputError(String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Reads and checks the recorded trace at `path`.
fn read_trace(path: &str) -> Result<Trace, InputError> {
    let input = |e: &dyn std::fmt::Display| InputError(format!("{path}: {e}"));
    let file = std::fs::File::open(path).map_err(|e| input(&e))?;
    let trace = Trace::from_json_lines(std::io::BufReader::new(file)).map_err(|e| input(&e))?;
    trace.check().map_err(|e| input(&e))?;
    Ok(trace)
}

/// Runs `ascendcl alloc-replay`: results on stdout, progress and errors on
/// stderr; returns the exit status.
pub fn main(args: &AllocReplayArgs) -> u8 {
    match run::run(&run::Options::new(args)) {
        Ok(()) => crate::EXIT_OK,
        Err(error) => {
            eprintln!("error: {error}");
            if error.is::<InputError>() {
                crate::EXIT_USAGE
            } else {
                crate::EXIT_FAILED
            }
        }
    }
}
