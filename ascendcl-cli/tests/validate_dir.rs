//! `ascendcl validate EXPECTED_DIR ACTUAL_DIR`: every tensor by name, one verdict
//! line each, and the first (in name order) that drifts named.

mod validate_common;

use ascendcl_cli::validate::{EXIT_ERROR, EXIT_FAIL, EXIT_PASS};
use validate_common::{temp_dir, validate, write_npy};

fn write(dir: &std::path::Path, name: &str, values: &[f32]) {
    write_npy(&dir.join(name), &format!("({},)", values.len()), values);
}

#[test]
fn a_directory_comparison_names_the_first_layer_that_drifts() {
    let (gpu, npu) = (temp_dir("dir-gpu"), temp_dir("dir-npu"));
    write(&gpu, "01_stem.npy", &[1.0, 2.0, 3.0]);
    write(&npu, "01_stem.npy", &[1.0, 2.0, 3.0]);
    write(&gpu, "02_block.npy", &[1.0, 2.0]);
    write(&npu, "02_block.npy", &[1.0, 2.01]);
    write(&gpu, "03_logits.npy", &[0.5]);
    write(&npu, "03_logits.npy", &[0.7]);
    write(&gpu, "04_missing.npy", &[0.5]);
    write(&npu, "05_extra.npy", &[0.5]);
    let out = validate([gpu.as_os_str(), npu.as_os_str()]);
    assert_eq!(out.exit_code, EXIT_FAIL, "{}{}", out.stdout, out.stderr);
    let line = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("01_stem.npy").ends_with("clean"), "{}", out.stdout);
    assert!(
        line("02_block.npy").ends_with("find-the-operator"),
        "{}",
        out.stdout
    );
    assert!(line("04_missing.npy").contains("missing"), "{}", out.stdout);
    assert!(
        line("05_extra.npy").contains("only in ACTUAL"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("4 tensors, 3 failing; first to drift: 02_block.npy"),
        "{}",
        out.stdout
    );

    let json = validate([gpu.as_os_str(), npu.as_os_str(), "--json".as_ref()]);
    assert!(
        json.stdout.contains("\"first_drift\":\"02_block.npy\""),
        "{}",
        json.stdout
    );
}

#[test]
fn identical_directories_pass_and_a_file_against_a_directory_is_a_usage_error() {
    let (a, b) = (temp_dir("dir-a"), temp_dir("dir-b"));
    write(&a, "x.npy", &[1.0, 2.0]);
    write(&b, "x.npy", &[1.0, 2.0]);
    let out = validate([a.as_os_str(), b.as_os_str()]);
    assert_eq!(out.exit_code, EXIT_PASS, "{}", out.stdout);
    assert!(
        out.stdout.contains("1 tensors, 0 failing; no drift"),
        "{}",
        out.stdout
    );
    let mixed = validate([a.join("x.npy").as_os_str(), b.as_os_str()]);
    assert_eq!(mixed.exit_code, EXIT_ERROR);
}
