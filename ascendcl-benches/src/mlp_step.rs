//! The `train_mlp` step row: the example's safe [`Trainer`] step against its
//! raw-sys twin ([`crate::raw_mlp`]) on buffers held for the whole run, from
//! the same allocator.

use ascendcl::alloc::{Block, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::mlp::trainer::Trainer;
use ascendcl_examples::mlp::{BATCH, D, Task};

use crate::calls::CallCounter;
use crate::raw_mlp::{MlpBuffers, PARAM_LENS, TEMP_LENS};
use crate::raw_ops::RawOps;
use crate::rows::{Row, hold, interleave};

/// Measures the row on `stream`, the safe side's memory from `alloc`.
pub fn measure(
    raw: &RawOps<'_>,
    stream: &Stream,
    alloc: &CachingAllocator,
    shape: (usize, usize),
    counter: &CallCounter,
) -> ascendcl::Result<Row> {
    let task = Task::generate();
    let tr = Trainer { stream, alloc };
    let mut model = tr.model(&task)?;
    let x = tr.block(&task.x[..BATCH * D])?;
    let mut labels = alloc.alloc::<i64>(stream, BATCH)?;
    labels.copy_from_host(&task.labels[..BATCH])?;
    // The first step sets the momentum; the measured steps accumulate it.
    tr.gradients(&x, &labels, &mut model, BATCH)?;
    tr.sgd_step(&mut model, true)?;

    // The raw twin's buffers: the same data, its own memory.
    // From the same allocator as the safe side (the mock's cost per call
    // depends on the kind of memory a call touches, VMM or plain).
    let owned = |len: usize| -> ascendcl::Result<Block<f32>> {
        let mut b = alloc.alloc::<f32>(stream, len)?;
        b.copy_from_host(&vec![0.0; len])?;
        Ok(b)
    };
    let held = |data: &[f32]| -> ascendcl::Result<Block<f32>> {
        let mut b = alloc.alloc::<f32>(stream, data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    };
    let mut params: Vec<Block<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let grads: Vec<Block<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let moms: Vec<Block<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let temps: Vec<Block<f32>> = TEMP_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    for (p, data) in params
        .iter_mut()
        .zip([&task.w1, &task.b1, &task.w2, &task.b2])
    {
        p.copy_from_host(data)?;
    }
    let raw_x = held(&task.x[..BATCH * D])?;
    let mut raw_labels = alloc.alloc::<i64>(stream, BATCH)?;
    raw_labels.copy_from_host(&task.labels[..BATCH])?;
    let weight = held(&[1.0f32; ascendcl_examples::mlp::C])?;
    let one = held(&[1.0f32])?;
    let ptr = |b: &Block<f32>| b.as_device_ptr().cast_mut();
    let four = |v: &[Block<f32>]| [ptr(&v[0]), ptr(&v[1]), ptr(&v[2]), ptr(&v[3])];
    let mut temp_ptrs = [std::ptr::null_mut(); 10];
    for (slot, b) in temp_ptrs.iter_mut().zip(&temps) {
        *slot = ptr(b);
    }
    let buffers = MlpBuffers {
        x: ptr(&raw_x),
        labels: raw_labels.as_device_ptr().cast_mut(),
        params: four(&params),
        grads: four(&grads),
        moms: four(&moms),
        weight: ptr(&weight),
        one: ptr(&one),
        temps: temp_ptrs,
    };

    // Workspace for the raw side (a careful raw caller's preallocated one).
    let workspace = alloc.alloc::<u8>(stream, 1 << 20)?;
    let raw = RawOps {
        workspace: workspace.as_device_ptr().cast_mut(),
        workspace_len: 1 << 20,
        ..*raw
    };
    // SAFETY: every address of `buffers` is a live buffer of the length the
    // twin expects (allocated above), drained before they are freed.
    let mut raw_step = || unsafe { raw.mlp_step(&buffers) };
    let mut safe_step = || {
        let loss = tr
            .gradients(&x, &labels, &mut model, BATCH)
            .expect("gradients");
        tr.sgd_step(&mut model, false).expect("sgd");
        // Returned to the cache unread (its tracker holds the step).
        drop(loss);
    };
    let drain = || stream.synchronize().expect("drain");
    let row = interleave(
        "mlp_step",
        &mut raw_step,
        &mut safe_step,
        shape,
        &drain,
        &|| hold(stream),
        counter,
    );
    drain();
    Ok(row)
}
