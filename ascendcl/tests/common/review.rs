//! Shared helpers of the adversarial soundness review tests.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

/// The code injected: a driver-internal failure.
pub const INJECTED: i32 = ascendcl::sys::ACL_ERROR_RT_DRV_INTERNAL_ERROR;
/// Per-task stream delay of the review tests.
pub const DELAY: Duration = Duration::from_millis(40);

/// Nothing misused (leaks and parked errors allowed: for failure tests that
/// deliberately leak).
pub fn assert_no_misuse(env: &super::Env) {
    let misuse = env.session.misuse_total();
    assert_eq!(misuse, 0, "misuse detected:\n{}", env.session.misuse_log());
}

/// Runs `test` on a fresh mock, clears the faults it injected, drains parked
/// errors, and asserts that no misuse was detected (leaks are allowed: the
/// failure tests leak on purpose).
pub fn check_no_misuse(test: impl FnOnce(&super::Env) -> ascendcl::Result<()>) {
    let env = super::env();
    let result = catch_unwind(AssertUnwindSafe(|| test(&env)));
    env.session.clear_faults();
    let _ = ascendcl::take_deferred_errors();
    let result = match result {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    assert_no_misuse(&env);
    if let Err(error) = result {
        panic!("test failed: {error}");
    }
}

/// Whether the journal shows a successful `aclDestroyAclOpExecutor` while a
/// launch on a slow stream may still be queued: after the launch, no
/// successful synchronize (stream, event or device) came before the destroy.
pub fn destroyed_without_a_successful_wait(env: &super::Env) -> bool {
    let journal = env.session.journal();
    let launch = journal
        .iter()
        .rposition(|e| e.function() == "aclnnRelu")
        .expect("the launch is in the journal");
    let mut waited = false;
    for e in &journal[launch..] {
        match e.function() {
            "aclrtSynchronizeStream" | "aclrtSynchronizeDevice" | "aclrtSynchronizeEvent"
                if e.ret() == 0 =>
            {
                waited = true
            }
            "aclDestroyAclOpExecutor" if e.ret() == 0 => return !waited,
            _ => {}
        }
    }
    false
}
