//! The recording shim and the aclnn operators: the shim writes every
//! operator of its table (`csrc/record/rec_ops_table.h`) as the mock's
//! journal does, a C program using operators (`tests/c/foreign_ops.c`)
//! recorded through the shim replays strictly, and an edited trace (a
//! changed shape, dtype or attribute, a removed operator, another workspace
//! size or status) fails the replay naming the call.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ascendcl_mock::trace::Trace;
use ascendcl_mock::{RECORDER_PATH, REPLAY_FAILED_EXIT};
use common::output_within;

const LIMIT: Duration = Duration::from_secs(120);
const PROGRAM: &str = env!("ASCENDCL_FOREIGN_OPS_PATH");
const PROBE: &str = env!("ASCENDCL_RECORD_OPS_PROBE_PATH");

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("aclmock-record-ops-{}-{name}", std::process::id()))
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

/// Records `program` through the shim (LD_PRELOAD) over the mock; with
/// `journal`, the mock's own journal of the same run too.
fn record(program: &str, name: &str, journal: Option<&Path>) -> PathBuf {
    let trace = temp(&format!("{name}.jsonl"));
    let _ = std::fs::remove_file(&trace);
    let mut cmd = command(program);
    cmd.env("LD_PRELOAD", RECORDER_PATH)
        .env("ASCENDCL_RECORD_TRACE", &trace);
    if let Some(journal) = journal {
        let _ = std::fs::remove_file(journal);
        cmd.env("ASCENDCL_MOCK_TRACE", journal);
    }
    let out = run(&mut cmd);
    assert!(out.status.success(), "recording {name}: {}", describe(&out));
    trace
}

fn replay(program: &str, trace: &Path) -> Output {
    let mut cmd = command(program);
    cmd.env("ASCENDCL_MOCK_REPLAY", trace);
    run(&mut cmd)
}

/// The operators' names in a C file: `OP(Name,` lines of the table, or
/// `X(aclnn<Name>GetWorkspaceSize)` of the mock's function list.
fn names(path: &str, prefix: &str, suffix: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    text.split(prefix)
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(suffix)?;
            let name = &rest[..end];
            name.chars()
                .all(|c| c.is_ascii_alphanumeric())
                .then(|| name.to_string())
        })
        .collect()
}

#[test]
fn every_operator_the_mock_exports_is_in_the_shims_table() {
    let mock = names("csrc/ops_functions.h", "X(aclnn", "GetWorkspaceSize)");
    let table = names("csrc/record/rec_ops_table.h", "OP(", ",");
    let missing: Vec<_> = mock.difference(&table).collect();
    let extra: Vec<_> = table.difference(&mock).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "add one line per operator to csrc/record/rec_ops_table.h: missing {missing:?}, not in the mock {extra:?}"
    );
    assert!(mock.len() > 50, "{mock:?}");
}

/// An object's members, sorted by key (their order is no part of the format).
fn members(v: &ascendcl_mock::trace::Value) -> Vec<(String, String)> {
    let mut m: Vec<(String, String)> = match v {
        ascendcl_mock::trace::Value::Object(kv) => kv
            .iter()
            .map(|(k, v)| (k.clone(), format!("{v:?}")))
            .collect(),
        other => vec![(String::new(), format!("{other:?}"))],
    };
    m.sort();
    m
}

#[test]
fn every_operator_of_the_shims_table_is_written_as_the_mocks_journal_writes_it() {
    let journal = temp("probe-journal.jsonl");
    let trace = record(PROBE, "probe", Some(&journal));
    let shim = Trace::read(&trace).unwrap();
    let mock = Trace::read(&journal).unwrap();
    let phase1 = |t: &Trace| {
        t.records
            .iter()
            // the aclnn functions (the mock also journals the error queries
            // the shim makes after a failure)
            .filter(|r| {
                ["aclnn", "aclCreate", "aclDestroy"]
                    .iter()
                    .any(|p| r.function.starts_with(p))
            })
            .map(|r| (r.function.clone(), members(&r.args), r.ret))
            .collect::<Vec<_>>()
    };
    let (shim_calls, mock_calls) = (phase1(&shim), phase1(&mock));
    assert_eq!(shim_calls.len(), mock_calls.len());
    for (s, m) in shim_calls.iter().zip(&mock_calls) {
        assert_eq!(s, m, "the shim and the mock's journal differ");
    }
    let table = names("csrc/record/rec_ops_table.h", "OP(", ",");
    let called: BTreeSet<String> = shim_calls
        .iter()
        .filter_map(|(f, _, _)| f.strip_suffix("GetWorkspaceSize"))
        .filter_map(|f| f.strip_prefix("aclnn"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        called, table,
        "every operator of the table was called and recorded"
    );
    let _ = std::fs::remove_file(trace);
    let _ = std::fs::remove_file(journal);
}

#[test]
fn an_operator_program_recorded_through_the_shim_replays_strictly_ten_times_in_a_row() {
    let trace = record(PROGRAM, "replays", None);
    let t = Trace::read(&trace).unwrap();
    let sum = t
        .records
        .iter()
        .find(|r| r.function == "aclnnReduceSumGetWorkspaceSize")
        .expect("phase 1 recorded");
    assert_eq!(sum.arg("dims").and_then(|v| v.as_str()), Some("[1]"));
    assert!(sum.output("workspaceSize").is_some() && sum.output("executor").is_some());
    let launch = t
        .records
        .iter()
        .find(|r| r.function == "aclnnReduceSum")
        .expect("phase 2 recorded");
    let ws = launch.arg("workspace").and_then(|v| v.as_str()).unwrap();
    assert!(ws.starts_with('m') && ws.contains("+0x"), "{ws}");
    for f in [
        "aclSetAclOpExecutorRepeatable",
        "aclSetInputTensorAddr",
        "aclDestroyAclOpExecutor",
        "aclCreateIntArray",
    ] {
        assert!(t.records.iter().any(|r| r.function == f), "{f}");
    }
    for run in 1..=10 {
        let out = replay(PROGRAM, &trace);
        assert!(out.status.success(), "run {run}: {}", describe(&out));
    }
    let _ = std::fs::remove_file(trace);
}

/// Replays `trace` edited by `edit` and expects exit 86 with `expected`
/// in the report.
fn assert_edit_fails(trace: &Path, what: &str, edit: impl Fn(&str) -> String, expected: &[&str]) {
    let text = std::fs::read_to_string(trace).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "{what}: the edit changes nothing");
    let path = temp(&format!("edited-{}.jsonl", what.replace(' ', "-")));
    std::fs::write(&path, edited).unwrap();
    let out = replay(PROGRAM, &path);
    assert_eq!(
        out.status.code(),
        Some(REPLAY_FAILED_EXIT),
        "{what}: {}",
        describe(&out)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    for e in expected {
        assert!(stderr.contains(e), "{what}: no {e:?} in\n{stderr}");
    }
    let _ = std::fs::remove_file(path);
}

/// The trace without its first line calling `function`.
fn without_first(text: &str, function: &str) -> String {
    let key = format!("\"fn\":\"{function}\"");
    let mut removed = false;
    let mut out = String::new();
    for line in text.lines() {
        if !removed && line.contains(&key) {
            removed = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn an_edited_operator_trace_fails_with_86_naming_the_call_and_the_first_differing_field() {
    let trace = record(PROGRAM, "edited", None);
    assert_edit_fails(
        &trace,
        "changed shape",
        |t| t.replacen("\"view\":\"[2,4]\"", "\"view\":\"[4,2]\"", 1),
        &["aclCreateTensor", "different argument view"],
    );
    assert_edit_fails(
        &trace,
        "changed dtype",
        |t| t.replacen("\"dtype\":0,\"format\"", "\"dtype\":1,\"format\"", 1),
        &["aclCreateTensor", "different argument dtype"],
    );
    assert_edit_fails(
        &trace,
        "changed attribute",
        |t| t.replacen("\"dims\":\"[1]\"", "\"dims\":\"[0]\"", 1),
        &["aclnnReduceSumGetWorkspaceSize", "different argument dims"],
    );
    assert_edit_fails(
        &trace,
        "removed operator",
        |t| without_first(t, "aclnnAddGetWorkspaceSize"),
        &["aclnnAddGetWorkspaceSize", "different function"],
    );
    let _ = std::fs::remove_file(trace);
}

#[test]
fn a_replayed_phase_1_returns_the_recorded_workspace_size_and_status() {
    let trace = record(PROGRAM, "phase1", None);
    // A larger recorded workspace: the program allocates what it was told,
    // which differs from the recorded allocation.
    assert_edit_fails(
        &trace,
        "workspace size",
        |t| {
            t.lines()
                .map(|l| {
                    if l.contains("\"fn\":\"aclnnReduceSumGetWorkspaceSize\"") {
                        l.replace("\"workspaceSize\":512", "\"workspaceSize\":4096")
                    } else {
                        l.to_string()
                    }
                })
                .map(|l| format!("{l}\n"))
                .collect()
        },
        &[
            "aclrtMalloc",
            "different argument size: trace 512, program 4096",
        ],
    );
    // A recorded failure: the program gets its status and text.
    let text = std::fs::read_to_string(&trace).unwrap();
    let failed: String = text
        .lines()
        .map(|l| {
            if l.contains("\"fn\":\"aclnnAddGetWorkspaceSize\"") {
                l.replace(
                    "\"ret\":0",
                    "\"ret\":161002,\"msg\":\"EZ1001: self and other cannot broadcast\"",
                )
            } else {
                l.to_string()
            }
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let path = temp("failed-phase1.jsonl");
    std::fs::write(&path, failed).unwrap();
    let out = replay(PROGRAM, &path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &wsize, &ex) failed with 161002"
        ) && stderr.contains("EZ1001: self and other cannot broadcast"),
        "{}",
        describe(&out)
    );
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(trace);
}
