//! Trains a small ResNet entirely on the device, from Rust, with aclnn
//! operators: a stem (convolution, batch norm, ReLU, max pool), a basic
//! block, a strided block with a projection shortcut, global average
//! pooling and a linear layer; softmax cross-entropy; the whole backward
//! pass; SGD with momentum; every buffer from the caching allocator's
//! expandable segments.
//!
//! The task and the training are specified exactly in
//! `scripts/goldens/train_resnet_reference.py`, which trains the same model
//! in PyTorch; its per-step losses are committed in
//! `examples/reference/train_resnet_losses.txt`. The example checks every
//! step's loss against them (1e-3 relative) and exits non-zero otherwise.
//! `--save-outputs DIR` writes the final logits and some activations as
//! `.npy` files for `ascendcl validate` (the migration check: compare them with a
//! GPU or PyTorch run). On the mock by default; unchanged on an Atlas card.
//!
//! `--record-trace FILE` records every request the caching allocator serves
//! (steps included) as an allocation trace that `ascendcl alloc-replay --trace FILE`
//! replays against the other strategies. Writing that trace format is why
//! this is an example of ascendcl-cli and not of the root package (whose
//! examples build without the CLI); `cargo run --example train_resnet` at
//! the workspace root finds it all the same.
//!
//! `cargo run --release --example train_resnet [-- --save-outputs DIR] [--record-trace FILE]`

use std::path::PathBuf;
use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, Block, CachingAllocator};
use ascendcl::ops::{self, CubeMath, GradMask, RunningStats, Tensor, TensorMut, Window};
use ascendcl::prelude::*;
use ascendcl_examples::resnet::{
    BATCH, BN_EPS, BN_MOMENTUM, C, EPOCHS, IMAGE, LR, MOMENTUM, N, Task,
};

fn main() -> ExitCode {
    let arg = |name: &str| {
        std::env::args()
            .skip_while(|a| a != name)
            .nth(1)
            .map(PathBuf::from)
    };
    match run(arg("--save-outputs"), arg("--record-trace")) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// An activation: device memory and its NCHW (or 2-D) shape.
struct Act {
    t: Block<f32>,
    shape: Vec<usize>,
}

impl Act {
    fn view(&self) -> ascendcl::Result<Tensor<'_>> {
        Tensor::new(&self.t, &self.shape)
    }
}

/// A trained tensor with its gradient and momentum buffer.
struct Param {
    value: Block<f32>,
    grad: Block<f32>,
    mom: Block<f32>,
}

struct Conv {
    w: Param,
    shape: [usize; 4],
    window: Window,
}

struct Bn {
    gamma: Param,
    beta: Param,
    mean: Block<f32>,
    var: Block<f32>,
    channels: usize,
}

/// What the backward of a batch norm needs from its forward.
struct BnSaved {
    input: Act,
    save_mean: Block<f32>,
    save_invstd: Block<f32>,
}

struct Net {
    convs: Vec<Conv>,
    bns: Vec<Bn>,
    fc_w: Param,
    fc_b: Param,
}

struct Tr<'a> {
    stream: &'a Stream,
    alloc: &'a CachingAllocator,
}

impl<'a> Tr<'a> {
    fn block(&self, data: &[f32]) -> ascendcl::Result<Block<f32>> {
        let mut b = self.alloc.alloc::<f32>(self.stream, data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    fn act(&self, shape: &[usize]) -> ascendcl::Result<Act> {
        let t = self
            .alloc
            .alloc::<f32>(self.stream, shape.iter().product())?;
        Ok(Act {
            t,
            shape: shape.to_vec(),
        })
    }

    fn param(&self, data: &[f32]) -> ascendcl::Result<Param> {
        let zeros = vec![0.0; data.len()];
        Ok(Param {
            value: self.block(data)?,
            grad: self.block(&zeros)?,
            mom: self.block(&zeros)?,
        })
    }

    fn conv(&self, x: &Act, l: &Conv) -> ascendcl::Result<Act> {
        let [cout, _, k, _] = l.shape;
        let (s, p) = (l.window.stride[0] as usize, l.window.padding[0] as usize);
        let side = (x.shape[2] + 2 * p - k) / s + 1;
        let mut out = self.act(&[x.shape[0], cout, side, side])?;
        let (w, shape) = (Tensor::new(&l.w.value, &l.shape)?, out.shape.clone());
        ops::convolution(
            &x.view()?,
            &w,
            None,
            &l.window,
            1,
            TensorMut::new(&mut out.t, &shape)?,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    fn bn(&self, x: Act, l: &mut Bn, training: bool) -> ascendcl::Result<(Act, BnSaved)> {
        let mut out = self.act(&x.shape)?;
        let (mut save_mean, mut save_invstd) =
            (self.act(&[l.channels])?.t, self.act(&[l.channels])?.t);
        let c = l.channels;
        let running = RunningStats {
            mean: TensorMut::new(&mut l.mean, &[c])?,
            var: TensorMut::new(&mut l.var, &[c])?,
        };
        let (gamma, beta) = (
            Tensor::new(&l.gamma.value, &[c])?,
            Tensor::new(&l.beta.value, &[c])?,
        );
        let shape = out.shape.clone();
        ops::batch_norm(
            &x.view()?,
            Some(&gamma),
            Some(&beta),
            Some(running),
            training,
            BN_MOMENTUM,
            BN_EPS,
            TensorMut::new(&mut out.t, &shape)?,
            TensorMut::new(&mut save_mean, &[c])?,
            TensorMut::new(&mut save_invstd, &[c])?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok((
            out,
            BnSaved {
                input: x,
                save_mean,
                save_invstd,
            },
        ))
    }

    fn relu(&self, x: &Act) -> ascendcl::Result<Act> {
        let mut out = self.act(&x.shape)?;
        let shape = out.shape.clone();
        ops::relu(&x.view()?, TensorMut::new(&mut out.t, &shape)?)?
            .launch(self.stream, self.alloc)?
            .detach();
        Ok(out)
    }

    fn add(&self, a: &Act, b: &Act) -> ascendcl::Result<Act> {
        let mut out = self.act(&a.shape)?;
        let shape = out.shape.clone();
        ops::add(
            &a.view()?,
            &b.view()?,
            1.0f32,
            TensorMut::new(&mut out.t, &shape)?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(out)
    }

    fn relu_back(&self, g: &Act, out: &Act) -> ascendcl::Result<Act> {
        let mut gi = self.act(&g.shape)?;
        let shape = gi.shape.clone();
        ops::threshold_backward(
            &g.view()?,
            &out.view()?,
            0.0f32,
            TensorMut::new(&mut gi.t, &shape)?,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    /// The gradient of the input (when `need_input`), and the weight's into `l.w.grad`.
    fn conv_back(
        &self,
        g: &Act,
        x: &Act,
        l: &mut Conv,
        need_input: bool,
    ) -> ascendcl::Result<Option<Act>> {
        let mut gi = if need_input {
            Some(self.act(&x.shape)?)
        } else {
            None
        };
        let shape = x.shape.clone();
        let gi_view = match gi.as_mut() {
            Some(a) => Some(TensorMut::new(&mut a.t, &shape)?),
            None => None,
        };
        let mask = GradMask {
            input: need_input,
            weight: true,
            bias: false,
        };
        let w = Tensor::new(&l.w.value, &l.shape)?;
        ops::convolution_backward(
            &g.view()?,
            &x.view()?,
            &w,
            None,
            &l.window,
            1,
            mask,
            gi_view,
            Some(TensorMut::new(&mut l.w.grad, &l.shape)?),
            None,
            CubeMath::KeepDtype,
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    fn bn_back(&self, g: &Act, saved: &BnSaved, l: &mut Bn) -> ascendcl::Result<Act> {
        let c = l.channels;
        let mut gi = self.act(&g.shape)?;
        let shape = gi.shape.clone();
        let (mean, invstd) = (
            Tensor::new(&saved.save_mean, &[c])?,
            Tensor::new(&saved.save_invstd, &[c])?,
        );
        let (rm, rv, gamma) = (
            Tensor::new(&l.mean, &[c])?,
            Tensor::new(&l.var, &[c])?,
            Tensor::new(&l.gamma.value, &[c])?,
        );
        ops::batch_norm_backward(
            &g.view()?,
            &saved.input.view()?,
            Some(&gamma),
            Some(&rm),
            Some(&rv),
            Some(&mean),
            Some(&invstd),
            true,
            BN_EPS,
            GradMask::ALL,
            Some(TensorMut::new(&mut gi.t, &shape)?),
            Some(TensorMut::new(&mut l.gamma.grad, &[c])?),
            Some(TensorMut::new(&mut l.beta.grad, &[c])?),
        )?
        .launch(self.stream, self.alloc)?
        .detach();
        Ok(gi)
    }

    /// PyTorch's SGD with momentum (dampening 0): `m = g` on the first step,
    /// else `m = μ·m + g`; then `p -= lr·m`.
    fn sgd(&self, p: &mut Param, first: bool) -> ascendcl::Result<()> {
        let n = p.value.len();
        let (s, a) = (self.stream, self.alloc);
        if first {
            ops::inplace_copy(
                TensorMut::new(&mut p.mom, &[n])?,
                &Tensor::new(&p.grad, &[n])?,
            )?
            .launch(s, a)?
            .detach();
        } else {
            ops::inplace_muls(TensorMut::new(&mut p.mom, &[n])?, MOMENTUM)?
                .launch(s, a)?
                .detach();
            ops::inplace_add(
                TensorMut::new(&mut p.mom, &[n])?,
                &Tensor::new(&p.grad, &[n])?,
                1.0f32,
            )?
            .launch(s, a)?
            .detach();
        }
        ops::inplace_add(
            TensorMut::new(&mut p.value, &[n])?,
            &Tensor::new(&p.mom, &[n])?,
            -LR,
        )?
        .launch(s, a)?
        .detach();
        Ok(())
    }
}

#[path = "train_resnet/pass.rs"]
mod pass;

fn run(save: Option<PathBuf>, record: Option<PathBuf>) -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let task = Task::generate();
    let generator_ok = pass::generator_matches(&task);
    println!("data and initial parameters equal PyTorch's bit for bit: {generator_ok}");
    let reference = pass::Reference::read();
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let tr = Tr {
        stream: &stream,
        alloc: &alloc,
    };
    if record.is_some() {
        alloc.start_recording(); // step 0: setup
    }
    let mut net = pass::build(&tr, &task)?;
    let pixels: usize = IMAGE.iter().product();
    let (mut worst, mut all_match) = (0f64, reference.is_some() && generator_ok);
    let steps = N / BATCH;
    for epoch in 0..EPOCHS {
        for s in 0..steps {
            let k = epoch * steps + s;
            alloc.set_recording_step(k as u32 + 1);
            let x = Act {
                t: tr.block(&task.x[s * BATCH * pixels..(s + 1) * BATCH * pixels])?,
                shape: vec![BATCH, IMAGE[0], IMAGE[1], IMAGE[2]],
            };
            let mut labels = alloc.alloc::<i64>(&stream, BATCH)?;
            labels.copy_from_host(&task.labels[s * BATCH..(s + 1) * BATCH])?;
            let loss = pass::step(&tr, &mut net, x, &labels, k == 0)?;
            let expected = reference.as_ref().and_then(|r| r.get(k).copied());
            let note = match expected {
                Some(e) => {
                    let rel = (f64::from(loss) - e).abs() / e.abs().max(1e-30);
                    worst = worst.max(rel);
                    let ok = (f64::from(loss) - e).abs() <= 1e-3 * e.abs() + 1e-6;
                    all_match &= ok;
                    format!(" (PyTorch {e:.9}){}", if ok { "" } else { "  MISMATCH" })
                }
                None => String::new(),
            };
            println!("step {} loss {loss:.9}{note}", k + 1);
        }
    }
    // The migration check: the first batch's logits in eval mode, and more.
    let x = Act {
        t: tr.block(&task.x[..BATCH * pixels])?,
        shape: vec![BATCH, IMAGE[0], IMAGE[1], IMAGE[2]],
    };
    let outputs = pass::forward(&tr, &mut net, x, false)?;
    let logits = outputs.logits.t.to_vec()?;
    if let Some(dir) = save {
        std::fs::create_dir_all(&dir)
            .map_err(|e| ascendcl::Error::InvalidState(format!("{}: {e}", dir.display())))?;
        for (name, act) in [
            ("final_logits", &outputs.logits),
            ("stem", &outputs.stem),
            ("features", &outputs.features),
        ] {
            let path = dir.join(format!("{name}.npy"));
            ascendcl::tensor_file::write_npy_slice(&path, &act.shape, &act.t.to_vec()?)
                .map_err(|e| ascendcl::Error::InvalidState(e.to_string()))?;
        }
        println!(
            "wrote final_logits.npy, stem.npy, features.npy to {}",
            dir.display()
        );
    }
    println!("final logits of sample 0: {:?}", &logits[..C]);
    drop(outputs);
    drop(net); // the trailing frees of the persistent tensors
    if let Some(path) = record {
        let requests = alloc.take_recording();
        let trace = ascendcl_cli::alloc_trace::recorded::from_requests(
            "train_resnet",
            &requests,
            BATCH as u32,
        );
        trace
            .check()
            .map_err(|e| ascendcl::Error::InvalidState(format!("recorded trace: {e}")))?;
        let file = std::fs::File::create(&path)
            .map_err(|e| ascendcl::Error::InvalidState(format!("{}: {e}", path.display())))?;
        trace
            .to_json_lines(std::io::BufWriter::new(file))
            .map_err(|e| ascendcl::Error::InvalidState(format!("{}: {e}", path.display())))?;
        println!(
            "recorded {} allocator requests to {}",
            trace.ops.len(),
            path.display()
        );
    }
    let stats = alloc.stats();
    println!(
        "allocator: reserved peak {} KiB for {} KiB of live tensors at peak",
        stats.reserved.peak >> 10,
        stats.allocated.peak >> 10
    );
    match reference {
        None => println!("no PyTorch reference found (examples/reference/train_resnet_losses.txt)"),
        Some(_) if all_match => println!(
            "matches the PyTorch reference: every step's loss within 1e-3 relative, largest relative difference {worst:.2e}"
        ),
        Some(_) => println!(
            "DOES NOT match the PyTorch reference (largest relative difference {worst:.2e})"
        ),
    }
    Ok(all_match)
}
