//! Every backward operator against central finite differences of its own
//! forward, on small inputs: a check independent of the PyTorch goldens.
//!
//! For a random direction `v` and random output weights `w`, the
//! directional derivative of `L(x) = Σ w·forward(x)` is estimated as
//! `(L(x + h·v) − L(x − h·v)) / 2h` and compared with `Σ v·backward(x, w)`.
//! In f32 the estimate's error is about `ε·Σ|w·out| / h` (rounding) plus
//! `h²·|L'''|` (truncation); with `h = 1e-2` both stay under the tolerance
//! used, `2e-3·(1 + |Σ v·grad|)`, for these smooth (or, for max pooling,
//! locally linear) functions.

mod common;

use ascendcl::ops::{self, CubeMath, GradMask, Resize, RunningStats, Tensor, TensorMut, Window};
use ascendcl::prelude::*;

const H: f32 = 1e-2;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

fn shifted(x: &[f32], v: &[f32], by: f32) -> Vec<f32> {
    x.iter().zip(v).map(|(a, d)| a + by * d).collect()
}

/// A forward pass: input values to output values.
type Forward<'f> = &'f dyn Fn(&[f32]) -> ascendcl::Result<Vec<f32>>;
/// A backward pass: input values and output gradient to input gradient.
type Backward<'f> = &'f dyn Fn(&[f32], &[f32]) -> ascendcl::Result<Vec<f32>>;

/// Checks `backward` against central differences of `forward` at `x`.
fn gradcheck(
    what: &str,
    x: &[f32],
    out_len: usize,
    forward: Forward<'_>,
    backward: Backward<'_>,
) -> ascendcl::Result<()> {
    let v = values(x.len(), 11);
    let w = values(out_len, 23);
    let numeric = (dot(&forward(&shifted(x, &v, H))?, &w)
        - dot(&forward(&shifted(x, &v, -H))?, &w))
        / (2.0 * f64::from(H));
    let analytic = dot(&backward(x, &w)?, &v);
    let tolerance = 2e-3 * (1.0 + analytic.abs());
    assert!(
        (numeric - analytic).abs() <= tolerance,
        "{what}: finite differences give {numeric}, the backward {analytic} (tolerance {tolerance})"
    );
    Ok(())
}

struct Rig {
    ctx: Context,
    stream: Stream,
}

impl Rig {
    fn buf(&self, data: &[f32]) -> ascendcl::Result<DeviceBuffer<f32>> {
        DeviceBuffer::from_host(&self.ctx, data)
    }

    fn zeros(&self, n: usize) -> ascendcl::Result<DeviceBuffer<f32>> {
        DeviceBuffer::zeroed(&self.ctx, n)
    }

    fn run(&self, p: ops::Prepared<'_>) -> ascendcl::Result<()> {
        let ws = ascendcl::alloc::CachingAllocator::new(
            &self.ctx,
            ascendcl::alloc::AllocatorConfig::segments(),
        )?;
        p.launch(&self.stream, &ws)?.wait()
    }
}

fn rig(env: &common::Env) -> ascendcl::Result<Rig> {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx)?;
    Ok(Rig { ctx, stream })
}

const X: [usize; 4] = [2, 3, 6, 6];

#[test]
fn convolution_backward_matches_finite_differences_for_input_and_weight() {
    common::check(|env| {
        let r = rig(env)?;
        let (xn, wn, on) = (2 * 3 * 36, 4 * 3 * 9, 2 * 4 * 3 * 3);
        let win = Window::square(2, 1);
        let weight = values(wn, 5);
        let conv = |x: &[f32], w: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (xb, wb, mut out) = (r.buf(x)?, r.buf(w)?, r.zeros(on)?);
            r.run(ops::convolution(
                &Tensor::new(&xb, &X)?,
                &Tensor::new(&wb, &[4, 3, 3, 3])?,
                None,
                &win,
                1,
                TensorMut::new(&mut out, &[2, 4, 3, 3])?,
                CubeMath::KeepDtype,
            )?)?;
            out.to_vec()
        };
        let grads = |x: &[f32], w: &[f32], g: &[f32]| -> ascendcl::Result<(Vec<f32>, Vec<f32>)> {
            let (xb, wb, gb) = (r.buf(x)?, r.buf(w)?, r.buf(g)?);
            let (mut gi, mut gw) = (r.zeros(xn)?, r.zeros(wn)?);
            let mask = GradMask {
                input: true,
                weight: true,
                bias: false,
            };
            r.run(ops::convolution_backward(
                &Tensor::new(&gb, &[2, 4, 3, 3])?,
                &Tensor::new(&xb, &X)?,
                &Tensor::new(&wb, &[4, 3, 3, 3])?,
                None,
                &win,
                1,
                mask,
                Some(TensorMut::new(&mut gi, &X)?),
                Some(TensorMut::new(&mut gw, &[4, 3, 3, 3])?),
                None,
                CubeMath::KeepDtype,
            )?)?;
            Ok((gi.to_vec()?, gw.to_vec()?))
        };
        let x = values(xn, 3);
        gradcheck("conv input", &x, on, &|x| conv(x, &weight), &|x, g| {
            Ok(grads(x, &weight, g)?.0)
        })?;
        gradcheck("conv weight", &weight, on, &|w| conv(&x, w), &|w, g| {
            Ok(grads(&x, w, g)?.1)
        })
    });
}

/// conv3d (NCDHW) with groups 2 and a depth stride, direct and transposed:
/// both gradients against central differences of the forward.
#[test]
fn conv3d_backward_direct_and_transposed_matches_finite_differences() {
    common::check(|env| {
        let r = rig(env)?;
        let win = Window {
            stride: vec![2, 1, 1],
            padding: vec![1, 1, 1],
            dilation: vec![1, 1, 1],
        };
        // direct: [1,4,4,3,3] * [4,2,3,3,3] -> [1,4,2,3,3]; transposed swaps
        // input and output (outputPadding 1 in depth: 2·1 - 2 + 2 + 1 + 1 = 4)
        let (big, w_dims, small) = ([1, 4, 4, 3, 3], [4, 2, 3, 3, 3], [1, 4, 2, 3, 3]);
        let op = [1, 0, 0];
        let n = |d: &[usize]| d.iter().product::<usize>();
        for transposed in [false, true] {
            let (xd, od) = if transposed {
                (small, big)
            } else {
                (big, small)
            };
            let weight = values(n(&w_dims), 5);
            let conv = |x: &[f32], w: &[f32]| -> ascendcl::Result<Vec<f32>> {
                let (xb, wb, mut out) = (r.buf(x)?, r.buf(w)?, r.zeros(n(&od))?);
                let (xt, wt) = (Tensor::new(&xb, &xd)?, Tensor::new(&wb, &w_dims)?);
                let o = TensorMut::new(&mut out, &od)?;
                let math = CubeMath::KeepDtype;
                r.run(if transposed {
                    ops::convolution_transposed(&xt, &wt, None, &win, &op, 2, o, math)?
                } else {
                    ops::convolution(&xt, &wt, None, &win, 2, o, math)?
                })?;
                out.to_vec()
            };
            let grads =
                |x: &[f32], w: &[f32], g: &[f32]| -> ascendcl::Result<(Vec<f32>, Vec<f32>)> {
                    let (xb, wb, gb) = (r.buf(x)?, r.buf(w)?, r.buf(g)?);
                    let (mut gi, mut gw) = (r.zeros(n(&xd))?, r.zeros(n(&w_dims))?);
                    let (gt, xt, wt) = (
                        Tensor::new(&gb, &od)?,
                        Tensor::new(&xb, &xd)?,
                        Tensor::new(&wb, &w_dims)?,
                    );
                    let mask = GradMask {
                        input: true,
                        weight: true,
                        bias: false,
                    };
                    let grads = ops::ConvGrads {
                        input: Some(TensorMut::new(&mut gi, &xd)?),
                        weight: Some(TensorMut::new(&mut gw, &w_dims)?),
                        bias: None,
                    };
                    let math = CubeMath::KeepDtype;
                    let no_op = [0, 0, 0];
                    let op = if transposed { &op[..] } else { &no_op[..] };
                    r.run(if transposed {
                        ops::convolution_transposed_backward(
                            &gt, &xt, &wt, None, &win, op, 2, mask, grads, math,
                        )?
                    } else {
                        let (input, weight) = (grads.input, grads.weight);
                        ops::convolution_backward(
                            &gt, &xt, &wt, None, &win, 2, mask, input, weight, None, math,
                        )?
                    })?;
                    Ok((gi.to_vec()?, gw.to_vec()?))
                };
            let x = values(n(&xd), 3);
            let what = if transposed {
                "transposed conv3d"
            } else {
                "conv3d"
            };
            gradcheck(
                &format!("{what} input"),
                &x,
                n(&od),
                &|x| conv(x, &weight),
                &|x, g| Ok(grads(x, &weight, g)?.0),
            )?;
            gradcheck(
                &format!("{what} weight"),
                &weight,
                n(&od),
                &|w| conv(&x, w),
                &|w, g| Ok(grads(&x, w, g)?.1),
            )?;
        }
        Ok(())
    });
}

#[test]
fn batch_norm_backward_matches_finite_differences_in_training() {
    common::check(|env| {
        let r = rig(env)?;
        let n: usize = X.iter().product();
        let (gamma, beta) = (values(3, 7), values(3, 8));
        // Forward in training; returns (output, saveMean, saveInvstd).
        let bn = |x: &[f32]| -> ascendcl::Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
            let (xb, gb, bb) = (r.buf(x)?, r.buf(&gamma)?, r.buf(&beta)?);
            let (mut rm, mut rv) = (r.zeros(3)?, r.buf(&[1.0; 3])?);
            let (mut out, mut sm, mut si) = (r.zeros(n)?, r.zeros(3)?, r.zeros(3)?);
            let running = RunningStats {
                mean: TensorMut::new(&mut rm, &[3])?,
                var: TensorMut::new(&mut rv, &[3])?,
            };
            r.run(ops::batch_norm(
                &Tensor::new(&xb, &X)?,
                Some(&Tensor::new(&gb, &[3])?),
                Some(&Tensor::new(&bb, &[3])?),
                Some(running),
                true,
                0.1,
                1e-5,
                TensorMut::new(&mut out, &X)?,
                TensorMut::new(&mut sm, &[3])?,
                TensorMut::new(&mut si, &[3])?,
            )?)?;
            Ok((out.to_vec()?, sm.to_vec()?, si.to_vec()?))
        };
        let backward = |x: &[f32], g: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (_, mean, saved) = bn(x)?;
            let (xb, gmb, gb, mb, sb) = (
                r.buf(x)?,
                r.buf(&gamma)?,
                r.buf(g)?,
                r.buf(&mean)?,
                r.buf(&saved)?,
            );
            let (rm, rv, mut gi) = (r.zeros(3)?, r.buf(&[1.0; 3])?, r.zeros(n)?);
            let mask = GradMask {
                input: true,
                weight: false,
                bias: false,
            };
            r.run(ops::batch_norm_backward(
                &Tensor::new(&gb, &X)?,
                &Tensor::new(&xb, &X)?,
                Some(&Tensor::new(&gmb, &[3])?),
                Some(&Tensor::new(&rm, &[3])?),
                Some(&Tensor::new(&rv, &[3])?),
                Some(&Tensor::new(&mb, &[3])?),
                Some(&Tensor::new(&sb, &[3])?),
                true,
                1e-5,
                mask,
                Some(TensorMut::new(&mut gi, &X)?),
                None,
                None,
            )?)?;
            gi.to_vec()
        };
        gradcheck(
            "batch norm input",
            &values(n, 9),
            n,
            &|x| Ok(bn(x)?.0),
            &backward,
        )
    });
}

#[test]
fn max_pool_backward_matches_finite_differences() {
    common::check(|env| {
        let r = rig(env)?;
        let n: usize = X.iter().product();
        let on = 2 * 3 * 3 * 3;
        let win = Window::square(2, 0);
        let pool = |x: &[f32]| -> ascendcl::Result<(Vec<f32>, DeviceBuffer<i32>)> {
            let xb = r.buf(x)?;
            let (mut out, mut idx) = (r.zeros(on)?, DeviceBuffer::<i32>::zeroed(&r.ctx, on)?);
            r.run(ops::max_pool2d_with_indices(
                &Tensor::new(&xb, &X)?,
                [2, 2],
                &win,
                false,
                TensorMut::new(&mut out, &[2, 3, 3, 3])?,
                TensorMut::new(&mut idx, &[2, 3, 3, 3])?,
            )?)?;
            Ok((out.to_vec()?, idx))
        };
        let backward = |x: &[f32], g: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (_, idx) = pool(x)?;
            let (xb, gb, mut gi) = (r.buf(x)?, r.buf(g)?, r.zeros(n)?);
            r.run(ops::max_pool2d_with_indices_backward(
                &Tensor::new(&gb, &[2, 3, 3, 3])?,
                &Tensor::new(&xb, &X)?,
                &Tensor::new(&idx, &[2, 3, 3, 3])?,
                [2, 2],
                &win,
                false,
                TensorMut::new(&mut gi, &X)?,
            )?)?;
            gi.to_vec()
        };
        // Well-separated values: a step of H moves no argmax.
        let x: Vec<f32> = (0..n).map(|i| ((i * 37) % n) as f32 * 0.1).collect();
        gradcheck("max pool input", &x, on, &|x| Ok(pool(x)?.0), &backward)
    });
}

#[test]
fn adaptive_avg_pool_and_bicubic_backward_match_finite_differences() {
    common::check(|env| {
        let r = rig(env)?;
        let n: usize = X.iter().product();
        let avg = |x: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (xb, mut out) = (r.buf(x)?, r.zeros(2 * 3 * 4 * 4)?);
            r.run(ops::adaptive_avg_pool2d(
                &Tensor::new(&xb, &X)?,
                [4, 4],
                TensorMut::new(&mut out, &[2, 3, 4, 4])?,
            )?)?;
            out.to_vec()
        };
        let avg_back = |x: &[f32], g: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (xb, gb, mut gi) = (r.buf(x)?, r.buf(g)?, r.zeros(n)?);
            r.run(ops::adaptive_avg_pool2d_backward(
                &Tensor::new(&gb, &[2, 3, 4, 4])?,
                &Tensor::new(&xb, &X)?,
                TensorMut::new(&mut gi, &X)?,
            )?)?;
            gi.to_vec()
        };
        gradcheck(
            "adaptive avg pool input",
            &values(n, 4),
            2 * 3 * 16,
            &avg,
            &avg_back,
        )?;
        let resize = Resize {
            align_corners: false,
            scales_h: 0.0,
            scales_w: 0.0,
        };
        let up = |x: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (xb, mut out) = (r.buf(x)?, r.zeros(2 * 3 * 9 * 9)?);
            r.run(ops::upsample_bicubic2d(
                &Tensor::new(&xb, &X)?,
                [9, 9],
                resize,
                TensorMut::new(&mut out, &[2, 3, 9, 9])?,
            )?)?;
            out.to_vec()
        };
        let up_back = |_: &[f32], g: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (gb, mut gi) = (r.buf(g)?, r.zeros(n)?);
            r.run(ops::upsample_bicubic2d_backward(
                &Tensor::new(&gb, &[2, 3, 9, 9])?,
                [9, 9],
                [2, 3, 6, 6],
                resize,
                TensorMut::new(&mut gi, &X)?,
            )?)?;
            gi.to_vec()
        };
        gradcheck("bicubic input", &values(n, 6), 2 * 3 * 81, &up, &up_back)
    });
}

#[test]
fn log_softmax_backward_matches_finite_differences() {
    common::check(|env| {
        let r = rig(env)?;
        let forward = |x: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (xb, mut out) = (r.buf(x)?, r.zeros(12)?);
            r.run(ops::log_softmax(
                &Tensor::new(&xb, &[3, 4])?,
                1,
                TensorMut::new(&mut out, &[3, 4])?,
            )?)?;
            out.to_vec()
        };
        let backward = |x: &[f32], g: &[f32]| -> ascendcl::Result<Vec<f32>> {
            let (ob, gb, mut gi) = (r.buf(&forward(x)?)?, r.buf(g)?, r.zeros(12)?);
            r.run(ops::log_softmax_backward(
                &Tensor::new(&gb, &[3, 4])?,
                &Tensor::new(&ob, &[3, 4])?,
                1,
                TensorMut::new(&mut gi, &[3, 4])?,
            )?)?;
            gi.to_vec()
        };
        gradcheck("log softmax input", &values(12, 2), 12, &forward, &backward)
    });
}
