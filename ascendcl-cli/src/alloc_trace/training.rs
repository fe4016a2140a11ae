//! Turning a model and a batch schedule into allocation events.
//!
//! The modelling assumptions are listed in the [module docs](super). Here a
//! small reference-counting simulator stands in for PyTorch's tensor
//! lifetimes: a tensor is freed when its last holder (a Python variable, a
//! layer that has yet to read it, a tensor saved for backward, a gradient
//! buffer of the autograd engine, the autocast cache) lets go.

use super::config::{Dtype, GradMode, Optimizer, TrainConfig};
use super::resnet50::{Model, StateKind, resnet50};
use super::step::Step;
use super::{OpKind, Schedule, Trace, TraceMeta, TraceOp};

/// Reference-counted tensors that emit alloc/free ops.
pub(super) struct Sim {
    ops: Vec<TraceOp>,
    step: u32,
    /// Indexed by id.
    refs: Vec<u32>,
    bytes: Vec<u64>,
    streams: Vec<u32>,
}

/// A tensor: its index in the [`Sim`], and its trace id.
pub(super) type Id = u64;

impl Sim {
    pub(super) fn alloc_on(&mut self, bytes: u64, stream: u32) -> Id {
        debug_assert!(bytes > 0);
        let id = self.refs.len() as Id;
        self.refs.push(1);
        self.bytes.push(bytes);
        self.streams.push(stream);
        self.push(OpKind::Alloc, id);
        id
    }

    pub(super) fn alloc(&mut self, bytes: u64) -> Id {
        self.alloc_on(bytes, 0)
    }

    fn push(&mut self, kind: OpKind, id: Id) {
        let (bytes, stream) = (self.bytes[id as usize], self.streams[id as usize]);
        let step = self.step;
        self.ops.push(TraceOp {
            step,
            kind,
            id,
            bytes,
            stream,
        });
    }

    pub(super) fn retain(&mut self, id: Id) {
        self.refs[id as usize] += 1;
    }

    pub(super) fn release(&mut self, id: Id) {
        let refs = &mut self.refs[id as usize];
        debug_assert!(*refs > 0, "tensor {id} released too often");
        *refs -= 1;
        if *refs == 0 {
            self.push(OpKind::Free, id);
        }
    }

    pub(super) fn release_all(&mut self, ids: impl IntoIterator<Item = Id>) {
        ids.into_iter().for_each(|id| self.release(id));
    }

    /// Whether `id` has a single holder.
    pub(super) fn is_unique(&self, id: Id) -> bool {
        self.refs[id as usize] == 1
    }

    /// Bytes of `id`.
    pub(super) fn bytes_of(&self, id: Id) -> u64 {
        self.bytes[id as usize]
    }

    /// A workspace: allocated, used by one kernel, freed.
    pub(super) fn scratch(&mut self, bytes: u64) {
        if bytes > 0 {
            let id = self.alloc(bytes);
            self.release(id);
        }
    }
}

/// Tensors that outlive a step.
pub(super) struct State {
    /// `.grad` of each state tensor (always `None` for buffers).
    pub grads: Vec<Option<Id>>,
    /// Optimizer state, allocated by the first `step()`.
    pub optimizer: Vec<Id>,
    /// GradScaler scale and growth tracker (fp16), allocated lazily.
    pub scaler: Vec<Id>,
    /// The weights and buffers and whatever of the above lives to the end,
    /// in allocation order.
    pub persistent: Vec<Id>,
}

/// Simulates training `model` on `schedule` and records its device
/// allocations. An empty schedule gives an empty trace.
pub fn generate(model: &Model, schedule: &Schedule, config: &TrainConfig) -> Trace {
    let mut sim = Sim {
        ops: Vec::new(),
        step: 0,
        refs: Vec::new(),
        bytes: Vec::new(),
        streams: Vec::new(),
    };
    let mut state = State {
        grads: vec![None; model.state.len()],
        optimizer: Vec::new(),
        scaler: Vec::new(),
        persistent: Vec::new(),
    };
    if !schedule.batches().is_empty() {
        // model.to(device)
        for tensor in &model.state {
            let id = sim.alloc(tensor.bytes());
            state.persistent.push(id);
        }
        for (step, &n) in schedule.batches().iter().enumerate() {
            sim.step = step as u32;
            let n = u64::from(n);
            let state = &mut state;
            Step {
                sim: &mut sim,
                state,
                model,
                config,
                n,
            }
            .run();
        }
        let persistent = state.persistent.clone();
        sim.release_all(persistent);
    }
    Trace {
        ops: sim.ops,
        meta: TraceMeta {
            model: model.name.clone(),
            dtype: config.dtype,
            optimizer: config.optimizer,
            grads: config.grads,
            batches: schedule.batches().to_vec(),
            persistent: state.persistent,
        },
    }
}

/// [`generate`] for [`resnet50`].
pub fn resnet50_trace(schedule: &Schedule, config: &TrainConfig) -> Trace {
    generate(&resnet50(), schedule, config)
}

/// The largest fixed batch size whose ResNet-50 training trace (setup and
/// two steps: the second is the steady state, with optimizer state and
/// gradients in place) has at most `limit_bytes` live at once; 0 if not even
/// a batch of 1 fits.
pub fn max_batch_by_live_bytes(limit_bytes: u64, config: &TrainConfig) -> u32 {
    max_batch_by_live_bytes_for(&resnet50(), limit_bytes, config)
}

/// [`max_batch_by_live_bytes`] for any model. The peak grows with the batch,
/// so this is a doubling search followed by a binary search.
pub fn max_batch_by_live_bytes_for(model: &Model, limit_bytes: u64, config: &TrainConfig) -> u32 {
    // `n` is never 0 here, so the schedule is always built.
    let fits = |n: u32| {
        Schedule::fixed(n, 2).is_ok_and(|schedule| {
            generate(model, &schedule, config).peak_live_bytes() <= limit_bytes
        })
    };
    if !fits(1) {
        return 0;
    }
    // fits(lo) and !fits(hi), or hi is past any sensible batch.
    let (mut lo, mut hi) = (1u32, 2u32);
    while hi < 1 << 30 && fits(hi) {
        (lo, hi) = (hi, hi * 2);
    }
    if hi >= 1 << 30 {
        return lo;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// `scaler.step(opt)` / `opt.step()`, then `opt.zero_grad()`.
pub(super) fn optimizer_step(
    sim: &mut Sim,
    state: &mut State,
    model: &Model,
    config: &TrainConfig,
) {
    let scaled = config.dtype == Dtype::Fp16;
    // GradScaler.unscale_: inv_scale and found_inf.
    let unscale = if scaled {
        vec![sim.alloc(4), sim.alloc(4)]
    } else {
        Vec::new()
    };
    let params: Vec<u64> = model
        .state
        .iter()
        .filter(|t| t.kind == StateKind::Parameter)
        .map(|t| t.bytes())
        .collect();
    let first = state.optimizer.is_empty();
    let per_param = match config.optimizer {
        Optimizer::SgdMomentum => 1,
        Optimizer::Adam => 2,
    };
    // SGD: grads = _foreach_add(grads, params, alpha=weight_decay), then the
    // momentum buffers are cloned from them on the first step.
    // Adam: state zeros_like on the first step, then _foreach_sqrt(exp_avg_sq).
    let sgd = config.optimizer == Optimizer::SgdMomentum;
    let mut temps = Vec::with_capacity(params.len());
    if sgd {
        temps.extend(params.iter().map(|&b| sim.alloc(b)));
    }
    if first {
        for &bytes in &params {
            for _ in 0..per_param {
                let id = sim.alloc(bytes);
                state.optimizer.push(id);
                state.persistent.push(id);
            }
        }
    }
    if !sgd {
        temps.extend(params.iter().map(|&b| sim.alloc(b)));
    }
    sim.release_all(temps);
    sim.release_all(unscale);
    if config.grads == GradMode::SetToNone {
        let grads: Vec<Id> = state.grads.iter_mut().filter_map(Option::take).collect();
        sim.release_all(grads);
    }
}
