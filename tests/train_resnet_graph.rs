//! `train_resnet --graph`: a captured ResNet step (parameters bound, every
//! intermediate in the graph's scratch memory) replays what the eager step
//! computes, bit for bit.

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::resnet::graph_step;
use ascendcl_examples::resnet::trainer::{Act, LossConsts, Net, Tr};
use ascendcl_examples::resnet::{BATCH, IMAGE, N, Task, pass};

const STEPS_PER_EPOCH: usize = N / BATCH;

fn batch(task: &Task, k: usize) -> (&[f32], &[i64]) {
    let pixels: usize = IMAGE.iter().product();
    let s = k % STEPS_PER_EPOCH;
    (
        &task.x[s * BATCH * pixels..(s + 1) * BATCH * pixels],
        &task.labels[s * BATCH..(s + 1) * BATCH],
    )
}

fn eager_step(
    tr: &Tr<'_>,
    task: &Task,
    net: &mut Net,
    consts: &LossConsts,
    k: usize,
) -> ascendcl::Result<f32> {
    let (x, labels) = batch(task, k);
    let x = Act {
        t: tr.block(x)?,
        shape: vec![BATCH, IMAGE[0], IMAGE[1], IMAGE[2]],
    };
    let mut l = tr.alloc.alloc::<i64>(tr.stream, BATCH)?;
    l.copy_from_host(labels)?;
    pass::step(tr, net, consts, x, &l, k == 0)
}

/// Every parameter, running statistic and momentum of `net`, as bits.
fn state(net: &Net) -> ascendcl::Result<Vec<u32>> {
    let mut all = Vec::new();
    let mut param = |p: &ascendcl_examples::resnet::trainer::Param| -> ascendcl::Result<()> {
        for b in [&p.value, &p.grad, &p.mom] {
            all.extend(b.to_vec()?.iter().map(|v| v.to_bits()));
        }
        Ok(())
    };
    for conv in &net.convs {
        param(&conv.w)?;
    }
    for bn in &net.bns {
        param(&bn.gamma)?;
        param(&bn.beta)?;
    }
    param(&net.fc_w)?;
    param(&net.fc_b)?;
    for bn in &net.bns {
        all.extend(bn.mean.to_vec()?.iter().map(|v| v.to_bits()));
        all.extend(bn.var.to_vec()?.iter().map(|v| v.to_bits()));
    }
    Ok(all)
}

fn train(rt: &Runtime, graph: bool, steps: usize) -> ascendcl::Result<(Vec<u32>, Vec<u32>)> {
    let ctx = Device::open(rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let tr = Tr {
        stream: &stream,
        alloc: &alloc,
    };
    let task = Task::generate();
    let mut net = pass::build(&tr, &task)?;
    let mut consts = LossConsts::new(&tr)?;
    let mut losses = vec![eager_step(&tr, &task, &mut net, &consts, 0)?];
    if graph {
        let mut captured = graph_step::capture(&tr, &mut net, &mut consts)?;
        for k in 1..steps {
            let (x, labels) = batch(&task, k);
            captured.submit(&stream, x, labels)?;
            losses.push(captured.loss()?);
        }
    } else {
        for k in 1..steps {
            losses.push(eager_step(&tr, &task, &mut net, &consts, k)?);
        }
    }
    Ok((losses.iter().map(|l| l.to_bits()).collect(), state(&net)?))
}

#[test]
fn resnet_graph_replays_give_the_eager_losses_parameters_and_running_statistics_bit_for_bit() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let steps = 2 * STEPS_PER_EPOCH;
    let (eager_losses, eager_state) = train(&rt, false, steps).expect("eager run");
    let (graph_losses, graph_state) = train(&rt, true, steps).expect("graph run");
    assert_eq!(eager_losses.len(), steps);
    assert_eq!(graph_losses, eager_losses, "losses differ");
    assert_eq!(graph_state.len(), eager_state.len());
    assert!(
        graph_state == eager_state,
        "parameters, gradients, momentum or running statistics differ"
    );
    assert!(session.misuse_log().is_empty(), "{}", session.misuse_log());
}
