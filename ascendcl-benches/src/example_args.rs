//! What the bench examples (`examples/`) share: their command-line flags,
//! their `main`, medians, the mock's kernel thread count, and the kernel
//! benches' reference-against-threaded rounds.

/// The value after `name` in `args` (`--rounds 5`), or `default` when the
/// flag is absent or not a number.
pub fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs an example's body: success, or the error on stderr and a failing
/// exit status.
pub fn exit_code(result: ascendcl::Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The median of `v` (the upper one of an even count); `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Sets (or with `None` clears) the mock's kernel thread count,
/// `ASCENDCL_MOCK_KERNEL_THREADS`, which each kernel reads as it starts.
///
/// Call it only from a single-threaded example between synchronized
/// launches: the environment is then read by no other thread.
pub fn set_kernel_threads(value: Option<&str>) {
    // SAFETY: the caller is the program's only thread touching the
    // environment, between launches: the stream is synchronized, so the
    // mock's worker, the only other reader (at kernel start), is idle.
    unsafe {
        match value {
            Some(v) => std::env::set_var("ASCENDCL_MOCK_KERNEL_THREADS", v),
            None => std::env::remove_var("ASCENDCL_MOCK_KERNEL_THREADS"),
        }
    }
}

/// One kernel bench row, in milliseconds: the medians of `rounds` rounds,
/// each running `launch` once per side, in turn, with the mock's sequential
/// reference (`ASCENDCL_MOCK_KERNEL_THREADS=0`), one thread, and the default
/// thread count, after one warm-up run. `launch` returns its own time.
pub fn reference_one_threaded(
    rounds: usize,
    mut launch: impl FnMut() -> ascendcl::Result<f64>,
) -> ascendcl::Result<[f64; 3]> {
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    launch()?; // warm-up
    for _ in 0..rounds.max(1) {
        for (value, side) in [Some("0"), Some("1"), None].into_iter().zip(&mut times) {
            set_kernel_threads(value);
            let ms = launch();
            set_kernel_threads(None);
            side.push(ms?);
        }
    }
    Ok(times.map(median))
}

/// Prints a [`reference_one_threaded`] row as one JSON line.
pub fn print_kernel_row(
    name: &str,
    backend: impl std::fmt::Display,
    rounds: usize,
    [r, o, t]: [f64; 3],
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{{\"row\": \"{name}\", \"backend\": \"{backend}\", \"threads\": {threads}, \"rounds\": {rounds}, \
         \"reference_ms\": {r:.2}, \"one_thread_ms\": {o:.2}, \"threaded_ms\": {t:.2}, \"speedup\": {:.2}}}",
        r / t
    );
}
