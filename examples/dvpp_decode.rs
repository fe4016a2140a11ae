//! Decodes JPEG files on the NPU's image engine (DVPP) and writes each as an
//! HWC `uint8` `.npy` named after the file's stem.
//!
//! ```text
//! cargo run --example dvpp_decode -- --out DIR FILE.jpg...
//! ```
//!
//! A file the decoder refuses (not a JPEG, progressive, truncated, ...) gets
//! one line on stderr naming the file and the reason; the others are still
//! written, and the exit status is 1 if any was refused. With no files it
//! decodes the built-in sample images (a few of the Pillow-made JPEGs of
//! `examples/reference/dvpp/`) into `--out` (default: a directory under the
//! system's temporary directory) and exits 0. On the mock by default, on a
//! card when CANN is found.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ascendcl::dvpp::{self, ImageLayout, JpegHeader};
use ascendcl::ops::{Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::tensor_file;

/// The built-in samples: (name, bytes).
const SAMPLES: &[(&str, &[u8])] = &[
    ("c420_q75", include_bytes!("reference/dvpp/c420_q75.jpg")),
    ("c444_q95", include_bytes!("reference/dvpp/c444_q95.jpg")),
    (
        "grey_64x48_q75",
        include_bytes!("reference/dvpp/grey_64x48_q75.jpg"),
    ),
];

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Decodes one JPEG into HWC RGB bytes: header on the host, decode on the
/// device, then a copy back (the `wait` is where a device-side refusal
/// shows).
fn decode(ctx: &Context, jpeg: &[u8]) -> ascendcl::Result<(JpegHeader, Vec<u8>)> {
    let header = JpegHeader::parse(jpeg)?;
    let (h, w) = (header.height as usize, header.width as usize);
    let stream = Stream::new(ctx)?;
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut rgb = DeviceBuffer::<u8>::zeroed(ctx, h * w * 3)?;
    dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        3,
        TensorMut::new(&mut rgb, &[h, w, 3])?,
        ImageLayout::Nhwc,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    stream.synchronize()?; // a task the device failed is reported here
    Ok((header, rgb.to_vec()?))
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let mut out: Option<PathBuf> = None;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(args.next().ok_or("--out needs a directory")?.into()),
            "-h" | "--help" => {
                println!("usage: dvpp_decode [--out DIR] [FILE.jpg...]");
                return Ok(true);
            }
            _ => files.push(PathBuf::from(arg)),
        }
    }
    let out = out.unwrap_or_else(|| std::env::temp_dir().join("dvpp_decode"));
    std::fs::create_dir_all(&out)?;
    let mut all_ok = true;
    // (shown name, output stem, bytes)
    let mut inputs: Vec<(String, String, Vec<u8>)> = Vec::new();
    if files.is_empty() {
        for (n, b) in SAMPLES {
            inputs.push((format!("{n} (built in)"), n.to_string(), b.to_vec()));
        }
    }
    for f in &files {
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("image");
        match std::fs::read(f) {
            Ok(bytes) => inputs.push((f.display().to_string(), stem.to_string(), bytes)),
            Err(e) => {
                eprintln!("{}: refused: cannot read it: {e}", f.display());
                all_ok = false;
            }
        }
    }
    let (rt, backend) = ascendcl_examples::runtime()?;
    let ctx = Device::open(&rt, 0)?.default_context();
    for (name, stem, bytes) in &inputs {
        match decode(&ctx, bytes) {
            Ok((header, rgb)) => {
                let path = out.join(format!("{stem}.npy"));
                let shape = [header.height as usize, header.width as usize, 3];
                tensor_file::write_npy_slice(&path, &shape, &rgb)?;
                println!(
                    "{name}: {}x{} -> {}",
                    header.width,
                    header.height,
                    show(&path)
                );
            }
            Err(e) => {
                eprintln!("{name}: refused: {e}");
                all_ok = false;
            }
        }
    }
    println!(
        "{{\"example\":\"dvpp_decode\",\"backend\":\"{backend:?}\",\"images\":{},\"ok\":{all_ok}}}",
        inputs.len()
    );
    Ok(all_ok)
}

fn show(p: &Path) -> String {
    p.display().to_string()
}
