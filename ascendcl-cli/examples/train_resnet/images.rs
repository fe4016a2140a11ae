//! `train_resnet --images DIR`: the ResNet trained from a directory of JPEGs
//! through the DVPP pipeline (`ascendcl_examples::resnet::images`), then
//! the input pipeline's throughput with the decode on the NPU against the
//! decode on the host (zune-jpeg, the `image` crate's decoder), both feeding
//! the same crop, flip and normalize on the DVPP stream.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ascendcl::Backend;
use ascendcl::dvpp::{Batch, HostImage, Pipeline};
use ascendcl::prelude::*;
use ascendcl_examples::resnet::images::{self, ImageSet};
use ascendcl_examples::resnet::{BATCH, IMAGE};
use zune_jpeg::JpegDecoder;
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;

/// The two paths' batches may differ by this much per channel, in pixel
/// levels. Measured on the committed set against Pillow (libjpeg-turbo),
/// the mock's decode is within 3 levels of every image, zune-jpeg within 3
/// of the 4:4:4 and grey ones but up to 18 off on the colour edges of the
/// 4:2:2 and 4:2:0 ones (its chroma upsampling is not libjpeg's triangle
/// filter). The bilinear resize to 16x16 averages much of that away (the
/// batches differ by 4 levels at most). A wiring mistake on the host path
/// (channels interleaved, rows transposed) is off by a hundred or more.
const MAX_LEVELS: f32 = 20.0;

/// What `--images` runs.
#[derive(Debug)]
pub struct Options {
    pub dir: PathBuf,
    pub epochs: usize,
    pub rounds: usize,
    pub seed: u64,
}

fn invalid(message: String) -> ascendcl::Error {
    ascendcl::Error::InvalidState(message)
}

/// Trains, evaluates, then compares the two decode paths; `Ok(false)` when a
/// check failed (said on stdout).
pub fn run(rt: &Runtime, backend: &Backend, options: &Options) -> ascendcl::Result<bool> {
    let set = ImageSet::read(&options.dir).map_err(invalid)?;
    println!(
        "{} JPEGs of {} classes ({}) from {}",
        set.jpegs.len(),
        set.classes.len(),
        set.classes.join(", "),
        options.dir.display()
    );
    let epochs = options.epochs;
    let job = images::run(rt, &set, epochs, options.seed, |r| {
        println!(
            "epoch {}/{epochs}: mean loss {:.4}, {} images in {:.3} s ({:.0} images/s, input pipeline and training)",
            r.epoch,
            r.mean_loss,
            r.images,
            r.seconds,
            r.images as f64 / r.seconds
        )
    })?;
    let (correct, seen, reports) = (job.correct, job.evaluated, job.epochs);
    println!(
        "accuracy on the un-augmented images: {correct}/{seen} ({:.1}%)",
        100.0 * correct as f64 / seen as f64
    );
    let ctx = Device::open(rt, 0)?.default_context();
    let speed = compare_decoders(&ctx, &set, options.rounds)?;
    println!(
        "input pipeline ({} images per round, median of {} rounds, interleaved): decode on the NPU {:.0} images/s | decode on the host (zune-jpeg) {:.0} images/s",
        set.jpegs.len(),
        options.rounds,
        speed.npu,
        speed.host
    );
    println!(
        "{{\"bench\":\"input_pipeline\",\"images\":{},\"rounds\":{},\"out\":[{},{}],\"npu_decode_images_per_s\":{:.1},\"host_decode_images_per_s\":{:.1},\"npu_over_host\":{:.3}}}",
        set.jpegs.len(),
        options.rounds,
        IMAGE[1],
        IMAGE[2],
        speed.npu,
        speed.host,
        speed.npu / speed.host
    );
    if matches!(backend, Backend::Mock(_)) {
        println!(
            "(on the mock, the DVPP operators run on this machine's CPU: the figures compare the two paths here, not an NPU)"
        );
    }
    println!(
        "the two paths' batches differ by at most {:.2} pixel levels (allowed {MAX_LEVELS}: the two decoders' IDCTs and chroma upsampling)",
        speed.levels
    );
    let first = reports.first().map_or(f64::NAN, |r| r.mean_loss);
    let last = reports.last().map_or(f64::NAN, |r| r.mean_loss);
    let checks = [
        (
            last < 0.5 * first,
            format!("the mean loss fell by half ({first:.4} -> {last:.4})"),
        ),
        (
            correct * 4 >= seen * 3,
            format!(
                "at least 75% of the images classified (chance: 1 in {})",
                set.classes.len()
            ),
        ),
        (
            speed.levels <= MAX_LEVELS,
            "the NPU-decoded and host-decoded batches agree".to_string(),
        ),
    ];
    let mut ok = true;
    for (passed, what) in checks {
        println!("{}: {what}", if passed { "ok" } else { "FAILED" });
        ok &= passed;
    }
    Ok(ok)
}

struct Speed {
    npu: f64,
    host: f64,
    levels: f32,
}

/// One image decoded by zune-jpeg on the host, as planar RGB.
fn host_decode(jpeg: &[u8]) -> Result<(Vec<u8>, usize, usize), String> {
    let options = DecoderOptions::default().jpeg_set_out_colorspace(ColorSpace::RGB);
    let mut decoder = JpegDecoder::new_with_options(std::io::Cursor::new(jpeg), options);
    let interleaved = decoder.decode().map_err(|e| format!("zune-jpeg: {e:?}"))?;
    let info = decoder.info().ok_or("zune-jpeg: no header")?;
    let (h, w) = (usize::from(info.height), usize::from(info.width));
    if interleaved.len() != 3 * h * w {
        return Err(format!(
            "zune-jpeg gave {} bytes for {w}x{h} RGB",
            interleaved.len()
        ));
    }
    let mut planar = vec![0u8; 3 * h * w];
    for (i, px) in interleaved.chunks_exact(3).enumerate() {
        for c in 0..3 {
            planar[c * h * w + i] = px[c];
        }
    }
    Ok((planar, h, w))
}

/// Loads every image once, in batches, and waits for the last: the time
/// of one round through one path.
fn round(
    pipeline: &mut Pipeline,
    set: &ImageSet,
    on_host: bool,
) -> ascendcl::Result<(Duration, Vec<Batch>)> {
    let indices: Vec<usize> = (0..set.jpegs.len()).collect();
    let started = Instant::now();
    let mut batches = Vec::new();
    for chunk in indices.chunks(BATCH) {
        let (jpegs, _) = set.batch(chunk);
        let batch = if on_host {
            let decoded = jpegs
                .iter()
                .zip(chunk)
                .map(|(j, &i)| {
                    host_decode(j).map_err(|e| invalid(format!("{}: {e}", set.paths[i].display())))
                })
                .collect::<ascendcl::Result<Vec<_>>>()?;
            let host: Vec<HostImage<'_>> = decoded
                .iter()
                .map(|(pixels, height, width)| HostImage {
                    pixels,
                    height: *height,
                    width: *width,
                })
                .collect();
            pipeline.load_decoded(&host)?
        } else {
            pipeline.load(&jpegs)?
        };
        batches.push(batch);
    }
    for batch in &mut batches {
        batch.wait()?;
    }
    Ok((started.elapsed(), batches))
}

/// The largest difference of two batch lists, in pixel levels.
fn levels(a: &[Batch], b: &[Batch], std: [f32; 3]) -> ascendcl::Result<f32> {
    let mut worst = 0f32;
    for (x, y) in a.iter().zip(b) {
        let [n, c, h, w] = x.shape();
        let len = n * c * h * w;
        let (x, y) = (x.images().to_vec()?, y.images().to_vec()?);
        for (i, (p, q)) in x[..len].iter().zip(&y[..len]).enumerate() {
            worst = worst.max((p - q).abs() * std[(i / (h * w)) % c]);
        }
    }
    Ok(worst)
}

/// Rounds of both paths, interleaved, from two pipelines of one seed (so
/// both draw the same crops and flips); images/s from each path's median.
fn compare_decoders(ctx: &Context, set: &ImageSet, rounds: usize) -> ascendcl::Result<Speed> {
    let config = images::train_config(11);
    let std = config.std;
    let mut on_npu = Pipeline::new(ctx, config.clone())?;
    let mut on_host = Pipeline::new(ctx, config)?;
    let (mut npu, mut host, mut worst) = (Vec::new(), Vec::new(), 0f32);
    for _ in 0..rounds.max(1) {
        let (t_npu, a) = round(&mut on_npu, set, false)?;
        let (t_host, b) = round(&mut on_host, set, true)?;
        worst = worst.max(levels(&a, &b, std)?);
        npu.push(t_npu);
        host.push(t_host);
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64()
    };
    let n = set.jpegs.len() as f64;
    Ok(Speed {
        npu: n / median(npu),
        host: n / median(host),
        levels: worst,
    })
}
