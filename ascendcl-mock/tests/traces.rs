//! Every trace under `traces/` (the golden traces and contributed card
//! recordings in `traces/card/`) stays readable: by the Rust reader, by the
//! mock's replay loader in both modes, and by the summary.

use std::path::{Path, PathBuf};

use ascendcl_mock::trace::{FORMAT, Trace, VERSION};
use ascendcl_mock::{ReplayMode, ReplayState, summary};

fn traces(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            traces(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

#[test]
fn every_trace_in_the_repository_loads_and_summarizes() {
    let mut files = Vec::new();
    traces(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("traces"),
        &mut files,
    );
    assert!(files.len() >= 6, "the golden traces are missing: {files:?}");
    let s = ascendcl_mock::session();
    for file in files {
        let trace = Trace::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let header = trace.header.as_ref().expect("a header line");
        assert_eq!(header.get("format").and_then(|v| v.as_str()), Some(FORMAT));
        assert_eq!(
            header.get("version").and_then(|v| v.as_u64()),
            Some(VERSION)
        );
        assert!(!trace.records.is_empty(), "{}", file.display());
        for mode in [ReplayMode::Strict, ReplayMode::Lenient] {
            s.reset();
            s.replay(&file, mode)
                .unwrap_or_else(|e| panic!("{}: the mock refuses it ({e})", file.display()));
            let status = s.replay_status();
            assert_eq!(status.state, ReplayState::Replaying, "{}", status.text);
            assert_eq!(status.calls, trace.records.len() as u64);
        }
        let summary = summary::summarize(&trace);
        assert_eq!(summary.calls, trace.records.len() as u64);
    }
    s.reset();
}

#[test]
fn a_trace_of_a_newer_version_is_refused_by_the_rust_reader_saying_to_update_and_version_1_is_read()
{
    let newer = format!(
        "{{\"format\":\"{FORMAT}\",\"version\":{},\"producer\":\"future\"}}\n",
        VERSION + 1
    );
    let error = Trace::parse(&newer).unwrap_err().to_string();
    assert!(
        error.contains(&format!(
            "version {} is newer than this reader",
            VERSION + 1
        )) && error.contains("update"),
        "{error}"
    );
    let v1 = format!(
        "{{\"format\":\"{FORMAT}\",\"version\":1,\"producer\":\"old\"}}\n\
         {{\"seq\":1,\"thread\":1,\"fn\":\"aclInit\",\"args\":{{}},\"out\":{{}},\"ret\":0,\"t_ns\":0,\"dur_ns\":1}}\n"
    );
    assert_eq!(Trace::parse(&v1).unwrap().records.len(), 1);
}
