//! `ascendcl trace record` on a machine without CANN and without `--mock`:
//! nothing to record, so it refuses before running the command.

use std::path::Path;
use std::process::Command;

#[test]
fn trace_record_without_cann_or_mock_exits_3_saying_to_add_mock_or_install_cann() {
    if Path::new("/usr/local/Ascend").exists() {
        return; // this machine has a library to record
    }
    let home = std::env::temp_dir().join(format!("ascendcl-cli-{}-no-cann", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let marker = home.join("ran");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ascendcl"));
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("ASCEND") || name == "LD_PRELOAD" || name == "XDG_CACHE_HOME" {
            cmd.env_remove(&var);
        }
    }
    let out = cmd
        .env("HOME", &home)
        .args(["trace", "record", "-o"])
        .arg(home.join("t.jsonl"))
        .args(["--", "touch"])
        .arg(&marker)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("--mock") && stderr.contains("install CANN"),
        "{stderr}"
    );
    assert!(!marker.exists(), "the command must not run");
    let _ = std::fs::remove_dir_all(&home);
}
