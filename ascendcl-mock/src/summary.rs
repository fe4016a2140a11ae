//! A trace in numbers: calls and time per function, failures, and the live
//! resources (buffers, streams, events...) as the trace proceeds. The
//! `trace_summary` example prints it (`cargo run --example trace_summary --
//! FILE [--json]`).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::trace::{Record, Symbol, Trace, Value, quote};

/// Time statistics of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionStats {
    /// The C function.
    pub function: String,
    /// Number of calls.
    pub calls: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Sum of the durations, ns.
    pub total_ns: u64,
    /// Mean duration, ns.
    pub mean_ns: u64,
    /// Median duration (nearest rank), ns.
    pub p50_ns: u64,
    /// 99th percentile duration (nearest rank), ns.
    pub p99_ns: u64,
    /// Longest call, ns.
    pub max_ns: u64,
}

/// Kinds of resources followed through a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// Blocks from the `aclrtMalloc` family.
    DeviceBuffers,
    /// Bytes of those blocks (as requested).
    DeviceBytes,
    /// `aclrtMallocHost` blocks.
    HostBuffers,
    /// Streams created by the program.
    Streams,
    /// Events.
    Events,
    /// Contexts created with `aclrtCreateContext`.
    Contexts,
    /// Reserved address ranges.
    Reservations,
    /// Physical memory handles.
    PhysicalHandles,
    /// Bytes of physical memory.
    PhysicalBytes,
    /// Mappings of physical memory into ranges.
    Mappings,
    /// `aclrtSetDevice` references (less `aclrtResetDevice`).
    DeviceRefs,
}

impl Resource {
    /// Every kind, in display order.
    pub const ALL: [Resource; 11] = [
        Resource::DeviceBuffers,
        Resource::DeviceBytes,
        Resource::HostBuffers,
        Resource::Streams,
        Resource::Events,
        Resource::Contexts,
        Resource::Reservations,
        Resource::PhysicalHandles,
        Resource::PhysicalBytes,
        Resource::Mappings,
        Resource::DeviceRefs,
    ];

    /// A snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Resource::DeviceBuffers => "device_buffers",
            Resource::DeviceBytes => "device_bytes",
            Resource::HostBuffers => "host_buffers",
            Resource::Streams => "streams",
            Resource::Events => "events",
            Resource::Contexts => "contexts",
            Resource::Reservations => "reservations",
            Resource::PhysicalHandles => "physical_handles",
            Resource::PhysicalBytes => "physical_bytes",
            Resource::Mappings => "mappings",
            Resource::DeviceRefs => "device_refs",
        }
    }

    fn is_bytes(self) -> bool {
        matches!(self, Resource::DeviceBytes | Resource::PhysicalBytes)
    }
}

/// How many of one resource were alive over the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSeries {
    /// The kind.
    pub resource: Resource,
    /// The highest count.
    pub peak: u64,
    /// Sequence number of the call that first reached the peak.
    pub peak_seq: u64,
    /// The count at the end.
    pub end: u64,
    /// Every change: (sequence number, count after the call).
    pub changes: Vec<(u64, u64)>,
}

impl ResourceSeries {
    /// The count over the trace in at most `width` columns (each the
    /// highest count in its stretch of calls) as a bar sparkline.
    pub fn sparkline(&self, calls: u64, width: usize) -> String {
        // no wider than the calls: every column stands for at least one
        let width = width.clamp(1, calls.max(1) as usize);
        let mut columns = vec![0u64; width];
        let mut count = 0u64;
        let mut changes = self.changes.iter().peekable();
        for seq in 1..=calls.max(1) {
            let col = ((seq - 1) as u128 * width as u128 / calls.max(1) as u128) as usize;
            while let Some(&&(s, c)) = changes.peek() {
                if s > seq {
                    break;
                }
                count = c;
                changes.next();
            }
            columns[col] = columns[col].max(count);
        }
        sparkline(&columns)
    }
}

/// Bars for `values` scaled to their maximum (a space for 0).
pub fn sparkline(values: &[u64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().max().unwrap_or(0);
    values
        .iter()
        .map(|&v| match v {
            0 => ' ',
            v => BARS[((v as u128 * 8 - 1) / max as u128).min(7) as usize],
        })
        .collect()
}

/// The summary of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Who recorded the trace.
    pub producer: Option<String>,
    /// Number of calls.
    pub calls: u64,
    /// Number of threads that called.
    pub threads: u64,
    /// From the first call's start to the last call's end, ns.
    pub span_ns: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Per function, most total time first.
    pub functions: Vec<FunctionStats>,
    /// Failures per return code: (code, count, functions).
    pub error_codes: Vec<(i32, u64, Vec<String>)>,
    /// The resources that were ever alive.
    pub resources: Vec<ResourceSeries>,
    /// The aclnn operators and the streams they ran on.
    pub operators: crate::summary_ops::OperatorSummary,
}

/// Follows the resources call by call.
#[derive(Default)]
struct Live {
    count: BTreeMap<Resource, u64>,
    series: BTreeMap<Resource, ResourceSeries>,
    sizes: HashMap<(char, u64), u64>,
    device_refs: HashMap<i64, u64>,
}

impl Live {
    fn add(&mut self, seq: u64, r: Resource, delta: i64) {
        let c = self.count.entry(r).or_insert(0);
        *c = c.saturating_add_signed(delta);
        let now = *c;
        let s = self.series.entry(r).or_insert(ResourceSeries {
            resource: r,
            peak: 0,
            peak_seq: 0,
            end: 0,
            changes: Vec::new(),
        });
        if now > s.peak {
            s.peak = now;
            s.peak_seq = seq;
        }
        s.end = now;
        match s.changes.last_mut() {
            Some(last) if last.0 == seq => last.1 = now,
            _ => s.changes.push((seq, now)),
        }
    }

    fn symbol(r: &Record, key: &str, from_out: bool) -> Option<(char, u64)> {
        let v = if from_out { r.output(key) } else { r.arg(key) }?;
        match Symbol::of(v)? {
            Symbol::Handle(k, id) | Symbol::Address(k, id, _) => Some((k, id)),
            Symbol::Host => None,
        }
    }

    fn created(&mut self, r: &Record, key: &str, count: Resource, bytes: Option<Resource>) {
        let Some(sym) = Live::symbol(r, key, true) else {
            return;
        };
        self.add(r.seq, count, 1);
        if let Some(bytes) = bytes {
            // a hostile size saturates instead of overflowing
            let size = r.arg("size").and_then(Value::as_u64).unwrap_or(0);
            let size = size.min(i64::MAX as u64);
            self.sizes.insert(sym, size);
            self.add(r.seq, bytes, size as i64);
        }
    }

    fn destroyed(&mut self, r: &Record, key: &str, count: Resource, bytes: Option<Resource>) {
        let sym = Live::symbol(r, key, false);
        self.add(r.seq, count, -1);
        if let (Some(bytes), Some(sym)) = (bytes, sym) {
            let size = self.sizes.remove(&sym).unwrap_or(0);
            self.add(r.seq, bytes, -(size as i64));
        }
    }

    fn record(&mut self, r: &Record) {
        use Resource::*;
        if r.failed() {
            return;
        }
        let device = || r.arg("deviceId").and_then(Value::as_i64).unwrap_or(0);
        match r.function.as_str() {
            "aclrtMalloc" | "aclrtMallocAlign32" | "aclrtMallocCached" | "aclrtMallocWithCfg" => {
                self.created(r, "devPtr", DeviceBuffers, Some(DeviceBytes))
            }
            "aclrtFree" => self.destroyed(r, "devPtr", DeviceBuffers, Some(DeviceBytes)),
            "aclrtMallocHost" => self.created(r, "hostPtr", HostBuffers, None),
            "aclrtFreeHost" => self.destroyed(r, "hostPtr", HostBuffers, None),
            "aclrtCreateStream" | "aclrtCreateStreamWithConfig" => {
                self.created(r, "stream", Streams, None)
            }
            "aclrtDestroyStream" | "aclrtDestroyStreamForce" => {
                self.destroyed(r, "stream", Streams, None)
            }
            "aclrtCreateEvent" | "aclrtCreateEventWithFlag" | "aclrtCreateEventExWithFlag" => {
                self.created(r, "event", Events, None)
            }
            "aclrtDestroyEvent" => self.destroyed(r, "event", Events, None),
            "aclrtCreateContext" => self.created(r, "context", Contexts, None),
            "aclrtDestroyContext" => self.destroyed(r, "context", Contexts, None),
            "aclrtReserveMemAddress" => self.created(r, "virPtr", Reservations, None),
            "aclrtReleaseMemAddress" => self.destroyed(r, "virPtr", Reservations, None),
            "aclrtMallocPhysical" => {
                self.created(r, "handle", PhysicalHandles, Some(PhysicalBytes))
            }
            "aclrtFreePhysical" => {
                self.destroyed(r, "handle", PhysicalHandles, Some(PhysicalBytes))
            }
            "aclrtMapMem" => self.add(r.seq, Mappings, 1),
            "aclrtUnmapMem" => self.add(r.seq, Mappings, -1),
            "aclrtSetDevice" => {
                *self.device_refs.entry(device()).or_insert(0) += 1;
                self.add(r.seq, DeviceRefs, 1);
            }
            "aclrtResetDevice" | "aclrtResetDeviceForce" => {
                let refs = self.device_refs.entry(device()).or_insert(0);
                let drop = if r.function == "aclrtResetDevice" {
                    (*refs).min(1)
                } else {
                    *refs
                };
                *refs -= drop;
                self.add(r.seq, DeviceRefs, -(drop as i64));
            }
            _ => {}
        }
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Summarises a trace.
pub fn summarize(trace: &Trace) -> Summary {
    let mut durations: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut errors: BTreeMap<&str, u64> = BTreeMap::new();
    let mut codes: BTreeMap<i32, (u64, Vec<String>)> = BTreeMap::new();
    let mut threads = std::collections::BTreeSet::new();
    let mut live = Live::default();
    let (mut first, mut last) = (u64::MAX, 0u64);
    for r in &trace.records {
        durations.entry(&r.function).or_default().push(r.dur_ns);
        threads.insert(r.thread);
        first = first.min(r.t_ns);
        last = last.max(r.t_ns.saturating_add(r.dur_ns));
        if r.failed() {
            *errors.entry(&r.function).or_default() += 1;
            let entry = codes.entry(r.ret).or_default();
            entry.0 += 1;
            if !entry.1.contains(&r.function) {
                entry.1.push(r.function.clone());
            }
        }
        live.record(r);
    }
    let mut functions: Vec<FunctionStats> = durations
        .into_iter()
        .map(|(f, mut d)| {
            d.sort_unstable();
            let total = d.iter().fold(0u64, |a, &b| a.saturating_add(b));
            FunctionStats {
                function: f.to_string(),
                calls: d.len() as u64,
                errors: errors.get(f).copied().unwrap_or(0),
                total_ns: total,
                mean_ns: total / d.len() as u64,
                p50_ns: percentile(&d, 0.50),
                p99_ns: percentile(&d, 0.99),
                max_ns: *d.last().unwrap_or(&0),
            }
        })
        .collect();
    functions.sort_by(|a, b| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| a.function.cmp(&b.function))
    });
    Summary {
        producer: trace.producer().map(str::to_string),
        calls: trace.records.len() as u64,
        threads: threads.len() as u64,
        span_ns: last.saturating_sub(if first == u64::MAX { 0 } else { first }),
        errors: errors.values().sum(),
        functions,
        error_codes: codes.into_iter().map(|(c, (n, f))| (c, n, f)).collect(),
        resources: live.series.into_values().filter(|s| s.peak > 0).collect(),
        operators: crate::summary_ops::summarize_operators(trace),
    }
}

/// A duration for people.
pub fn format_ns(ns: u64) -> String {
    match ns {
        n if n >= 1_000_000_000 => format!("{:.2} s", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.2} ms", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} µs", n as f64 / 1e3),
        n => format!("{n} ns"),
    }
}

fn format_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

impl Summary {
    /// The report as text; sparklines `width` columns wide.
    pub fn to_text(&self, width: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} calls on {} thread{} over {}, {} failed (producer: {})",
            self.calls,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            format_ns(self.span_ns),
            self.errors,
            self.producer.as_deref().unwrap_or("unknown")
        );
        let _ = writeln!(
            out,
            "\n{:<42} {:>7} {:>6} {:>10} {:>10} {:>10} {:>10}",
            "function", "calls", "errors", "total", "mean", "p50", "p99"
        );
        for f in &self.functions {
            let _ = writeln!(
                out,
                "{:<42} {:>7} {:>6} {:>10} {:>10} {:>10} {:>10}",
                f.function,
                f.calls,
                f.errors,
                format_ns(f.total_ns),
                format_ns(f.mean_ns),
                format_ns(f.p50_ns),
                format_ns(f.p99_ns)
            );
        }
        if !self.error_codes.is_empty() {
            let _ = writeln!(out, "\nfailures by code:");
            for (code, n, fns) in &self.error_codes {
                let _ = writeln!(out, "  {code:>7} x{n:<5} {}", fns.join(", "));
            }
        }
        if !self.resources.is_empty() {
            let _ = writeln!(
                out,
                "\nlive resources (peak, first reached at call #, at the end; over the trace):"
            );
            for s in &self.resources {
                let (peak, end) = if s.resource.is_bytes() {
                    (format_bytes(s.peak), format_bytes(s.end))
                } else {
                    (s.peak.to_string(), s.end.to_string())
                };
                let _ = writeln!(
                    out,
                    "  {:<17} peak {:>10} at #{:<6} end {:>10}  |{}|",
                    s.resource.name(),
                    peak,
                    s.peak_seq,
                    end,
                    s.sparkline(self.calls, width)
                );
            }
        }
        out.push_str(&self.operators.to_text());
        out
    }

    /// The report as one JSON object (resources with every change).
    pub fn to_json(&self) -> String {
        let functions: Vec<String> = self
            .functions
            .iter()
            .map(|f| {
                format!(
                    "{{\"fn\":{},\"calls\":{},\"errors\":{},\"total_ns\":{},\"mean_ns\":{},\"p50_ns\":{},\"p99_ns\":{},\"max_ns\":{}}}",
                    quote(&f.function), f.calls, f.errors, f.total_ns, f.mean_ns, f.p50_ns, f.p99_ns, f.max_ns
                )
            })
            .collect();
        let codes: Vec<String> = self
            .error_codes
            .iter()
            .map(|(c, n, fns)| {
                let fns: Vec<String> = fns.iter().map(|f| quote(f)).collect();
                format!(
                    "{{\"code\":{c},\"count\":{n},\"functions\":[{}]}}",
                    fns.join(",")
                )
            })
            .collect();
        let resources: Vec<String> = self
            .resources
            .iter()
            .map(|s| {
                let changes: Vec<String> = s
                    .changes
                    .iter()
                    .map(|(q, c)| format!("[{q},{c}]"))
                    .collect();
                format!(
                    "{{\"name\":\"{}\",\"peak\":{},\"peak_seq\":{},\"end\":{},\"changes\":[{}]}}",
                    s.resource.name(),
                    s.peak,
                    s.peak_seq,
                    s.end,
                    changes.join(",")
                )
            })
            .collect();
        format!(
            "{{\"producer\":{},\"calls\":{},\"threads\":{},\"span_ns\":{},\"errors\":{},\"functions\":[{}],\"error_codes\":[{}],\"resources\":[{}],{}}}",
            self.producer.as_deref().map_or("null".to_string(), quote),
            self.calls,
            self.threads,
            self.span_ns,
            self.errors,
            functions.join(","),
            codes.join(","),
            resources.join(","),
            self.operators.json_members()
        )
    }
}

/// The `trace_summary` command line: `FILE [--json] [--width N]`. Returns
/// the report, or the error text (usage or an unreadable trace).
pub fn cli(args: &[String]) -> Result<String, String> {
    const USAGE: &str = "usage: trace_summary FILE [--json] [--width N]";
    let (mut file, mut json, mut width) = (None, false, 48usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--width" => {
                width = it
                    .next()
                    .and_then(|w| w.parse().ok())
                    .filter(|&w| w > 0)
                    .ok_or(USAGE)?
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            f if file.is_none() && !f.starts_with("--") => file = Some(f),
            _ => return Err(USAGE.to_string()),
        }
    }
    let file = file.ok_or(USAGE)?;
    let trace = Trace::read(file).map_err(|e| format!("{file}: {e}"))?;
    let summary = summarize(&trace);
    Ok(if json {
        summary.to_json() + "\n"
    } else {
        format!("trace: {file}\n{}", summary.to_text(width))
    })
}
