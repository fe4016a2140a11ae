//! Multi-process recordings (one trace per process: the first named, the
//! others beside it) replay with each process picking the trace whose
//! launch key (its command line, normalized, and its launcher's rank
//! variables) is its own. Run through the example binaries that `cargo
//! test` builds, as `golden_traces.rs` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ascendcl_mock::ReplayStatus;

fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    dir.join("examples").join(name)
}

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ascendcl-mock/traces")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("golden-procs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `example ARGS` replaying `trace` strictly; reports `report` and
/// every `report.<pid>` beside it.
fn replay(
    example_name: &str,
    args: &[&str],
    trace: &Path,
    env: &[(&str, &str)],
) -> (Output, Vec<(PathBuf, ReplayStatus)>) {
    // one directory per trace's directory: the tests run in parallel
    let of = trace.parent().and_then(Path::file_name).unwrap_or_default();
    let dir = scratch(&format!(
        "reports-{example_name}-{}-{}",
        of.to_string_lossy(),
        env.len()
    ));
    let report = dir.join("report.json");
    let mut cmd = Command::new(example(example_name));
    for var in [
        "LD_PRELOAD",
        "ASCENDCL_MOCK_FAULTS",
        "ASCENDCL_RECORD_TRACE",
        "ASCENDCL_RECORD_TARGET",
        "RANK",
        "LOCAL_RANK",
        "RANK_ID",
        "SLURM_PROCID",
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd
        .args(args)
        .envs(env.iter().copied())
        .env("ASCENDCL_LIBRARY", ascendcl_mock::LIBRARY_PATH)
        .env("ASCENDCL_MOCK_REPLAY", trace)
        .env("ASCENDCL_MOCK_REPLAY_MODE", "strict")
        .env("ASCENDCL_MOCK_REPLAY_REPORT", &report)
        .output()
        .expect("the example runs");
    let mut reports: Vec<(PathBuf, ReplayStatus)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let status = ReplayStatus::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p, status)
        })
        .collect();
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    std::fs::remove_dir_all(&dir).unwrap();
    (out, reports)
}

/// `trace` with its header's launch key set to `key` (JSON).
fn with_key(from: &Path, to: &Path, key: &str) {
    let text = std::fs::read_to_string(from).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let header = match header.find(",\"launch\":") {
        Some(at) => format!("{}}}", &header[..at]),
        None => header.to_string(),
    };
    let header = format!("{},\"launch\":{key}}}", &header[..header.len() - 1]);
    std::fs::write(to, format!("{header}\n{rest}")).unwrap();
}

const NO_ARGS: &str = r#"{"argv":[],"rank_env":{}}"#;

#[test]
fn the_processes_recording_of_train_data_parallel_replays_with_every_rank_on_its_own_trace() {
    let trace = traces().join("train_data_parallel-processes.jsonl");
    let (out, reports) = replay(
        "train_data_parallel",
        &["--mode", "processes", "--ranks", "2"],
        &trace,
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reports.len(), 3, "the main process and two ranks report");
    for (path, status) in &reports {
        assert!(status.is_complete(), "{}: {}", path.display(), status.text);
    }
}

#[test]
fn a_process_takes_the_one_sibling_recorded_by_its_command_line_and_reports_beside_the_report() {
    let dir = scratch("sibling");
    let quickstart = traces().join("quickstart.jsonl");
    with_key(
        &quickstart,
        &dir.join("t.jsonl"),
        r#"{"argv":["--another-program"],"rank_env":{}}"#,
    );
    with_key(&quickstart, &dir.join("t.1.jsonl"), NO_ARGS);
    with_key(
        &quickstart,
        &dir.join("t.2.jsonl"),
        r#"{"argv":[],"rank_env":{"RANK":"1"}}"#,
    );
    let (out, reports) = replay("quickstart", &[], &dir.join("t.jsonl"), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reports.len(), 1);
    let (path, status) = &reports[0];
    assert!(
        path.to_string_lossy().contains("report.json."),
        "{}",
        path.display()
    );
    assert!(status.is_complete(), "{}", status.text);
    assert!(status.text.contains("t.1.jsonl"), "{}", status.text);
    // With RANK=1 the same command line is the other sibling's.
    let (out, reports) = replay("quickstart", &[], &dir.join("t.jsonl"), &[("RANK", "1")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(reports.iter().all(|(_, s)| s.is_complete()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_siblings_recorded_by_the_same_command_line_are_refused_naming_both() {
    let dir = scratch("ambiguous");
    let quickstart = traces().join("quickstart.jsonl");
    with_key(
        &quickstart,
        &dir.join("t.jsonl"),
        r#"{"argv":["--another-program"],"rank_env":{}}"#,
    );
    with_key(&quickstart, &dir.join("t.1.jsonl"), NO_ARGS);
    with_key(&quickstart, &dir.join("t.2.jsonl"), NO_ARGS);
    let (out, _) = replay("quickstart", &[], &dir.join("t.jsonl"), &[]);
    assert_eq!(out.status.code(), Some(86));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("t.1.jsonl")
            && stderr.contains("t.2.jsonl")
            && stderr.contains("recorded by this command line"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_trace_of_its_own_key_or_of_no_key_is_replayed_as_named_whatever_lies_beside_it() {
    let dir = scratch("own");
    let quickstart = traces().join("quickstart.jsonl");
    with_key(&quickstart, &dir.join("t.jsonl"), NO_ARGS);
    // a sibling of the same key is not looked at: the named one is this process's
    std::fs::write(dir.join("t.1.jsonl"), "not a trace\n").unwrap();
    let (out, reports) = replay("quickstart", &[], &dir.join("t.jsonl"), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reports.len(), 1);
    assert!(reports[0].0.ends_with("report.json") && reports[0].1.is_complete());
    // the committed quickstart trace has no key (recorded before keys)
    let (out, _) = replay("quickstart", &[], &quickstart, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_process_whose_key_no_trace_has_diverges_on_the_named_trace() {
    let dir = scratch("none");
    let quickstart = traces().join("quickstart.jsonl");
    with_key(
        &traces().join("03_async_copies.jsonl"),
        &dir.join("t.jsonl"),
        r#"{"argv":["--x"],"rank_env":{}}"#,
    );
    with_key(
        &quickstart,
        &dir.join("t.1.jsonl"),
        r#"{"argv":["--y"],"rank_env":{}}"#,
    );
    let (out, reports) = replay("quickstart", &[], &dir.join("t.jsonl"), &[]);
    assert_eq!(out.status.code(), Some(86));
    assert_eq!(reports.len(), 1);
    assert!(
        reports[0].1.text.contains("t.jsonl diverged"),
        "{}",
        reports[0].1.text
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
