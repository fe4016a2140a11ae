//! Quick start: a device, a stream, pinned host memory, an asynchronous copy
//! to the device and back, a synchronize, a check.
//!
//! Runs on an Atlas card when CANN is installed (source its `set_env.sh`), and
//! on the behavioural mock otherwise: `cargo run --example quickstart`.

use std::process::ExitCode;

use ascendcl::prelude::*;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");

    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let memory = device.memory_info()?;
    println!(
        "device 0: {} ({:.2} GiB HBM)",
        rt.soc_name()?,
        memory.total as f64 / (1u64 << 30) as f64
    );

    // Pinned host memory: the only host memory the device copies asynchronously.
    let values: Vec<f32> = (0..1 << 20).map(|i| i as f32 * 0.5).collect();
    let input = HostBuffer::from_slice(&ctx, &values)?;
    let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, values.len())?;
    let mut output = HostBuffer::<f32>::zeroed(&ctx, values.len())?;

    // Both copies are queued at once; the stream runs them in order, so the
    // download reads what the upload wrote. Nothing has necessarily run yet.
    let upload = stream.copy_host_to_device(&input, &mut on_device)?;
    let download = stream.copy_device_to_host(upload.destination(), &mut output)?;

    // The host must wait before reading `output`: without these two lines the
    // program does not compile, because `download` still borrows `output`.
    download.wait()?;
    upload.wait()?;

    let mismatches = output.iter().zip(&values).filter(|(a, b)| a != b).count();
    if mismatches != 0 {
        return Err(ascendcl::Error::InvalidState(format!(
            "{mismatches} values differ after the round trip"
        )));
    }
    println!(
        "ok: {} floats ({} MiB) went to the device and back unchanged",
        values.len(),
        (values.len() * 4) >> 20
    );
    Ok(())
}
