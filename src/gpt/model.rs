//! The transformer's state on one device (parameters, gradients, AdamW
//! moments) and the launcher its passes queue operators through.

use ascendcl::alloc::{Block, CachingAllocator};
use ascendcl::ops::{self, AdamW, Prepared, Tensor, TensorMut};
use ascendcl::prelude::*;

use super::{LR, WD, parameters};

/// Every parameter with its gradient and AdamW moments, in
/// [`parameters`] order; four lists, so a pass can read
/// values while it writes gradients.
#[derive(Debug)]
pub struct Params {
    /// Shapes.
    pub shapes: Vec<Vec<usize>>,
    /// Values.
    pub values: Vec<Block<f32>>,
    /// Gradients of the last backward.
    pub grads: Vec<Block<f32>>,
    /// AdamW first moments.
    pub m: Vec<Block<f32>>,
    /// AdamW second moments.
    pub v: Vec<Block<f32>>,
    /// Optimizer steps taken so far (what ApplyAdamWV2 reads), 1 element.
    step: Block<f32>,
    steps: usize,
}

/// Queues operators on one stream, with every tensor from one allocator.
#[derive(Debug)]
pub struct Gpt<'a> {
    /// The compute stream.
    pub stream: &'a Stream,
    /// Where every tensor comes from.
    pub alloc: &'a CachingAllocator,
    /// Sequences per forward and backward (`B`, or `B / K` when `K`
    /// micro-batches accumulate one step's gradients).
    pub batch: usize,
    /// The matrix products' precision ([`Precision`]).
    pub precision: Precision,
    /// dLoss/dLoss for the backward: 1 (`Consts::one`) when `None`, the loss
    /// scale of mixed precision ([`super::grad_scaler::GradScaler::seed`]).
    pub loss_seed: Option<&'a Block<f32>>,
}

/// Where a [`Gpt`]'s matrix products compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// Everything in f32.
    #[default]
    F32,
    /// bf16 mixed precision, as PyTorch's CPU autocast runs this model: the
    /// matrix products (linear layers, attention, the output projection)
    /// take bf16 inputs and give bf16 results, used in f32 from there;
    /// embeddings, LayerNorms, GELU, residuals, the loss, the weights and
    /// the optimizer stay f32 ([`super::precision`]).
    Bf16,
}

impl Gpt<'_> {
    /// Rows of every activation: `batch · T`.
    pub fn rows(&self) -> usize {
        self.batch * super::T
    }

    /// Queues `op` (workspace from the allocator) and lets it run.
    pub fn run(&self, op: ascendcl::Result<Prepared<'_>>) -> ascendcl::Result<()> {
        op?.launch(self.stream, self.alloc)?.detach();
        Ok(())
    }

    /// `len` elements of uninitialised device memory.
    pub fn empty<T: ascendcl::ops::Element>(&self, len: usize) -> ascendcl::Result<Block<T>> {
        self.alloc.alloc::<T>(self.stream, len)
    }

    /// `len` f32s of uninitialised device memory.
    pub fn act(&self, len: usize) -> ascendcl::Result<Block<f32>> {
        self.empty::<f32>(len)
    }

    /// A block holding `data`.
    pub fn upload<T: ascendcl::ops::Element>(&self, data: &[T]) -> ascendcl::Result<Block<T>> {
        let mut b = self.empty::<T>(data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    /// The parameters from `init` (in [`parameters`] order), zero
    /// gradients and moments.
    pub fn params(&self, init: &[Vec<f32>]) -> ascendcl::Result<Params> {
        let shapes: Vec<Vec<usize>> = parameters().into_iter().map(|(_, s)| s).collect();
        let zeros = |len: usize| self.upload(&vec![0.0f32; len]);
        let mut p = Params {
            values: Vec::new(),
            grads: Vec::new(),
            m: Vec::new(),
            v: Vec::new(),
            step: self.upload(&[0.0f32])?,
            steps: 0,
            shapes,
        };
        for values in init {
            p.values.push(self.upload(values)?);
            p.grads.push(zeros(values.len())?);
            p.m.push(zeros(values.len())?);
            p.v.push(zeros(values.len())?);
        }
        Ok(p)
    }

    /// One AdamW step of every parameter from its gradient (PyTorch's
    /// `torch.optim.AdamW(lr=LR, weight_decay=WD)`).
    pub fn adamw(&self, p: &mut Params) -> ascendcl::Result<()> {
        // ApplyAdamWV2 reads the steps taken so far and adds one itself.
        p.step.copy_from_host(&[p.steps as f32])?;
        let hyper = AdamW {
            lr: LR,
            weight_decay: WD,
            ..AdamW::default()
        };
        let Params {
            values,
            grads,
            m,
            v,
            step,
            ..
        } = p;
        for (((value, grad), m), v) in values.iter_mut().zip(grads.iter()).zip(m).zip(v) {
            let n = [value.len()];
            self.run(ops::apply_adam_w_v2(
                TensorMut::new(value, &n)?,
                TensorMut::new(m, &n)?,
                TensorMut::new(v, &n)?,
                None,
                &Tensor::new(grad, &n)?,
                &Tensor::new(&*step, &[1])?,
                hyper,
            ))?;
        }
        p.steps += 1;
        Ok(())
    }
}

/// A `[rows, cols]` view.
pub fn t2<T: ascendcl::ops::Element>(
    b: &Block<T>,
    rows: usize,
    cols: usize,
) -> ascendcl::Result<Tensor<'_>> {
    Tensor::new(b, &[rows, cols])
}

/// A writable `[rows, cols]` view.
pub fn m2<T: ascendcl::ops::Element>(
    b: &mut Block<T>,
    rows: usize,
    cols: usize,
) -> ascendcl::Result<TensorMut<'_>> {
    TensorMut::new(b, &[rows, cols])
}
