//! Hostile input to the tools: traces (nested 20,000 deep, /dev/zero, a
//! directory, a FIFO, binary noise, random mutations of a golden trace) and
//! the mock's environment variables (negative, huge, malformed values). Every
//! input ends in a clean error or a normal run: no crash, no hang. Cases that
//! could hang run in a child process that is killed after a time limit;
//! counts are fixed, so the test is bounded.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use ascendcl_mock::REPLAY_FAILED_EXIT;
use ascendcl_mock::summary;
use ascendcl_mock::trace::Trace;
use common::hostile::Rng;
use common::*;

/// Longest a child may take (a loaded CI machine); a hang is far longer.
const LIMIT: Duration = Duration::from_secs(60);

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("aclmock-hostile-{}-{name}", std::process::id()))
}

fn golden() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/02_streams_events.jsonl"),
    )
    .unwrap()
}

/// Random damage to trace text: bytes flipped, lines cut, duplicated or
/// swapped, numbers made huge or negative, brackets nested deep.
fn mutate(text: &str, rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(lines.len());
        let line = &mut lines[i];
        match rng.below(8) {
            0 if !line.is_empty() => {
                let at = rng.below(line.len());
                line[at] = rng.below(256) as u8;
            }
            1 => line.truncate(rng.below(line.len() + 1)),
            2 => {
                let copy = line.clone();
                lines.insert(i, copy);
            }
            3 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            4 => {
                let s = String::from_utf8_lossy(line).replacen(':', ":18446744073709551616", 1);
                *line = s.into_bytes();
            }
            5 => {
                let s = String::from_utf8_lossy(line).replacen(":0", ":-1", 1);
                *line = s.into_bytes();
            }
            6 => {
                let depth = 1 + rng.below(30_000);
                let s = String::from_utf8_lossy(line).replacen(
                    "{}",
                    &("[".repeat(depth) + &"]".repeat(depth)),
                    1,
                );
                *line = s.into_bytes();
            }
            _ => lines.remove(i).clear(),
        }
        if lines.is_empty() {
            break;
        }
    }
    lines.join(&b'\n')
}

#[test]
fn the_summary_ends_in_a_report_or_a_clean_error_on_any_trace() {
    let dir = temp("summary-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let deep = temp("summary-deep.jsonl");
    std::fs::write(&deep, "[".repeat(20_000) + &"]".repeat(20_000) + "\n").unwrap();
    for (what, path) in [
        ("nested 20,000 deep", deep.as_path()),
        ("/dev/zero", Path::new("/dev/zero")),
        ("a directory", dir.as_path()),
    ] {
        let args = vec![path.to_string_lossy().into_owned()];
        let e = summary::cli(&args).expect_err(what);
        assert!(!e.is_empty(), "{what}");
    }
    let mut rng = Rng::new(0xdead_beef);
    let text = golden();
    let file = temp("summary-mutated.jsonl");
    for case in 0..300 {
        std::fs::write(&file, mutate(&text, &mut rng)).unwrap();
        for json in [false, true] {
            let mut args = vec![file.to_string_lossy().into_owned()];
            if json {
                args.push("--json".into());
            }
            let outcome = std::panic::catch_unwind(|| summary::cli(&args));
            assert!(outcome.is_ok(), "case {case} made the summary panic");
        }
    }
    std::fs::remove_file(file).unwrap();
    std::fs::remove_file(deep).unwrap();
    std::fs::remove_dir(dir).unwrap();
}

/// A small program on the mock (return codes ignored: hostile settings may
/// make calls fail); every wait in it is bounded.
fn small_program() {
    let lib = ascendcl_mock::library().unwrap();
    // SAFETY: every pointer passed is valid for its call; handles are the
    // mock's own (or null, which the mock rejects).
    unsafe {
        lib.aclInit(std::ptr::null()).unwrap();
        lib.aclrtSetDevice(0).unwrap();
        let (mut free, mut total) = (0usize, 0usize);
        lib.aclrtGetMemInfo(ascendcl_sys::aclrtMemAttr(0), &mut free, &mut total)
            .unwrap();
        let (mut dev, mut host) = (std::ptr::null_mut(), std::ptr::null_mut());
        lib.aclrtMalloc(&mut dev, 4096, ascendcl_sys::aclrtMemMallocPolicy(0))
            .unwrap();
        lib.aclrtMallocHost(&mut host, 4096).unwrap();
        let mut stream = std::ptr::null_mut();
        lib.aclrtCreateStream(&mut stream).unwrap();
        if !dev.is_null() && !host.is_null() && !stream.is_null() {
            lib.aclrtMemcpyAsync(
                dev,
                4096,
                host,
                4096,
                ascendcl_sys::aclrtMemcpyKind(H2D),
                stream,
            )
            .unwrap();
            lib.aclrtSynchronizeStreamWithTimeout(stream, 5000).unwrap();
        }
        lib.aclrtDestroyStream(stream).unwrap();
        lib.aclrtFree(dev).unwrap();
        lib.aclrtFreeHost(host).unwrap();
        lib.aclrtResetDevice(0).unwrap();
        lib.aclFinalize().unwrap();
    }
}

const CHILD: &str = "the_mock_runs_or_fails_cleanly_under_any_environment";

/// The small program in a child, killed after LIMIT. Its working directory
/// is a private temporary one, removed afterwards: relative paths among the
/// hostile values (a trace file named "-1"...) land there, not in the tree.
fn run(env: &[(&str, &str)]) -> Output {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let cwd = temp(&format!("cwd-{n}"));
    std::fs::create_dir_all(&cwd).unwrap();
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([CHILD, "--exact", "--nocapture", "--test-threads=1"])
        .env("ASCENDCL_MOCK_TEST_CHILD", CHILD)
        .current_dir(&cwd);
    for var in [
        "ASCENDCL_MOCK_REPLAY",
        "ASCENDCL_MOCK_TRACE",
        "ASCENDCL_MOCK_FAULTS",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = output_within(&mut cmd, LIMIT);
    std::fs::remove_dir_all(&cwd).unwrap();
    out.unwrap_or_else(|| panic!("the mock hung with {env:?}"))
}

fn describe(out: &Output) -> String {
    format!(
        "{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_mock_runs_or_fails_cleanly_under_any_environment() {
    if is_child(CHILD) {
        small_program();
        return;
    }
    const VARS: &[&str] = &[
        "ASCENDCL_MOCK_DEVICE_COUNT",
        "ASCENDCL_MOCK_HBM_BYTES",
        "ASCENDCL_MOCK_SOC_NAME",
        "ASCENDCL_MOCK_STREAM_DELAY_US",
        "ASCENDCL_MOCK_JOURNAL_CAPACITY",
        "ASCENDCL_MOCK_FAULTS",
        "ASCENDCL_MOCK_TRACE",
        "ASCENDCL_MOCK_REPLAY_MODE",
        "ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS",
        "ASCENDCL_MOCK_ABORT_ON_MISUSE",
    ];
    let long = "9".repeat(5000);
    let values: Vec<&str> = vec![
        "-1",
        "0",
        "",
        " ",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "1e9",
        "0x10",
        "abc",
        "%s%n",
        "1GiB",
        "16777216GiB",
        "\u{1}\u{2}\n",
        "aclrtMalloc@*=207001:\"}",
        "aclrtMalloc@1=-5;aclrtSetDevice@x=1;@=;;",
        "/dev/full",
        "/",
        "1000000",
        &long,
    ];
    let mut rng = Rng::new(0x0e0e_0e0e);
    let mut cases = 0;
    for var in VARS {
        // a few values per variable, and a few of them combined
        for _ in 0..3 {
            let value = values[rng.below(values.len())];
            let other = VARS[rng.below(VARS.len())];
            let other_value = values[rng.below(values.len())];
            let mut env = vec![(*var, value)];
            if other != *var && *var != "ASCENDCL_MOCK_ABORT_ON_MISUSE" {
                env.push((other, other_value));
            }
            // aborting on a misuse is a feature: only its off values here
            env.retain(|(k, v)| *k != "ASCENDCL_MOCK_ABORT_ON_MISUSE" || *v != "1");
            let out = run(&env);
            assert!(out.status.success(), "{env:?}: {}", describe(&out));
            cases += 1;
        }
    }
    assert_eq!(cases, 3 * VARS.len());
}

#[test]
fn a_replay_of_a_trace_that_cannot_be_read_fails_the_program_and_never_hangs() {
    let dir = temp("replay-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = temp("replay.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let write = |name: &str, bytes: &[u8]| {
        let p = temp(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let header = "{\"format\":\"ascendcl-trace\",\"version\":1,\"producer\":\"test\"}\n";
    let mut paths: Vec<(String, PathBuf)> = vec![
        ("missing".into(), temp("no-such-file.jsonl")),
        ("/dev/zero".into(), PathBuf::from("/dev/zero")),
        ("a directory".into(), dir.clone()),
        (
            "nested 20,000 deep".into(),
            write(
                "deep.jsonl",
                format!("{header}{}\n", "[".repeat(20_000) + &"]".repeat(20_000)).as_bytes(),
            ),
        ),
        (
            "a 17 MiB line".into(),
            write("long.jsonl", &vec![b'x'; 17 << 20]),
        ),
        (
            "a NUL byte".into(),
            write("nul.jsonl", b"{\"seq\":1,\0}\n"),
        ),
        (
            "invalid UTF-8".into(),
            write("utf8.jsonl", b"{\"seq\":1,\"thread\":1,\"fn\":\"aclInit\xff\",\"args\":{},\"out\":{},\"ret\":0}\n"),
        ),
        (
            "a header and no calls".into(),
            write("empty.jsonl", header.as_bytes()),
        ),
    ];
    if made_fifo {
        paths.push(("a FIFO".into(), fifo.clone()));
    }
    let text = golden();
    let mut rng = Rng::new(0x7e57_7e57);
    for i in 0..12 {
        let mutated = mutate(&text, &mut rng);
        paths.push((
            format!("mutation {i}"),
            write(&format!("mutated-{i}.jsonl"), &mutated),
        ));
    }
    for (what, path) in &paths {
        let out = run(&[
            ("ASCENDCL_MOCK_REPLAY", path.to_str().unwrap()),
            ("ASCENDCL_MOCK_REPLAY_MODE", "strict"),
            ("ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS", "2000"),
        ]);
        // the program is not the one recorded: every case is a failed replay
        assert_eq!(
            out.status.code(),
            Some(REPLAY_FAILED_EXIT),
            "{what}: {}",
            describe(&out)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("aclmock: replay failed"),
            "{what}: {stderr}"
        );
        // and the Rust reader gives a clean answer too
        let _ = Trace::read(path);
    }
    for (what, path) in paths {
        if what.starts_with("mutation") || what.ends_with("line") || what.contains("deep") {
            std::fs::remove_file(path).unwrap();
        }
    }
    for name in ["nul.jsonl", "utf8.jsonl", "empty.jsonl"] {
        let _ = std::fs::remove_file(temp(name));
    }
    let _ = std::fs::remove_file(fifo);
    std::fs::remove_dir(dir).unwrap();
}
