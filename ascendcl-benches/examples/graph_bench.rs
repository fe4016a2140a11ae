//! Host time per training step, eager against one graph replay, measured
//! side by side in one process, printing JSON lines (one per model).
//!
//! Each model alternates `--rounds` blocks of `--chunk` eager steps and
//! `--chunk` graph replays (each on a model of its own, so the graph keeps
//! its memory bound for the whole run). A step is timed while a host
//! function holds its stream, so only the host's queuing of the step is
//! measured (what a host-bound step spends); waiting for its loss is not
//! timed. On the mock it also counts one step's launches and calls of each
//! side from the journal.
//!
//! Models: `train_mlp`'s step (forward, loss, backward, SGD with momentum,
//! the batch's upload): eager as [`Trainer`], captured as [`CapturedStep`].
//!
//! `cargo run --release --example graph_bench [-- --rounds 11 --chunk 8]`
//! Runs unchanged on a card (no call counts there).

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_benches::calls::CallCounter;
use ascendcl_benches::step_timing::{StepCost, count_step, json_line, time_step};
use ascendcl_examples::mlp::graph_step::{CapturedStep, StepBuffers};
use ascendcl_examples::mlp::trainer::{Model, Trainer};
use ascendcl_examples::mlp::{BATCH, D, N, Task};

fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> ascendcl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, chunk) = (flag(&args, "--rounds", 11), flag(&args, "--chunk", 8));
    let (rt, backend) = ascendcl_examples::runtime()?;
    eprintln!("backend: {backend}");
    let counter = CallCounter::for_backend(&backend);
    let ctx = Device::open(&rt, 0)?.default_context();
    println!("{}", mlp(&ctx, &counter, rounds, chunk.max(1))?);
    Ok(())
}

/// The MLP's eager step, as `train_mlp` queues it (uploads through pinned
/// staging buffers, then the operators), on one stream.
struct EagerMlp<'a> {
    tr: Trainer<'a>,
    model: Model,
    x_host: HostBuffer<f32>,
    labels_host: HostBuffer<i64>,
}

impl EagerMlp<'_> {
    fn submit(&mut self, x: &[f32], labels: &[i64]) -> ascendcl::Result<Block<f32>> {
        let (s, a) = (self.tr.stream, self.tr.alloc);
        self.x_host.as_mut_slice()?.copy_from_slice(x);
        self.labels_host.as_mut_slice()?.copy_from_slice(labels);
        let mut xd = a.alloc::<f32>(s, BATCH * D)?;
        let mut ld = a.alloc::<i64>(s, BATCH)?;
        s.copy_host_to_device(&self.x_host, &mut xd)?.detach();
        s.copy_host_to_device(&self.labels_host, &mut ld)?.detach();
        let loss = self.tr.gradients(&xd, &ld, &mut self.model, BATCH)?;
        self.tr.sgd_step(&mut self.model, false)?;
        Ok(loss)
    }
}

fn mlp(
    ctx: &Context,
    counter: &CallCounter,
    rounds: usize,
    chunk: usize,
) -> ascendcl::Result<String> {
    let task = Task::generate();
    let batch = |k: usize| {
        let s = k % (N / BATCH);
        (
            &task.x[s * BATCH * D..(s + 1) * BATCH * D],
            &task.labels[s * BATCH..(s + 1) * BATCH],
        )
    };
    let (eager_stream, graph_stream) = (Stream::new(ctx)?, Stream::new(ctx)?);
    let eager_alloc = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let graph_alloc = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let tr = |stream, alloc| Trainer { stream, alloc };
    let mut eager = EagerMlp {
        model: tr(&eager_stream, &eager_alloc).model(&task)?,
        tr: tr(&eager_stream, &eager_alloc),
        x_host: HostBuffer::zeroed(ctx, BATCH * D)?,
        labels_host: HostBuffer::zeroed(ctx, BATCH)?,
    };
    let gtr = tr(&graph_stream, &graph_alloc);
    let mut graph_model = gtr.model(&task)?;
    let mut bufs = StepBuffers::new(&gtr)?;
    // The first step of each side is eager (the momentum starts, the
    // allocators warm up), as in train_mlp --graph.
    for (side, model) in [(&eager.tr, &mut eager.model), (&gtr, &mut graph_model)] {
        let (x, labels) = batch(0);
        let xd = side.block(x)?;
        let mut ld = side.alloc.alloc::<i64>(side.stream, BATCH)?;
        ld.copy_from_host(labels)?;
        side.gradients(&xd, &ld, model, BATCH)?.to_vec()?;
        side.sgd_step(model, true)?;
    }
    let mut graph = CapturedStep::capture(&gtr, &mut graph_model, &mut bufs)?;

    let (mut e, mut g) = (StepCost::default(), StepCost::default());
    let mut k = 1;
    for round in 0..=rounds {
        // Round 0 warms both sides up, untimed.
        let (mut ew, mut gw) = (StepCost::default(), StepCost::default());
        let (ec, gc) = if round == 0 {
            (&mut ew, &mut gw)
        } else {
            (&mut e, &mut g)
        };
        for _ in 0..chunk {
            let (x, labels) = batch(k);
            let loss = time_step(&eager_stream, ec, || eager.submit(x, labels))?;
            loss.to_vec()?;
            time_step(&graph_stream, gc, || graph.submit(&graph_stream, x, labels))?;
            graph.loss()?;
            k += 1;
        }
    }
    let (x, labels) = batch(k);
    count_step(counter, &mut e, || {
        eager.submit(x, labels)?.to_vec().map(drop)
    })?;
    count_step(counter, &mut g, || {
        graph.submit(&graph_stream, x, labels)?;
        graph.loss().map(drop)
    })?;
    Ok(json_line("train_mlp", rounds * chunk, &e, &g))
}
