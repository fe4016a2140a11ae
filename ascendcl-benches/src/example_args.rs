//! What the bench examples (`examples/`) share: their command-line flags,
//! their `main`, medians, and the mock's kernel thread count.

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
