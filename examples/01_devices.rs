//! 01 — the runtime and its devices: versions, SoC, run mode, device count,
//! HBM, the default and an explicit context, and a buffer used from another
//! thread.
//!
//! `cargo run --example 01_devices` (on an Atlas card when CANN is found,
//! else on the mock).

use std::process::ExitCode;

use ascendcl::prelude::*;
use ascendcl::{Error, RunMode};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");

    // --- The runtime -------------------------------------------------------
    // `aclrtGetVersion` is the version of the ACL *interface*, not of CANN:
    // 1.16.0 on CANN 8.5.0. The bindings were declared against one version;
    // an older library may lack functions (see `ascendcl doctor`, the ascendcl-cli binary).
    let (major, minor, patch) = rt.version()?;
    let (d_major, d_minor, d_patch) = ascendcl::sys::DECLARED_VERSION;
    println!(
        "ACL interface version: {major}.{minor}.{patch} (bindings declare {d_major}.{d_minor}.{d_patch})"
    );
    match rt.cann_version()? {
        Some(version) => println!("CANN version: {version}"),
        None => println!("CANN version: unknown (this library cannot tell)"),
    }
    println!("SoC: {}", rt.soc_name()?);
    let mode = match rt.run_mode()? {
        RunMode::Host => "host (this program drives the card over PCIe)",
        RunMode::Device => "device (this program runs on the card's own CPU)",
    };
    println!("run mode: {mode}");
    if rt.is_mock() {
        println!("note: the mock's device count, HBM and SoC are its defaults, not a card's");
    }

    // --- Devices -----------------------------------------------------------
    let count = Device::count(&rt)?;
    println!("visible devices: {count}");
    // An id out of range is rejected before any runtime call, with the range.
    if let Err(error) = Device::open(&rt, count) {
        println!("opening device {count}: {error}");
    }

    let device = Device::open(&rt, 0)?;
    let before = device.memory_info()?;
    println!(
        "device 0 HBM: {:.2} GiB free of {:.2} GiB",
        gib(before.free),
        gib(before.total)
    );

    // --- Contexts ----------------------------------------------------------
    // Every device has one default context, shared by all threads that use
    // the device. Explicit contexts are separate: objects created in one
    // cannot be used with streams of another. This crate makes the right
    // context current before every call, so you never call
    // aclrtSetCurrentContext yourself.
    let default = device.default_context();
    let explicit = Context::new(&device)?;
    println!(
        "default context: explicit = {}, device {}; second context: explicit = {}, device {}; same context: {}",
        default.is_explicit(),
        default.device_id(),
        explicit.is_explicit(),
        explicit.device_id(),
        default.same_as(&explicit)
    );

    // Memory belongs to the device, whichever context allocated it.
    let elements = 16 << 20; // 64 MiB of f32
    let buffer = DeviceBuffer::<f32>::alloc(&explicit, elements)?;
    let after = device.memory_info()?;
    println!(
        "allocated 64 MiB in the explicit context: device 0 free HBM went down by {} MiB \
         (allocations are padded and rounded up to whole pages)",
        before.free.saturating_sub(after.free) >> 20
    );

    // --- A buffer used from another thread ----------------------------------
    // In raw AscendCL a new thread has no current context, and aclrtMemcpy
    // there fails with ACL_ERROR_RT_CONTEXT_NULL. Here the buffer knows its
    // context and binds it on whatever thread uses it, so it can simply be
    // moved to a worker (DeviceBuffer is Send) and back.
    let values: Vec<f32> = (0..elements).map(|i| i as f32).collect();
    let worker = std::thread::spawn(move || -> ascendcl::Result<DeviceBuffer<f32>> {
        let mut buffer = buffer;
        // A synchronous copy: it returns when the data is on the device, so
        // no synchronize is needed before handing the buffer back.
        buffer.copy_from_host(&values)?;
        Ok(buffer)
    });
    let buffer = match worker.join() {
        Ok(result) => result?,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    // Also synchronous; it would wait for queued work on the buffer first.
    let back = buffer.to_vec()?;
    let wrong = back
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != i as f32)
        .count();
    if wrong != 0 {
        return Err(Error::InvalidState(format!(
            "{wrong} values differ after the copy from the worker thread"
        )));
    }
    println!(
        "a worker thread filled the buffer; the main thread read back {} values, all correct",
        back.len()
    );

    // Dropping frees in the right order: the buffer keeps its context alive,
    // the context its device, the device the runtime.
    drop(buffer);
    drop(explicit);
    let end = device.memory_info()?;
    println!(
        "after dropping the buffer: {:.2} GiB free again",
        gib(end.free)
    );
    Ok(())
}
