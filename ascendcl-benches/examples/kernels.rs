//! Wall time of the mock's matmul and pooling kernels: the sequential
//! reference (`ASCENDCL_MOCK_KERNEL_THREADS=0`) against the threaded kernels
//! on one thread (`=1`: for matmul the packing and tiles alone) and threaded
//! (unset: one thread per online CPU), side by side in one process,
//! printing JSON (one object per row) with the median milliseconds per
//! run, phase 1 to synchronize (the buffers are made and filled before the
//! clock starts), of each. (The convolution kernels have
//! their own example, `conv_kernels`.)
//!
//! Rows: a 512×512×512 `mm`, the same as `addmm` with a bias row
//! (beta 1, alpha 1), a 16×128×128×128 `batch_matmul`, a 64×64×56×56 max
//! pool (3×3, stride 2, padding 1) forward then backward, and a 64×64×56×56
//! adaptive average pool to 7×7 forward then backward, all f32. Each row
//! alternates the three sides `--rounds` times (so they see the same machine
//! state).
//!
//! `cargo run --release -p ascendcl-benches --example kernels [-- --rounds 5]`
//! On a card the variable changes nothing: every side times the device.

use std::time::Instant;

use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_benches::example_args::{exit_code, flag, print_kernel_row, reference_one_threaded};

fn main() -> std::process::ExitCode {
    exit_code(run())
}

#[derive(Clone, Copy)]
enum Kind {
    Mm,
    Addmm,
    Batch,
}

#[derive(Clone, Copy)]
enum Pool {
    Max,
    Adaptive,
}

#[derive(Clone, Copy)]
enum Op {
    Mat(Kind),
    Pool(Pool),
}

/// One problem: batches (1 for the 2-D ops), m, n, k; for the pools the
/// input (N, C, H, W).
struct Problem {
    name: &'static str,
    op: Op,
    dims: [usize; 4],
}

/// Values in [-1, 1) that are not all the same.
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 + seed * 104_729) % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

/// Runs a pooling problem once, forward then backward (phase 1, launch,
/// synchronize each); returns the milliseconds from the forward's phase 1
/// to the backward's synchronize (the buffers are made before).
fn launch_pool(p: &Problem, pool: Pool, ctx: &Context, stream: &Stream) -> ascendcl::Result<f64> {
    let input = p.dims.to_vec();
    let (oh, ow) = match pool {
        Pool::Max => ((input[2] - 1) / 2 + 1, (input[3] - 1) / 2 + 1),
        Pool::Adaptive => (7, 7),
    };
    let od = vec![input[0], input[1], oh, ow];
    let (ni, no) = (input.iter().product(), od.iter().product());
    let x = DeviceBuffer::from_host(ctx, &values(ni, 1))?;
    let g = DeviceBuffer::from_host(ctx, &values(no, 2))?;
    // written from the host, so the pages are mapped before the clock starts
    let mut y = DeviceBuffer::from_host(ctx, &vec![0.0f32; no])?;
    let mut gi = DeviceBuffer::from_host(ctx, &vec![0.0f32; ni])?;
    let mut ix = DeviceBuffer::from_host(ctx, &vec![0i32; no])?;
    let xt = Tensor::new(&x, &input)?;
    let start = Instant::now();
    if let Pool::Max = pool {
        let window = ops::Window::square(2, 1);
        ops::max_pool2d_with_indices(
            &xt,
            [3, 3],
            &window,
            false,
            TensorMut::new(&mut y, &od)?,
            TensorMut::new(&mut ix, &od)?,
        )?
        .launch(stream, Workspace::none())?
        .wait()?;
        ops::max_pool2d_with_indices_backward(
            &Tensor::new(&g, &od)?,
            &xt,
            &Tensor::new(&ix, &od)?,
            [3, 3],
            &window,
            false,
            TensorMut::new(&mut gi, &input)?,
        )?
        .launch(stream, Workspace::none())?
        .wait()?;
    } else {
        ops::adaptive_avg_pool2d(&xt, [7, 7], TensorMut::new(&mut y, &od)?)?
            .launch(stream, Workspace::none())?
            .wait()?;
        ops::adaptive_avg_pool2d_backward(
            &Tensor::new(&g, &od)?,
            &xt,
            TensorMut::new(&mut gi, &input)?,
        )?
        .launch(stream, Workspace::none())?
        .wait()?;
    }
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

/// Runs the problem once; returns the milliseconds of its launches.
fn launch(p: &Problem, ctx: &Context, stream: &Stream) -> ascendcl::Result<f64> {
    match p.op {
        Op::Mat(kind) => launch_matmul(p, kind, ctx, stream),
        Op::Pool(pool) => launch_pool(p, pool, ctx, stream),
    }
}

/// Runs a matmul problem once (phase 1, launch, synchronize); returns the
/// milliseconds from phase 1 to synchronize (the buffers are made before).
fn launch_matmul(p: &Problem, kind: Kind, ctx: &Context, stream: &Stream) -> ascendcl::Result<f64> {
    let [nb, m, n, k] = p.dims;
    let a = DeviceBuffer::from_host(ctx, &values(nb * m * k, 1))?;
    let b = DeviceBuffer::from_host(ctx, &values(nb * k * n, 2))?;
    // written from the host, so the pages are mapped before the clock starts
    let mut y = DeviceBuffer::from_host(ctx, &vec![0.0f32; nb * m * n])?;
    let bias = DeviceBuffer::from_host(ctx, &values(n, 3))?;
    let mut ws = DeviceBuffer::<u8>::zeroed(ctx, 4096)?;
    let math = CubeMath::KeepDtype;
    let start = Instant::now();
    let prepared = match kind {
        Kind::Mm => ops::mm(
            &Tensor::new(&a, &[m, k])?,
            &Tensor::new(&b, &[k, n])?,
            TensorMut::new(&mut y, &[m, n])?,
            math,
        )?,
        Kind::Addmm => {
            let prepared = ops::addmm(
                &Tensor::new(&bias, &[n])?,
                &Tensor::new(&a, &[m, k])?,
                &Tensor::new(&b, &[k, n])?,
                1.0f32,
                1.0f32,
                TensorMut::new(&mut y, &[m, n])?,
                math,
            )?;
            prepared
                .launch(stream, Workspace::from_buffer(&mut ws))?
                .wait()?;
            return Ok(start.elapsed().as_secs_f64() * 1e3);
        }
        Kind::Batch => ops::batch_matmul(
            &Tensor::new(&a, &[nb, m, k])?,
            &Tensor::new(&b, &[nb, k, n])?,
            TensorMut::new(&mut y, &[nb, m, n])?,
            math,
        )?,
    };
    prepared.launch(stream, Workspace::none())?.wait()?;
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

fn run() -> ascendcl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = flag(&args, "--rounds", 5).max(1);
    let (rt, backend) = ascendcl_examples::runtime()?;
    eprintln!("backend: {backend}");
    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let _current = ctx.make_current()?;
    let problems = [
        Problem {
            name: "mm_512x512x512",
            op: Op::Mat(Kind::Mm),
            dims: [1, 512, 512, 512],
        },
        Problem {
            name: "addmm_512x512x512_bias",
            op: Op::Mat(Kind::Addmm),
            dims: [1, 512, 512, 512],
        },
        Problem {
            name: "batch_matmul_16x128x128x128",
            op: Op::Mat(Kind::Batch),
            dims: [16, 128, 128, 128],
        },
        Problem {
            name: "max_pool2d_64x64x56x56_forward_backward",
            op: Op::Pool(Pool::Max),
            dims: [64, 64, 56, 56],
        },
        Problem {
            name: "adaptive_avg_pool2d_64x64x56x56_to_7x7_forward_backward",
            op: Op::Pool(Pool::Adaptive),
            dims: [64, 64, 56, 56],
        },
    ];
    for p in &problems {
        let row = reference_one_threaded(rounds, || launch(p, &ctx, &stream))?;
        print_kernel_row(p.name, &backend, rounds, row);
    }
    Ok(())
}
