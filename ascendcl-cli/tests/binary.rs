//! The `ascendcl` binary as a user runs it: `--help` on every command, the
//! exit status of each outcome, this machine's library by default and the
//! bundled mock only with `--mock`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `ascendcl ARGS…` with no AscendCL variables inherited from the test's
/// environment and no CANN install reachable (HOME is `home`), so that
/// "this machine" is a machine without CANN whatever runs the tests.
fn ascendcl(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ascendcl"));
    for var in [
        "ASCENDCL_LIBRARY",
        "ASCEND_TOOLKIT_HOME",
        "ASCEND_HOME_PATH",
        "ASCEND_INSTALL_PATH",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "XDG_CACHE_HOME",
        "ASCENDCL_MOCK_FAULTS",
        "ASCENDCL_MOCK_TRACE",
        "ASCENDCL_MOCK_REPLAY",
        "ASCENDCL_MOCK_REPLAY_MODE",
        "ASCENDCL_MOCK_REPLAY_REPORT",
        "ASCENDCL_MOCK_DEVICE_COUNT",
        "ASCENDCL_RECORD_TRACE",
        "ASCENDCL_RECORD_TARGET",
        "ASCENDCL_RECORD_HCCL_TARGET",
        "ASCENDCL_ACLNN_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home).args(args);
    cmd
}

fn run(home: &Path, args: &[&str]) -> Output {
    ascendcl(home, args).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `/usr/local/Ascend` would make this machine one with CANN.
fn machine_has_cann() -> bool {
    Path::new("/usr/local/Ascend").exists()
}

#[test]
fn every_command_and_subcommand_answers_help_with_exit_status_0() {
    let home = temp_dir("help");
    let commands: [&[&str]; 9] = [
        &[],
        &["doctor"],
        &["validate"],
        &["trace"],
        &["trace", "summary"],
        &["trace", "record"],
        &["trace", "replay"],
        &["alloc-replay"],
        &["bench-report"],
    ];
    for command in commands {
        for help in ["--help", "-h"] {
            let args: Vec<&str> = command.iter().copied().chain([help]).collect();
            let out = run(&home, &args);
            let stdout = text(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                text(&out.stderr)
            );
            let usage = format!("Usage: ascendcl {}", command.join(" "));
            assert!(stdout.contains(usage.trim_end()), "{args:?}:\n{stdout}");
        }
        // The leaves document their exit status in --help.
        if !matches!(command, [] | ["trace"]) {
            let args: Vec<&str> = command.iter().copied().chain(["--help"]).collect();
            let stdout = text(&run(&home, &args).stdout);
            assert!(stdout.contains("Exit status:"), "{args:?}:\n{stdout}");
        }
    }
    let out = run(&home, &["help", "trace", "replay"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: ascendcl trace replay"));
}

#[test]
fn usage_errors_exit_2_with_the_message_on_stderr() {
    let home = temp_dir("usage");
    for args in [
        &["frobnicate"][..],
        &["doctor", "--jsn"],
        &["validate", "only-one.npy"],
        &["alloc-replay", "--steps", "0"],
        &["alloc-replay", "--dtype", "fp8"],
        &["trace", "summary"],
        &["trace", "replay", "t.jsonl"],
        &[
            "trace", "record", "--mock", "--target", "x.so", "--", "true",
        ],
        &[],
    ] {
        let out = run(&home, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn doctor_reports_no_library_honestly_and_exits_1_on_a_machine_without_cann() {
    if machine_has_cann() {
        eprintln!("skipped: this machine has /usr/local/Ascend");
        return;
    }
    let home = temp_dir("doctor-none");
    let out = run(&home, &["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("no AscendCL library could be loaded"),
        "{stdout}"
    );
    assert!(stdout.contains("ascendcl doctor --mock"), "{stdout}");
    assert!(!stdout.contains("(the ascendcl mock)"), "{stdout}");

    let out = run(&home, &["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = text(&out.stdout);
    assert!(json.contains("\"status\":\"not-found\""), "{json}");
    assert!(json.contains("\"ok\":false"), "{json}");

    let out = ascendcl(&home, &["doctor", "--json"])
        .env("ASCENDCL_LIBRARY", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("/nonexistent"));
}

#[test]
fn doctor_refuses_a_truncated_ascendcl_library_saying_what_is_wrong_and_exits_1() {
    let home = temp_dir("doctor-truncated");
    let file = home.join("libascendcl.so");
    // 40000 bytes end inside the mock's code segment: a plain dlopen of this
    // file kills the process with SIGBUS.
    let bytes = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap();
    std::fs::write(&file, &bytes[..40_000]).unwrap();
    let out = ascendcl(&home, &["doctor"])
        .env("ASCENDCL_LIBRARY", &file)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}: {stdout}", out.status);
    let refused = format!(
        "refused:        {} (from ASCENDCL_LIBRARY): truncated: segment ",
        file.display()
    );
    assert!(stdout.contains(&refused), "{stdout}");
    assert!(stdout.contains("the file has 40000"), "{stdout}");
    assert!(
        stdout.contains("fix: copy or install the file again"),
        "{stdout}"
    );

    let out = ascendcl(&home, &["doctor", "--json"])
        .env("ASCENDCL_LIBRARY", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = text(&out.stdout);
    assert!(json.contains("\"status\":\"invalid-file\""), "{json}");
    assert!(json.contains("\"kind\":\"library-invalid\""), "{json}");
}

#[test]
fn doctor_with_mock_writes_the_bundled_mock_to_the_cache_and_exits_0() {
    let home = temp_dir("doctor-mock");
    let cache = home.join("cache");
    let doctor = || {
        ascendcl(&home, &["doctor", "--mock", "--json"])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
    };
    let out = doctor();
    let json = text(&out.stdout);
    assert!(json.contains("\"origin\":\"mock\""), "{json}");
    assert!(json.contains("\"is_mock\":true"), "{json}");
    let bundle = std::fs::read_dir(cache.join("ascendcl"))
        .unwrap()
        .next()
        .expect("one bundle directory")
        .unwrap()
        .path();
    let mock = bundle.join("libascendcl.so");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&bundle).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the bundle directory is private: {mode:o}");
    }
    for file in ["libascendcl.so", "libnnopbase.so", "libopapi.so"] {
        assert!(
            bundle.join(file).is_file(),
            "{file} in {}",
            bundle.display()
        );
    }
    assert!(json.contains(&*mock.to_string_lossy()), "{json}");
    if !machine_has_cann() {
        assert_eq!(out.status.code(), Some(0), "{json}");
    }
    // A damaged file is written again, not loaded.
    std::fs::write(&mock, b"not a library").unwrap();
    let again = doctor();
    assert_eq!(
        again.status.code(),
        out.status.code(),
        "{}",
        text(&again.stdout)
    );
    assert_ne!(std::fs::read(&mock).unwrap(), b"not a library");
}

#[test]
fn alloc_replay_needs_a_library_or_mock_and_reads_its_trace_first() {
    let home = temp_dir("alloc");
    if !machine_has_cann() {
        let out = run(&home, &["alloc-replay", "--no-max-batch", "--steps", "1"]);
        assert_eq!(out.status.code(), Some(3));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("could not load the AscendCL runtime library"),
            "{stderr}"
        );
        assert!(stderr.contains("--mock"), "{stderr}");
    }
    let missing = home.join("missing.jsonl");
    let out = run(
        &home,
        &[
            "alloc-replay",
            "--mock",
            "--trace",
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("missing.jsonl"));

    // A generated trace, dumped, then replayed as a recorded one.
    let dump = home.join("resnet50.jsonl");
    let out = run(
        &home,
        &[
            "alloc-replay",
            "--mock",
            "--quiet",
            "--steps",
            "1",
            "--no-max-batch",
            "--json",
            "--dump-trace",
            dump.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "--quiet: {}", text(&out.stderr));
    let out = run(
        &home,
        &[
            "alloc-replay",
            "--mock",
            "--json",
            "--trace",
            dump.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "one JSON object per strategy: {stdout}");
    for (line, strategy) in lines.iter().zip([
        "raw_aclrtMalloc",
        "fixed_segments",
        "fixed+exact_cache",
        "expandable_segments",
    ]) {
        assert!(
            line.contains(&format!("\"strategy\":\"{strategy}\"")),
            "{line}"
        );
        assert!(line.contains("\"backend\":\"mock\""), "{line}");
        assert!(line.contains("\"max_batch_before_oom\":null"), "{line}");
    }
}

#[test]
fn trace_summary_reads_a_golden_trace_and_refuses_what_is_not_one() {
    let home = temp_dir("summary");
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../ascendcl-mock/traces/quickstart.jsonl");
    let out = run(&home, &["trace", "summary", golden.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("aclrtMemcpyAsync"));
    let out = run(
        &home,
        &["trace", "summary", "--json", golden.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with('{'));
    let out = run(&home, &["trace", "summary", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: /dev/zero"));
}

#[test]
fn a_recorded_command_replays_strictly_and_another_command_fails_with_86() {
    let home = temp_dir("record");
    let trace = home.join("doctor.jsonl");
    let exe = env!("CARGO_BIN_EXE_ascendcl");
    // Record the doctor itself, over the bundled mock.
    let out = run(
        &home,
        &[
            "trace",
            "record",
            "--mock",
            "-o",
            trace.to_str().unwrap(),
            "--",
            exe,
            "doctor",
        ],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.code().is_some(), "{stderr}");
    assert!(stderr.contains("calls"), "{stderr}");
    let header = std::fs::read_to_string(&trace).unwrap();
    assert!(
        header.contains("\"producer\":\"ascendcl-record\""),
        "{header}"
    );
    assert!(header.contains("aclrtGetDeviceCount"));

    // The same command replays it strictly, with the replay status as JSON.
    let out = run(
        &home,
        &[
            "trace",
            "replay",
            "--json",
            trace.to_str().unwrap(),
            "--",
            exe,
            "doctor",
            "--json",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .contains("\"state\":\"complete\""),
        "{stdout}"
    );

    // Another program diverges: exit status 86, whatever it returned.
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../ascendcl-mock/traces/quickstart.jsonl");
    let out = run(
        &home,
        &[
            "trace",
            "replay",
            golden.to_str().unwrap(),
            "--",
            exe,
            "doctor",
        ],
    );
    assert_eq!(out.status.code(), Some(86), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("diverged"),
        "{}",
        text(&out.stderr)
    );

    // A command that never loads the mock replays nothing: also 86.
    let out = run(
        &home,
        &["trace", "replay", trace.to_str().unwrap(), "--", "true"],
    );
    assert_eq!(out.status.code(), Some(86));
    assert!(text(&out.stderr).contains("no replay report"));

    // Lenient: the command's own status.
    let out = run(
        &home,
        &[
            "trace",
            "replay",
            "--lenient",
            trace.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "exit 7",
        ],
    );
    assert_eq!(out.status.code(), Some(7));

    // A command that does not exist: 127, as a shell says.
    let out = run(
        &home,
        &[
            "trace",
            "replay",
            trace.to_str().unwrap(),
            "--",
            "/nonexistent/cmd",
        ],
    );
    assert_eq!(out.status.code(), Some(127));
    let out = run(
        &home,
        &["trace", "record", "--mock", "--", "/nonexistent/cmd"],
    );
    assert_eq!(out.status.code(), Some(127));
}

#[test]
fn trace_record_puts_the_shims_hccl_face_as_libhccl_so_beside_the_shim() {
    let home = temp_dir("hccl-face");
    let trace = home.join("t.jsonl");
    let out = run(
        &home,
        &[
            "trace",
            "record",
            "--mock",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "true",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bundles: Vec<PathBuf> = std::fs::read_dir(home.join(".cache").join("ascendcl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(bundles.len(), 1, "{bundles:?}");
    let record = bundles[0].join("record");
    assert!(record.join("libascendcl_record.so").is_file());
    // ascendcl-sys opens libhccl.so beside the runtime library (the shim):
    // it must be the shim's HCCL face, not the mock's HCCL
    let face = std::fs::read(record.join("libhccl.so")).unwrap();
    let mock_hccl = std::fs::read(bundles[0].join("libhccl.so")).unwrap();
    assert_ne!(face, mock_hccl);
    let needs_shim = face
        .windows(b"libascendcl_record.so".len())
        .any(|w| w == b"libascendcl_record.so");
    assert!(needs_shim, "the face needs libascendcl_record.so");
    // and the operator libraries, opened from ASCENDCL_ACLNN_DIR: the
    // shim's aclnn faces
    for name in ["libnnopbase.so", "libopapi.so"] {
        let face = std::fs::read(record.join(name)).unwrap();
        assert_ne!(
            face,
            std::fs::read(bundles[0].join(name)).unwrap(),
            "{name}"
        );
        assert!(
            face.windows(b"libascendcl_record.so".len())
                .any(|w| w == b"libascendcl_record.so"),
            "{name} needs libascendcl_record.so"
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
