//! Host time per training step, eager against one graph replay, measured
//! side by side in one process, printing JSON lines (one per model).
//!
//! Each model alternates `--rounds` blocks of `--chunk` eager steps and
//! `--chunk` graph replays (each side on a model, stream and allocator of
//! its own, so the graph keeps its memory bound for the whole run), after
//! one untimed warm-up round. A step is timed while a host function holds
//! its stream, so only the host's queuing of the step is measured (what a
//! host-bound step spends); waiting for its loss is not timed. On the mock
//! it also counts one step's launches and calls of each side from the
//! journal.
//!
//! Models: `train_mlp`'s step (forward, loss, backward, SGD with momentum,
//! the batch's upload), eager as `mlp::trainer::Trainer`, captured as
//! `mlp::graph_step::capture`; `train_resnet`'s step (a stem and two
//! residual blocks with batch norms, their backward, SGD on 16 tensors),
//! eager as `resnet::pass::submit_step`, captured as
//! `resnet::graph_step::capture`. Both eager sides upload the batch
//! through pinned staging buffers with async copies, as `train_mlp` does.
//! The first step of every side is eager (the momentum starts, the
//! allocators warm up), as in the examples' `--graph` mode.
//!
//! `cargo run --release --example graph_bench [-- --rounds 11 --chunk 8]`
//! Runs unchanged on a card (no call counts there).

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_benches::calls::CallCounter;
use ascendcl_benches::example_args::{exit_code, flag};
use ascendcl_benches::step_timing::{StepSide, interleave, json_line};
use ascendcl_examples::mlp::trainer::{Model, Trainer};
use ascendcl_examples::mlp::{self, graph_step::StepBuffers};
use ascendcl_examples::resnet::trainer::{Act, LossConsts, Net, Tr};
use ascendcl_examples::resnet::{self, IMAGE, pass};

fn main() -> std::process::ExitCode {
    exit_code(run())
}

fn run() -> ascendcl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, chunk) = (
        flag(&args, "--rounds", 11),
        flag(&args, "--chunk", 8).max(1),
    );
    let (rt, backend) = ascendcl_examples::runtime()?;
    eprintln!("backend: {backend}");
    let counter = CallCounter::for_backend(&backend);
    let ctx = Device::open(&rt, 0)?.default_context();
    println!("{}", mlp_row(&ctx, &counter, rounds, chunk)?);
    println!("{}", resnet_row(&ctx, &counter, rounds, chunk)?);
    Ok(())
}

/// Pinned staging buffers of an eager side's batch upload.
struct Staging {
    x: HostBuffer<f32>,
    labels: HostBuffer<i64>,
}

impl Staging {
    fn new(ctx: &Context, x: usize, labels: usize) -> ascendcl::Result<Staging> {
        Ok(Staging {
            x: HostBuffer::zeroed(ctx, x)?,
            labels: HostBuffer::zeroed(ctx, labels)?,
        })
    }

    /// Writes the batch (waiting for the previous upload), then queues its
    /// upload into fresh blocks.
    fn upload(
        &mut self,
        stream: &Stream,
        alloc: &CachingAllocator,
        x: &[f32],
        labels: &[i64],
    ) -> ascendcl::Result<(Block<f32>, Block<i64>)> {
        self.x.as_mut_slice()?.copy_from_slice(x);
        self.labels.as_mut_slice()?.copy_from_slice(labels);
        let mut xd = alloc.alloc::<f32>(stream, x.len())?;
        let mut ld = alloc.alloc::<i64>(stream, labels.len())?;
        stream.copy_host_to_device(&self.x, &mut xd)?.detach();
        stream.copy_host_to_device(&self.labels, &mut ld)?.detach();
        Ok((xd, ld))
    }
}

fn mlp_batch(task: &mlp::Task, k: usize) -> (&[f32], &[i64]) {
    let (b, s) = (mlp::BATCH, k % (mlp::N / mlp::BATCH));
    (
        &task.x[s * b * mlp::D..(s + 1) * b * mlp::D],
        &task.labels[s * b..(s + 1) * b],
    )
}

struct EagerMlp<'a> {
    tr: Trainer<'a>,
    task: &'a mlp::Task,
    model: Model,
    staging: Staging,
    loss: Option<Block<f32>>,
}

impl StepSide for EagerMlp<'_> {
    fn stream(&self) -> &Stream {
        self.tr.stream
    }
    fn submit(&mut self, k: usize) -> ascendcl::Result<()> {
        let (x, labels) = mlp_batch(self.task, k);
        let (xd, ld) = self
            .staging
            .upload(self.tr.stream, self.tr.alloc, x, labels)?;
        let loss = self.tr.gradients(&xd, &ld, &mut self.model, mlp::BATCH)?;
        self.tr.sgd_step(&mut self.model, k == 0)?;
        self.loss = Some(loss);
        Ok(())
    }
    fn wait(&mut self) -> ascendcl::Result<()> {
        self.loss.take().map_or(Ok(()), |l| l.to_vec().map(drop))
    }
}

struct GraphMlp<'a, 'g> {
    stream: &'a Stream,
    task: &'a mlp::Task,
    step: mlp::graph_step::CapturedStep<'g>,
}

impl StepSide for GraphMlp<'_, '_> {
    fn stream(&self) -> &Stream {
        self.stream
    }
    fn submit(&mut self, k: usize) -> ascendcl::Result<()> {
        let (x, labels) = mlp_batch(self.task, k);
        self.step.submit(self.stream, x, labels)
    }
    fn wait(&mut self) -> ascendcl::Result<()> {
        self.step.loss().map(drop)
    }
}

fn mlp_row(
    ctx: &Context,
    counter: &CallCounter,
    rounds: usize,
    chunk: usize,
) -> ascendcl::Result<String> {
    let task = mlp::Task::generate();
    let (es, gs) = (Stream::new(ctx)?, Stream::new(ctx)?);
    let ea = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let ga = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let (etr, gtr) = (
        Trainer {
            stream: &es,
            alloc: &ea,
        },
        Trainer {
            stream: &gs,
            alloc: &ga,
        },
    );
    let mut eager = EagerMlp {
        model: etr.model(&task)?,
        tr: etr,
        task: &task,
        staging: Staging::new(ctx, mlp::BATCH * mlp::D, mlp::BATCH)?,
        loss: None,
    };
    eager.submit(0)?;
    eager.wait()?;
    let mut graph_side = EagerMlp {
        model: gtr.model(&task)?,
        tr: Trainer {
            stream: &gs,
            alloc: &ga,
        },
        task: &task,
        staging: Staging::new(ctx, mlp::BATCH * mlp::D, mlp::BATCH)?,
        loss: None,
    };
    graph_side.submit(0)?;
    graph_side.wait()?;
    let mut bufs = StepBuffers::new(&gtr)?;
    let mut graph = GraphMlp {
        stream: &gs,
        task: &task,
        step: mlp::graph_step::capture(&gtr, &mut graph_side.model, &mut bufs)?,
    };
    let (e, g) = interleave(counter, rounds, chunk, 1, &mut eager, &mut graph)?;
    Ok(json_line("train_mlp", rounds * chunk, &e, &g))
}

fn resnet_batch(task: &resnet::Task, k: usize) -> (&[f32], &[i64]) {
    let pixels: usize = IMAGE.iter().product();
    let (b, s) = (resnet::BATCH, k % (resnet::N / resnet::BATCH));
    (
        &task.x[s * b * pixels..(s + 1) * b * pixels],
        &task.labels[s * b..(s + 1) * b],
    )
}

struct EagerResnet<'a> {
    tr: Tr<'a>,
    task: &'a resnet::Task,
    net: Net,
    consts: LossConsts,
    staging: Staging,
    loss: Option<Block<f32>>,
}

impl StepSide for EagerResnet<'_> {
    fn stream(&self) -> &Stream {
        self.tr.stream
    }
    fn submit(&mut self, k: usize) -> ascendcl::Result<()> {
        let (x, labels) = resnet_batch(self.task, k);
        let (xd, ld) = self
            .staging
            .upload(self.tr.stream, self.tr.alloc, x, labels)?;
        let x = Act {
            t: xd,
            shape: vec![resnet::BATCH, IMAGE[0], IMAGE[1], IMAGE[2]],
        };
        let loss = pass::submit_step(&self.tr, &mut self.net, &self.consts, x, &ld, k == 0)?;
        self.loss = Some(loss);
        Ok(())
    }
    fn wait(&mut self) -> ascendcl::Result<()> {
        self.loss.take().map_or(Ok(()), |l| l.to_vec().map(drop))
    }
}

struct GraphResnet<'a, 'g> {
    stream: &'a Stream,
    task: &'a resnet::Task,
    step: resnet::graph_step::CapturedStep<'g>,
}

impl StepSide for GraphResnet<'_, '_> {
    fn stream(&self) -> &Stream {
        self.stream
    }
    fn submit(&mut self, k: usize) -> ascendcl::Result<()> {
        let (x, labels) = resnet_batch(self.task, k);
        self.step.submit(self.stream, x, labels)
    }
    fn wait(&mut self) -> ascendcl::Result<()> {
        self.step.loss().map(drop)
    }
}

fn resnet_row(
    ctx: &Context,
    counter: &CallCounter,
    rounds: usize,
    chunk: usize,
) -> ascendcl::Result<String> {
    let task = resnet::Task::generate();
    let pixels: usize = IMAGE.iter().product();
    let (es, gs) = (Stream::new(ctx)?, Stream::new(ctx)?);
    let ea = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let ga = CachingAllocator::new(ctx, AllocatorConfig::expandable())?;
    let side = |stream, alloc| -> ascendcl::Result<EagerResnet<'_>> {
        let tr = Tr { stream, alloc };
        let mut side = EagerResnet {
            net: pass::build(&tr, &task)?,
            consts: LossConsts::new(&tr)?,
            tr,
            task: &task,
            staging: Staging::new(ctx, resnet::BATCH * pixels, resnet::BATCH)?,
            loss: None,
        };
        side.submit(0)?;
        side.wait()?;
        Ok(side)
    };
    let mut eager = side(&es, &ea)?;
    let mut graph_side = side(&gs, &ga)?;
    let gtr = Tr {
        stream: &gs,
        alloc: &ga,
    };
    let step = resnet::graph_step::capture(&gtr, &mut graph_side.net, &mut graph_side.consts)?;
    let mut graph = GraphResnet {
        stream: &gs,
        task: &task,
        step,
    };
    let (e, g) = interleave(counter, rounds, chunk, 1, &mut eager, &mut graph)?;
    Ok(json_line("train_resnet", rounds * chunk, &e, &g))
}
