//! Golden traces: each example's AscendCL calls, recorded through the
//! recording shim (over the mock for now; a card's recording replaces a file
//! as is), replayed in strict mode against the example binary. A replay
//! passes when the example succeeds and made exactly the recorded calls.
//!
//! The examples are separate binaries: `cargo test` builds them (into
//! `target/<profile>/examples/`, next to this test's `deps/`) before it runs
//! the tests, and these tests run them on the mock with
//! `ASCENDCL_MOCK_REPLAY`. After an intended change of an example's calls,
//! re-record with `scripts/record-golden.sh`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ascendcl_mock::trace::Trace;
use ascendcl_mock::{ReplayState, ReplayStatus};

/// The binary of `example`, built by `cargo test` next to this test.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is not built: run `cargo test` (which builds the examples) or `cargo build --examples` first",
        path.display()
    );
    path
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ascendcl-mock/traces")
        .join(format!("{name}.jsonl"))
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("golden-{}-{name}", std::process::id()))
}

/// `example` on the mock or the shim, with a clean AscendCL environment.
fn command(name: &str, library: &str) -> Command {
    let mut cmd = Command::new(example(name));
    for var in [
        "LD_PRELOAD",
        "ASCENDCL_MOCK_FAULTS",
        "ASCENDCL_MOCK_TRACE",
        "ASCENDCL_MOCK_REPLAY",
        "ASCENDCL_MOCK_REPLAY_MODE",
        "ASCENDCL_MOCK_DEVICE_COUNT",
        "ASCENDCL_MOCK_HBM_BYTES",
        "ASCENDCL_MOCK_SOC_NAME",
        "ASCENDCL_MOCK_STREAM_DELAY_US",
        "ASCENDCL_RECORD_TRACE",
        "ASCENDCL_RECORD_TARGET",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("ASCENDCL_LIBRARY", library);
    cmd
}

/// Runs `example` under strict replay of `trace`; its output and the status.
fn replay(name: &str, trace: &Path) -> (Output, ReplayStatus) {
    // one report per (example, trace): tests replaying one example with two
    // traces run in parallel
    let stem = trace
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let report = temp(&format!("{name}-{stem}-report.json"));
    let _ = std::fs::remove_file(&report);
    let out = command(name, ascendcl_mock::LIBRARY_PATH)
        .env("ASCENDCL_MOCK_REPLAY", trace)
        .env("ASCENDCL_MOCK_REPLAY_MODE", "strict")
        .env("ASCENDCL_MOCK_REPLAY_REPORT", &report)
        .output()
        .expect("the example runs");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "{name} wrote no replay report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    std::fs::remove_file(&report).unwrap();
    (out, ReplayStatus::parse(&text).unwrap())
}

fn assert_replays(name: &str) {
    let trace = golden(name);
    let calls = Trace::read(&trace).unwrap().records.len() as u64;
    let (out, status) = replay(name, &trace);
    assert!(
        out.status.success() && status.is_complete(),
        "{name} does not replay its golden trace {}:\n{}\nexit: {}\nstderr:\n{}\n\
         If the change of the calls is intended, re-record: scripts/record-golden-traces.sh {name}",
        trace.display(),
        status.text,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((status.matched, status.calls), (calls, calls));
}

#[test]
fn quickstart_replays_its_golden_trace() {
    assert_replays("quickstart");
}

#[test]
fn devices_example_replays_its_golden_trace() {
    assert_replays("01_devices");
}

#[test]
fn streams_events_example_replays_its_golden_trace() {
    assert_replays("02_streams_events");
}

#[test]
fn async_copies_example_replays_its_golden_trace() {
    assert_replays("03_async_copies");
}

#[test]
fn reserve_mem_example_replays_its_golden_trace() {
    assert_replays("04_reserve_mem");
}

#[test]
fn allocator_example_replays_its_golden_trace() {
    assert_replays("05_allocator");
}

#[test]
fn an_example_recorded_over_the_mock_replays_strictly() {
    let trace = temp("recorded.jsonl");
    let _ = std::fs::remove_file(&trace);
    let out = command("03_async_copies", ascendcl_mock::RECORDER_PATH)
        .env("ASCENDCL_RECORD_TARGET", ascendcl_mock::LIBRARY_PATH)
        .env("ASCENDCL_RECORD_TRACE", &trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = Trace::read(&trace).unwrap();
    assert_eq!(recorded.producer(), Some("ascendcl-record"));
    assert!(
        recorded
            .records
            .iter()
            .any(|r| r.function == "aclrtMemcpyAsync")
    );
    let (out, status) = replay("03_async_copies", &trace);
    assert!(out.status.success(), "{}", status.text);
    assert!(status.is_complete(), "{}", status.text);
    std::fs::remove_file(trace).unwrap();
}

#[test]
fn another_program_under_a_trace_fails_at_the_first_difference() {
    // quickstart's trace against 03_async_copies: both start alike, then
    // 03 allocates the host input before it asks for the memory info
    let (out, status) = replay("03_async_copies", &golden("quickstart"));
    assert!(!out.status.success(), "the changed program must fail");
    assert_eq!(status.state, ReplayState::Diverged);
    let d = status.divergence.as_ref().unwrap();
    let expected = d.expected.as_ref().unwrap();
    assert_ne!(
        (expected.function.as_str(), &expected.args),
        (d.actual.function.as_str(), &d.actual.args)
    );
    let trace = Trace::read(golden("quickstart")).unwrap();
    let record = trace.records.iter().find(|r| r.seq == d.seq).unwrap();
    assert_eq!(record.function, expected.function);
    for needle in [
        format!("trace seq {}", d.seq),
        format!("expected: {}", expected.function),
        format!("actual:   {}", d.actual.function),
    ] {
        assert!(status.text.contains(&needle), "{needle}\n{}", status.text);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("replay diverged"), "{stderr}");
}
