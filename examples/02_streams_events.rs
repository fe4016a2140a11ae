//! 02 — streams and events: two streams ordered by an event (made visible
//! with host callbacks), timing a copy with two TIMELINE events, and a
//! synchronize that gives up after a timeout.
//!
//! `cargo run --example 02_streams_events`

use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

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

/// What the host callbacks write, in the order they ran.
type Log = Arc<Mutex<Vec<String>>>;

/// Queues a host callback on `stream` that sleeps `ms` (standing in for slow
/// device work), then appends `line` to `log`.
///
/// Host callbacks run on a runtime thread when the stream reaches them, and
/// everything queued after them waits: a real program keeps them short.
fn log_after(stream: &Stream, log: &Log, ms: u64, line: &'static str) -> ascendcl::Result<()> {
    let log = log.clone();
    stream.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line.to_string());
    })
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap_or_else(PoisonError::into_inner))
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let ctx = Device::open(&rt, 0)?.default_context();

    // Two streams of one context: each runs its own work in order, but the
    // two may run in any order relative to each other.
    let first = Stream::new(&ctx)?;
    let second = Stream::new(&ctx)?;
    let log: Log = Arc::default();

    // --- Without an event: no order between the streams ---------------------
    log_after(&first, &log, 50, "first stream: slow producer finished")?;
    log_after(&second, &log, 0, "second stream: consumer ran")?;
    // Both synchronizes are needed: each one waits for one stream only, and
    // we read the log that callbacks of both streams write.
    first.synchronize()?;
    second.synchronize()?;
    println!("without an event (nothing orders the streams; here the consumer usually wins):");
    for line in take(&log) {
        println!("  {line}");
    }

    // --- With an event: the second stream waits for the first ----------------
    // `Event::new` makes an event usable with `wait_event`. Recording puts a
    // marker at the current end of `first`; `wait_event` makes everything
    // queued on `second` from now on wait until `first` reaches the marker.
    // The host does not wait at all here: both calls return at once.
    let produced = Event::new(&ctx)?;
    log_after(&first, &log, 50, "first stream: slow producer finished")?;
    first.record(&produced)?;
    second.wait_event(&produced)?;
    log_after(&second, &log, 0, "second stream: consumer ran")?;
    // One synchronize is enough now: `second`'s callback ran after the event,
    // which completed after `first`'s callback, so both lines are written.
    second.synchronize()?;
    println!("with an event recorded on the first stream and waited on by the second:");
    for line in take(&log) {
        println!("  {line}");
    }

    // --- Timing a copy on the device with two TIMELINE events -----------------
    let elements = 16 << 20; // 64 MiB of f32
    let input = HostBuffer::from_slice(&ctx, &vec![1.5f32; elements])?;
    let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, elements)?;
    let start = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
    let end = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
    start.record(&first)?;
    let upload = first.copy_host_to_device(&input, &mut on_device)?;
    end.record(&first)?;
    // `wait` releases the buffers and reports errors of the copy.
    upload.wait()?;
    // Still needed: `elapsed` wants both events completed, and `end` was
    // recorded after the copy, so the copy being done does not mean `end` is.
    end.synchronize()?;
    let took = start.elapsed(&end)?;
    let mib = (elements * size_of::<f32>()) >> 20;
    println!(
        "copying {mib} MiB to the device took {:.3} ms of device time ({:.1} GiB/s)",
        took.as_secs_f64() * 1e3,
        mib as f64 / 1024.0 / took.as_secs_f64().max(1e-9)
    );

    // --- A synchronize with a timeout ----------------------------------------
    // A stream kept busy for 300 ms by a host callback, and a wait of 20 ms.
    // Giving up is an error for which `is_timeout()` holds (code 507046,
    // ACL_ERROR_RT_STREAM_SYNC_TIMEOUT): a typed outcome, not a string to parse.
    log_after(&first, &log, 300, "first stream: long task finished")?;
    let waited = Instant::now();
    match first.synchronize_timeout(Duration::from_millis(20)) {
        Err(error) if error.is_timeout() => println!(
            "synchronize_timeout(20 ms) gave up after {:.0} ms: {} ({})",
            waited.elapsed().as_secs_f64() * 1e3,
            error.code_name().unwrap_or("a timeout"),
            error.code().unwrap_or_default()
        ),
        Err(error) => return Err(error),
        Ok(()) => println!("synchronize_timeout(20 ms): the stream finished in time"),
    }
    // The work is still queued after a timeout; `query` polls without waiting.
    println!("still busy right after the timeout: {}", !first.query()?);
    // A zero timeout is refused before any runtime call (CANN rejects it).
    if let Err(error) = first.synchronize_timeout(Duration::ZERO) {
        println!("synchronize_timeout(0): {error}");
    }
    // Needed before reading the log: the long callback may still be running.
    // (Dropping the stream would wait for it too, but we want its line.)
    first.synchronize()?;
    for line in take(&log) {
        println!("  {line}");
    }
    Ok(())
}
