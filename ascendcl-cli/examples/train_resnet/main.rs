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
//! `--graph` captures the step once after the first (eager) step and replays
//! it for every later batch, one `aclmdlRIExecuteAsync` each; its losses are
//! the eager run's, bit for bit, so the same PyTorch check applies.
//!
//! `--images DIR` trains the same model from a directory of JPEGs instead
//! (`DIR/CLASS/*.jpg`, 2 to 4 classes; `examples/reference/resnet_images` is
//! a committed set that `scripts/goldens/make_resnet_images.py` writes):
//! every batch is decoded, randomly cropped, flipped and normalized on the
//! DVPP stream by `ascendcl::dvpp::Pipeline` while the previous one trains,
//! with a progress line per epoch (`--epochs N`, 20 by default). Then it
//! times the input pipeline with the decode on the NPU against the decode
//! on the host (zune-jpeg) feeding the same DVPP augmentations (`--rounds
//! N`, 5 by default), prints both side by side and as a JSON line, and
//! exits non-zero unless the loss fell by half, 75% of the images are
//! classified and the two paths' batches agree.
//!
//! `cargo run --release --example train_resnet [-- --save-outputs DIR] [--record-trace FILE] [--graph]`
//! `cargo run --release --example train_resnet -- --images examples/reference/resnet_images`

mod images;

use std::path::PathBuf;
use std::process::ExitCode;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::prelude::*;
use ascendcl_examples::resnet::trainer::{Act, LossConsts, Tr};
use ascendcl_examples::resnet::{BATCH, C, EPOCHS, IMAGE, N, Task};
use ascendcl_examples::resnet::{graph_step, pass};

fn main() -> ExitCode {
    let arg = |name: &str| {
        std::env::args()
            .skip_while(|a| a != name)
            .nth(1)
            .map(PathBuf::from)
    };
    let graph = std::env::args().any(|a| a == "--graph");
    let result = match arg("--images") {
        Some(dir) => images_options(dir, &arg).and_then(|options| {
            let (rt, backend) = ascendcl_examples::runtime()?;
            println!("backend: {backend}, images through the DVPP pipeline");
            images::run(&rt, &backend, &options)
        }),
        None => run(arg("--save-outputs"), arg("--record-trace"), graph),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn images_options(
    dir: PathBuf,
    arg: &dyn Fn(&str) -> Option<PathBuf>,
) -> ascendcl::Result<images::Options> {
    let count = |name: &str, default: usize| -> ascendcl::Result<usize> {
        match arg(name) {
            None => Ok(default),
            Some(v) => v
                .to_str()
                .and_then(|v| v.parse().ok())
                .filter(|&n: &usize| n > 0)
                .ok_or_else(|| {
                    ascendcl::Error::InvalidState(format!(
                        "{name} takes a positive count, not {}",
                        v.display()
                    ))
                }),
        }
    };
    Ok(images::Options {
        dir,
        epochs: count("--epochs", 20)?,
        rounds: count("--rounds", 5)?,
        seed: 5,
    })
}

fn run(save: Option<PathBuf>, record: Option<PathBuf>, graph: bool) -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    let mode = if graph {
        ", one graph replay per step"
    } else {
        ""
    };
    println!("backend: {backend}{mode}");
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
    let mut consts = LossConsts::new(&tr)?;
    let pixels: usize = IMAGE.iter().product();
    let (mut worst, mut all_match) = (0f64, reference.is_some() && generator_ok);
    let steps = N / BATCH;
    let total_steps = EPOCHS * steps;
    let batch = |k: usize| {
        let s = k % steps;
        (
            &task.x[s * BATCH * pixels..(s + 1) * BATCH * pixels],
            &task.labels[s * BATCH..(s + 1) * BATCH],
        )
    };
    let mut report = |k: usize, loss: f32| {
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
    };
    // Graph mode: only the first step is eager (it starts the momentum and
    // warms the allocator up); the others replay one captured step.
    let eager_steps = if graph { 1 } else { total_steps };
    for k in 0..eager_steps {
        alloc.set_recording_step(k as u32 + 1);
        let (x, labels_host) = batch(k);
        let x = Act {
            t: tr.block(x)?,
            shape: vec![BATCH, IMAGE[0], IMAGE[1], IMAGE[2]],
        };
        let mut labels = alloc.alloc::<i64>(&stream, BATCH)?;
        labels.copy_from_host(labels_host)?;
        report(k, pass::step(&tr, &mut net, &consts, x, &labels, k == 0)?);
    }
    if graph {
        let mut captured = graph_step::capture(&tr, &mut net, &mut consts)?;
        for k in eager_steps..total_steps {
            alloc.set_recording_step(k as u32 + 1);
            let (x, labels) = batch(k);
            captured.submit(&stream, x, labels)?;
            report(k, captured.loss()?);
        }
        // Dropping the graph (here) gives the network back.
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
    drop((net, consts)); // the trailing frees of the persistent tensors
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
