//! `ascendcl bench-report`: writes the benchmark report, `REPORT.md` (tables)
//! and `reserved_vs_live.svg` (reserved vs live bytes over the ResNet-50
//! replay, per strategy). Run through `scripts/report.sh`, which runs the
//! criterion benches first; alone it reports what criterion left in
//! `target/criterion`.
//!
//! ```text
//! ascendcl bench-report [--out DIR] [--criterion DIR] [--steps N] [--quick] [--mock]
//! ```

use std::path::PathBuf;

use clap::Args;

use super::{Options, write};
use crate::progress::Progress;

const EXIT_HELP: &str = "\
Takes a few minutes (the largest-batch searches); progress goes to stderr, the report to
stdout and to DIR.

Exit status:
  0  the report was written
  2  usage error
  3  no AscendCL library (see `ascendcl doctor`; --mock runs on the bundled mock),
     a runtime call failed, or the report could not be written";

/// Write the benchmark report (REPORT.md and an SVG plot) from criterion's results and fresh measurements.
///
/// Reads criterion's medians (run `cargo bench` first; scripts/report.sh
/// does), measures the safe layer's overhead with raw and safe calls
/// interleaved, replays the ResNet-50 allocation trace through every
/// allocation strategy with a largest-batch search, and writes REPORT.md and
/// reserved_vs_live.svg.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct BenchReportArgs {
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "target/report")]
    pub out: PathBuf,
    /// Where criterion left its results.
    #[arg(long, value_name = "DIR", default_value = "target/criterion")]
    pub criterion: PathBuf,
    /// Training steps of the replayed trace.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps: u32,
    /// A first look in seconds: 4 steps, 5 overhead rounds, no batch search (overrides --steps).
    #[arg(long)]
    pub quick: bool,
    /// Run on the mock bundled into this binary instead of this machine's AscendCL library.
    #[arg(long)]
    pub mock: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `ascendcl bench-report`; returns the exit status.
pub fn main(args: &BenchReportArgs) -> u8 {
    let options = Options {
        criterion_dir: args.criterion.clone(),
        out_dir: args.out.clone(),
        steps: if args.quick { 4 } else { args.steps as usize },
        max_batch: !args.quick,
        overhead_rounds: if args.quick { 5 } else { 31 },
        mock: args.mock,
        progress: Progress::new(!args.quiet),
    };
    match write(&options) {
        Ok(markdown) => {
            println!("{markdown}");
            println!("written: {}", options.out_dir.join("REPORT.md").display());
            println!(
                "written: {}",
                options.out_dir.join("reserved_vs_live.svg").display()
            );
            crate::EXIT_OK
        }
        Err(error) => {
            eprintln!("error: {error}");
            crate::EXIT_FAILED
        }
    }
}
