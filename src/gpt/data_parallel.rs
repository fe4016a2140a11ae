//! The GPT trained data-parallel (`train_data_parallel --model gpt`): each
//! rank runs forward and backward on its share of the batch's sequences;
//! gradients are summed across ranks in buckets, as torch's DDP does, and
//! averaged before every rank's identical AdamW step.
//!
//! Buckets follow the backward: as soon as a block's gradients are final
//! they are copied into one flat buffer (on the compute stream) and that
//! buffer is all-reduced on a stream of its own, while the compute stream
//! goes on with the next block's backward; the buffers are averaged and
//! copied back only after the whole backward is queued. The order between
//! the streams is the buffers' own (tracked uses), not a synchronize.

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::ops::{self, TensorMut};
use ascendcl::prelude::*;

use super::forward::Consts;
use super::model::{Gpt, Precision};
use super::reference::Reference;
use super::{B, STEPS, T};

/// What one rank ends with.
#[derive(Debug, Clone)]
pub struct RankRun {
    /// This rank's loss per step (the mean over its sequences).
    pub losses: Vec<f64>,
    /// Every parameter after training, flattened in `parameters()` order.
    pub weights: Vec<f32>,
    /// Collectives launched per step.
    pub collectives_per_step: usize,
}

/// A bucket in flight: its flat buffer and which parameters it holds.
struct InFlight {
    buffer: Block<f32>,
    params: Vec<usize>,
}

/// The sequences of a step on `ranks` ranks: the reference's `B`, or, with
/// more ranks than that, the reference batch repeated `ranks / B` times so
/// that each rank has a whole sequence. A repeated batch has the same mean
/// loss and gradients, so the PyTorch check still applies.
pub fn sequences(ranks: usize) -> ascendcl::Result<usize> {
    let sequences = B.max(ranks);
    if ranks == 0 || sequences % ranks != 0 || sequences % B != 0 {
        return Err(ascendcl::Error::InvalidArgument(format!(
            "{ranks} ranks: want a divisor of the batch of {B} sequences or a multiple of it"
        )));
    }
    Ok(sequences)
}

/// Rank `comm.rank()` of `comm.size()` trains `STEPS` steps on its
/// share of each of the reference's batches ([`sequences`]).
pub fn train_rank(comm: &Communicator, reference: &Reference) -> ascendcl::Result<RankRun> {
    let ranks = comm.size() as usize;
    let sequences = sequences(ranks)?;
    let ctx = comm.device().default_context();
    let (compute, comm_stream) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let gpt = Gpt {
        stream: &compute,
        alloc: &alloc,
        batch: sequences / ranks,
        precision: Precision::F32,
        loss_seed: None,
    };
    let consts = Consts::new(&gpt)?;
    let mut params = gpt.params(&reference.init)?;
    let (mut losses, mut collectives) = (Vec::with_capacity(STEPS), 0);
    let mine = comm.rank() as usize * gpt.rows()..(comm.rank() as usize + 1) * gpt.rows();
    for k in 0..STEPS {
        let (inputs, targets) = reference.batch(k);
        let (inputs, targets) = (inputs.repeat(sequences / B), targets.repeat(sequences / B));
        let saved = gpt.forward(
            &params,
            &consts,
            &inputs[mine.clone()],
            &targets[mine.clone()],
        )?;
        let mut in_flight: Vec<InFlight> = Vec::new();
        gpt.backward_with(&mut params, &consts, &saved, &mut |ps, bucket| {
            let ids = bucket.params();
            let total = ids.iter().map(|&i| ps.grads[i].len()).sum();
            let mut buffer = gpt.act(total)?;
            let mut at = 0;
            for &i in &ids {
                let n = ps.grads[i].len();
                compute
                    .copy_device_to_device(&ps.grads[i], &mut buffer.slice_mut(at..at + n)?)?
                    .detach();
                at += n;
            }
            // Ordered after the copies by the buffer's tracker (an event
            // the comm stream waits for), not by blocking the host.
            comm.all_reduce_in_place(&mut buffer, ReduceOp::Sum, &comm_stream)?
                .detach();
            in_flight.push(InFlight {
                buffer,
                params: ids,
            });
            Ok(())
        })?;
        losses.push(f64::from(saved.loss.to_vec()?[0]));
        drop(saved);
        collectives += in_flight.len();
        for InFlight {
            mut buffer,
            params: ids,
        } in in_flight
        {
            let total = buffer.len();
            gpt.run(ops::inplace_muls(
                TensorMut::new(&mut buffer, &[total])?,
                1.0 / ranks as f32,
            ))?;
            let mut at = 0;
            for &i in &ids {
                let n = params.grads[i].len();
                compute
                    .copy_device_to_device(&buffer.slice(at..at + n)?, &mut params.grads[i])?
                    .detach();
                at += n;
            }
        }
        gpt.adamw(&mut params)?;
    }
    let mut weights = Vec::new();
    for value in &params.values {
        weights.extend(value.to_vec()?);
    }
    debug_assert_eq!(gpt.rows() * ranks, sequences * T);
    Ok(RankRun {
        losses,
        weights,
        collectives_per_step: collectives / STEPS,
    })
}

/// Trains on `devices` (one thread and one rank each, communicators from
/// `HcclCommInitAll`): every rank's run.
pub fn train_threads(devices: &[Device], reference: &Reference) -> ascendcl::Result<Vec<RankRun>> {
    let comms = Communicator::init_all(devices)?;
    std::thread::scope(|s| {
        let joins: Vec<_> = comms
            .iter()
            .map(|comm| s.spawn(move || train_rank(comm, reference)))
            .collect();
        joins
            .into_iter()
            .map(|j| {
                j.join().unwrap_or_else(|_| {
                    Err(ascendcl::Error::InvalidState("a rank panicked".into()))
                })
            })
            .collect()
    })
}

/// `train_data_parallel --model gpt`: one device on the whole batch, then
/// `ranks` devices on a share each; checks that every rank ends with
/// bit-identical weights within 1e-5 (absolute) of the one-device run, and
/// that each step's loss (the mean of the ranks') matches PyTorch's
/// full-batch loss within 1e-5 relative. Prints what it found.
pub fn run(rt: &Runtime, ranks: usize) -> ascendcl::Result<bool> {
    let reference = Reference::read().map_err(ascendcl::Error::InvalidState)?;
    let single = train_threads(&[Device::open(rt, 0)?], &reference)?.remove(0);
    let devices = (0..ranks as u32)
        .map(|i| Device::open(rt, i))
        .collect::<ascendcl::Result<Vec<_>>>()?;
    let runs = train_threads(&devices, &reference)?;
    let identical = runs.iter().all(|r| r.weights == runs[0].weights);
    // Absolute, not relative: the key projections' biases have no effect on
    // the attention (a softmax does not see a constant added to a row), so
    // their true gradient is 0 and both runs step them by AdamW's normalized
    // update of f32 rounding noise (measured: 3.8e-6 apart after 8 steps;
    // every other parameter within 1.2e-7).
    let (mut worst, mut worst_name, mut at) = (0f32, String::new(), 0);
    for (name, shape) in super::parameters() {
        let n: usize = shape.iter().product();
        let d = runs[0].weights[at..at + n]
            .iter()
            .zip(&single.weights[at..at + n])
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        if d > worst {
            (worst, worst_name) = (d, name);
        }
        at += n;
    }
    let mut losses_ok = true;
    for k in 0..STEPS {
        let mean = runs.iter().map(|r| r.losses[k]).sum::<f64>() / ranks as f64;
        let expected = reference.losses[k];
        let ok = (mean - expected).abs() <= 1e-5 * expected.abs();
        losses_ok &= ok;
        println!(
            "step {} loss {mean:.9} (mean of {ranks} ranks; PyTorch {expected:.9}){}",
            k + 1,
            if ok { "" } else { "  MISMATCH" }
        );
    }
    println!(
        "gpt on {ranks} ranks, {} of {} sequences each, {} bucketed all-reduces per step \
         overlapping the backward: weights bit-identical across ranks: {identical}; largest \
         difference to one device {worst:.2e} absolute ({worst_name})",
        sequences(ranks)? / ranks,
        sequences(ranks)?,
        runs[0].collectives_per_step
    );
    Ok(identical && worst <= 1e-5 && losses_ok)
}
