//! A double-buffered pipeline: batch k+1 is uploaded on a copy stream while
//! batch k is multiplied on a compute stream.
//!
//! A stream of batches of varying size (1 to 96 rows of 16 features) goes
//! through `y = x @ w` (`aclnnMm`). Two pinned staging buffers and two device
//! input/output buffers form a ring indexed by `k % 2`. Each upload copies
//! only the batch's rows (a view of the staging buffer, not the whole
//! buffer), and each transfer is *detached*: its guard hands the tracking to
//! the buffers and gives back a [`Detached`] handle that borrows nothing, so
//! the ring is an array of handles next to the arrays of buffers. Every
//! result is checked against the same product computed on the host.
//!
//! The comments say, for each point where the host could wait, why it does
//! or does not. `cargo run --example pipeline` (on a card when CANN is
//! found, on the mock otherwise).

use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::{self, CubeMath, Tensor, TensorMut};
use ascendcl::prelude::*;

/// Features per row (the inner dimension of the product).
const K: usize = 16;
/// Outputs per row.
const OUT: usize = 8;
/// The largest batch, in rows: the staging buffers hold this many.
const MAX_ROWS: usize = 96;
/// Batches in the stream.
const BATCHES: usize = 24;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Rows of batch `k`: varying from step to step, between 1 and `MAX_ROWS`
/// (a splitmix-style hash, so the sizes look irregular but are fixed).
fn rows_of(k: usize) -> usize {
    let mut z = (k as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    1 + (z ^ (z >> 31)) as usize % MAX_ROWS
}

/// Element `i` of batch `k`: multiples of 1/4 in [-2, 2], so every product
/// and every sum of 16 of them is exact in f32 (the host check can be exact
/// up to the device's summation order, which cannot round these values).
fn x_value(k: usize, i: usize) -> f32 {
    ((k * 31 + i * 7) % 17) as f32 * 0.25 - 2.0
}

fn w_value(i: usize) -> f32 {
    ((i * 5) % 9) as f32 * 0.25 - 1.0
}

/// `x @ w` on the host, for the check.
fn host_product(x: &[f32], w: &[f32], rows: usize) -> Vec<f32> {
    let mut y = vec![0f32; rows * OUT];
    for r in 0..rows {
        for o in 0..OUT {
            y[r * OUT + o] = (0..K).map(|i| x[r * K + i] * w[i * OUT + o]).sum();
        }
    }
    y
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let ctx = Device::open(&rt, 0)?.default_context();
    // Two streams: uploads on one, compute and downloads on the other.
    let (copy, compute) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;

    // The weights, uploaded once and waited for: `w_host` is freed at the
    // end of the block. Its drop would wait for the upload by itself (the
    // tracker), but `wait` reports a failed upload as an error instead of
    // parking it.
    let w: Vec<f32> = (0..K * OUT).map(w_value).collect();
    let mut w_dev = DeviceBuffer::<f32>::alloc(&ctx, K * OUT)?;
    {
        let w_host = HostBuffer::from_slice(&ctx, &w)?;
        copy.copy_host_to_device(&w_host, &mut w_dev)?.wait()?;
    }

    // The ring: two of everything, slot k % 2 for batch k.
    let mut staging = [
        HostBuffer::<f32>::zeroed(&ctx, MAX_ROWS * K)?,
        HostBuffer::zeroed(&ctx, MAX_ROWS * K)?,
    ];
    let mut x_dev = [
        DeviceBuffer::<f32>::alloc(&ctx, MAX_ROWS * K)?,
        DeviceBuffer::alloc(&ctx, MAX_ROWS * K)?,
    ];
    let mut y_dev = [
        DeviceBuffer::<f32>::alloc(&ctx, MAX_ROWS * OUT)?,
        DeviceBuffer::alloc(&ctx, MAX_ROWS * OUT)?,
    ];
    let mut uploads: [Option<Detached>; 2] = [None, None];
    // Every batch's result lands in its own range of one pinned buffer.
    let total_rows: usize = (0..BATCHES).map(rows_of).sum();
    let mut results = HostBuffer::<f32>::zeroed(&ctx, total_rows * OUT)?;
    let mut inputs: Vec<Vec<f32>> = Vec::with_capacity(BATCHES);

    // Batch 0 is uploaded before the loop; then each iteration uploads
    // batch k+1 and computes batch k, so the copy engine and the compute
    // units work at the same time.
    let mut upload = |k: usize,
                      staging: &mut [HostBuffer<f32>; 2],
                      x_dev: &mut [DeviceBuffer<f32>; 2],
                      uploads: &mut [Option<Detached>; 2]|
     -> ascendcl::Result<()> {
        let (slot, rows) = (k % 2, rows_of(k));
        // Waiting for batch k-2's upload from this slot: NOT needed for
        // safety — writing `staging[slot]` below waits for it anyway (the
        // buffer's tracker remembers the upload). Waiting on the handle
        // reports that upload's errors here, at the batch they belong to.
        if let Some(previous) = uploads[slot].take() {
            previous.wait()?;
        }
        let x: Vec<f32> = (0..rows * K).map(|i| x_value(k, i)).collect();
        staging[slot][..rows * K].copy_from_slice(&x);
        inputs.push(x);
        // No wait before the upload either: x_dev[slot] may still be read by
        // batch k-2's matmul on the compute stream, and the buffer's tracker
        // makes the copy stream wait for it on the device (an event wait),
        // not the host. Only `rows * K` elements cross the bus: views.
        uploads[slot] = Some(
            copy.copy_host_to_device(
                &staging[slot].slice(..rows * K)?,
                &mut x_dev[slot].slice_mut(..rows * K)?,
            )?
            .detach(),
        );
        Ok(())
    };
    upload(0, &mut staging, &mut x_dev, &mut uploads)?;

    let mut offset = 0;
    for k in 0..BATCHES {
        if k + 1 < BATCHES {
            upload(k + 1, &mut staging, &mut x_dev, &mut uploads)?;
        }
        let (slot, rows) = (k % 2, rows_of(k));
        // No wait for batch k's upload: it is on the copy stream, and the
        // matmul reading x_dev[slot] is queued on the compute stream after an
        // event wait the tracker inserts. The host keeps going.
        let x = x_dev[slot].slice(..rows * K)?;
        let mut y = y_dev[slot].slice_mut(..rows * OUT)?;
        ops::mm(
            &Tensor::new(&x, &[rows, K])?,
            &Tensor::new(&w_dev, &[K, OUT])?,
            TensorMut::new(&mut y, &[rows, OUT])?,
            CubeMath::KeepDtype,
        )?
        .launch(&compute, &allocator)?
        .detach();
        // The download follows the matmul by stream order (same stream): no
        // wait. Batch k+2's matmul will overwrite y_dev[slot] only after it,
        // by stream order again.
        compute
            .copy_device_to_host(&y, &mut results.slice_mut(offset..offset + rows * OUT)?)?
            .detach();
        offset += rows * OUT;
    }

    // The one wait the program needs: before reading `results` on the host.
    // Reading would wait by itself (the tracker); synchronizing the compute
    // stream says so and reports a failed download as an error, not a panic.
    compute.synchronize()?;
    for handle in uploads.into_iter().flatten() {
        handle.wait()?;
    }

    let results = results.as_slice()?;
    let (mut offset, mut max_err, mut checksum) = (0, 0f32, 0f64);
    for (k, x) in inputs.iter().enumerate() {
        let rows = rows_of(k);
        let expected = host_product(x, &w, rows);
        let got = &results[offset..offset + rows * OUT];
        for (g, e) in got.iter().zip(&expected) {
            max_err = max_err.max((g - e).abs());
            checksum += f64::from(*g);
        }
        offset += rows * OUT;
    }
    let sizes: Vec<usize> = (0..BATCHES).map(rows_of).collect();
    println!("batches: {BATCHES}, rows per batch: {sizes:?}");
    println!("checksum of every y = x @ w: {checksum}");
    if max_err > 1e-4 {
        return Err(ascendcl::Error::InvalidState(format!(
            "device results differ from the host product by up to {max_err}"
        )));
    }
    println!(
        "ok: {total_rows} rows in {BATCHES} double-buffered batches match the host product (max |error| {max_err})"
    );
    Ok(())
}
