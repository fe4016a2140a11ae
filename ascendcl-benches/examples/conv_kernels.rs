//! Wall time of the mock's convolution kernels: the sequential reference
//! nest (`ASCENDCL_MOCK_KERNEL_THREADS=0`) against the new cores on one thread
//! (`=1`: the loop orders alone) and threaded (unset: one thread per online
//! CPU), side by side in one process, printing JSON (one object per row)
//! with the median milliseconds per launch, launch to synchronize, of each.
//!
//! Rows: a 2-D forward (2×64×32×32, 64 outputs, 3×3, padding 1), its
//! backward (input and weight gradients, then also the bias), a 3-D forward
//! and backward (1×16×8×16×16, 16 outputs, 3×3×3, padding 1), and a
//! transposed 2-D forward (stride 2). Each row alternates the two sides
//! `--rounds` times (so both see the same machine state).
//!
//! `cargo run --release -p ascendcl-benches --example conv_kernels [-- --rounds 5]`
//! On a card the variable changes nothing: both sides time the device.

use std::time::Instant;

use ascendcl::ops::{self, CubeMath, GradMask, Tensor, TensorMut, Window, Workspace};
use ascendcl::prelude::*;
use ascendcl_benches::example_args::{exit_code, flag, print_kernel_row, reference_one_threaded};

fn main() -> std::process::ExitCode {
    exit_code(run())
}

/// One convolution problem: input dims, weight dims, window.
struct Problem {
    name: &'static str,
    input: Vec<usize>,
    weight: Vec<usize>,
    window: Window,
    /// `Some(output padding)`: transposed.
    transposed: Option<Vec<i64>>,
    backward: bool,
}

fn out_dims(p: &Problem) -> Vec<usize> {
    let (x, w, win) = (&p.input, &p.weight, &p.window);
    let mut o = vec![x[0], if p.transposed.is_some() { w[1] } else { w[0] }];
    for i in 0..x.len() - 2 {
        let (n, k) = (x[2 + i] as i64, w[2 + i] as i64);
        let (s, pd, d) = (win.stride[i], win.padding[i], win.dilation[i]);
        o.push(match &p.transposed {
            Some(op) => ((n - 1) * s - 2 * pd + d * (k - 1) + op[i] + 1) as usize,
            None => ((n + 2 * pd - d * (k - 1) - 1) / s + 1) as usize,
        });
    }
    o
}

/// Runs the problem once (phase 1, launch, synchronize).
fn launch(p: &Problem, ctx: &Context, stream: &Stream) -> ascendcl::Result<()> {
    let n = |d: &[usize]| d.iter().product::<usize>();
    let od = out_dims(p);
    let x = DeviceBuffer::from_host(ctx, &vec![0.5f32; n(&p.input)])?;
    let w = DeviceBuffer::from_host(ctx, &vec![0.25f32; n(&p.weight)])?;
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, n(&od))?;
    let (xt, wt) = (Tensor::new(&x, &p.input)?, Tensor::new(&w, &p.weight)?);
    let math = CubeMath::KeepDtype;
    let prepared = if p.backward {
        let g = DeviceBuffer::from_host(ctx, &vec![0.125f32; n(&od)])?;
        let mut gi = DeviceBuffer::<f32>::zeroed(ctx, n(&p.input))?;
        let mut gw = DeviceBuffer::<f32>::zeroed(ctx, n(&p.weight))?;
        let mut gb = DeviceBuffer::<f32>::zeroed(ctx, p.weight[0])?;
        let bias = [p.weight[0] as i64];
        let prepared = ops::convolution_backward(
            &Tensor::new(&g, &od)?,
            &xt,
            &wt,
            Some(&bias),
            &p.window,
            1,
            GradMask::ALL,
            Some(TensorMut::new(&mut gi, &p.input)?),
            Some(TensorMut::new(&mut gw, &p.weight)?),
            Some(TensorMut::new(&mut gb, &[p.weight[0]])?),
            math,
        )?;
        return prepared.launch(stream, Workspace::none())?.wait();
    } else if let Some(op) = &p.transposed {
        let out = TensorMut::new(&mut y, &od)?;
        ops::convolution_transposed(&xt, &wt, None, &p.window, op, 1, out, math)?
    } else {
        let out = TensorMut::new(&mut y, &od)?;
        ops::convolution(&xt, &wt, None, &p.window, 1, out, math)?
    };
    prepared.launch(stream, Workspace::none())?.wait()
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
    let w2 = Window::square(1, 1);
    let problems = [
        Problem {
            name: "conv2d_forward",
            input: vec![2, 64, 32, 32],
            weight: vec![64, 64, 3, 3],
            window: w2.clone(),
            transposed: None,
            backward: false,
        },
        Problem {
            name: "conv2d_backward",
            input: vec![2, 64, 32, 32],
            weight: vec![64, 64, 3, 3],
            window: w2.clone(),
            transposed: None,
            backward: true,
        },
        Problem {
            name: "conv2d_transposed_forward",
            input: vec![2, 64, 16, 16],
            weight: vec![64, 64, 3, 3],
            window: Window::square(2, 1),
            transposed: Some(vec![1, 1]),
            backward: false,
        },
        Problem {
            name: "conv3d_forward",
            input: vec![1, 16, 8, 16, 16],
            weight: vec![16, 16, 3, 3, 3],
            window: Window::cube(1, 1),
            transposed: None,
            backward: false,
        },
        Problem {
            name: "conv3d_backward",
            input: vec![1, 16, 8, 16, 16],
            weight: vec![16, 16, 3, 3, 3],
            window: Window::cube(1, 1),
            transposed: None,
            backward: true,
        },
    ];
    for p in &problems {
        let row = reference_one_threaded(rounds, || {
            let start = Instant::now();
            launch(p, &ctx, &stream)?;
            Ok(start.elapsed().as_secs_f64() * 1e3)
        })?;
        print_kernel_row(p.name, &backend, rounds, row);
    }
    Ok(())
}
