//! One iteration of the training loop: load, forward, loss, backward.
//!
//! Every tensor is a reference-counted [`Id`] of the [`Sim`]; who holds a
//! reference, and until when, is what the [module docs](super) describe.

use super::config::{Dtype, GradMode, TrainConfig};
use super::resnet50::{LayerOp, Model, Source};
use super::training::{Id, Sim, State, optimizer_step};

/// Bytes of an im2col workspace for a pass of convolution `layer`, or 0 for
/// a plain GEMM (1×1, stride 1).
fn conv_workspace(n: u64, model: &Model, layer: usize, elem: u64, cap: u64) -> u64 {
    let layer = &model.layers[layer];
    let LayerOp::Conv2d {
        in_channels,
        kernel,
        stride,
        ..
    } = layer.op
    else {
        return 0;
    };
    if kernel == 1 && stride == 1 {
        return 0;
    }
    let patch = u64::from(in_channels) * u64::from(kernel) * u64::from(kernel);
    let per_sample = patch * u64::from(layer.out.h) * u64::from(layer.out.w);
    (n * per_sample * elem).min(cap)
}

/// A training step with a batch of `n`.
pub(super) struct Step<'a> {
    pub sim: &'a mut Sim,
    pub state: &'a mut State,
    pub model: &'a Model,
    pub config: &'a TrainConfig,
    pub n: u64,
}

/// What the forward pass leaves behind.
struct Forward {
    /// Referenced by the loop (`output = model(x)`) until the step ends.
    logits: Id,
    /// What autograd saved for each layer's backward.
    saved: Vec<Vec<Id>>,
}

impl Step<'_> {
    fn elem(&self) -> u64 {
        self.config.dtype.bytes()
    }

    fn mixed(&self) -> bool {
        self.config.dtype != Dtype::Fp32
    }

    fn workspace(&self, layer: usize) -> u64 {
        let cap = self.config.workspace_cap_bytes;
        conv_workspace(self.n, self.model, layer, self.elem(), cap)
    }

    /// `x, y = next(loader)`; `loss = ce(model(x), y)`; `loss.backward()`;
    /// `opt.step()`; `opt.zero_grad()`; the loop drops its references.
    pub fn run(mut self) {
        let (n, stream) = (self.n, self.config.input_stream);
        let (elem, mixed) = (self.elem(), self.mixed());
        let x = self.sim.alloc_on(n * self.model.input.numel() * 4, stream);
        let y = self.sim.alloc_on(n * 8, stream);
        let Some(mut fwd) = self.forward(x) else {
            self.sim.release_all([y, x]);
            return;
        };
        let sim = &mut *self.sim;
        let classes = self.model.layers.last().map_or(0, |l| l.out.numel());
        let probs = n * classes * 4;
        // Autocast computes the loss in fp32.
        let loss_input = if mixed {
            sim.alloc(probs)
        } else {
            sim.retain(fwd.logits);
            fwd.logits
        };
        // log_softmax saves its result; nll_loss saves it, the labels and a
        // scalar total weight.
        let log_probs = sim.alloc(probs);
        sim.release(loss_input);
        sim.retain(y);
        let total_weight = sim.alloc(4);
        let loss = sim.alloc(4);
        let scaler = self.config.dtype == Dtype::Fp16;
        let scaled_loss = scaler.then(|| {
            if self.state.scaler.is_empty() {
                self.state.scaler = vec![sim.alloc(4), sim.alloc(4)];
                self.state
                    .persistent
                    .extend(self.state.scaler.iter().copied());
            }
            sim.alloc(4)
        });

        // Backward from the implicit ones_like(loss), through the scaling.
        let mut g = sim.alloc(4);
        if scaler {
            let g_loss = sim.alloc(4);
            sim.release(g);
            g = g_loss;
        }
        let g_log_probs = sim.alloc(probs);
        sim.release_all([g, y, total_weight]);
        let mut g_logits = sim.alloc(probs);
        sim.release_all([g_log_probs, log_probs]);
        if mixed {
            let half = sim.alloc(n * classes * elem);
            sim.release(g_logits);
            g_logits = half;
        }
        self.backward(g_logits, &mut fwd.saved);

        optimizer_step(self.sim, self.state, self.model, self.config);
        let python_refs = [scaled_loss, Some(loss), Some(fwd.logits), Some(y), Some(x)];
        self.sim.release_all(python_refs.into_iter().flatten());
    }

    /// Runs the layers; `None` for a model without layers.
    fn forward(&mut self, x: Id) -> Option<Forward> {
        let (model, n, elem, mixed) = (self.model, self.n, self.elem(), self.mixed());
        if model.layers.is_empty() {
            return None;
        }
        let sim = &mut *self.sim;
        // How many layers have yet to read each output (and the batch).
        let mut readers = vec![0u32; model.layers.len()];
        let mut input_readers = 0;
        for source in model.layers.iter().flat_map(|l| &l.inputs) {
            match *source {
                Source::Input => input_readers += 1,
                Source::Layer(j) => readers[j] += 1,
            }
        }
        // Autocast casts the fp32 batch for the first convolution.
        let input = if mixed {
            sim.alloc(n * model.input.numel() * elem)
        } else {
            sim.retain(x);
            x
        };
        let mut value: Vec<Id> = Vec::with_capacity(model.layers.len());
        let mut saved: Vec<Vec<Id>> = vec![Vec::new(); model.layers.len()];
        // Half copies of parameters, cached until the forward pass ends.
        let mut autocast_cache = Vec::new();
        let get = |value: &[Id], s: Source| match s {
            Source::Input => input,
            Source::Layer(j) => value[j],
        };
        for (i, layer) in model.layers.iter().enumerate() {
            let src = get(&value, layer.inputs[0]);
            let out_bytes = n * layer.out.numel() * elem;
            let saves = &mut saved[i];
            let mut cast = |sim: &mut Sim, p: usize, save: bool| {
                let half = sim.alloc(model.state[p].numel * elem);
                autocast_cache.push(half);
                if save {
                    sim.retain(half);
                    saves.push(half);
                }
            };
            if mixed && matches!(layer.op, LayerOp::Conv2d { .. } | LayerOp::Linear { .. }) {
                cast(sim, layer.params[0], true);
                if let Some(&bias) = layer.params.get(1) {
                    cast(sim, bias, false);
                }
            }
            // Every op but the in-place ones and the view saves its input.
            let in_place = matches!(
                layer.op,
                LayerOp::ReluInplace | LayerOp::AddInplace | LayerOp::Flatten
            );
            if !in_place {
                sim.retain(src);
                saves.push(src);
            }
            let out = match layer.op {
                LayerOp::Conv2d { .. } => {
                    let out = sim.alloc(out_bytes);
                    let cap = self.config.workspace_cap_bytes;
                    sim.scratch(conv_workspace(n, model, i, elem, cap));
                    out
                }
                LayerOp::BatchNorm2d { channels } => {
                    let out = sim.alloc(out_bytes);
                    let stats = u64::from(channels) * 4; // save_mean, save_invstd
                    saves.extend([sim.alloc(stats), sim.alloc(stats)]);
                    out
                }
                LayerOp::ReluInplace => {
                    sim.retain(src); // saves its result, which is its input
                    saves.push(src);
                    sim.retain(src);
                    src
                }
                LayerOp::MaxPool2d { .. } => {
                    let out = sim.alloc(out_bytes);
                    saves.push(sim.alloc(n * layer.out.numel() * 8)); // int64 indices
                    out
                }
                LayerOp::AddInplace | LayerOp::Flatten => {
                    sim.retain(src);
                    src
                }
                LayerOp::AdaptiveAvgPool2d | LayerOp::Linear { .. } => sim.alloc(out_bytes),
            };
            value.push(out);
            for &source in &layer.inputs {
                let left = match source {
                    Source::Input => &mut input_readers,
                    Source::Layer(j) => &mut readers[j],
                };
                *left -= 1;
                if *left == 0 {
                    sim.release(get(&value, source));
                }
            }
        }
        sim.release_all(autocast_cache);
        let logits = value.last().copied()?;
        Some(Forward { logits, saved })
    }

    /// Runs the layers' backward in reverse, starting from the gradient of
    /// the last layer's output.
    fn backward(&mut self, g_logits: Id, saved: &mut [Vec<Id>]) {
        let (model, n, elem, mixed) = (self.model, self.n, self.elem(), self.mixed());
        let mut grads: Vec<Option<Id>> = vec![None; model.layers.len()];
        if let Some(last) = grads.last_mut() {
            *last = Some(g_logits);
        }
        for (i, layer) in model.layers.iter().enumerate().rev() {
            let Some(g) = grads[i].take() else {
                continue;
            };
            let src = layer.inputs[0];
            let in_bytes = n * model.shape_of(src).numel() * elem;
            let to_free = std::mem::take(&mut saved[i]);
            match layer.op {
                LayerOp::Conv2d { .. } => {
                    let ws = self.workspace(i);
                    // The batch does not require grad: no input gradient.
                    let g_in = (src != Source::Input).then(|| {
                        let g_in = self.sim.alloc(in_bytes);
                        self.sim.scratch(ws);
                        g_in
                    });
                    let w = layer.params[0];
                    let g_w = self.sim.alloc(model.state[w].numel * elem);
                    self.sim.scratch(ws);
                    self.sim.release(g);
                    self.sim.release_all(to_free);
                    if let Some(g_in) = g_in {
                        self.accumulate(&mut grads, src, g_in);
                    }
                    self.param_grad(w, g_w, mixed);
                }
                LayerOp::BatchNorm2d { channels } => {
                    let g_in = self.sim.alloc(in_bytes);
                    let stats = u64::from(channels) * 4;
                    let g_w = self.sim.alloc(stats);
                    let g_b = self.sim.alloc(stats);
                    self.sim.release(g);
                    self.sim.release_all(to_free);
                    self.accumulate(&mut grads, src, g_in);
                    self.param_grad(layer.params[0], g_w, false);
                    self.param_grad(layer.params[1], g_b, false);
                }
                LayerOp::ReluInplace | LayerOp::MaxPool2d { .. } | LayerOp::AdaptiveAvgPool2d => {
                    let g_in = self.sim.alloc(in_bytes);
                    self.sim.release(g);
                    self.sim.release_all(to_free);
                    self.accumulate(&mut grads, src, g_in);
                }
                LayerOp::AddInplace => {
                    // The same gradient flows to both summands.
                    self.sim.retain(g);
                    self.accumulate(&mut grads, src, g);
                    self.accumulate(&mut grads, layer.inputs[1], g);
                }
                LayerOp::Flatten => self.accumulate(&mut grads, src, g),
                LayerOp::Linear { .. } => {
                    let (w, b) = (layer.params[0], layer.params[1]);
                    let g_in = self.sim.alloc(in_bytes);
                    let g_w = self.sim.alloc(model.state[w].numel * elem);
                    let g_b = self.sim.alloc(model.state[b].numel * elem);
                    self.sim.release(g);
                    self.sim.release_all(to_free);
                    self.accumulate(&mut grads, src, g_in);
                    self.param_grad(w, g_w, mixed);
                    self.param_grad(b, g_b, mixed);
                }
            }
        }
    }

    /// Adds `g` into the engine's gradient buffer for `source`: taken as is
    /// when the buffer is empty, summed in place when the buffered tensor is
    /// not shared, out of place otherwise.
    fn accumulate(&mut self, grads: &mut [Option<Id>], source: Source, g: Id) {
        let Source::Layer(j) = source else {
            self.sim.release(g); // the batch does not require grad
            return;
        };
        match grads[j] {
            None => grads[j] = Some(g),
            Some(old) if self.sim.is_unique(old) => self.sim.release(g),
            Some(old) => {
                let sum = self.sim.alloc(self.sim.bytes_of(old));
                self.sim.release_all([old, g]);
                grads[j] = Some(sum);
            }
        }
    }

    /// `AccumulateGrad` for parameter `p` given its fresh gradient `g`, in
    /// the activation dtype when it went through an autocast copy (`cast`).
    fn param_grad(&mut self, p: usize, mut g: Id, cast: bool) {
        if cast {
            let full = self.sim.alloc(self.model.state[p].numel * 4);
            self.sim.release(g);
            g = full;
        }
        match self.state.grads[p] {
            Some(_) => self.sim.release(g), // .grad += g
            None => {
                self.state.grads[p] = Some(g); // .grad = g (stolen)
                if self.config.grads == GradMode::Keep {
                    self.state.persistent.push(g);
                }
            }
        }
    }
}
