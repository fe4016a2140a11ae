//! The operator part of a trace summary ([`crate::summary`]): per aclnn
//! operator, how often each phase ran, its host time (total and mean), the
//! workspace bytes phase 1 asked for and the failures; per stream, the
//! operators launched on it and, where the trace has it, device time
//! (`aclrtEventElapsedTime` between two events recorded on that stream).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::json::quote;
use crate::summary::format_ns;
use crate::trace::{Record, Trace};

/// One phase of one operator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PhaseStats {
    /// Calls.
    pub calls: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Host time of all calls, ns.
    pub total_ns: u64,
    /// Mean host time, ns (0 without calls).
    pub mean_ns: u64,
}

/// One aclnn operator (`aclnn<Op>GetWorkspaceSize` and `aclnn<Op>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperatorStats {
    /// The operator, without `aclnn` ("Add").
    pub op: String,
    /// Phase 1, `aclnn<Op>GetWorkspaceSize`.
    pub phase1: PhaseStats,
    /// Phase 2, `aclnn<Op>`.
    pub phase2: PhaseStats,
    /// Workspace bytes the successful phase 1 calls returned, summed.
    pub workspace_bytes: u64,
    /// The largest workspace one call returned.
    pub workspace_max: u64,
}

/// One stream's operators and device time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Its symbolic id ("s1").
    pub stream: String,
    /// Operator launches (phase 2 calls) on it.
    pub launches: u64,
    /// Their host time, ns.
    pub launch_host_ns: u64,
    /// Device time measured between events recorded on it, ns; `None` when
    /// the trace has no such measurement.
    pub device_ns: Option<u64>,
    /// How many `aclrtEventElapsedTime` measurements make `device_ns`.
    pub measurements: u64,
}

/// The operators and streams of a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperatorSummary {
    /// Per operator, most host time (both phases) first.
    pub operators: Vec<OperatorStats>,
    /// Per stream that ran an operator or has device time, by id.
    pub streams: Vec<StreamStats>,
}

fn add(p: &mut PhaseStats, r: &Record) {
    p.calls += 1;
    p.errors += u64::from(r.failed());
    p.total_ns = p.total_ns.saturating_add(r.dur_ns);
    p.mean_ns = p.total_ns / p.calls;
}

/// The operator of an aclnn function and whether it is phase 1.
fn operator_of(function: &str) -> Option<(&str, bool)> {
    let rest = function.strip_prefix("aclnn")?;
    if rest == "Init" || rest == "Finalize" || rest.is_empty() {
        return None;
    }
    Some(match rest.strip_suffix("GetWorkspaceSize") {
        Some(op) => (op, true),
        None => (rest, false),
    })
}

fn stream_entry<'a>(
    streams: &'a mut BTreeMap<String, StreamStats>,
    s: &str,
) -> &'a mut StreamStats {
    streams.entry(s.to_string()).or_insert_with(|| StreamStats {
        stream: s.to_string(),
        ..StreamStats::default()
    })
}

/// Sums up the operators and streams of `trace`.
pub fn summarize_operators(trace: &Trace) -> OperatorSummary {
    let mut ops: BTreeMap<String, OperatorStats> = BTreeMap::new();
    let mut streams: BTreeMap<String, StreamStats> = BTreeMap::new();
    let mut recorded_on: HashMap<String, String> = HashMap::new();
    let text = |r: &Record, key: &str| r.arg(key).and_then(|v| v.as_str()).map(str::to_string);
    for r in &trace.records {
        if let Some((op, phase1)) = operator_of(&r.function) {
            let o = ops.entry(op.to_string()).or_insert_with(|| OperatorStats {
                op: op.to_string(),
                ..OperatorStats::default()
            });
            if phase1 {
                add(&mut o.phase1, r);
                if !r.failed() {
                    let ws = r
                        .output("workspaceSize")
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0);
                    o.workspace_bytes = o.workspace_bytes.saturating_add(ws);
                    o.workspace_max = o.workspace_max.max(ws);
                }
            } else {
                add(&mut o.phase2, r);
                if let Some(s) = text(r, "stream") {
                    let st = stream_entry(&mut streams, &s);
                    st.launches += 1;
                    st.launch_host_ns = st.launch_host_ns.saturating_add(r.dur_ns);
                }
            }
            continue;
        }
        match r.function.as_str() {
            "aclrtRecordEvent" if !r.failed() => {
                if let (Some(e), Some(s)) = (text(r, "event"), text(r, "stream")) {
                    recorded_on.insert(e, s);
                }
            }
            "aclrtEventElapsedTime" if !r.failed() => {
                let (Some(a), Some(b)) = (text(r, "startEvent"), text(r, "endEvent")) else {
                    continue;
                };
                let ms = r
                    .output("ms")
                    .and_then(|v| v.as_f64())
                    .filter(|ms| *ms >= 0.0);
                if let (Some(sa), Some(sb), Some(ms)) =
                    (recorded_on.get(&a), recorded_on.get(&b), ms)
                {
                    if sa == sb {
                        let st = stream_entry(&mut streams, &sa.clone());
                        st.device_ns =
                            Some(st.device_ns.unwrap_or(0).saturating_add((ms * 1e6) as u64));
                        st.measurements += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let mut operators: Vec<OperatorStats> = ops.into_values().collect();
    operators.sort_by(|a, b| {
        let t = |o: &OperatorStats| o.phase1.total_ns.saturating_add(o.phase2.total_ns);
        t(b).cmp(&t(a)).then_with(|| a.op.cmp(&b.op))
    });
    OperatorSummary {
        operators,
        streams: streams.into_values().collect(),
    }
}

impl OperatorSummary {
    /// The operator and stream tables as text (empty without operators or
    /// device times).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if !self.operators.is_empty() {
            let _ = writeln!(
                out,
                "\n{:<30} {:>7} {:>10} {:>10} {:>7} {:>10} {:>10} {:>12} {:>6}",
                "operator",
                "phase1",
                "total",
                "mean",
                "phase2",
                "total",
                "mean",
                "workspace",
                "errors"
            );
            for o in &self.operators {
                let _ = writeln!(
                    out,
                    "{:<30} {:>7} {:>10} {:>10} {:>7} {:>10} {:>10} {:>12} {:>6}",
                    o.op,
                    o.phase1.calls,
                    format_ns(o.phase1.total_ns),
                    format_ns(o.phase1.mean_ns),
                    o.phase2.calls,
                    format_ns(o.phase2.total_ns),
                    format_ns(o.phase2.mean_ns),
                    o.workspace_bytes,
                    o.phase1.errors + o.phase2.errors
                );
            }
        }
        if !self.streams.is_empty() {
            let _ = writeln!(
                out,
                "\n{:<8} {:>9} {:>12} {:>12} {:>13}",
                "stream", "launches", "launch host", "device", "measurements"
            );
            for s in &self.streams {
                let device = s.device_ns.map_or("-".to_string(), format_ns);
                let _ = writeln!(
                    out,
                    "{:<8} {:>9} {:>12} {:>12} {:>13}",
                    s.stream,
                    s.launches,
                    format_ns(s.launch_host_ns),
                    device,
                    s.measurements
                );
            }
        }
        out
    }

    /// `"operators":[…],"streams":[…]`: members of the summary's JSON object.
    pub fn json_members(&self) -> String {
        let phase = |p: &PhaseStats| {
            format!(
                "{{\"calls\":{},\"errors\":{},\"total_ns\":{},\"mean_ns\":{}}}",
                p.calls, p.errors, p.total_ns, p.mean_ns
            )
        };
        let ops: Vec<String> = self
            .operators
            .iter()
            .map(|o| {
                format!(
                    "{{\"op\":{},\"phase1\":{},\"phase2\":{},\"workspace_bytes\":{},\"workspace_max\":{},\"errors\":{}}}",
                    quote(&o.op),
                    phase(&o.phase1),
                    phase(&o.phase2),
                    o.workspace_bytes,
                    o.workspace_max,
                    o.phase1.errors + o.phase2.errors
                )
            })
            .collect();
        let streams: Vec<String> = self
            .streams
            .iter()
            .map(|s| {
                format!(
                    "{{\"stream\":{},\"launches\":{},\"launch_host_ns\":{},\"device_ns\":{},\"measurements\":{}}}",
                    quote(&s.stream),
                    s.launches,
                    s.launch_host_ns,
                    s.device_ns.map_or("null".to_string(), |d| d.to_string()),
                    s.measurements
                )
            })
            .collect();
        format!(
            "\"operators\":[{}],\"streams\":[{}]",
            ops.join(","),
            streams.join(",")
        )
    }
}
