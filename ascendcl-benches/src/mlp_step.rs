//! The `train_mlp` step row: the example's safe [`Trainer`] step against its
//! raw-sys twin ([`crate::raw_mlp`]) on preallocated buffers.

use ascendcl::alloc::CachingAllocator;
use ascendcl::prelude::*;
use ascendcl_examples::mlp::trainer::Trainer;
use ascendcl_examples::mlp::{BATCH, D, Task};

use crate::calls::CallCounter;
use crate::raw_mlp::{MlpBuffers, PARAM_LENS, TEMP_LENS};
use crate::raw_ops::RawOps;
use crate::rows::{Row, interleave};

/// Measures the row on `stream`, the safe side's memory from `alloc`.
pub fn measure(
    raw: &RawOps<'_>,
    stream: &Stream,
    alloc: &CachingAllocator,
    shape: (usize, usize),
    counter: &CallCounter,
) -> ascendcl::Result<Row> {
    let ctx = stream.context();
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
    let owned = |len: usize| DeviceBuffer::<f32>::zeroed(ctx, len);
    let mut params: Vec<DeviceBuffer<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let grads: Vec<DeviceBuffer<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let moms: Vec<DeviceBuffer<f32>> = PARAM_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    let temps: Vec<DeviceBuffer<f32>> = TEMP_LENS
        .iter()
        .map(|&n| owned(n))
        .collect::<ascendcl::Result<_>>()?;
    for (p, data) in params
        .iter_mut()
        .zip([&task.w1, &task.b1, &task.w2, &task.b2])
    {
        p.copy_from_host(data)?;
    }
    let raw_x = DeviceBuffer::from_host(ctx, &task.x[..BATCH * D])?;
    let raw_labels = DeviceBuffer::from_host(ctx, &task.labels[..BATCH])?;
    let weight = DeviceBuffer::from_host(ctx, &[1.0f32; ascendcl_examples::mlp::C])?;
    let one = DeviceBuffer::from_host(ctx, &[1.0f32])?;
    let ptr = |b: &DeviceBuffer<f32>| b.as_device_ptr().cast_mut();
    let four = |v: &[DeviceBuffer<f32>]| [ptr(&v[0]), ptr(&v[1]), ptr(&v[2]), ptr(&v[3])];
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
    let workspace = DeviceBuffer::<u8>::zeroed(ctx, 1 << 20)?;
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
        counter,
    );
    drain();
    Ok(row)
}
