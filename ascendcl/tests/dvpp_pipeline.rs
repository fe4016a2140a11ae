//! The DVPP batch pipeline: its batches equal decoding and augmenting each
//! image alone with a synchronize after every step (bit for bit), a
//! consumer on another stream reads them with no host synchronize and no
//! unordered access (CI also runs this binary with
//! `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`), a slot is rewritten only after the
//! consumer's queued reads, and a file the decoder cannot take is refused
//! before anything is queued.

mod common;

use std::path::Path;
use std::time::Duration;

use ascendcl::dvpp::{self, ImageLayout, JpegHeader, Pipeline, PipelineConfig};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

/// The JPEGs of examples/reference/dvpp that the decoder takes, from its
/// manifest (made by scripts/goldens/make_dvpp_goldens.py).
fn samples() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    manifest
        .lines()
        .filter(|l| !l.starts_with('#') && l.split_whitespace().last() == Some("ok"))
        .map(|l| {
            let name = l.split_whitespace().next().unwrap().to_string();
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .filter(|(_, b)| {
            let h = JpegHeader::parse(b).unwrap();
            h.width >= 6 && h.height >= 4
        })
        .collect()
}

fn config() -> PipelineConfig {
    PipelineConfig::imagenet(20, 24, 42)
}

/// One image through the same steps, each launched alone and waited for.
fn reference(
    ctx: &Context,
    jpeg: &[u8],
    crop: dvpp::Crop,
    flip: bool,
) -> ascendcl::Result<Vec<f32>> {
    let c = config();
    let stream = Stream::new(ctx)?;
    let h = JpegHeader::parse(jpeg)?;
    let (h, w) = (h.height as usize, h.width as usize);
    let l = ImageLayout::Nchw;
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut decoded = DeviceBuffer::<u8>::zeroed(ctx, 3 * h * w)?;
    dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        3,
        TensorMut::new(&mut decoded, &[3, h, w])?,
        l,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    let (oh, ow) = (c.height, c.width);
    let mut resized = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
    dvpp::crop_and_resize(
        &Tensor::new(&decoded, &[3, h, w])?,
        crop,
        c.interpolation,
        TensorMut::new(&mut resized, &[3, oh, ow])?,
        l,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    if flip {
        let mut flipped = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
        dvpp::horizontal_flip(
            &Tensor::new(&resized, &[3, oh, ow])?,
            TensorMut::new(&mut flipped, &[3, oh, ow])?,
            l,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        resized = flipped;
    }
    let mut out = DeviceBuffer::<f32>::zeroed(ctx, 3 * oh * ow)?;
    dvpp::normalize(
        &Tensor::new(&resized, &[3, oh, ow])?,
        &c.mean,
        &c.std,
        TensorMut::new(&mut out, &[3, oh, ow])?,
        l,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    out.to_vec()
}

#[test]
fn a_batch_equals_each_image_decoded_and_augmented_alone_with_a_synchronize_after_every_step() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let images = samples();
        assert!(images.len() >= 6, "{} samples", images.len());
        let jpegs: Vec<&[u8]> = images.iter().map(|(_, b)| b.as_slice()).collect();
        let mut pipeline = Pipeline::new(&ctx, config())?;
        let batch = pipeline.load(&jpegs)?;
        let [n, c, h, w] = batch.shape();
        assert_eq!((n, c, h, w), (jpegs.len(), 3, 20, 24));
        let flips = batch.augmentations().iter().filter(|a| a.1).count();
        assert!(
            flips > 0 && flips < n,
            "seed 42 flips some images, not all: {flips} of {n}"
        );
        let got = batch.images().to_vec()?;
        for (i, ((name, jpeg), &(crop, flip))) in
            images.iter().zip(batch.augmentations()).enumerate()
        {
            let want = reference(&ctx, jpeg, crop, flip)?;
            let plane = c * h * w;
            assert!(
                got[i * plane..(i + 1) * plane]
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "image {i} ({name}, {crop:?}, flip {flip}) differs from its alone-and-synchronized run"
            );
        }
        Ok(())
    });
}

#[test]
fn a_consumer_on_another_stream_reads_batches_with_no_host_synchronize_and_slots_are_reused_in_order()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let images = samples();
        let jpegs: Vec<&[u8]> = images.iter().take(4).map(|(_, b)| b.as_slice()).collect();
        let compute = Stream::new(&ctx)?;
        let mut pipeline = Pipeline::new(&ctx, config())?;
        // Slow workers: a missing order would show as stale or torn data.
        env.slow_streams(Duration::from_millis(2));
        env.session.clear_journal();
        let per = 4 * 3 * 20 * 24;
        let mut results = Vec::new();
        for _step in 0..3 {
            let batch = pipeline.load(&jpegs)?;
            let mut doubled = DeviceBuffer::<f32>::zeroed(&ctx, per)?;
            ops::muls(
                &batch.tensor()?,
                2.0f32,
                TensorMut::new(&mut doubled, &[4, 3, 20, 24])?,
            )?
            .launch(&compute, Workspace::none())?
            .detach();
            results.push((doubled, batch.augmentations().to_vec()));
            drop(batch); // back in the ring while `muls` may still read it
        }
        let syncs = env
            .session
            .journal()
            .iter()
            .filter(|e| e.function().starts_with("aclrtSynchronize"))
            .count();
        assert_eq!(syncs, 0, "the pipeline and the consumer waited on the host");
        let made = pipeline.slots_made();
        assert!((1..=3).contains(&made), "{made} slots");
        env.slow_streams(Duration::ZERO);
        for (doubled, augmentations) in results {
            let got = doubled.to_vec()?;
            for (i, (&(crop, flip), jpeg)) in augmentations.iter().zip(&jpegs).enumerate() {
                let want = reference(&ctx, jpeg, crop, flip)?;
                let plane = 3 * 20 * 24;
                assert!(
                    got[i * plane..(i + 1) * plane]
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| *a == 2.0 * b),
                    "image {i} was overwritten or read before it was written"
                );
            }
        }
        // Everything has run (the reads above waited): a slot is reused.
        let batch = pipeline.load(&jpegs)?;
        assert_eq!(
            pipeline.slots_made(),
            made,
            "a finished slot handed back is reused"
        );
        drop(batch);
        Ok(())
    });
}

#[test]
fn a_file_the_decoder_cannot_take_is_refused_before_anything_is_queued_naming_its_index() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let images = samples();
        let mut pipeline = Pipeline::new(&ctx, config())?;
        let calls_before = env.session.journal().len();
        let jpegs: Vec<&[u8]> = vec![&images[0].1, b"not a jpeg"];
        let e = pipeline.load(&jpegs).unwrap_err().to_string();
        assert!(e.contains("image 1") && e.contains("SOI"), "{e}");
        let queued = env.session.journal()[calls_before..]
            .iter()
            .filter(|c| {
                c.function().starts_with("acldvpp") || c.function().starts_with("aclrtMemcpy")
            })
            .count();
        assert_eq!(queued, 0);
        Ok(())
    });
}

/// Decodes one JPEG alone on the DVPP stream of the mock and brings its
/// planar RGB pixels to the host.
fn decode_to_host(ctx: &Context, jpeg: &[u8]) -> ascendcl::Result<(Vec<u8>, usize, usize)> {
    let stream = Stream::new(ctx)?;
    let h = JpegHeader::parse(jpeg)?;
    let (h, w) = (h.height as usize, h.width as usize);
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut decoded = DeviceBuffer::<u8>::zeroed(ctx, 3 * h * w)?;
    dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        3,
        TensorMut::new(&mut decoded, &[3, h, w])?,
        ImageLayout::Nchw,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    Ok((decoded.to_vec()?, h, w))
}

#[test]
fn images_decoded_elsewhere_get_the_same_draws_and_the_same_batch_as_their_jpegs() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let images = samples();
        let jpegs: Vec<&[u8]> = images.iter().map(|(_, b)| b.as_slice()).collect();
        let decoded = jpegs
            .iter()
            .map(|j| decode_to_host(&ctx, j))
            .collect::<ascendcl::Result<Vec<_>>>()?;
        let host: Vec<dvpp::HostImage<'_>> = decoded
            .iter()
            .map(|(pixels, height, width)| dvpp::HostImage {
                pixels,
                height: *height,
                width: *width,
            })
            .collect();
        let mut from_jpegs = Pipeline::new(&ctx, config())?;
        let mut from_pixels = Pipeline::new(&ctx, config())?;
        let a = from_jpegs.load(&jpegs)?;
        let b = from_pixels.load_decoded(&host)?;
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.augmentations(), b.augmentations());
        let (a, b) = (a.images().to_vec()?, b.images().to_vec()?);
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "the pixels path differs from the decode path"
        );
        Ok(())
    });
}

#[test]
fn decoded_images_of_the_wrong_length_or_too_small_are_refused_before_anything_is_queued() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut pipeline = Pipeline::new(&ctx, config())?;
        let calls_before = env.session.journal().len();
        let good = vec![0u8; 3 * 8 * 10];
        let short = vec![0u8; 3 * 8 * 10 - 1];
        let image = |pixels, height, width| dvpp::HostImage {
            pixels,
            height,
            width,
        };
        let e = pipeline
            .load_decoded(&[image(&good, 8, 10), image(&short, 8, 10)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("image 1") && e.contains("239 bytes"), "{e}");
        let e = pipeline
            .load_decoded(&[image(&good[..3 * 3 * 10], 3, 10)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("image 0") && e.contains("6x4"), "{e}");
        let e = pipeline.load_decoded(&[]).unwrap_err().to_string();
        assert!(e.contains("empty batch"), "{e}");
        let queued = env.session.journal()[calls_before..]
            .iter()
            .filter(|c| {
                c.function().starts_with("acldvpp") || c.function().starts_with("aclrtMemcpy")
            })
            .count();
        assert_eq!(queued, 0);
        Ok(())
    });
}
