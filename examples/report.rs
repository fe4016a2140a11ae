//! Writes the benchmark report: `REPORT.md` (tables) and
//! `reserved_vs_live.svg` (reserved vs live bytes over the ResNet-50 replay,
//! per strategy). Run through `scripts/report.sh`, which runs the criterion
//! benches first; alone it reports what criterion left in `target/criterion`.
//!
//! `cargo run --release --example report -- [--out DIR] [--steps N] [--quick]`

use std::path::PathBuf;
use std::process::ExitCode;

use ascendcl_examples::report::{Options, write};

fn main() -> ExitCode {
    let mut options = Options {
        criterion_dir: PathBuf::from("target/criterion"),
        out_dir: PathBuf::from("target/report"),
        steps: 20,
        max_batch: true,
        overhead_rounds: 31,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--out", Some(dir)) => options.out_dir = PathBuf::from(dir),
            ("--criterion", Some(dir)) => options.criterion_dir = PathBuf::from(dir),
            ("--steps", Some(n)) => match n.parse() {
                Ok(n) if n > 0 => options.steps = n,
                _ => return usage(&format!("--steps {n}: expected a positive number")),
            },
            ("--quick", next) => {
                options.max_batch = false;
                options.overhead_rounds = 5;
                options.steps = 4;
                if let Some(next) = next {
                    return usage(&format!("unexpected argument {next}"));
                }
            }
            (other, _) => return usage(&format!("unknown or incomplete argument {other}")),
        }
    }
    match write(&options) {
        Ok(markdown) => {
            println!("{markdown}");
            println!("written: {}", options.out_dir.join("REPORT.md").display());
            println!(
                "written: {}",
                options.out_dir.join("reserved_vs_live.svg").display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "error: {message}\nusage: report [--out DIR] [--criterion DIR] [--steps N] [--quick]"
    );
    ExitCode::from(2)
}
