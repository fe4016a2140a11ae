//! The benchmark report: one markdown file and one SVG plot.
//!
//! `scripts/report.sh` runs the criterion benches and then `ascendcl
//! bench-report` ([`command`]), which calls [`write()`](fn@write): it reads criterion's medians, measures the
//! safe layer's overhead interleaved with raw calls, replays the ResNet-50
//! allocation trace through every strategy, and writes `REPORT.md` and
//! `reserved_vs_live.svg` into the output directory.

pub mod command;
pub mod criterion;
pub mod overhead;
pub mod svg;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ascendcl::Device;

use crate::alloc_trace::{Schedule, TrainConfig, max_batch_by_live_bytes, resnet50_trace};
use crate::replay::{Outcome, Strategy, max_batch_before_oom, probe_trace, replay};

/// What to put in the report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where criterion left its results (`target/criterion`).
    pub criterion_dir: PathBuf,
    /// Output directory.
    pub out_dir: PathBuf,
    /// Training steps of the replayed trace.
    pub steps: usize,
    /// Whether to search the largest batch per strategy (a few seconds).
    pub max_batch: bool,
    /// Rounds of the interleaved overhead measurement.
    pub overhead_rounds: usize,
    /// Run on the bundled mock instead of this machine's library.
    pub mock: bool,
    /// Where progress goes (stderr, unless quiet).
    pub progress: crate::progress::Progress,
}

const GIB: f64 = (1u64 << 30) as f64;

/// Writes the report; returns the markdown.
pub fn write(options: &Options) -> Result<String, Box<dyn std::error::Error>> {
    let (rt, backend) = crate::backend::runtime(options.mock)?;
    options.progress.step(&format!("backend: {backend}"));
    let device = Device::open(&rt, 0)?;
    let mut md = String::new();
    writeln!(md, "# ascendcl benchmark report\n")?;
    writeln!(
        md,
        "Backend: **{backend}**. {}\n",
        if rt.is_mock() {
            "These numbers come from the behavioural mock: they measure the bindings and the allocator's \
             bookkeeping on this machine, not an NPU. Record device numbers on an Atlas card with the same command."
        } else {
            "Measured on a device."
        }
    )?;
    overhead_section(&mut md, &device, options)?;
    criterion_section(&mut md, &options.criterion_dir)?;
    replay_section(&mut md, &device, options)?;
    std::fs::create_dir_all(&options.out_dir)?;
    std::fs::write(options.out_dir.join("REPORT.md"), &md)?;
    Ok(md)
}

fn overhead_section(
    md: &mut String,
    device: &Device,
    options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    options.progress.step(&format!(
        "safe layer overhead: {} interleaved rounds",
        options.overhead_rounds
    ));
    let rows = overhead::measure(&device.default_context(), options.overhead_rounds, 5_000)?;
    writeln!(md, "## Safe layer overhead (interleaved)\n")?;
    writeln!(
        md,
        "Median ns per call over {} alternating blocks of 5000 raw and 5000 safe calls (target: safe/raw ≤ 1.02).\n",
        options.overhead_rounds
    )?;
    writeln!(
        md,
        "| op | raw ns | safe ns | safe/raw |\n|---|---:|---:|---:|"
    )?;
    for row in &rows {
        writeln!(
            md,
            "| {} | {:.1} | {:.1} | {:.3} |",
            row.op,
            row.raw_ns,
            row.safe_ns,
            row.ratio()
        )?;
    }
    writeln!(md)?;
    Ok(())
}

fn criterion_section(md: &mut String, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    writeln!(md, "## Criterion medians\n")?;
    let mut any = false;
    for group in [
        "overhead",
        "stream_sync",
        "reserve_mem/vmm",
        "reserve_mem/alloc_free",
    ] {
        let rows = criterion::group_medians(dir, group);
        if rows.is_empty() {
            continue;
        }
        any = true;
        if group == "overhead" {
            overhead_pairs(md, &rows)?;
        }
        writeln!(md, "### `{group}`\n\n| benchmark | median |\n|---|---:|")?;
        for (id, ns) in rows {
            let time = if ns >= 1e6 {
                format!("{:.2} ms", ns / 1e6)
            } else if ns >= 1e3 {
                format!("{:.2} µs", ns / 1e3)
            } else {
                format!("{ns:.1} ns")
            };
            writeln!(md, "| {id} | {time} |")?;
        }
        writeln!(md)?;
    }
    if !any {
        writeln!(
            md,
            "No criterion results under `{}`: run `cargo bench` first (scripts/report.sh does).\n",
            dir.display()
        )?;
    }
    Ok(())
}

/// The criterion overhead rows paired: `raw_<op>` with `safe_<op>`.
fn overhead_pairs(md: &mut String, rows: &[(String, f64)]) -> std::fmt::Result {
    writeln!(
        md,
        "### `overhead`, raw vs safe (criterion, measured one after the other)\n"
    )?;
    writeln!(
        md,
        "| op | raw median ns | safe median ns | safe/raw |\n|---|---:|---:|---:|"
    )?;
    for (id, raw) in rows {
        let Some(op) = id.strip_prefix("raw_") else {
            continue;
        };
        if let Some((_, safe)) = rows
            .iter()
            .find(|(other, _)| other.strip_prefix("safe_") == Some(op))
        {
            writeln!(md, "| {op} | {raw:.1} | {safe:.1} | {:.3} |", safe / raw)?;
        }
    }
    writeln!(md)
}

fn replay_section(
    md: &mut String,
    device: &Device,
    options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let config = TrainConfig::default();
    let total = device.memory_info()?.total as u64;
    let schedule = Schedule::varying(7, options.steps, 48, 96)?;
    let trace = resnet50_trace(&schedule, &config);
    let live_limit = max_batch_by_live_bytes(total, &config);
    writeln!(md, "## ResNet-50 allocation replay\n")?;
    writeln!(
        md,
        "fp32, {} steps, batch varying 48–96 (seed 7: {:?}…), {} allocations and frees, on {:.2} GiB of HBM. \
         The live bytes allow batch {live_limit}. `max batch` replays three smaller varying steps then one at the \
         batch, binary-searched. Latency: one alloc + its free, timed inside the replay (includes two clock reads).\n",
        options.steps,
        &schedule.batches()[..options.steps.min(6)],
        trace.ops.len(),
        total as f64 / GIB
    )?;
    writeln!(
        md,
        "| strategy | peak live GiB | peak reserved GiB | reserved/live | max batch | pair p50 ns | pair p99 ns | maps | unmaps | OOM retries |"
    )?;
    writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut lines = Vec::new();
    let sample = (trace.ops.len() / 600).max(1);
    for (strategy, color) in Strategy::ALL
        .into_iter()
        .zip(["#d62728", "#ff7f0e", "#9467bd", "#2ca02c"])
    {
        options
            .progress
            .step(&format!("ResNet-50 replay: {}", strategy.name()));
        let outcome: Outcome = replay(device, &trace, strategy, sample)?;
        let max_batch = if options.max_batch {
            let high = live_limit + live_limit / 16;
            max_batch_before_oom(device, strategy, 32, high, |b| {
                options
                    .progress
                    .step(&format!("{}: largest batch, trying {b}", strategy.name()));
                probe_trace(b, 7, &config)
            })?
            .to_string()
        } else {
            "-".to_string()
        };
        writeln!(
            md,
            "| {} | {:.3} | {:.3} | {:.4} | {max_batch} | {} | {} | {} | {} | {} |",
            strategy.name(),
            outcome.peak_live_bytes as f64 / GIB,
            outcome.peak_reserved_bytes as f64 / GIB,
            outcome.reserved_over_live(),
            outcome.pair_percentile(50.0),
            outcome.pair_percentile(99.0),
            outcome.maps,
            outcome.unmaps,
            outcome.oom_retries
        )?;
        if lines.is_empty() {
            let live = outcome
                .series
                .iter()
                .map(|&(l, _)| l as f64 / GIB)
                .collect();
            lines.push(svg::Line {
                label: "live (all strategies)".into(),
                color: "black",
                dashed: true,
                values: live,
            });
        }
        let reserved = outcome
            .series
            .iter()
            .map(|&(_, r)| r as f64 / GIB)
            .collect();
        lines.push(svg::Line {
            label: strategy.name().to_string(),
            color,
            dashed: false,
            values: reserved,
        });
    }
    let chart = svg::line_chart(
        &format!(
            "Reserved vs live HBM over a ResNet-50 replay ({} steps, batch 48–96)",
            options.steps
        ),
        "allocation trace (op index)",
        "GiB",
        &lines,
    );
    std::fs::create_dir_all(&options.out_dir)?;
    std::fs::write(options.out_dir.join("reserved_vs_live.svg"), chart)?;
    writeln!(md, "\n![reserved vs live](reserved_vs_live.svg)\n")?;
    Ok(())
}
