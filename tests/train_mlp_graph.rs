//! `train_mlp --graph`: a captured MLP step replays what the eager step
//! computes, bit for bit, with one runtime call per step.

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::mlp::graph_step::{self, StepBuffers};
use ascendcl_examples::mlp::trainer::{Model, Trainer, parameters_to_host};
use ascendcl_examples::mlp::{BATCH, D, N, Task};

const STEPS_PER_EPOCH: usize = N / BATCH;

fn batch(task: &Task, k_step: usize) -> (&[f32], &[i64]) {
    let s = k_step % STEPS_PER_EPOCH;
    (
        &task.x[s * BATCH * D..(s + 1) * BATCH * D],
        &task.labels[s * BATCH..(s + 1) * BATCH],
    )
}

/// One eager step (as `train_mlp` without `--graph`): its loss.
fn eager_step(
    tr: &Trainer<'_>,
    task: &Task,
    model: &mut Model,
    k_step: usize,
) -> ascendcl::Result<f32> {
    let (x, labels) = batch(task, k_step);
    let x = tr.block(x)?;
    let mut l = tr.alloc.alloc::<i64>(tr.stream, BATCH)?;
    l.copy_from_host(labels)?;
    let loss = tr.gradients(&x, &l, model, BATCH)?;
    tr.sgd_step(model, k_step == 0)?;
    Ok(loss.to_vec()?[0])
}

/// Trains `steps` steps, eagerly or through a graph recaptured every epoch;
/// returns every loss and the final parameters, as bits.
fn train(
    rt: &Runtime,
    graph: bool,
    steps: usize,
    on_replay: &mut dyn FnMut(),
) -> ascendcl::Result<(Vec<u32>, Vec<u32>)> {
    let ctx = Device::open(rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let tr = Trainer {
        stream: &stream,
        alloc: &alloc,
    };
    let task = Task::generate();
    let mut model = tr.model(&task)?;
    let mut bufs = StepBuffers::new(&tr)?;
    let mut losses = vec![eager_step(&tr, &task, &mut model, 0)?];
    let mut k_step = 1;
    while k_step < steps {
        let epoch_end = (k_step / STEPS_PER_EPOCH + 1) * STEPS_PER_EPOCH;
        if graph {
            let mut captured = graph_step::capture(&tr, &mut model, &mut bufs)?;
            for k in k_step..epoch_end.min(steps) {
                let (x, labels) = batch(&task, k);
                losses.push(captured.step(&stream, x, labels)?);
                on_replay();
            }
        } else {
            for k in k_step..epoch_end.min(steps) {
                losses.push(eager_step(&tr, &task, &mut model, k)?);
            }
        }
        k_step = epoch_end;
    }
    let parameters = parameters_to_host(&model.layers)?;
    Ok((
        losses.iter().map(|l| l.to_bits()).collect(),
        parameters.iter().map(|p| p.to_bits()).collect(),
    ))
}

#[test]
fn graph_replays_give_the_eager_losses_and_parameters_bit_for_bit_across_recaptures() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    // 20 steps: the first eager, then three captures (one per epoch).
    let (eager_losses, eager_params) = train(&rt, false, 20, &mut || {}).expect("eager run");
    let (graph_losses, graph_params) = train(&rt, true, 20, &mut || {}).expect("graph run");
    assert_eq!(eager_losses.len(), 20);
    assert_eq!(graph_losses, eager_losses, "losses differ");
    assert_eq!(graph_params, eager_params, "final parameters differ");
    assert!(session.misuse_log().is_empty(), "{}", session.misuse_log());
}

#[test]
fn a_replayed_step_is_one_execute_call_and_no_operator_launch() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let mut per_step: Vec<Vec<String>> = Vec::new();
    let mut seen = session.journal_len();
    let mut on_replay = || {
        let calls = session.journal_since(seen);
        seen += calls.len() as u64;
        per_step.push(calls.iter().map(|c| c.function().to_string()).collect());
    };
    // Steps 2..8: one capture, then replays; the first replay's calls
    // include the capture's, so look at the later ones.
    train(&rt, true, STEPS_PER_EPOCH, &mut on_replay).expect("graph run");
    assert_eq!(per_step.len(), STEPS_PER_EPOCH - 1);
    for calls in &per_step[1..] {
        let launches: Vec<&String> = calls
            .iter()
            .filter(|c| c.starts_with("aclnn") || c.contains("Async") || c.contains("Launch"))
            .collect();
        assert_eq!(
            launches,
            ["aclmdlRIExecuteAsync"],
            "a replayed step's calls: {calls:?}"
        );
    }
}
