//! One row of the launch-cost bench: raw and safe blocks interleaved.

use std::fmt::Write as _;
use std::time::Instant;

use ascendcl::Stream;

use crate::allocs;
use crate::calls::{CallCounter, CallsPerLaunch};

/// A stream held by a host function until this is dropped: launches made
/// meanwhile are only queued, so the timed host path does not compete with
/// the stream's worker (on the mock it shares the mock's lock and the cores;
/// on a card the device runs by itself).
#[derive(Debug)]
pub struct Held(Option<std::sync::mpsc::Sender<()>>);

impl Drop for Held {
    fn drop(&mut self) {
        // The host function returns once the sender is gone.
        drop(self.0.take());
    }
}

/// Holds `stream` (see [`Held`]).
///
/// # Panics
/// If the host function cannot be launched: the bench has nothing to time.
pub fn hold(stream: &Stream) -> Held {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    stream
        .launch_host_fn(move || {
            let _ = rx.recv();
        })
        .expect("hold the stream");
    Held(Some(tx))
}

/// Medians (µs per launch) and calls per launch of both sides.
#[derive(Debug, Clone)]
pub struct Row {
    /// What is launched.
    pub name: &'static str,
    /// Median µs per raw launch.
    pub raw_us: f64,
    /// Median µs per safe launch.
    pub safe_us: f64,
    /// Raw calls per launch (on the mock).
    pub raw_calls: Option<CallsPerLaunch>,
    /// Safe calls per launch (on the mock).
    pub safe_calls: Option<CallsPerLaunch>,
    /// Heap allocations per raw launch, of the launching thread (when the
    /// binary installs [`allocs::CountingAllocator`]).
    pub raw_allocs: Option<f64>,
    /// Heap allocations per safe launch, likewise.
    pub safe_allocs: Option<f64>,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn total(calls: &Option<CallsPerLaunch>) -> Option<f64> {
    calls.as_ref().map(|c| c.values().sum())
}

fn json_calls(calls: &Option<CallsPerLaunch>) -> String {
    match calls {
        None => "null".into(),
        Some(c) => {
            let fields: Vec<String> = c.iter().map(|(f, n)| format!("\"{f}\": {n:.3}")).collect();
            format!("{{{}}}", fields.join(", "))
        }
    }
}

impl Row {
    /// `safe / raw`.
    pub fn ratio(&self) -> f64 {
        self.safe_us / self.raw_us
    }

    /// The row as one JSON object.
    pub fn json(&self) -> String {
        let opt = |v: Option<f64>| v.map_or("null".into(), |v| format!("{v:.3}"));
        format!(
            "{{\"row\": \"{}\", \"raw_us\": {:.3}, \"safe_us\": {:.3}, \"safe_over_raw\": {:.3}, \
             \"raw_calls_per_launch\": {}, \"safe_calls_per_launch\": {}, \"raw_allocs_per_launch\": {}, \
             \"safe_allocs_per_launch\": {}, \"raw_calls\": {}, \"safe_calls\": {}}}",
            self.name,
            self.raw_us,
            self.safe_us,
            self.ratio(),
            opt(total(&self.raw_calls)),
            opt(total(&self.safe_calls)),
            opt(self.raw_allocs),
            opt(self.safe_allocs),
            json_calls(&self.raw_calls),
            json_calls(&self.safe_calls),
        )
    }
}

/// A Markdown table of `rows`.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| launch | raw µs | safe µs | safe/raw | raw calls | safe calls | raw allocs | safe allocs |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let opt = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {:.3} | {} | {} | {} | {} |",
            r.name,
            r.raw_us,
            r.safe_us,
            r.ratio(),
            opt(total(&r.raw_calls)),
            opt(total(&r.safe_calls)),
            opt(r.raw_allocs),
            opt(r.safe_allocs)
        );
    }
    out
}

/// Which side of a row a count run launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The raw sys sequence.
    Raw,
    /// The safe layer.
    Safe,
}

/// A run that only launches, for an instruction counter (callgrind): one
/// side of one row, `launches` times, untimed, every other row skipped.
/// Two runs with different `launches` give the instructions per launch as
/// their difference over the difference of counts (setup cancels out), a
/// measure this machine's noise does not move (`scripts/launch-instructions.sh`).
#[derive(Debug, Clone)]
pub struct CountRun {
    /// The row's name (`relu_repeatable`, ...).
    pub row: String,
    /// Which side launches.
    pub side: Side,
    /// How many launches.
    pub launches: usize,
}

static COUNT_RUN: std::sync::OnceLock<CountRun> = std::sync::OnceLock::new();

/// Makes every later [`interleave`] a count run (first call wins).
pub fn set_count_run(run: CountRun) {
    let _ = COUNT_RUN.set(run);
}

/// The count run, if one was set.
pub fn count_run() -> Option<&'static CountRun> {
    COUNT_RUN.get()
}

fn launch_only(
    name: &'static str,
    run: &CountRun,
    raw: &mut dyn FnMut(),
    safe: &mut dyn FnMut(),
    chunk: usize,
    drain: &dyn Fn(),
) -> Row {
    if run.row == name {
        for i in 0..run.launches {
            match run.side {
                Side::Raw => raw(),
                Side::Safe => safe(),
            }
            if i % chunk == chunk - 1 {
                drain();
            }
        }
        drain();
    }
    Row {
        name,
        raw_us: f64::NAN,
        safe_us: f64::NAN,
        raw_calls: None,
        safe_calls: None,
        raw_allocs: None,
        safe_allocs: None,
    }
}

/// Alternates `rounds` blocks of `chunk` raw and `chunk` safe launches (the
/// side that goes first alternating too), each timed while `hold` holds the
/// stream (so from an empty queue, with the worker idle), `drain` between
/// blocks untimed,
/// after a warm-up of `chunk` of each; then counts each side's calls over
/// one more block with `counter`, and its heap allocations (of this thread)
/// when the binary counts them. In a count run ([`set_count_run`]) it only
/// launches instead.
pub fn interleave(
    name: &'static str,
    raw: &mut dyn FnMut(),
    safe: &mut dyn FnMut(),
    (rounds, chunk): (usize, usize),
    drain: &dyn Fn(),
    hold: &dyn Fn() -> Held,
    counter: &CallCounter,
) -> Row {
    let chunk = chunk.max(1);
    if let Some(run) = count_run() {
        return launch_only(name, run, raw, safe, chunk, drain);
    }
    for _ in 0..chunk {
        raw();
        safe();
    }
    drain();
    let (mut r, mut s) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let block = |op: &mut dyn FnMut(), times: &mut Vec<f64>| {
        let held = hold();
        let start = Instant::now();
        (0..chunk).for_each(|_| op());
        times.push(start.elapsed().as_secs_f64() * 1e6 / chunk as f64);
        drop(held);
        drain();
    };
    // Which side goes first alternates, so neither always follows a drain
    // of the other's work.
    for round in 0..rounds.max(1) {
        if round % 2 == 0 {
            block(raw, &mut r);
            block(safe, &mut s);
        } else {
            block(safe, &mut s);
            block(raw, &mut r);
        }
    }
    let count = |op: &mut dyn FnMut()| {
        drain();
        counter.begin();
        drain();
        let before = allocs::allocations();
        (0..chunk).for_each(|_| op());
        let allocations = (allocs::allocations() - before) as f64 / chunk as f64;
        drain();
        let calls = counter.end(chunk);
        // Other threads of a lockstep row (drain has a barrier) may not go
        // on before the journal is read.
        drain();
        (calls, allocs::counting().then_some(allocations))
    };
    let (raw_calls, raw_allocs) = count(raw);
    let (safe_calls, safe_allocs) = count(safe);
    Row {
        name,
        raw_us: median(r),
        safe_us: median(s),
        raw_calls,
        safe_calls,
        raw_allocs,
        safe_allocs,
    }
}
