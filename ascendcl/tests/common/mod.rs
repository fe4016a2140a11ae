//! Shared setup of the ascendcl tests: every test runs alone on a freshly
//! reset mock and ends with nothing alive, no misuse and no parked error.

#![allow(dead_code)]

pub mod dvpp;
pub mod review;
pub mod sweep;

use std::time::Duration;

use ascendcl::{Context, Device, Runtime};
use ascendcl_mock::{Fault, Session};

/// A test's exclusive use of the mock, with the runtime.
pub struct Env {
    pub session: Session,
    pub rt: Runtime,
}

/// Takes the mock (reset), and the runtime on it.
pub fn env() -> Env {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let stale = ascendcl::take_deferred_errors();
    assert!(
        stale.is_empty(),
        "a previous test left parked errors: {stale:?}"
    );
    // The test's journal starts here (the first test of a binary calls aclInit).
    session.clear_journal();
    Env { session, rt }
}

impl Env {
    /// Device 0 and its default context.
    pub fn device0(&self) -> (Device, Context) {
        let device = Device::open(&self.rt, 0).expect("device 0");
        let ctx = device.default_context();
        (device, ctx)
    }

    /// Slows every stream task, so a missing synchronize shows as stale data.
    pub fn slow_streams(&self, delay: Duration) {
        self.session.set_stream_delay(delay);
    }

    pub fn inject(&self, fault: Fault) {
        self.session
            .inject(&fault)
            .expect("the mock knows the function");
    }

    /// Nothing alive, no misuse, no parked error.
    pub fn assert_clean(&self) {
        let live = self.session.live_counts();
        assert!(live.is_empty(), "resources still alive: {live:?}");
        let misuse = self.session.misuse_total();
        assert_eq!(misuse, 0, "misuse detected:\n{}", self.session.misuse_log());
        let parked = ascendcl::take_deferred_errors();
        assert!(
            parked.is_empty(),
            "errors parked by destructors: {parked:?}"
        );
    }

    /// Names of the ACL functions called since the journal was last cleared.
    pub fn calls(&self) -> Vec<String> {
        self.session
            .journal()
            .iter()
            .map(|e| e.function().to_string())
            .collect()
    }
}

/// Runs `test` on a fresh mock, then checks that everything was released.
pub fn check(test: impl FnOnce(&Env) -> ascendcl::Result<()>) {
    let env = env();
    if let Err(error) = test(&env) {
        panic!("test failed: {error}");
    }
    env.assert_clean();
}

/// Keeps the default panic message for every panic except those whose text
/// contains `marker` (and non-string payloads, which only tests panicking on
/// purpose use): tests that make callbacks panic on purpose then print no
/// backtrace for them, and every other panic still reads as usual.
pub fn quiet_panics_containing(marker: &'static str) {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let text = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned());
            let on_purpose = text.as_deref().is_none_or(|t| t.contains(marker));
            if !on_purpose {
                default(info);
            }
        }));
    });
}

/// Asserts that phase 1 refused an operator (`what` says which case) with an
/// error naming `op`.
pub fn refused(what: &str, op: &str, result: ascendcl::Result<ascendcl::ops::Prepared<'_>>) {
    match result {
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains(op), "{what}: {text}");
        }
        Ok(_prepared) => panic!("{what} was accepted"),
    }
}
