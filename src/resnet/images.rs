//! `train_resnet --images DIR`: the ResNet trained from a directory of JPEGs
//! (one subdirectory per class, as torchvision's `ImageFolder` reads them),
//! every batch decoded, randomly cropped, flipped and normalized on the DVPP
//! stream by [`ascendcl::dvpp::Pipeline`] while the previous batch trains
//! on the compute stream. `scripts/goldens/make_resnet_images.py` writes
//! the committed set, `examples/reference/resnet_images`.
//!
//! There is no PyTorch loss curve to match here (the augmentations are
//! drawn by our seeded pipeline, not by torchvision's generator); the
//! example's checks are that the loss falls and that the trained network
//! classifies the un-augmented images.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ascendcl::dvpp::SplitMix64;
use ascendcl::dvpp::{Batch, Interpolation, Pipeline, PipelineConfig, RandomResizedCrop};
use ascendcl::prelude::*;

use super::pass;
use super::trainer::{Act, LossConsts, Net, Tr};
use super::{BATCH, C, IMAGE};

/// A labelled set of JPEG files.
#[derive(Debug, Clone)]
pub struct ImageSet {
    /// Class names (the subdirectories), sorted; a label is an index here.
    pub classes: Vec<String>,
    /// Each file's bytes.
    pub jpegs: Vec<Vec<u8>>,
    /// Each file's label.
    pub labels: Vec<i64>,
    /// Each file's path.
    pub paths: Vec<PathBuf>,
}

impl ImageSet {
    /// The committed set of `scripts/goldens/make_resnet_images.py`.
    pub fn reference_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/reference/resnet_images")
    }

    /// Reads `dir/CLASS/*.jpg` (and `.jpeg`), classes and files in sorted
    /// order. The model has [`C`] outputs, so 2 to `C` classes; every epoch
    /// trains on whole batches of [`BATCH`], so at least that many files.
    pub fn read(dir: &Path) -> Result<ImageSet, String> {
        let listing = |d: &Path| -> Result<Vec<PathBuf>, String> {
            let mut entries = std::fs::read_dir(d)
                .map_err(|e| format!("{}: {e}", d.display()))?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("{}: {e}", d.display()))?;
            entries.sort();
            Ok(entries)
        };
        let class_dirs: Vec<PathBuf> = listing(dir)?.into_iter().filter(|p| p.is_dir()).collect();
        if !(2..=C).contains(&class_dirs.len()) {
            return Err(format!(
                "{}: {} class directories; the model tells 2 to {C} classes apart (one subdirectory of JPEGs per class)",
                dir.display(),
                class_dirs.len()
            ));
        }
        let mut set = ImageSet {
            classes: Vec::new(),
            jpegs: Vec::new(),
            labels: Vec::new(),
            paths: Vec::new(),
        };
        for (label, class_dir) in class_dirs.iter().enumerate() {
            set.classes.push(
                class_dir
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            );
            for path in listing(class_dir)? {
                let ext = path.extension().map(|e| e.to_ascii_lowercase());
                if !matches!(ext.as_ref().and_then(|e| e.to_str()), Some("jpg" | "jpeg")) {
                    continue;
                }
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                set.jpegs.push(bytes);
                set.labels.push(label as i64);
                set.paths.push(path);
            }
        }
        if set.jpegs.len() < BATCH {
            return Err(format!(
                "{}: {} JPEG files; a training step takes {BATCH}",
                dir.display(),
                set.jpegs.len()
            ));
        }
        Ok(set)
    }

    /// The files of `indices`, in that order.
    pub fn batch(&self, indices: &[usize]) -> (Vec<&[u8]>, Vec<i64>) {
        let jpegs = indices.iter().map(|&i| self.jpegs[i].as_slice()).collect();
        let labels = indices.iter().map(|&i| self.labels[i]).collect();
        (jpegs, labels)
    }
}

/// The training transform: a random resized crop of a quarter to all of the
/// image (torchvision's default starts at 8%, too little of a 24-pixel
/// picture), a flip half of the time, ImageNet's normalization, at the
/// model's 16x16.
pub fn train_config(seed: u64) -> PipelineConfig {
    let mut config = PipelineConfig::imagenet(IMAGE[1], IMAGE[2], seed);
    config.crop.scale = (0.25, 1.0);
    config
}

/// The evaluation transform: the whole image resized to 16x16, no flip.
/// (A crop of scale 1 with a ratio range wider than any image's falls back
/// to the whole image, as torchvision's does.)
pub fn eval_config() -> PipelineConfig {
    PipelineConfig {
        crop: RandomResizedCrop {
            scale: (1.0, 1.0),
            ratio: (0.2, 5.0),
        },
        interpolation: Interpolation::Bilinear,
        flip_probability: 0.0,
        ..PipelineConfig::imagenet(IMAGE[1], IMAGE[2], 0)
    }
}

/// Epoch `epoch`'s order of `n` samples: a Fisher-Yates shuffle seeded by
/// the epoch.
pub fn shuffled(n: usize, seed: u64, epoch: usize) -> Vec<usize> {
    let mut rng = SplitMix64::new(seed ^ (epoch as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// One epoch's progress.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochReport {
    /// 1-based.
    pub epoch: usize,
    /// The mean of the epoch's step losses.
    pub mean_loss: f64,
    /// Images trained on.
    pub images: usize,
    /// Wall time of the epoch, input pipeline included.
    pub seconds: f64,
}

/// Copies a batch's images into an activation of the compute stream. The
/// copy is ordered after the batch's DVPP work by the tracker (an event
/// wait, no host synchronize), and the batch's slot is written again only
/// after the copy.
fn batch_input(tr: &Tr<'_>, batch: &Batch) -> ascendcl::Result<Act> {
    let shape = batch.shape();
    let mut x = tr.act(&shape)?;
    let len: usize = shape.iter().product();
    tr.stream
        .copy_device_to_device(&batch.images().slice(..len)?, &mut x.t)?
        .detach();
    Ok(x)
}

fn labels_block(tr: &Tr<'_>, labels: &[i64]) -> ascendcl::Result<ascendcl::alloc::Block<i64>> {
    let mut block = tr.alloc.alloc::<i64>(tr.stream, labels.len())?;
    block.copy_from_host(labels)?;
    Ok(block)
}

/// Trains `epochs` epochs of whole batches: batch *k + 1* is queued on the
/// pipeline's DVPP stream before step *k* runs, so decoding overlaps
/// training. Calls `progress` after each epoch.
pub fn train(
    tr: &Tr<'_>,
    net: &mut Net,
    consts: &LossConsts,
    set: &ImageSet,
    epochs: usize,
    seed: u64,
    mut progress: impl FnMut(&EpochReport),
) -> ascendcl::Result<Vec<EpochReport>> {
    let mut pipeline = Pipeline::new(tr.stream.context(), train_config(seed))?;
    let steps = set.jpegs.len() / BATCH;
    let plan: Vec<Vec<usize>> = (0..epochs)
        .flat_map(|e| {
            let order = shuffled(set.jpegs.len(), seed, e);
            (0..steps)
                .map(|s| order[s * BATCH..(s + 1) * BATCH].to_vec())
                .collect::<Vec<_>>()
        })
        .collect();
    let load = |pipeline: &mut Pipeline, k: usize| -> ascendcl::Result<(Batch, Vec<i64>)> {
        let (jpegs, labels) = set.batch(&plan[k]);
        Ok((pipeline.load(&jpegs)?, labels))
    };
    let mut reports = Vec::with_capacity(epochs);
    let mut next = if plan.is_empty() {
        None
    } else {
        Some(load(&mut pipeline, 0)?)
    };
    let (mut sum, mut started) = (0f64, Instant::now());
    for k in 0..plan.len() {
        let (batch, labels) = next.take().expect("queued one step ahead");
        if k + 1 < plan.len() {
            next = Some(load(&mut pipeline, k + 1)?);
        }
        let x = batch_input(tr, &batch)?;
        drop(batch); // back in the ring, rewritten only after the copy
        let labels = labels_block(tr, &labels)?;
        sum += f64::from(pass::step(tr, net, consts, x, &labels, k == 0)?);
        if (k + 1) % steps == 0 {
            let report = EpochReport {
                epoch: (k + 1) / steps,
                mean_loss: sum / steps as f64,
                images: steps * BATCH,
                seconds: started.elapsed().as_secs_f64(),
            };
            progress(&report);
            reports.push(report);
            (sum, started) = (0.0, Instant::now());
        }
    }
    Ok(reports)
}

/// Classifies the whole images (eval transform, batch norm in eval mode),
/// in whole batches; returns (correct, evaluated).
pub fn accuracy(tr: &Tr<'_>, net: &mut Net, set: &ImageSet) -> ascendcl::Result<(usize, usize)> {
    let mut pipeline = Pipeline::new(tr.stream.context(), eval_config())?;
    let (mut correct, mut seen) = (0, 0);
    let indices: Vec<usize> = (0..set.jpegs.len()).collect();
    for chunk in indices.chunks_exact(BATCH) {
        let (jpegs, labels) = set.batch(chunk);
        let batch = pipeline.load(&jpegs)?;
        let x = batch_input(tr, &batch)?;
        drop(batch);
        let logits = pass::forward(tr, net, x, false)?.logits.t.to_vec()?;
        for (row, &label) in logits.chunks_exact(C).zip(&labels) {
            let best = (0..C)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .unwrap_or(0);
            correct += usize::from(best as i64 == label);
        }
        seen += chunk.len();
    }
    Ok((correct, seen))
}

/// What [`run`] measured: each epoch, and the accuracy on the un-augmented
/// images (correct, evaluated).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// One per epoch.
    pub epochs: Vec<EpochReport>,
    /// Images classified right.
    pub correct: usize,
    /// Images evaluated (whole batches).
    pub evaluated: usize,
}

/// The whole job on device 0 of `rt`: the ResNet from the task's initial
/// parameters, `epochs` epochs on `set` ([`train`]), then [`accuracy`].
pub fn run(
    rt: &Runtime,
    set: &ImageSet,
    epochs: usize,
    seed: u64,
    progress: impl FnMut(&EpochReport),
) -> ascendcl::Result<Run> {
    let ctx = Device::open(rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = ascendcl::alloc::CachingAllocator::new(
        &ctx,
        ascendcl::alloc::AllocatorConfig::expandable(),
    )?;
    let tr = Tr {
        stream: &stream,
        alloc: &alloc,
    };
    let mut net = pass::build(&tr, &super::Task::generate())?;
    let consts = LossConsts::new(&tr)?;
    let reports = train(&tr, &mut net, &consts, set, epochs, seed, progress)?;
    let (correct, evaluated) = accuracy(&tr, &mut net, set)?;
    Ok(Run {
        epochs: reports,
        correct,
        evaluated,
    })
}
