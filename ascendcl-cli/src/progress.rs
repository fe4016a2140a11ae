//! Progress on stderr, for commands that run longer than a couple of seconds
//! (`alloc-replay`'s batch searches, `bench-report`).
//!
//! One line per step, prefixed with the time since the command started, so
//! a log shows where the time went; stdout keeps only the results.
//!
//! ```
//! let progress = ascendcl_cli::progress::Progress::new(false); // --quiet
//! progress.step("replaying fixed_segments");
//! ```

use std::io::Write;
use std::time::Instant;

/// Writes progress lines to stderr, unless quiet.
#[derive(Debug, Clone)]
pub struct Progress {
    start: Instant,
    enabled: bool,
}

impl Progress {
    /// Progress starting now; `enabled` false (`--quiet`) prints nothing.
    pub fn new(enabled: bool) -> Progress {
        Progress {
            start: Instant::now(),
            enabled,
        }
    }

    /// Prints `[  12.3s] what` on stderr.
    pub fn step(&self, what: &str) {
        if self.enabled {
            let seconds = self.start.elapsed().as_secs_f64();
            // A closed stderr is no reason to stop the work.
            let _ = writeln!(std::io::stderr().lock(), "[{seconds:7.1}s] {what}");
        }
    }
}
