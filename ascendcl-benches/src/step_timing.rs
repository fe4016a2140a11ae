//! Host time and launches of a training step, eager against a graph replay
//! (the `graph_bench` example).

use std::time::Instant;

use ascendcl::Stream;

use crate::calls::CallCounter;
use crate::rows::hold;

/// What one side of a step costs the host.
#[derive(Debug, Clone, Default)]
pub struct StepCost {
    /// µs of host time per step, one value per timed step.
    pub host_us: Vec<f64>,
    /// Stream launches per step (operators' phase 2, async copies and
    /// memsets, graph executions, host functions), on the mock.
    pub launches: Option<f64>,
    /// Every runtime and operator-API call per step, on the mock.
    pub calls: Option<f64>,
}

impl StepCost {
    /// Median µs per step.
    pub fn median_us(&self) -> f64 {
        let mut v = self.host_us.clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    }
}

/// Whether a journal entry queues work on a stream.
pub fn is_launch(function: &str) -> bool {
    (function.starts_with("aclnn") && !function.ends_with("GetWorkspaceSize"))
        || matches!(
            function,
            "aclrtMemcpyAsync"
                | "aclrtMemsetAsync"
                | "aclmdlRIExecuteAsync"
                | "aclrtLaunchCallback"
                | "aclrtLaunchHostFunc"
        )
}

/// Times `submit` (which queues one step on `stream`) while a host function
/// holds the stream, so only the host's queuing is timed, and appends the
/// time to `cost`. Returns what `submit` returned, with the stream released:
/// the caller waits for the step (untimed).
fn time_step<T, E>(
    stream: &Stream,
    cost: &mut StepCost,
    submit: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let held = hold(stream);
    let start = Instant::now();
    let submitted = submit();
    let us = start.elapsed().as_secs_f64() * 1e6;
    drop(held);
    cost.host_us.push(us);
    submitted
}

/// One side of the comparison: queues the step for batch `k`, then waits
/// for it.
pub trait StepSide {
    /// The stream the step is queued on.
    fn stream(&self) -> &Stream;
    /// Queues the step for batch `k` (timed).
    fn submit(&mut self, k: usize) -> ascendcl::Result<()>;
    /// Waits for the last step (untimed).
    fn wait(&mut self) -> ascendcl::Result<()>;
}

/// Alternates `chunk` steps of each side per round, `rounds` timed rounds
/// after one untimed warm-up round, then counts one more step of each side
/// (on the mock). Batches `first..` are used in order.
pub fn interleave(
    counter: &CallCounter,
    rounds: usize,
    chunk: usize,
    first: usize,
    eager: &mut dyn StepSide,
    graph: &mut dyn StepSide,
) -> ascendcl::Result<(StepCost, StepCost)> {
    let (mut e, mut g) = (StepCost::default(), StepCost::default());
    let mut k = first;
    for round in 0..=rounds {
        let (mut ew, mut gw) = (StepCost::default(), StepCost::default());
        let (ec, gc) = if round == 0 {
            (&mut ew, &mut gw)
        } else {
            (&mut e, &mut g)
        };
        for _ in 0..chunk {
            timed(eager, ec, k)?;
            timed(graph, gc, k)?;
            k += 1;
        }
    }
    counted(counter, eager, &mut e, k)?;
    counted(counter, graph, &mut g, k)?;
    Ok((e, g))
}

fn timed(side: &mut dyn StepSide, cost: &mut StepCost, k: usize) -> ascendcl::Result<()> {
    let stream = side.stream().clone();
    time_step(&stream, cost, || side.submit(k))?;
    side.wait()
}

fn counted(
    counter: &CallCounter,
    side: &mut dyn StepSide,
    cost: &mut StepCost,
    k: usize,
) -> ascendcl::Result<()> {
    count_step(counter, cost, || {
        side.submit(k)?;
        side.wait()
    })
}

/// Counts one step's launches and calls into `cost` (on the mock): runs
/// `step` (submit and finish) once between the counter's begin and end.
fn count_step<E>(
    counter: &CallCounter,
    cost: &mut StepCost,
    step: impl FnOnce() -> Result<(), E>,
) -> Result<(), E> {
    counter.begin();
    step()?;
    if let Some(calls) = counter.end(1) {
        cost.launches = Some(
            calls
                .iter()
                .filter(|(f, _)| is_launch(f))
                .map(|(_, n)| n)
                .sum(),
        );
        cost.calls = Some(calls.values().sum());
    }
    Ok(())
}

/// One JSON line: `model`, the median host µs per step of both sides, their
/// ratio, launches and calls per step.
pub fn json_line(model: &str, steps: usize, eager: &StepCost, graph: &StepCost) -> String {
    let opt = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.0}"));
    let (e, g) = (eager.median_us(), graph.median_us());
    format!(
        "{{\"model\": \"{model}\", \"timed_steps\": {steps}, \"eager_host_us_per_step\": {e:.2}, \
         \"graph_host_us_per_step\": {g:.2}, \"eager_over_graph\": {:.1}, \
         \"launches_per_step_eager\": {}, \"launches_per_step_graph\": {}, \
         \"calls_per_step_eager\": {}, \"calls_per_step_graph\": {}}}",
        e / g,
        opt(eager.launches),
        opt(graph.launches),
        opt(eager.calls),
        opt(graph.calls),
    )
}
