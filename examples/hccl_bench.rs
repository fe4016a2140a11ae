//! All-reduce benchmark, printing JSON: the host cost of launching an
//! all-reduce (the safe [`Communicator::all_reduce`] against the raw
//! `HcclAllReduce` call), and the all-reduce bus bandwidth from 1 KiB to
//! 256 MiB.
//!
//! Ranks are threads of this process, one per device, with communicators
//! from `HcclCommInitAll`. Every rank runs the same loop in lockstep (a
//! barrier before each timed chunk); rank 0's times are reported.
//!
//! * **Launch cost**: chunks of 256 launches of a 1-element f32 sum, timed
//!   from an empty queue, safe and raw chunks alternating; the queue is
//!   drained (untimed) between chunks; the median of the per-launch times of
//!   25 chunks of each.
//! * **Bus bandwidth**: for each size, a warm-up, then `iters` all-reduces
//!   timed from launch to synchronize; algorithm bandwidth is bytes per
//!   second of one all-reduce, bus bandwidth is that times `2 (n - 1) / n`
//!   (the data each rank moves in a ring all-reduce, the usual definition),
//!   so numbers compare across rank counts.
//!
//! On the mock the data moves through host sockets: its numbers measure the
//! mock, not a card. On an Atlas card the same program gives card numbers.
//!
//! `cargo run --release --example hccl_bench [-- --ranks N] [--max-bytes B]`

use std::sync::Barrier;
use std::time::Instant;

use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::prelude::*;
use ascendcl::sys::HcclReduceOp;

const CHUNK: usize = 256;
const CHUNKS: usize = 25;

fn invalid(message: impl Into<String>) -> ascendcl::Error {
    ascendcl::Error::InvalidState(message.into())
}

fn flag(args: &[String], name: &str) -> ascendcl::Result<Option<u64>> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| invalid(format!("{name} needs a number"))),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One rank's launch-cost measurement: per-launch seconds of each chunk,
/// safe then raw. Safe and raw chunks alternate, so drifts of a noisy
/// machine hit both alike.
fn launch_cost(comm: &Communicator, barrier: &Barrier) -> ascendcl::Result<(Vec<f64>, Vec<f64>)> {
    let ctx = comm.device().default_context();
    let stream = Stream::new(&ctx)?;
    let x = DeviceBuffer::from_host(&ctx, &[1.0f32])?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
    let hccl = ascendcl::sys::hccl_for(Some(comm.device().runtime().library()))?;
    let (xp, _) = DeviceBuffer::from_host(&ctx, &[1.0f32])?.into_raw_parts()?;
    let (yp, _) = DeviceBuffer::<f32>::zeroed(&ctx, 1)?.into_raw_parts()?;
    let mut safe = Vec::with_capacity(CHUNKS);
    let mut raw = Vec::with_capacity(CHUNKS);
    let mut status = ascendcl::sys::HcclResult::HCCL_SUCCESS;
    let mut outcome = Ok(());
    for _ in 0..CHUNKS {
        barrier.wait();
        let start = Instant::now();
        for _ in 0..CHUNK {
            match comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream) {
                Ok(pending) => drop(pending.detach()),
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        safe.push(start.elapsed().as_secs_f64() / CHUNK as f64);
        stream.synchronize()?;

        barrier.wait();
        let start = Instant::now();
        for _ in 0..CHUNK {
            // SAFETY: two live 1-element f32 device buffers of this rank's
            // device, freed only after the stream is drained below; a live
            // communicator and a stream of its device.
            status = unsafe {
                hccl.HcclAllReduce(
                    xp.as_ptr(),
                    yp.as_ptr(),
                    1,
                    ascendcl::sys::HcclDataType::HCCL_DATA_TYPE_FP32,
                    HcclReduceOp::HCCL_REDUCE_SUM,
                    comm.as_raw(),
                    stream.as_raw(),
                )
            }?;
        }
        raw.push(start.elapsed().as_secs_f64() / CHUNK as f64);
        stream.synchronize()?;
    }
    // SAFETY: the pointers came from into_raw_parts of 1-element buffers of
    // this context, nothing else frees them, and the stream is drained.
    unsafe {
        drop(DeviceBuffer::<f32>::from_raw_parts(&ctx, xp, 1)?);
        drop(DeviceBuffer::<f32>::from_raw_parts(&ctx, yp, 1)?);
    }
    outcome?;
    if status != ascendcl::sys::HcclResult::HCCL_SUCCESS {
        return Err(invalid(format!("raw HcclAllReduce returned {status:?}")));
    }
    Ok((safe, raw))
}

/// Seconds per all-reduce of `bytes` bytes of f32, on this rank.
fn all_reduce_time(
    comm: &Communicator,
    barrier: &Barrier,
    bytes: u64,
    iters: u32,
) -> ascendcl::Result<f64> {
    let ctx = comm.device().default_context();
    let stream = Stream::new(&ctx)?;
    let n = (bytes / 4) as usize;
    let x = DeviceBuffer::<f32>::zeroed(&ctx, n)?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, n)?;
    comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
        .wait()?; // warm-up
    barrier.wait();
    let start = Instant::now();
    for _ in 0..iters {
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
            .detach();
    }
    stream.synchronize()?;
    Ok(start.elapsed().as_secs_f64() / f64::from(iters))
}

/// Runs `f` on every rank's thread; returns rank 0's result.
fn on_every_rank<T: Send>(
    comms: &[Communicator],
    f: impl Fn(&Communicator, &Barrier) -> ascendcl::Result<T> + Sync,
) -> ascendcl::Result<T> {
    let barrier = Barrier::new(comms.len());
    let results: Vec<ascendcl::Result<T>> = std::thread::scope(|s| {
        let joins: Vec<_> = comms
            .iter()
            .map(|comm| s.spawn(|| f(comm, &barrier)))
            .collect();
        joins
            .into_iter()
            .map(|j| j.join().unwrap_or_else(|_| Err(invalid("a rank panicked"))))
            .collect()
    });
    let mut rank0 = None;
    for result in results {
        let value = result?;
        rank0.get_or_insert(value);
    }
    rank0.ok_or_else(|| invalid("no ranks"))
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> ascendcl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rt, backend) = ascendcl_examples::runtime()?;
    let available = u64::from(rt.device_count()?);
    let ranks = flag(&args, "--ranks")?.unwrap_or(2.min(available));
    if ranks == 0 || ranks > available {
        return Err(invalid(format!(
            "--ranks {ranks}: {available} devices present"
        )));
    }
    let max_bytes = flag(&args, "--max-bytes")?.unwrap_or(256 << 20);
    let devices = (0..ranks as u32)
        .map(|i| Device::open(&rt, i))
        .collect::<ascendcl::Result<Vec<_>>>()?;
    let comms = Communicator::init_all(&devices)?;

    let (safe, raw) = on_every_rank(&comms, launch_cost)?;
    let (safe, raw) = (median(safe), median(raw));

    let mut sizes = Vec::new();
    let mut bytes = 1u64 << 10;
    while bytes <= max_bytes {
        // About 64 MiB of traffic per size, at least 3 and at most 50 runs.
        let iters = ((64u64 << 20) / bytes).clamp(3, 50) as u32;
        eprintln!("all-reduce of {bytes} bytes x {iters}...");
        let seconds = on_every_rank(&comms, |comm, barrier| {
            all_reduce_time(comm, barrier, bytes, iters)
        })?;
        let algbw = bytes as f64 / seconds;
        let busbw = algbw * 2.0 * (ranks as f64 - 1.0) / ranks as f64;
        sizes.push(format!(
            "{{\"bytes\": {bytes}, \"iters\": {iters}, \"seconds\": {seconds:.9}, \
             \"algbw_gbps\": {:.4}, \"busbw_gbps\": {:.4}}}",
            algbw / 1e9,
            busbw / 1e9
        ));
        bytes *= 4;
    }
    let backend = match backend {
        ascendcl_examples::Backend::Mock(_) => "mock",
        ascendcl_examples::Backend::Device(_) => "device",
    };
    println!(
        "{{\"backend\": \"{backend}\", \"ranks\": {ranks}, \
         \"launch\": {{\"safe_us\": {:.3}, \"raw_us\": {:.3}, \"safe_over_raw\": {:.3}}}, \
         \"all_reduce\": [{}]}}",
        safe * 1e6,
        raw * 1e6,
        safe / raw,
        sizes.join(", ")
    );
    Ok(())
}
