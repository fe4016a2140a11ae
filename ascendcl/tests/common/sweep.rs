//! The fault sweep: run a scenario once to learn its FFI calls, then again
//! with each call failing in turn (the mock's fault injection). Every time:
//! no panic, an error comes back (or the failing call was in a destructor and
//! was retried), nothing stays alive and the mock sees no misuse.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ascendcl::Runtime;
use ascendcl_mock::Fault;

/// The code injected: a driver-internal failure, which nothing retries by design.
pub const INJECTED: i32 = ascendcl::sys::ACL_ERROR_RT_DRV_INTERNAL_ERROR;

/// Queries whose failure is answered conservatively rather than reported:
/// the allocator treats a failed event query as "not finished yet" and keeps
/// the block pending (it is waited for later), which is correct and silent.
const CONSERVATIVE_QUERIES: &[&str] = &["aclrtQueryEventStatus"];

/// Calls whose failure is covered by a stronger call made instead: a wait
/// that cannot take or record the event marking a stream position falls
/// back to a device-wide synchronize, which proves the work finished.
const FALLBACKS: &[(&str, &str)] = &[
    ("aclrtCreateEventWithFlag", "aclrtSynchronizeDevice"),
    ("aclrtRecordEvent", "aclrtSynchronizeDevice"),
];

/// Whether a fallback of `function` was called after it failed at `index`.
fn fell_back(function: &str, calls: &[String], index: usize) -> bool {
    FALLBACKS
        .iter()
        .filter(|(failed, _)| *failed == function)
        .any(|(_, instead)| calls.iter().skip(index + 1).any(|c| c == instead))
}

/// A scenario to sweep.
pub type Scenario = fn(&Runtime) -> ascendcl::Result<()>;

/// Whether `error` is what a failing call may turn into: the injected code,
/// a parked destructor error, or (for aclnn descriptor creation, which
/// returns null rather than a code) an aclnn argument error.
fn acceptable(error: &ascendcl::Error) -> bool {
    error.code() == Some(INJECTED)
        || matches!(error, ascendcl::Error::Deferred { .. })
        || error.code() == Some(ascendcl::sys::ACLNN_ERR_PARAM_INVALID)
}

/// How often a faulted run is repeated when it did not reach the failing
/// call the way the baseline did.
const ATTEMPTS: usize = 8;

/// Sweeps `scenario`; it must make at least `min_calls` fallible calls.
pub fn sweep(scenario: Scenario, min_calls: usize) {
    let baseline = {
        let env = super::env();
        scenario(&env.rt).expect("the scenario succeeds without faults");
        env.assert_clean();
        env.calls()
    };
    let (mut tried, mut diverged) = (0, 0);
    for (index, function) in baseline.iter().enumerate() {
        if function == "aclGetRecentErrMsg" {
            continue;
        }
        let nth = baseline[..=index].iter().filter(|f| *f == function).count() as u64;
        // The stream workers run concurrently with the host, so a run may
        // reach the same call by another path (an event already complete, so
        // not synchronized; a pooled event reused, so not created). Only a
        // run whose calls up to the failing one equal the baseline's is held
        // to "an error came back or the call was retried"; every run,
        // comparable or not, must not panic, leak or misuse.
        let comparable = (0..ATTEMPTS).any(|_| run_with_fault(scenario, &baseline, index, nth));
        if comparable {
            tried += 1;
        } else {
            diverged += 1;
        }
    }
    assert!(
        tried >= min_calls,
        "the scenario made only {tried} fallible calls ({diverged} never ran as in the baseline)"
    );
}

/// Runs `scenario` with call `baseline[index]` (its `nth` of that name)
/// failing; returns whether the run reached it through the baseline's calls,
/// in which case the error-or-retry check was made too.
fn run_with_fault(scenario: Scenario, baseline: &[String], index: usize, nth: u64) -> bool {
    let function = baseline[index].as_str();
    let env = super::env();
    env.inject(Fault::nth(function, nth, INJECTED));
    let outcome = catch_unwind(AssertUnwindSafe(|| scenario(&env.rt)))
        .unwrap_or_else(|_| panic!("a panic when call {function} #{nth} failed"));
    let calls = env.calls();
    let prefix = &baseline[..=index];
    let comparable = calls.len() >= prefix.len() && calls[..prefix.len()] == *prefix;
    let count = |list: &[String]| list.iter().filter(|c| *c == function).count();
    match outcome {
        Err(error) => {
            assert!(
                acceptable(&error),
                "{function} #{nth}: unexpected error {error}"
            );
        }
        Ok(()) => assert!(
            !comparable
                || CONSERVATIVE_QUERIES.contains(&function)
                || fell_back(function, &calls, index)
                || count(&calls) > count(baseline),
            "{function} #{nth} failed, the scenario returned Ok, and the call was not retried:\n{calls:?}\n{baseline:?}"
        ),
    }
    let _ = ascendcl::take_deferred_errors();
    let live = env.session.live_counts();
    assert!(
        live.is_empty(),
        "{function} #{nth} failed and left resources alive: {live:?}"
    );
    assert_eq!(
        env.session.misuse_total(),
        0,
        "{function} #{nth}: {}",
        env.session.misuse_log()
    );
    comparable
}
