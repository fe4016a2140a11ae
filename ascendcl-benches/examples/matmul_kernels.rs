//! Wall time of the mock's matmul kernels: the sequential reference loop
//! (`ASCENDCL_MOCK_KERNEL_THREADS=0`) against the threaded core on one
//! thread (`=1`: the packing and tiles alone) and threaded (unset: one
//! thread per online CPU), side by side in one process, printing JSON (one
//! object per row) with the median milliseconds per launch, launch to
//! synchronize, of each.
//!
//! Rows: a 512×512×512 `mm`, the same as `addmm` with a bias row
//! (beta 1, alpha 1), and a 16×128×128×128 `batch_matmul`, all f32. Each row
//! alternates the three sides `--rounds` times (so they see the same machine
//! state).
//!
//! `cargo run --release -p ascendcl-benches --example matmul_kernels [-- --rounds 5]`
//! On a card the variable changes nothing: every side times the device.

use std::time::Instant;

use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Mm,
    Addmm,
    Batch,
}

/// One problem: batches (1 for the 2-D ops), m, n, k.
struct Problem {
    name: &'static str,
    kind: Kind,
    dims: [usize; 4],
}

/// Values in [-1, 1) that are not all the same.
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 + seed * 104_729) % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

/// Runs the problem once (phase 1, launch, synchronize).
fn launch(p: &Problem, ctx: &Context, stream: &Stream) -> ascendcl::Result<()> {
    let [nb, m, n, k] = p.dims;
    let a = DeviceBuffer::from_host(ctx, &values(nb * m * k, 1))?;
    let b = DeviceBuffer::from_host(ctx, &values(nb * k * n, 2))?;
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, nb * m * n)?;
    let math = CubeMath::KeepDtype;
    let prepared = match p.kind {
        Kind::Mm => ops::mm(
            &Tensor::new(&a, &[m, k])?,
            &Tensor::new(&b, &[k, n])?,
            TensorMut::new(&mut y, &[m, n])?,
            math,
        )?,
        Kind::Addmm => {
            let bias = DeviceBuffer::from_host(ctx, &values(n, 3))?;
            let prepared = ops::addmm(
                &Tensor::new(&bias, &[n])?,
                &Tensor::new(&a, &[m, k])?,
                &Tensor::new(&b, &[k, n])?,
                1.0f32,
                1.0f32,
                TensorMut::new(&mut y, &[m, n])?,
                math,
            )?;
            let mut ws = DeviceBuffer::<u8>::zeroed(ctx, prepared.workspace_size() as usize)?;
            return prepared
                .launch(stream, Workspace::from_buffer(&mut ws))?
                .wait();
        }
        Kind::Batch => ops::batch_matmul(
            &Tensor::new(&a, &[nb, m, k])?,
            &Tensor::new(&b, &[nb, k, n])?,
            TensorMut::new(&mut y, &[nb, m, n])?,
            math,
        )?,
    };
    prepared.launch(stream, Workspace::none())?.wait()
}

fn set_threads(value: Option<&str>) {
    // SAFETY: called from main's only thread between launches: the stream
    // is synchronized, so the mock's worker, the only other reader of the
    // environment (at kernel start), is idle.
    unsafe {
        match value {
            Some(v) => std::env::set_var("ASCENDCL_MOCK_KERNEL_THREADS", v),
            None => std::env::remove_var("ASCENDCL_MOCK_KERNEL_THREADS"),
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
            kind: Kind::Mm,
            dims: [1, 512, 512, 512],
        },
        Problem {
            name: "addmm_512x512x512_bias",
            kind: Kind::Addmm,
            dims: [1, 512, 512, 512],
        },
        Problem {
            name: "batch_matmul_16x128x128x128",
            kind: Kind::Batch,
            dims: [16, 128, 128, 128],
        },
    ];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for p in &problems {
        let (mut reference, mut one, mut threaded) = (Vec::new(), Vec::new(), Vec::new());
        launch(p, &ctx, &stream)?; // warm-up
        for _ in 0..rounds {
            let sides = [
                (Some("0"), &mut reference),
                (Some("1"), &mut one),
                (None, &mut threaded),
            ];
            for (value, times) in sides {
                set_threads(value);
                let start = Instant::now();
                launch(p, &ctx, &stream)?;
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        set_threads(None);
        let (r, o, t) = (median(reference), median(one), median(threaded));
        println!(
            "{{\"row\": \"{}\", \"backend\": \"{backend}\", \"threads\": {threads}, \"rounds\": {rounds}, \
             \"reference_ms\": {r:.2}, \"one_thread_ms\": {o:.2}, \"threaded_ms\": {t:.2}, \"speedup\": {:.2}}}",
            p.name,
            r / t
        );
    }
    Ok(())
}
