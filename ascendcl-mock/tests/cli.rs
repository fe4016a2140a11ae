//! The `ascendcl-mock` binary (feature `cli`).

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ascendcl-mock"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_names_every_subcommand() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let help = text(&output.stdout);
    for word in ["install", "path", "list", "Usage"] {
        assert!(help.contains(word), "{help}");
    }
    let install_help = text(&run(&["install", "--help"]).stdout);
    assert!(install_help.contains("--prefix <DIR>"), "{install_help}");
}

#[test]
fn install_quiet_prints_only_the_exports_and_installs_every_library() {
    let prefix = std::env::temp_dir().join(format!("ascendcl-mock-cli-{}", std::process::id()));
    let output = run(&[
        "install",
        "--prefix",
        prefix.to_str().expect("UTF-8"),
        "--quiet",
    ]);
    let stdout = text(&output.stdout);
    let installed: Vec<bool> = ascendcl_mock::LIBRARIES
        .iter()
        .map(|l| prefix.join("lib").join(l.name).is_file())
        .collect();
    let _ = std::fs::remove_dir_all(&prefix);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("export ASCENDCL_LIBRARY="), "{stdout}");
    assert!(lines[1].starts_with("export LD_LIBRARY_PATH="), "{stdout}");
    assert!(installed.iter().all(|&i| i), "{installed:?}");
}

/// The path a command printed, resolved (the build directory may be reached
/// through a symbolic link under another name).
fn printed_path(output: &Output) -> std::path::PathBuf {
    let text = text(&output.stdout);
    std::fs::canonicalize(text.trim_end()).expect("the printed path exists")
}

#[test]
fn path_prints_the_build_directory_or_one_library() {
    let output = run(&["path"]);
    assert!(output.status.success());
    assert_eq!(
        printed_path(&output),
        std::fs::canonicalize(ascendcl_mock::library_dir()).expect("exists")
    );
    let output = run(&["path", "libnnopbase.so"]);
    assert_eq!(
        printed_path(&output),
        std::fs::canonicalize(ascendcl_mock::NNOPBASE_PATH).expect("exists")
    );
}

#[test]
fn bad_arguments_exit_with_status_2_and_say_why() {
    let output = run(&["path", "libcuda.so"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("libascendcl.so"));
    let output = run(&["install"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--prefix"));
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn list_prints_one_line_per_library() {
    let stdout = text(&run(&["list"]).stdout);
    assert_eq!(stdout.lines().count(), ascendcl_mock::LIBRARIES.len());
    assert!(stdout.starts_with("libascendcl.so"), "{stdout}");
}
