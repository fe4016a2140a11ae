//! Programs the project did not write for the mock (`tests/c/foreign_*.c`: a
//! double-buffered pipeline with a report thread, a VMM loop, an
//! out-of-memory-and-recover loop, a two-rank all-reduce linked against
//! HCCL), recorded with the shim over the mock,
//! then replayed strictly: every run makes every call of the trace and
//! exits 0, ten runs in a row; a corrupted trace makes the program fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ascendcl_mock::trace::Trace;
use ascendcl_mock::{LIBRARY_PATH, RECORDER_PATH, REPLAY_FAILED_EXIT, ReplayStatus};
use common::output_within;

/// Longest a run may take before it counts as a hang (a loaded CI machine).
const LIMIT: Duration = Duration::from_secs(120);

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("aclmock-foreign-{}-{name}", std::process::id()))
}

/// The program with a clean AscendCL environment.
fn command(program: &str) -> Command {
    let mut cmd = Command::new(program);
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("ASCENDCL_") || name == "LD_PRELOAD" {
            cmd.env_remove(&var);
        }
    }
    cmd
}

fn run(cmd: &mut Command) -> Output {
    output_within(cmd, LIMIT).expect("the program ends within the limit")
}

fn describe(out: &Output) -> String {
    format!(
        "exit {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Records `program` (on the mock, through the shim under LD_PRELOAD).
fn record(program: &str, name: &str, env: &[(&str, &str)]) -> PathBuf {
    let trace = temp(&format!("{name}.jsonl"));
    let _ = std::fs::remove_file(&trace);
    let mut cmd = command(program);
    cmd.env("LD_PRELOAD", RECORDER_PATH)
        .env("ASCENDCL_RECORD_TRACE", &trace)
        .envs(env.iter().copied());
    let out = run(&mut cmd);
    assert!(out.status.success(), "recording {name}: {}", describe(&out));
    let t = Trace::read(&trace).unwrap();
    assert!(t.records.len() > 10, "{name}: {} calls", t.records.len());
    let target = t.header_field("target").and_then(|v| v.as_str()).unwrap();
    assert_eq!(Path::new(target), Path::new(LIBRARY_PATH));
    trace
}

/// One strict replay of `trace` by `program` (extra environment `env`): its
/// output and the report.
fn replay_with(
    program: &str,
    trace: &Path,
    name: &str,
    env: &[(&str, &str)],
) -> (Output, Option<ReplayStatus>) {
    let report = temp(&format!("{name}-report.json"));
    let _ = std::fs::remove_file(&report);
    let mut cmd = command(program);
    cmd.env("ASCENDCL_MOCK_REPLAY", trace)
        .env("ASCENDCL_MOCK_REPLAY_MODE", "strict")
        .env("ASCENDCL_MOCK_REPLAY_REPORT", &report)
        .envs(env.iter().copied());
    let out = run(&mut cmd);
    let status = std::fs::read_to_string(&report)
        .ok()
        .map(|text| ReplayStatus::parse(&text).unwrap());
    let _ = std::fs::remove_file(&report);
    (out, status)
}

fn replay(program: &str, trace: &Path, name: &str) -> (Output, Option<ReplayStatus>) {
    replay_with(program, trace, name, &[])
}

/// Ten strict replays in a row, each complete and passing; run `i` gets the
/// extra environment `env(i)`.
fn assert_replays_ten_times(
    program: &str,
    trace: &Path,
    name: &str,
    env: impl Fn(u32) -> Vec<(&'static str, &'static str)>,
) {
    for run in 1..=10 {
        let (out, status) = replay_with(program, trace, name, &env(run));
        let status = status.expect("a replay report");
        assert!(
            out.status.success() && status.is_complete(),
            "{name}, run {run}: {}\n{}",
            status.text,
            describe(&out)
        );
    }
}

/// A corrupted trace must make the program fail (non-zero exit, the replay
/// failure on stderr): a changed argument, a cut-off trace, an invalid line.
fn assert_corruptions_fail(program: &str, trace: &Path, name: &str, changed: (&str, &str)) {
    let text = std::fs::read_to_string(trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cases = [
        ("changed argument", text.replacen(changed.0, changed.1, 1)),
        ("cut off", lines[..lines.len() * 2 / 3].join("\n") + "\n"),
        (
            "invalid line",
            format!("{}\n{{\"seq\":\n{}", lines[0], lines[1..].join("\n")),
        ),
    ];
    for (what, corrupted) in cases {
        assert_ne!(corrupted, text, "{name}: the {what} case changes nothing");
        let bad = temp(&format!("{name}-corrupt.jsonl"));
        std::fs::write(&bad, corrupted).unwrap();
        let (out, _) = replay(program, &bad, name);
        assert!(!out.status.success(), "{name}, {what}: {}", describe(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("aclmock: replay failed") || stderr.contains("diverged"),
            "{name}, {what}: {}",
            describe(&out)
        );
        std::fs::remove_file(bad).unwrap();
    }
    let (out, _) = replay(program, &temp("no-such-trace.jsonl"), name);
    assert_eq!(
        out.status.code(),
        Some(REPLAY_FAILED_EXIT),
        "{name}, missing trace: {}",
        describe(&out)
    );
}

#[test]
fn a_double_buffered_pipeline_with_a_report_thread_replays_strictly_ten_times_and_fails_when_corrupted()
 {
    let program = env!("ASCENDCL_FOREIGN_PIPELINE_PATH");
    // slow streams while recording: the report thread's polls time out
    let trace = record(
        program,
        "pipeline",
        &[("ASCENDCL_MOCK_STREAM_DELAY_US", "15000")],
    );
    let t = Trace::read(&trace).unwrap();
    let polls = |ret: i32| {
        t.records
            .iter()
            .filter(|r| r.function == "aclrtProcessReport" && r.ret == ret)
            .count()
    };
    assert!(
        polls(0) >= 1 && polls(507_012) >= 1,
        "{} {}",
        polls(0),
        polls(507_012)
    );
    assert!(
        t.records
            .iter()
            .any(|r| r.function == "aclrtLaunchCallback")
    );
    // replayed on fast streams (fewer polls than recorded) and on slower
    // ones (more polls), alternately
    assert_replays_ten_times(program, &trace, "pipeline", |run| {
        let delay = if run % 2 == 0 { "30000" } else { "0" };
        vec![("ASCENDCL_MOCK_STREAM_DELAY_US", delay)]
    });
    assert_corruptions_fail(
        program,
        &trace,
        "pipeline",
        ("\"destMax\":65536", "\"destMax\":65535"),
    );
    std::fs::remove_file(trace).unwrap();
}

#[test]
fn a_vmm_loop_replays_strictly_ten_times_and_fails_when_corrupted() {
    let program = env!("ASCENDCL_FOREIGN_VMM_LOOP_PATH");
    let trace = record(program, "vmm", &[]);
    assert_replays_ten_times(program, &trace, "vmm", |_| Vec::new());
    assert_corruptions_fail(program, &trace, "vmm", ("\"offset\":0", "\"offset\":4096"));
    std::fs::remove_file(trace).unwrap();
}

#[test]
fn an_out_of_memory_and_recover_loop_replays_strictly_ten_times_and_fails_when_corrupted() {
    let program = env!("ASCENDCL_FOREIGN_OOM_LOOP_PATH");
    let trace = record(program, "oom", &[("ASCENDCL_MOCK_HBM_BYTES", "1GiB")]);
    let t = Trace::read(&trace).unwrap();
    let ooms = t
        .records
        .iter()
        .filter(|r| r.function == "aclrtMalloc" && r.ret != 0)
        .count();
    assert_eq!(ooms, 4, "two rounds, each out of memory twice");
    assert_replays_ten_times(program, &trace, "oom", |_| Vec::new());
    assert_corruptions_fail(
        program,
        &trace,
        "oom",
        ("\"size\":67108864", "\"size\":67108865"),
    );
    std::fs::remove_file(trace).unwrap();
}

#[test]
fn a_cpp_style_two_rank_all_reduce_linked_against_hccl_records_under_ld_preload_and_replays_strictly()
 {
    let program = env!("ASCENDCL_FOREIGN_HCCL_ALLREDUCE_PATH");
    // a rank left waiting by a diverged peer gives up soon
    let quick = [("HCCL_EXEC_TIMEOUT", "3")];
    let trace = record(program, "hccl", &quick);
    let t = Trace::read(&trace).unwrap();
    let reduces: Vec<_> = t
        .records
        .iter()
        .filter(|r| r.function == "HcclAllReduce")
        .collect();
    assert_eq!(reduces.len(), 2, "one per rank, through LD_PRELOAD");
    for r in &reduces {
        assert_eq!(r.args.get("count").and_then(|v| v.as_u64()), Some(256));
        assert!(
            r.args
                .get("sendBuf")
                .and_then(|v| v.as_str())
                .is_some_and(|s| s.starts_with('m'))
        );
    }
    let inits = t
        .records
        .iter()
        .filter(|r| r.function == "HcclCommInitAll")
        .count();
    assert_eq!(inits, 1);
    assert_replays_ten_times(program, &trace, "hccl", |_| quick.to_vec());
    let (out, _) = replay_with(
        program,
        &{
            let bad = temp("hccl-count.jsonl");
            let text = std::fs::read_to_string(&trace).unwrap();
            std::fs::write(&bad, text.replacen("\"count\":256", "\"count\":255", 1)).unwrap();
            bad
        },
        "hccl-count",
        &quick,
    );
    assert!(
        !out.status.success(),
        "a changed count fails: {}",
        describe(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("HcclAllReduce"),
        "{}",
        describe(&out)
    );
    let _ = std::fs::remove_file(temp("hccl-count.jsonl"));
    std::fs::remove_file(trace).unwrap();
}
