//! One training step's gradients, from one batch or from micro-batches
//! accumulated in place (the workaround when a batch does not fit).

use ascendcl::alloc::CachingAllocator;
use ascendcl::ops::{self, Tensor, TensorMut};
use ascendcl::prelude::*;

use super::T;
use super::forward::Consts;
use super::model::{Gpt, Params, Precision};

/// Forward and backward of the sequences of `inputs`/`targets` (`T` tokens
/// each) in `micro` micro-batches of equally many sequences: leaves
/// the gradients of the batch's mean loss in `params.grads` and returns that
/// loss. With `micro > 1` each micro-batch's gradients (of its own mean
/// loss) are added in place, scaled by `1 / micro`, into accumulators that
/// then become `params.grads`: the batch's mean is the mean of the equal
/// micro-batches' means, so the update is the one-batch update up to f32
/// rounding.
pub fn gradients(
    stream: &Stream,
    alloc: &CachingAllocator,
    consts: &Consts,
    params: &mut Params,
    inputs: &[i64],
    targets: &[i64],
    micro: usize,
) -> ascendcl::Result<f64> {
    let sequences = inputs.len() / T;
    if micro == 0 || sequences % micro != 0 || inputs.len() != sequences * T {
        return Err(ascendcl::Error::InvalidArgument(format!(
            "{micro} micro-batches do not divide a batch of {sequences} sequences of {T} tokens"
        )));
    }
    let gpt = Gpt {
        stream,
        alloc,
        batch: sequences / micro,
        precision: Precision::F32,
        loss_seed: None,
    };
    let tokens = gpt.rows();
    if micro == 1 {
        let saved = gpt.forward(params, consts, inputs, targets)?;
        gpt.backward(params, consts, &saved)?;
        return Ok(f64::from(saved.loss.to_vec()?[0]));
    }
    let mut accumulated = params
        .grads
        .iter()
        .map(|g| gpt.upload(&vec![0.0f32; g.len()]))
        .collect::<ascendcl::Result<Vec<_>>>()?;
    let mut loss = 0.0;
    for m in 0..micro {
        let rows = m * tokens..(m + 1) * tokens;
        let saved = gpt.forward(params, consts, &inputs[rows.clone()], &targets[rows])?;
        gpt.backward(params, consts, &saved)?;
        for (acc, grad) in accumulated.iter_mut().zip(&params.grads) {
            let n = [grad.len()];
            gpt.run(ops::inplace_add(
                TensorMut::new(acc, &n)?,
                &Tensor::new(grad, &n)?,
                1.0 / micro as f32,
            ))?;
        }
        loss += f64::from(saved.loss.to_vec()?[0]) / micro as f64;
    }
    std::mem::swap(&mut params.grads, &mut accumulated);
    Ok(loss)
}
