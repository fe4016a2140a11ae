//! 03 — asynchronous copies: pinned host memory, `Pending` copies that borrow
//! their buffers, chaining on one stream, what dropping a `Pending` does, and
//! a copy on a second stream ordered after the first one automatically.
//!
//! `cargo run --example 03_async_copies`

use std::process::ExitCode;
use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Error, take_deferred_errors};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Fails unless `got` equals `want` element for element.
fn check(what: &str, got: &[u32], want: &[u32]) -> ascendcl::Result<()> {
    let wrong = got.iter().zip(want).filter(|(a, b)| a != b).count();
    if wrong == 0 && got.len() == want.len() {
        println!("  {what}: {} values correct", got.len());
        Ok(())
    } else {
        Err(Error::InvalidState(format!(
            "{what}: {wrong} values differ"
        )))
    }
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let ctx = Device::open(&rt, 0)?.default_context();
    let stream = Stream::new(&ctx)?;

    // Pinned (page-locked) host memory: the device's DMA engines read and
    // write it directly, so copies from and to it are truly asynchronous.
    // (Ordinary Vec memory is copied synchronously by the runtime anyway;
    // the async methods only accept HostBuffer.)
    let values: Vec<u32> = (0..1 << 20).collect();
    let input = HostBuffer::from_slice(&ctx, &values)?;
    let mut on_device = DeviceBuffer::<u32>::alloc(&ctx, values.len())?;
    let mut output = HostBuffer::<u32>::zeroed(&ctx, values.len())?;

    // --- Queue, chain, wait ---------------------------------------------------
    println!("upload and download queued back to back on one stream:");
    // Returns at once with a Pending that borrows `input` (shared) and
    // `on_device` (mutably) until it is waited on or dropped.
    let upload = stream.copy_host_to_device(&input, &mut on_device)?;
    // `destination()` lends the upload's destination for more work on the
    // same stream: the stream runs in order, so the download reads what the
    // upload wrote, without the host waiting in between.
    let download = stream.copy_device_to_host(upload.destination(), &mut output)?;
    println!(
        "  right after queuing: download complete = {}",
        download.is_complete()?
    );
    // Reading `output` here does not compile, because `download` still
    // borrows it mutably:
    //
    //     println!("{}", output[0]);
    //     // error[E0502]: cannot borrow `output` as immutable because it is
    //     //               also borrowed as mutable
    //
    // `wait` synchronizes on the download and reports its errors. The
    // upload's wait then returns at once (the stream ran it first), but it
    // is still how you learn whether the upload failed.
    download.wait()?;
    upload.wait()?;
    check("after wait()", &output, &values)?;

    // --- Dropping a Pending ----------------------------------------------------
    // Dropping a Pending is not "fire and forget": the drop waits for the
    // operation (the buffers must not be touched while the device uses
    // them), and an error of the copy cannot be returned from `drop`, so it
    // is parked and handed back by the next synchronizing call, or by
    // `take_deferred_errors`. So `let _ = stream.copy_...` is a slow,
    // silent wait: keep the Pending and call `wait()` instead.
    let doubled: Vec<u32> = values.iter().map(|v| v * 2).collect();
    let input2 = HostBuffer::from_slice(&ctx, &doubled)?;
    drop(stream.copy_host_to_device(&input2, &mut on_device)?);
    println!(
        "dropped a Pending: the copy had already finished ({} parked errors)",
        take_deferred_errors().len()
    );
    // A synchronous copy: no Pending, nothing to wait for.
    check("after the dropped copy", &on_device.to_vec()?, &doubled)?;

    // --- A second stream, ordered automatically ----------------------------------
    // A host callback keeps the first stream busy for 100 ms, then the first
    // stream uploads `values` into `on_device`. The second stream then copies
    // `on_device` back to the host. Nobody records an event by hand: the
    // buffer remembers its queued uses (here the upload on the first stream),
    // and queuing it on another stream makes that stream wait for that use.
    // Without that, the second stream would copy out `doubled`, the old data.
    let other = Stream::new(&ctx)?;
    stream.launch_host_fn(|| std::thread::sleep(Duration::from_millis(100)))?;
    let upload = stream.copy_host_to_device(&input, &mut on_device)?;
    let download = other.copy_device_to_host(upload.destination(), &mut output)?;
    println!(
        "upload on the first stream, download on the second: upload complete = {}",
        upload.is_complete()?
    );
    // Waiting for the download (on `other`) is enough to read `output`: its
    // copy could not start before the upload finished.
    download.wait()?;
    check("second stream after the first", &output, &values)?;
    upload.wait()?;
    Ok(())
}
