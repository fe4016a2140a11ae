//! Device-memory allocation traces of ResNet-50 training.
//!
//! A [`Trace`] is the sequence of device allocations and frees that PyTorch
//! eager makes while training ResNet-50, at the granularity of tensors (the
//! bytes a tensor needs, before any allocator rounding). It is replayed
//! against raw `aclrtMalloc`/`aclrtFree`, a fixed-segment caching allocator
//! and expandable segments to compare their fragmentation on a finite HBM.
//!
//! ```
//! use ascendcl_cli::alloc_trace::{Schedule, TrainConfig, resnet50_trace};
//!
//! let trace = resnet50_trace(&Schedule::varying_default(7, 3), &TrainConfig::default());
//! trace.check().unwrap();
//! let mut lines = Vec::new();
//! trace.to_json_lines(&mut lines).unwrap();
//! let back = ascendcl_cli::alloc_trace::Trace::from_json_lines(&lines[..]).unwrap();
//! assert_eq!(back, trace);
//! ```
//!
//! # Model of a training step
//!
//! The generator ([`training`]) simulates the tensor lifetimes of
//! `for x, y in loader: loss = ce(model(x), y); loss.backward(); opt.step();
//! opt.zero_grad()` with reference counts, following what PyTorch's autograd
//! saves and when its engine drops things:
//!
//! * **Setup** (step 0, before the first batch): `model.to(device)` allocates
//!   every parameter and buffer (BatchNorm weight/bias, running mean/var and
//!   the int64 `num_batches_tracked`), in module order.
//! * **Persistent** tensors live until the very end of the trace, where they
//!   are freed in allocation order (still tagged with the last step): the
//!   weights and buffers; the `.grad` of every parameter, allocated lazily
//!   in the first backward when the engine hands its fresh gradient to
//!   `AccumulateGrad` (with [`GradMode::Keep`], i.e.
//!   `zero_grad(set_to_none=False)`; [`GradMode::SetToNone`] frees them at
//!   the end of each step instead); the optimizer state, allocated lazily in
//!   the first `step()` (SGD: one momentum buffer per parameter; Adam:
//!   `exp_avg` and `exp_avg_sq`); with fp16, the GradScaler's scale and
//!   growth tracker. [`TraceMeta::persistent`] lists their ids.
//! * **Input**: the batch (N×3×224×224 fp32) and the labels (N int64) are
//!   copied to the device at the start of the step, on stream 0 or on a
//!   data-loading stream ([`TrainConfig::input_stream`]). Every other tensor
//!   is on stream 0.
//! * **Forward** allocates each layer's output and what autograd saves for
//!   backward: a convolution saves its input; BatchNorm saves its input and
//!   two per-channel fp32 statistics (`save_mean`, `save_invstd`); the
//!   in-place ReLU saves its output (the BatchNorm output, overwritten); the
//!   residual add is in place and saves nothing; max-pool saves its input
//!   and int64 indices; avg-pool and fc save their input. Cross-entropy is
//!   `log_softmax` (fp32 result saved) then `nll_loss` (a scalar loss and a
//!   saved scalar total weight). As almost everything is saved, forward
//!   frees only workspaces, the downsample branch's output once added into
//!   the main branch, and (mixed precision) the fp32 copy of the logits.
//! * **Workspaces**: every convolution pass that is not a plain GEMM (kernel
//!   larger than 1×1 or stride above 1) allocates a cuDNN/aclnn-style
//!   workspace right before the kernel and frees it right after: forward,
//!   backward-data and backward-filter each take `min(im2col bytes,
//!   workspace cap)`, im2col bytes being N·C_in·k²·H_out·W_out·elem.
//! * **Backward** runs the layers in reverse (the engine's order by sequence
//!   number). A layer allocates its input gradient (and its weight
//!   gradient), then drops its output gradient and its saved tensors. Two
//!   gradients meeting at a residual fork are summed in place when the
//!   buffered one is not shared, out of place otherwise. After the first
//!   step a weight gradient is a temporary added into `.grad` and freed.
//! * **Optimizer**: `foreach` implementations. SGD with momentum and weight
//!   decay allocates `grad + wd·param` for every parameter, updates, and
//!   frees them; Adam allocates `sqrt(exp_avg_sq)` for every parameter.
//! * **End of step**: the batch, labels, logits and loss are dropped, so
//!   nothing but persistent tensors survives a step boundary (this assumes
//!   the loop body drops its references, e.g. runs in a function; a bare
//!   loop would keep the previous batch alive until the next is loaded).
//! * **dtype**: [`Dtype::Fp32`] everywhere, or autocast mixed precision with
//!   [`Dtype::Fp16`]/[`Dtype::Bf16`]: activations, activation gradients and
//!   per-step half copies of conv/fc weights are 2 bytes, while master
//!   weights, gradients, optimizer state and BatchNorm statistics stay fp32,
//!   and the loss is computed in fp32. fp16 adds the GradScaler's scalars.
//!
//! A trace carries its own [`TraceMeta`]; [`Trace::check`] verifies the
//! lifetime rules above on any trace, generated or parsed. The file format
//! is described at [`Trace::to_json_lines`].
//!
//! # Numbers (ResNet-50, SGD with momentum, gradients kept)
//!
//! * 1524 ops per step; step 0 also has the 320 setup allocations, the last
//!   step the 642 frees of the persistent tensors (weights and buffers
//!   102.4 MB, gradients and momentum 2 × 102.2 MB).
//! * fp32: peak live bytes = 307.1 MB + 86,708,136 B per sample (the saved
//!   activations, 85.9 MB a sample, plus the gradients live at the peak, in
//!   the backward of the last bottleneck): 5.86 GB at batch 64; the largest
//!   batch within 62423 MiB (a 64 GB card) is 751.
//! * fp16: 44,759,000 B per sample; 1454 fits in 62423 MiB.
//! * A 20-step trace at batch 96 (31,442 ops) takes about a millisecond.

pub mod config;
mod json;
mod parse;
pub mod recorded;
pub mod resnet50;
pub mod schedule;
mod step;
pub mod training;

use std::collections::{HashMap, HashSet};
use std::fmt;

pub use config::{Dtype, GradMode, Optimizer, TrainConfig};
pub use json::TraceError;
pub use resnet50::{Model, resnet50};
pub use schedule::{Schedule, ScheduleError};
pub use training::{
    generate, max_batch_by_live_bytes, max_batch_by_live_bytes_for, resnet50_trace,
};

/// Whether an op allocates or frees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A tensor's storage is allocated.
    Alloc,
    /// A tensor's storage is released.
    Free,
}

/// One allocation or free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceOp {
    /// Training step the op belongs to (setup is step 0, teardown the last).
    pub step: u32,
    /// Allocation or free.
    pub kind: OpKind,
    /// The tensor; allocated once, freed once.
    pub id: u64,
    /// Bytes of the tensor (the same on its alloc and its free).
    pub bytes: u64,
    /// Stream the tensor is allocated on (and freed on).
    pub stream: u32,
}

/// What a trace is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceMeta {
    /// Network name, e.g. `resnet50`.
    pub model: String,
    /// Activation dtype.
    pub dtype: Dtype,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// What `zero_grad` does with `.grad` tensors.
    pub grads: GradMode,
    /// Batch size of each step.
    pub batches: Vec<u32>,
    /// Ids of the tensors that live across steps, freed at the very end.
    pub persistent: Vec<u64>,
}

/// An allocation trace and what it is of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// Allocations and frees in program order.
    pub ops: Vec<TraceOp>,
    /// Model, dtype, batch sizes, persistent tensors.
    pub meta: TraceMeta,
}

/// A broken lifetime rule found by [`Trace::check`]; `index` is the op's
/// position in [`Trace::ops`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// An allocation of zero bytes (the device allocator rejects them).
    ZeroSizeAlloc { index: usize, id: u64 },
    /// The id was already allocated.
    DoubleAlloc { index: usize, id: u64 },
    /// The id is freed before it is allocated.
    FreeBeforeAlloc { index: usize, id: u64 },
    /// The id is never allocated.
    FreeOfUnknownId { index: usize, id: u64 },
    /// The id was already freed.
    DoubleFree { index: usize, id: u64 },
    /// The free does not give back the bytes of the allocation.
    FreeSizeMismatch {
        index: usize,
        id: u64,
        allocated: u64,
        freed: u64,
    },
    /// The free is on another stream than the allocation.
    FreeStreamMismatch {
        index: usize,
        id: u64,
        allocated: u32,
        freed: u32,
    },
    /// Steps must not decrease.
    StepWentBackwards {
        index: usize,
        step: u32,
        previous: u32,
    },
    /// The step has no batch size in [`TraceMeta::batches`].
    StepOutOfSchedule { index: usize, step: u32 },
    /// The id is listed twice in [`TraceMeta::persistent`].
    DuplicatePersistentId { id: u64 },
    /// A persistent id that the trace never allocates.
    PersistentNeverAllocated { id: u64 },
    /// A persistent tensor freed before the trailing teardown, i.e. followed
    /// by an allocation or a free of a non-persistent tensor.
    PersistentFreedEarly { index: usize, id: u64 },
    /// A non-persistent tensor freed in a later step than allocated.
    TransientCrossesStep {
        index: usize,
        id: u64,
        allocated: u32,
        freed: u32,
    },
    /// The id is never freed.
    Leaked { id: u64 },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for CheckError {}

impl Trace {
    /// Live bytes after each op (`result[i]` counts op `i`): allocations add
    /// their bytes, frees subtract theirs.
    pub fn live_bytes_over_time(&self) -> Vec<u64> {
        let mut live = 0u64;
        let step = |op: &TraceOp| {
            live = match op.kind {
                OpKind::Alloc => live.saturating_add(op.bytes),
                OpKind::Free => live.saturating_sub(op.bytes),
            };
            live
        };
        self.ops.iter().map(step).collect()
    }

    /// The most bytes live at once (0 for an empty trace): the least device
    /// memory an allocator without any fragmentation or rounding would need.
    pub fn peak_live_bytes(&self) -> u64 {
        self.live_bytes_over_time().into_iter().max().unwrap_or(0)
    }

    /// Ops belonging to `step`.
    pub fn ops_in_step(&self, step: u32) -> impl Iterator<Item = &TraceOp> {
        self.ops.iter().filter(move |op| op.step == step)
    }

    /// Checks the lifetime rules: every id allocated once (with a non-zero
    /// size) and freed once after it, with the same bytes and stream; no
    /// free of an unknown id; steps non-decreasing and within the schedule;
    /// a non-persistent tensor freed in the step that allocated it; the
    /// persistent tensors freed only at the very end; nothing leaked.
    pub fn check(&self) -> Result<(), CheckError> {
        let mut persistent = HashMap::with_capacity(self.meta.persistent.len());
        for &id in &self.meta.persistent {
            if persistent.insert(id, false).is_some() {
                return Err(CheckError::DuplicatePersistentId { id });
            }
        }
        let allocated_at: HashMap<u64, usize> = self
            .ops
            .iter()
            .enumerate()
            .filter(|(_, op)| op.kind == OpKind::Alloc)
            .map(|(index, op)| (op.id, index))
            .collect();
        // Index of the last op that is not a free of a persistent tensor.
        let is_teardown = |op: &TraceOp| op.kind == OpKind::Free && persistent.contains_key(&op.id);
        let last_regular = self.ops.iter().rposition(|op| !is_teardown(op));
        // id -> (step, bytes, stream) of allocations not yet freed.
        let mut live: HashMap<u64, (u32, u64, u32)> = HashMap::new();
        let mut freed: HashSet<u64> = HashSet::new();
        let mut previous = 0;
        for (index, op) in self.ops.iter().enumerate() {
            let (id, step) = (op.id, op.step);
            if step < previous {
                return Err(CheckError::StepWentBackwards {
                    index,
                    step,
                    previous,
                });
            }
            previous = step;
            if step as usize >= self.meta.batches.len() {
                return Err(CheckError::StepOutOfSchedule { index, step });
            }
            match op.kind {
                OpKind::Alloc => {
                    if op.bytes == 0 {
                        return Err(CheckError::ZeroSizeAlloc { index, id });
                    }
                    if live.contains_key(&id) || freed.contains(&id) {
                        return Err(CheckError::DoubleAlloc { index, id });
                    }
                    live.insert(id, (step, op.bytes, op.stream));
                    if let Some(seen) = persistent.get_mut(&id) {
                        *seen = true;
                    }
                }
                OpKind::Free => {
                    let Some((allocated, bytes, stream)) = live.remove(&id) else {
                        return Err(if freed.contains(&id) {
                            CheckError::DoubleFree { index, id }
                        } else if allocated_at.contains_key(&id) {
                            CheckError::FreeBeforeAlloc { index, id }
                        } else {
                            CheckError::FreeOfUnknownId { index, id }
                        });
                    };
                    freed.insert(id);
                    if bytes != op.bytes {
                        let freed = op.bytes;
                        return Err(CheckError::FreeSizeMismatch {
                            index,
                            id,
                            allocated: bytes,
                            freed,
                        });
                    }
                    if stream != op.stream {
                        let freed = op.stream;
                        return Err(CheckError::FreeStreamMismatch {
                            index,
                            id,
                            allocated: stream,
                            freed,
                        });
                    }
                    if persistent.contains_key(&id) {
                        if last_regular.is_some_and(|last| index < last) {
                            return Err(CheckError::PersistentFreedEarly { index, id });
                        }
                    } else if allocated != step {
                        return Err(CheckError::TransientCrossesStep {
                            index,
                            id,
                            allocated,
                            freed: step,
                        });
                    }
                }
            }
        }
        if let Some((&id, _)) = persistent
            .iter()
            .filter(|(_, seen)| !**seen)
            .min_by_key(|(id, _)| **id)
        {
            return Err(CheckError::PersistentNeverAllocated { id });
        }
        match live.keys().min() {
            Some(&id) => Err(CheckError::Leaked { id }),
            None => Ok(()),
        }
    }
}
