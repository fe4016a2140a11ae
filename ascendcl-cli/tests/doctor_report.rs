//! The JSON report and the command line of `ascendcl doctor`
//! (`ascendcl_cli::doctor::Report::to_json` and `run`).
//!
//! Only one AscendCL library is ever selected per process: the test that
//! runs the doctor selects the mock first.

mod doctor_common;

use ascendcl_cli::doctor::{self, EXIT_OK, EXIT_PROBLEMS, LibraryFacts, Report};
use ascendcl_cli::{Command, EXIT_USAGE, Output, parse_from};
use doctor_common::{GIB, assert_valid_json, attempt, healthy, mock, runtime, runtime_mut};

#[test]
fn json_is_one_valid_object_for_every_kind_of_facts() {
    let mut broken = healthy();
    runtime_mut(&mut broken).devices[0].memory = Err("line one\nline \"two\"\ttab\u{1}".into());
    runtime_mut(&mut broken).cann_version = Ok(None);
    let mut not_found = mock();
    not_found.library = LibraryFacts::NotFound {
        attempts: vec![attempt("C:\\odd\\path", "ASCENDCL_LIBRARY", "no such file")],
    };
    not_found.runtime = None;
    let mut init_failed = healthy();
    init_failed.runtime = Some(Err("aclInit failed".into()));
    let mut invalid = mock();
    invalid.library = LibraryFacts::InvalidFile {
        file: "/opt/\"quoted\"/libascendcl.so".into(),
        source: "ASCENDCL_LIBRARY".into(),
        problem: ascendcl_sys::ElfProblem::NotElf,
    };
    invalid.runtime = None;
    let invalid_json = Report::new(invalid.clone()).to_json();
    assert!(
        invalid_json.contains(
            "\"library\":{\"status\":\"invalid-file\",\"file\":\"/opt/\\\"quoted\\\"/libascendcl.so\",\
             \"source\":\"ASCENDCL_LIBRARY\",\"problem\":\"not an ELF file"
        ),
        "{invalid_json}"
    );
    assert!(
        invalid_json.contains("\"kind\":\"library-invalid\""),
        "{invalid_json}"
    );
    for facts in [healthy(), mock(), broken, not_found, init_failed, invalid] {
        let report = Report::new(facts);
        let json = report.to_json();
        assert!(!json.contains('\n'), "one line: {json}");
        assert_valid_json(&json);
        assert!(json.starts_with('{'));
        let ok = format!("\"ok\":{}", report.problems.is_empty());
        assert!(json.contains(&ok), "{json}");
    }
    let json = Report::new(healthy()).to_json();
    assert!(json.contains("\"version\":[1,16,0]"), "{json}");
    assert!(json.contains("\"declared_version\":[1,16,0]"), "{json}");
    assert!(json.contains("\"layout\":\"cann85\""), "{json}");
    assert!(json.contains("\"ASCENDCL_LIBRARY\":null"), "{json}");
    assert!(
        json.contains(&format!("\"hbm_total\":{}", 61 * GIB)),
        "{json}"
    );
    let mut zero = healthy();
    *runtime_mut(&mut zero) = runtime((1, 16, 0), 0);
    let json = Report::new(zero).to_json();
    assert!(json.contains("\"kind\":\"no-devices\""), "{json}");
}

/// `ascendcl doctor ARGS…`, run in this process.
fn run(args: &[&str]) -> Output {
    match parse_from(["ascendcl", "doctor"].iter().chain(args)) {
        Ok(cli) => match cli.command {
            Command::Doctor(args) => doctor::run(&args),
            other => panic!("parsed as another command: {other:?}"),
        },
        Err(output) => output,
    }
}

#[test]
fn command_line_prints_json_and_rejects_unknown_arguments() {
    ascendcl_sys::select_library(ascendcl_mock::LIBRARY_PATH).unwrap();
    let out = run(&["--json"]);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert_valid_json(out.stdout.trim_end());
    assert!(out.stdout.contains("\"is_mock\":true"), "{}", out.stdout);
    assert!(
        out.stdout.contains("\"origin\":\"selected\""),
        "{}",
        out.stdout
    );
    let ok = out.stdout.contains("\"ok\":true");
    assert_eq!(out.exit_code, if ok { EXIT_OK } else { EXIT_PROBLEMS });

    let help = run(&["--help"]);
    assert_eq!(help.exit_code, EXIT_OK);
    assert!(
        help.stdout.contains("Usage: ascendcl doctor"),
        "{}",
        help.stdout
    );
    assert!(help.stdout.contains("Exit status:"), "{}", help.stdout);
    let bad = run(&["--jsn"]);
    assert_eq!(bad.exit_code, EXIT_USAGE);
    assert!(
        bad.stderr.contains("unexpected argument '--jsn'"),
        "{}",
        bad.stderr
    );
    assert!(bad.stdout.is_empty());
}
