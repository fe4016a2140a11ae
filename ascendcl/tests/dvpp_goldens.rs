//! The DVPP image operators against torchvision: every case of
//! `goldens/dvpp/manifest.txt`, made by
//! `scripts/goldens/make_dvpp_transform_goldens.py` (its docstring says what
//! is compared and why the tolerances are what they are): uint8 results
//! within 1 level, float resamples within 1e-3 (pixel scale), normalized
//! values within 1e-4, flips exact.

mod common;

use std::path::{Path, PathBuf};

use ascendcl::dvpp::{self, Crop, ImageLayout, Interpolation, JpegHeader};
use ascendcl::ops::{Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::tensor_file::{self, DType as FileDType};
use ascendcl::validate::{CompareOptions, compare};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens/dvpp")
}

fn mode(v: &str) -> Interpolation {
    match v {
        "0" => Interpolation::Bilinear,
        "1" => Interpolation::Nearest,
        "2" => Interpolation::Bicubic,
        other => panic!("mode {other}"),
    }
}

fn floats(v: &str) -> Vec<f32> {
    v.split(',').map(|x| x.parse().unwrap()).collect()
}

/// Runs one case on the mock and returns the result as host values.
fn run(ctx: &Context, stream: &Stream, f: &[&str]) -> ascendcl::Result<(Vec<f64>, Vec<usize>)> {
    let (op, layout, dtype, input) = (f[1], f[2], f[3], f[4]);
    let p = &f[5..];
    let layout = if layout == "nhwc" {
        ImageLayout::Nhwc
    } else {
        ImageLayout::Nchw
    };
    let inp = tensor_file::read_npy(dir().join(format!("{input}.npy"))).unwrap();
    let exp = tensor_file::read_npy(dir().join(format!("{}.expected.npy", f[0]))).unwrap();
    let (ishape, oshape) = (inp.shape().to_vec(), exp.shape().to_vec());
    let n_out: usize = oshape.iter().product();
    let ws = Workspace::none;
    if dtype == "u8" && op != "normalize" {
        let host: Vec<u8> = inp.values().to_f64_vec().iter().map(|&v| v as u8).collect();
        let x = DeviceBuffer::from_host(ctx, &host)?;
        let mut y = DeviceBuffer::<u8>::zeroed(ctx, n_out)?;
        let (xt, yt) = (Tensor::new(&x, &ishape)?, TensorMut::new(&mut y, &oshape)?);
        launch(op, p, &xt, yt, layout)?
            .launch(stream, ws())?
            .wait()?;
        return Ok((y.to_vec()?.into_iter().map(f64::from).collect(), oshape));
    }
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, n_out)?;
    if dtype == "u8" {
        let host: Vec<u8> = inp.values().to_f64_vec().iter().map(|&v| v as u8).collect();
        let x = DeviceBuffer::from_host(ctx, &host)?;
        let (xt, yt) = (Tensor::new(&x, &ishape)?, TensorMut::new(&mut y, &oshape)?);
        launch(op, p, &xt, yt, layout)?
            .launch(stream, ws())?
            .wait()?;
    } else {
        let host: Vec<f32> = inp
            .values()
            .to_f64_vec()
            .iter()
            .map(|&v| v as f32)
            .collect();
        let x = DeviceBuffer::from_host(ctx, &host)?;
        let (xt, yt) = (Tensor::new(&x, &ishape)?, TensorMut::new(&mut y, &oshape)?);
        launch(op, p, &xt, yt, layout)?
            .launch(stream, ws())?
            .wait()?;
    }
    Ok((y.to_vec()?.into_iter().map(f64::from).collect(), oshape))
}

fn launch<'a>(
    op: &str,
    p: &[&str],
    x: &Tensor<'a>,
    y: TensorMut<'a>,
    layout: ImageLayout,
) -> ascendcl::Result<ascendcl::ops::Prepared<'a>> {
    let n = |i: usize| p[i].parse::<usize>().unwrap();
    match op {
        "crop_and_resize" => {
            let crop = Crop {
                top: n(0),
                left: n(1),
                height: n(2),
                width: n(3),
            };
            dvpp::crop_and_resize(x, crop, mode(p[6]), y, layout)
        }
        "resize" => dvpp::resize(x, mode(p[2]), y, layout),
        "hflip" => dvpp::horizontal_flip(x, y, layout),
        "normalize" => dvpp::normalize(x, &floats(p[0]), &floats(p[1]), y, layout),
        other => panic!("unknown op {other}"),
    }
}

#[test]
fn dvpp_image_operators_match_torchvision_within_the_stated_tolerances() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let manifest = std::fs::read_to_string(dir().join("manifest.txt")).unwrap();
        let mut cases = 0;
        let mut worst: std::collections::BTreeMap<String, f64> = Default::default();
        for line in manifest
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (values, shape) = run(&ctx, &stream, &f)?;
            let exp = tensor_file::read_npy(dir().join(format!("{}.expected.npy", f[0]))).unwrap();
            let got = tensor_file::Tensor::from_f64(shape, values).unwrap();
            let report = compare(&exp, &got, &CompareOptions::default()).unwrap();
            let tolerance = match (f[1], f[3]) {
                ("hflip", _) => 0.0,
                ("normalize", _) => 1e-4,
                (_, "f32") => 1e-3,
                _ => 1.0,
            };
            assert!(
                report.max_abs_error <= tolerance,
                "{}: max |error| {} > {tolerance} (mean {})",
                f[0],
                report.max_abs_error,
                report.mean_abs_error
            );
            assert_eq!(
                exp.dtype() == FileDType::U8,
                f[1] != "normalize" && f[3] == "u8"
            );
            let w = worst.entry(format!("{} {}", f[1], f[3])).or_default();
            *w = w.max(report.max_abs_error);
            cases += 1;
        }
        eprintln!("largest |error| per operator and dtype: {worst:?}");
        assert_eq!(cases, 28);
        Ok(())
    });
}

/// Pillow's decode of every JPEG of examples/reference/dvpp (made by
/// scripts/goldens/make_dvpp_goldens.py): RGB within 3 levels per channel
/// and the GRAY output within 1 (our float IDCT against libjpeg-turbo's
/// integer one, then the colour conversion), the refused files refused.
#[test]
fn decoded_jpegs_match_pillow_within_three_levels_rgb_and_one_grey() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
        let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
        let (mut decoded, mut refused, mut worst_rgb, mut worst_grey) = (0, 0, 0f64, 0f64);
        for line in manifest.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (name, w, h, comps, expected) = (f[0], f[1], f[2], f[3], f[8]);
            let (w, h): (usize, usize) = (w.parse().unwrap(), h.parse().unwrap());
            let jpeg = std::fs::read(dir.join(name)).unwrap();
            if expected != "ok" {
                // progressive and arithmetic: refused on the host, before any
                // FFI call; truncated: its header is fine, the device task fails
                let on_host = JpegHeader::parse(&jpeg).is_err();
                assert_eq!(on_host, expected == "unsupported", "{name}");
                let stream = Stream::new(&ctx)?;
                let result = decode(&ctx, &stream, &jpeg, w, h, 3);
                assert!(result.is_err(), "{name} ({expected}) was decoded");
                refused += 1;
                continue;
            }
            if w < 6 || h < 4 {
                continue; // under the op's documented minimum: refused, tested below
            }
            let stem = name.trim_end_matches(".jpg");
            let outputs: &[(usize, String)] = if comps == "1" {
                &[(1, format!("{stem}.npy")), (3, String::new())]
            } else {
                &[(3, format!("{stem}.npy")), (1, format!("{stem}.gray.npy"))]
            };
            for (channels, golden) in outputs {
                let stream = Stream::new(&ctx)?;
                let got = decode(&ctx, &stream, &jpeg, w, h, *channels)?;
                if golden.is_empty() {
                    // a grey JPEG as RGB: three equal channels
                    assert!(
                        got.chunks(3).all(|p| p[0] == p[1] && p[1] == p[2]),
                        "{name}"
                    );
                    continue;
                }
                let exp = tensor_file::read_npy(dir.join(golden)).unwrap();
                let got = tensor_file::Tensor::from_f64(
                    exp.shape().to_vec(),
                    got.iter().map(|&v| f64::from(v)).collect(),
                )
                .unwrap();
                let r = compare(&exp, &got, &CompareOptions::default()).unwrap();
                let (limit, worst) = if *channels == 3 {
                    (3.0, &mut worst_rgb)
                } else {
                    (1.0, &mut worst_grey)
                };
                assert!(
                    r.max_abs_error <= limit,
                    "{golden}: max |diff| {} > {limit}",
                    r.max_abs_error
                );
                *worst = worst.max(r.max_abs_error);
            }
            decoded += 1;
        }
        eprintln!(
            "{decoded} decoded (largest |diff| RGB {worst_rgb}, grey {worst_grey}), {refused} refused"
        );
        assert!(
            decoded >= 25 && refused == 3,
            "{decoded} decoded, {refused} refused"
        );
        // under 6x4: refused by the task (the op's range)
        let tiny = std::fs::read(dir.join("tiny_5x3_420.jpg")).unwrap();
        let stream = Stream::new(&ctx)?;
        let e = decode(&ctx, &stream, &tiny, 5, 3, 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("6x4"), "{e}");
        Ok(())
    });
}

/// Decodes on `stream` into an HWC image; the stream's error if the task
/// failed.
fn decode(
    ctx: &Context,
    stream: &Stream,
    jpeg: &[u8],
    w: usize,
    h: usize,
    channels: usize,
) -> ascendcl::Result<Vec<u8>> {
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut out = DeviceBuffer::<u8>::zeroed(ctx, h * w * channels)?;
    dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        channels,
        TensorMut::new(&mut out, &[h, w, channels])?,
        ImageLayout::Nhwc,
    )?
    .launch(stream, Workspace::none())?
    .wait()?;
    // A task that failed on the device is reported by its stream's synchronize.
    stream.synchronize()?;
    out.to_vec()
}
