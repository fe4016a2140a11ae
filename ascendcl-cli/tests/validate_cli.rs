//! The command line of `ascendcl validate` (`ascendcl_cli::validate::run`):
//! files in, table or JSON out, exit codes 0 (clean/acceptable), 1
//! (investigate/find the operator), 2 (errors).

mod validate_common;

use std::path::Path;

use ascendcl_cli::Output;
use ascendcl_cli::validate::{EXIT_ERROR, EXIT_FAIL, EXIT_PASS};
use validate_common::{temp_dir, validate, write_npy};

fn run(args: &[&str]) -> Output {
    validate(args.iter().copied())
}

/// Runs with file names resolved in `dir` (options and their values as is).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    validate(args.iter().map(|a| {
        if a.ends_with(".npy") || a.ends_with(".bin") {
            dir.join(a).to_string_lossy().into_owned()
        } else {
            a.to_string()
        }
    }))
}

#[test]
fn no_arguments_print_usage_and_exit_2_and_help_exits_0() {
    let out = run(&[]);
    assert_eq!(out.exit_code, EXIT_ERROR);
    assert!(
        out.stderr.contains("Usage: ascendcl validate"),
        "{}",
        out.stderr
    );
    let help = run(&["--help"]);
    assert_eq!(help.exit_code, EXIT_PASS);
    assert!(
        help.stdout.contains("--dtype <f32|f16|bf16|f64>"),
        "{}",
        help.stdout
    );
    assert!(help.stdout.contains("Exit status:"), "{}", help.stdout);
    for bad in [
        &["a.npy"][..],
        &["a", "b", "c"],
        &["a", "b", "--top"],
        &["a", "b", "--top", "many"],
        &["a", "b", "--metric", "max"],
        &["a", "b", "--dtype", "f128"],
        &["a", "b", "--shape", "2,x"],
        &["a", "b", "--thresholds", "1e-3,1e-4,1e-5"],
        &["a", "b", "--rel-floor", "0"],
        &["a", "b", "--frobnicate"],
    ] {
        let out = run(bad);
        assert_eq!(out.exit_code, EXIT_ERROR, "{bad:?}");
        assert!(out.stderr.starts_with("error: "), "{bad:?}: {}", out.stderr);
    }
}

#[test]
fn matching_npy_files_are_clean_with_exit_0_as_table_and_json() {
    let dir = temp_dir("clean");
    let values: Vec<f32> = (0..24).map(|i| i as f32 / 7.0).collect();
    write_npy(&dir.join("gpu.npy"), "(2, 3, 4)", &values);
    let mut npu = values.clone();
    npu[5] += 2e-6; // [0, 1, 1]
    write_npy(&dir.join("npu.npy"), "(2, 3, 4)", &npu);

    let table = run_in(&dir, &["gpu.npy", "npu.npy"]);
    assert_eq!(
        table.exit_code, EXIT_PASS,
        "{}{}",
        table.stdout, table.stderr
    );
    assert!(table.stdout.contains("verdict: CLEAN"), "{}", table.stdout);
    assert!(table.stdout.contains("[0, 1, 1]"), "{}", table.stdout);
    assert!(table.stdout.contains("npy, float32"), "{}", table.stdout);

    let json = run_in(&dir, &["gpu.npy", "npu.npy", "--json", "--top", "1"]);
    assert_eq!(json.exit_code, EXIT_PASS);
    let line = json.stdout.trim_end();
    assert!(
        line.starts_with('{') && line.ends_with('}') && !line.contains('\n'),
        "{line}"
    );
    for needle in [
        "\"verdict\":\"clean\"",
        "\"exit_code\":0",
        "\"shape\":[2,3,4]",
        "\"format\":\"npy\"",
        "\"index\":[0,1,1]",
        "\"passes\":true",
    ] {
        assert!(line.contains(needle), "{needle} not in {line}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_top_beyond_the_element_count_is_clamped_to_it() {
    let dir = temp_dir("top");
    write_npy(&dir.join("gpu.npy"), "(2, 2)", &[1.0, 2.0, 3.0, 4.0]);
    write_npy(&dir.join("npu.npy"), "(2, 2)", &[1.5, 2.25, 3.0, 4.125]);
    for top in ["4294967296", &usize::MAX.to_string()] {
        let out = run_in(&dir, &["gpu.npy", "npu.npy", "--top", top]);
        assert_eq!(out.exit_code, EXIT_FAIL, "{}{}", out.stdout, out.stderr);
        // the three elements that differ, nothing more
        assert!(
            out.stdout.contains("worst 3 element(s)"),
            "--top {top}: {}",
            out.stdout
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn diverging_tensors_exit_1_and_name_the_worst_element() {
    let dir = temp_dir("diverge");
    write_npy(&dir.join("gpu.npy"), "(2, 2)", &[1.0, 2.0, 3.0, 4.0]);
    write_npy(&dir.join("npu.npy"), "(2, 2)", &[1.0, 2.0, 3.0, 4.01]);
    let out = run_in(&dir, &["gpu.npy", "npu.npy"]);
    assert_eq!(out.exit_code, EXIT_FAIL);
    assert!(
        out.stdout.contains("verdict: FIND-THE-OPERATOR"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("[1, 1]"), "{}", out.stdout);

    // Relative metric: 1e-2 / 4 = 2.5e-3, over 1e-3; looser thresholds pass it.
    let out = run_in(&dir, &["gpu.npy", "npu.npy", "--metric", "rel"]);
    assert_eq!(out.exit_code, EXIT_FAIL, "{}", out.stdout);
    let out = run_in(
        &dir,
        &[
            "gpu.npy",
            "npu.npy",
            "--metric=rel",
            "--thresholds",
            "1e-2,2e-2,3e-2",
        ],
    );
    assert_eq!(out.exit_code, EXIT_PASS, "{}", out.stdout);

    write_npy(&dir.join("nan.npy"), "(2, 2)", &[1.0, f32::NAN, 3.0, 4.0]);
    let out = run_in(&dir, &["gpu.npy", "nan.npy", "--json"]);
    assert_eq!(out.exit_code, EXIT_FAIL);
    assert!(
        out.stdout.contains("\"nonfinite_mismatches\":1"),
        "{}",
        out.stdout
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn raw_files_need_dtype_and_shape_and_mix_with_npy() {
    let dir = temp_dir("raw");
    write_npy(
        &dir.join("gpu.npy"),
        "(2, 3)",
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    // bf16 dump of the same values (all exactly representable).
    let bf16: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .flat_map(|v| ((v.to_bits() >> 16) as u16).to_le_bytes())
        .collect();
    std::fs::write(dir.join("npu.bin"), bf16).unwrap();

    let out = run_in(&dir, &["gpu.npy", "npu.bin"]);
    assert_eq!(out.exit_code, EXIT_ERROR);
    assert!(out.stderr.contains("--dtype and --shape"), "{}", out.stderr);

    let out = run_in(
        &dir,
        &["gpu.npy", "npu.bin", "--dtype", "bf16", "--shape", "2,3"],
    );
    assert_eq!(out.exit_code, EXIT_PASS, "{}", out.stderr);
    assert!(out.stdout.contains("raw, bfloat16"), "{}", out.stdout);

    // Wrong dtype for the file size: exit 2 with the sizes.
    let out = run_in(
        &dir,
        &[
            "gpu.npy", "npu.bin", "--dtype", "f32", "--shape", "2,3", "--json",
        ],
    );
    assert_eq!(out.exit_code, EXIT_ERROR);
    assert!(out.stderr.contains("24 bytes"), "{}", out.stderr);
    assert!(out.stdout.starts_with("{\"error\":"), "{}", out.stdout);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn shape_mismatch_and_missing_files_exit_2() {
    let dir = temp_dir("errors");
    write_npy(&dir.join("a.npy"), "(2, 3)", &[0.0; 6]);
    write_npy(&dir.join("b.npy"), "(3, 2)", &[0.0; 6]);
    let out = run_in(&dir, &["a.npy", "b.npy"]);
    assert_eq!(out.exit_code, EXIT_ERROR);
    assert!(
        out.stderr.contains("[2, 3]") && out.stderr.contains("[3, 2]"),
        "{}",
        out.stderr
    );

    let out = run_in(&dir, &["a.npy", "missing.npy"]);
    assert_eq!(out.exit_code, EXIT_ERROR);
    assert!(out.stderr.contains("missing.npy"), "{}", out.stderr);

    let out = run_in(&dir, &["a.npy", "b.npy", "--shape", "6"]);
    assert_eq!(
        out.exit_code, EXIT_ERROR,
        "--shape with two .npy files is a usage error"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
