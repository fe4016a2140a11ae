//! The MLP's training step as aclnn operators on one stream: forward,
//! softmax cross-entropy, backward, SGD with momentum. Shared by `train_mlp`
//! (one device, the whole batch) and `train_data_parallel` (each rank its
//! shard of the batch, gradients averaged across ranks between
//! [`Trainer::gradients`] and [`Trainer::sgd_step`]).

use ascendcl::alloc::{Block, CachingAllocator};
use ascendcl::ops::{self, CubeMath, DType, Reduction, Tensor, TensorMut};
use ascendcl::prelude::*;

use super::{C, D, H, LR, MOMENTUM, Task};

/// One layer's parameters (and, with the same shapes, gradients and momentum).
#[derive(Debug)]
pub struct Layer {
    /// Weights, `outputs × inputs` (torch.nn.Linear layout).
    pub w: Block<f32>,
    /// Bias, `outputs`.
    pub b: Block<f32>,
}

/// The model's state on one device: parameters, gradients, momentum, and the
/// loss's constants.
#[derive(Debug)]
pub struct Model {
    /// Layer 1 (`H × D`) and layer 2 (`C × H`).
    pub layers: [Layer; 2],
    /// Gradients of the last [`Trainer::gradients`], shaped like `layers`.
    pub grads: [Layer; 2],
    /// SGD momentum buffers, shaped like `layers`.
    pub moms: [Layer; 2],
    /// Class weights (ones), as torch_npu passes them to nll_loss.
    pub(super) weight: Block<f32>,
    /// dLoss/dLoss = 1, 0-d.
    pub(super) one: Block<f32>,
}

/// Launches operators on one stream with memory from one allocator.
#[derive(Debug)]
pub struct Trainer<'a> {
    /// The compute stream.
    pub stream: &'a Stream,
    /// Where every tensor comes from.
    pub alloc: &'a CachingAllocator,
}

/// `[rows, cols]` view of a block.
fn t2(b: &Block<f32>, rows: usize, cols: usize) -> ascendcl::Result<Tensor<'_>> {
    Tensor::new(b, &[rows, cols])
}

fn m2(b: &mut Block<f32>, rows: usize, cols: usize) -> ascendcl::Result<TensorMut<'_>> {
    TensorMut::new(b, &[rows, cols])
}

impl<'a> Trainer<'a> {
    /// A block holding `data` (uploaded on the stream).
    pub fn block(&self, data: &[f32]) -> ascendcl::Result<Block<f32>> {
        let mut b = self.alloc.alloc::<f32>(self.stream, data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    fn empty(&self, len: usize) -> ascendcl::Result<Block<f32>> {
        self.alloc.alloc::<f32>(self.stream, len)
    }

    /// The task's initial parameters, zero gradients and momentum.
    pub fn model(&self, task: &Task) -> ascendcl::Result<Model> {
        let layer = |w: &[f32], b: &[f32]| -> ascendcl::Result<Layer> {
            Ok(Layer {
                w: self.block(w)?,
                b: self.block(b)?,
            })
        };
        let zeros = |w: usize, b: usize| layer(&vec![0.0; w], &vec![0.0; b]);
        Ok(Model {
            layers: [layer(&task.w1, &task.b1)?, layer(&task.w2, &task.b2)?],
            grads: [zeros(H * D, H)?, zeros(C * H, C)?],
            moms: [zeros(H * D, H)?, zeros(C * H, C)?],
            weight: self.block(&[1.0; C])?,
            one: self.block(&[1.0])?,
        })
    }

    /// `out = x @ wᵀ + b` for `rows` rows of `inputs` features into `outputs`.
    fn linear(
        &self,
        x: &Block<f32>,
        layer: &Layer,
        rows: usize,
        inputs: usize,
        outputs: usize,
    ) -> ascendcl::Result<Block<f32>> {
        let mut out = self.empty(rows * outputs)?;
        let bias = Tensor::new(&layer.b, &[outputs])?;
        let wt = t2(&layer.w, outputs, inputs)?.t()?; // transposed view, no copy
        ops::addmm(
            &bias,
            &t2(x, rows, inputs)?,
            &wt,
            1.0f32,
            1.0f32,
            m2(&mut out, rows, outputs)?,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    /// Forward pass: (hidden pre-activation, hidden, logits).
    pub fn forward(
        &self,
        x: &Block<f32>,
        layers: &[Layer; 2],
        rows: usize,
    ) -> ascendcl::Result<[Block<f32>; 3]> {
        let pre = self.linear(x, &layers[0], rows, D, H)?;
        let mut hidden = self.empty(rows * H)?;
        ops::relu(&t2(&pre, rows, H)?, m2(&mut hidden, rows, H)?)?
            .launch(self.stream, self.alloc)?
            .detach();
        let logits = self.linear(&hidden, &layers[1], rows, H, C)?;
        Ok([pre, hidden, logits])
    }

    /// Forward and backward on `rows` samples of `x`/`labels`: writes the
    /// mean loss's gradients into `model.grads` and returns the loss (a 0-d
    /// block, still being computed: reading it waits).
    pub fn gradients(
        &self,
        x: &Block<f32>,
        labels: &Block<i64>,
        model: &mut Model,
        rows: usize,
    ) -> ascendcl::Result<Block<f32>> {
        let (s, a) = (self.stream, self.alloc);
        let [pre, hidden, logits] = self.forward(x, &model.layers, rows)?;
        let mut logp = self.empty(rows * C)?;
        ops::log_softmax(&t2(&logits, rows, C)?, 1, m2(&mut logp, rows, C)?)?
            .launch(s, a)?
            .detach();
        let (mut loss, mut total) = (self.empty(1)?, self.empty(1)?);
        let target = Tensor::new(labels, &[rows])?;
        let weight = Tensor::new(&model.weight, &[C])?;
        ops::nll_loss(
            &t2(&logp, rows, C)?,
            &target,
            &weight,
            Reduction::Mean,
            -100,
            TensorMut::new(&mut loss, &[])?,
            TensorMut::new(&mut total, &[])?,
        )?
        .launch(s, a)?
        .detach();

        // Backward: NLL, log-softmax, layer 2, ReLU, layer 1.
        let mut g_logp = self.empty(rows * C)?;
        ops::nll_loss_backward(
            &Tensor::new(&model.one, &[])?,
            &t2(&logp, rows, C)?,
            &target,
            &weight,
            Reduction::Mean,
            -100,
            &Tensor::new(&total, &[])?,
            m2(&mut g_logp, rows, C)?,
        )?
        .launch(s, a)?
        .detach();
        let mut g_logits = self.empty(rows * C)?;
        ops::log_softmax_backward(
            &t2(&g_logp, rows, C)?,
            &t2(&logp, rows, C)?,
            1,
            m2(&mut g_logits, rows, C)?,
        )?
        .launch(s, a)?
        .detach();
        let [g1, g2] = &mut model.grads;
        let gl = t2(&g_logits, rows, C)?;
        ops::mm(
            &gl.clone().t()?,
            &t2(&hidden, rows, H)?,
            m2(&mut g2.w, C, H)?,
            CubeMath::KeepDtype,
        )?
        .launch(s, a)?
        .detach();
        ops::reduce_sum(
            &gl,
            &[0],
            false,
            DType::F32,
            TensorMut::new(&mut g2.b, &[C])?,
        )?
        .launch(s, a)?
        .detach();
        let mut g_hidden = self.empty(rows * H)?;
        ops::mm(
            &gl,
            &t2(&model.layers[1].w, C, H)?,
            m2(&mut g_hidden, rows, H)?,
            CubeMath::KeepDtype,
        )?
        .launch(s, a)?
        .detach();
        let mut g_pre = self.empty(rows * H)?;
        // PyTorch's ReLU backward: threshold_backward(grad, relu output, 0).
        ops::threshold_backward(
            &t2(&g_hidden, rows, H)?,
            &t2(&hidden, rows, H)?,
            0.0f32,
            m2(&mut g_pre, rows, H)?,
        )?
        .launch(s, a)?
        .detach();
        let gp = t2(&g_pre, rows, H)?;
        ops::mm(
            &gp.clone().t()?,
            &t2(x, rows, D)?,
            m2(&mut g1.w, H, D)?,
            CubeMath::KeepDtype,
        )?
        .launch(s, a)?
        .detach();
        ops::reduce_sum(
            &gp,
            &[0],
            false,
            DType::F32,
            TensorMut::new(&mut g1.b, &[H])?,
        )?
        .launch(s, a)?
        .detach();
        drop(pre);
        Ok(loss)
    }

    /// `momentum = g` (first step) or `momentum = μ·momentum + g`; then
    /// `p -= lr·momentum`: PyTorch's SGD with momentum, dampening 0.
    fn sgd(
        &self,
        p: &mut Block<f32>,
        g: &Block<f32>,
        m: &mut Block<f32>,
        first: bool,
    ) -> ascendcl::Result<()> {
        let n = p.len();
        if first {
            ops::inplace_copy(TensorMut::new(m, &[n])?, &Tensor::new(g, &[n])?)?
                .launch(self.stream, self.alloc)?
                .detach();
        } else {
            ops::inplace_muls(TensorMut::new(m, &[n])?, MOMENTUM)?
                .launch(self.stream, self.alloc)?
                .detach();
            ops::inplace_add(TensorMut::new(m, &[n])?, &Tensor::new(g, &[n])?, 1.0f32)?
                .launch(self.stream, self.alloc)?
                .detach();
        }
        ops::inplace_add(TensorMut::new(p, &[n])?, &Tensor::new(m, &[n])?, -LR)?
            .launch(self.stream, self.alloc)?
            .detach();
        Ok(())
    }

    /// One SGD-with-momentum update of every parameter from `model.grads`.
    pub fn sgd_step(&self, model: &mut Model, first: bool) -> ascendcl::Result<()> {
        let Model {
            layers,
            grads,
            moms,
            ..
        } = model;
        for ((layer, grad), mom) in layers.iter_mut().zip(grads.iter()).zip(moms.iter_mut()) {
            self.sgd(&mut layer.w, &grad.w, &mut mom.w, first)?;
            self.sgd(&mut layer.b, &grad.b, &mut mom.b, first)?;
        }
        Ok(())
    }

    /// Multiplies every gradient by `factor` (1/ranks after a sum all-reduce).
    pub fn scale_gradients(&self, model: &mut Model, factor: f32) -> ascendcl::Result<()> {
        for grad in &mut model.grads {
            for g in [&mut grad.w, &mut grad.b] {
                let n = g.len();
                ops::inplace_muls(TensorMut::new(g, &[n])?, factor)?
                    .launch(self.stream, self.alloc)?
                    .detach();
            }
        }
        Ok(())
    }

    /// Fraction of the `rows` samples of `x_all` classified right.
    pub fn accuracy(
        &self,
        x_all: &Block<f32>,
        labels: &[i64],
        layers: &[Layer; 2],
        rows: usize,
    ) -> ascendcl::Result<f64> {
        let [_, _, logits] = self.forward(x_all, layers, rows)?;
        let mut predicted = self.alloc.alloc::<i64>(self.stream, rows)?;
        ops::argmax(
            &t2(&logits, rows, C)?,
            1,
            false,
            TensorMut::new(&mut predicted, &[rows])?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        let predicted = predicted.to_vec()?;
        let right = predicted.iter().zip(labels).filter(|(p, l)| p == l).count();
        Ok(right as f64 / rows as f64)
    }
}

/// Copies every parameter of `layers` to the host, in a fixed order
/// (layer 1 w, b, layer 2 w, b): what ranks compare bit for bit.
pub fn parameters_to_host(layers: &[Layer; 2]) -> ascendcl::Result<Vec<f32>> {
    let mut all = Vec::new();
    for layer in layers {
        all.extend(layer.w.to_vec()?);
        all.extend(layer.b.to_vec()?);
    }
    Ok(all)
}
