//! The downstream crate's tests, on the mock: no card, no CANN.

use ascendcl::Runtime;
use ascendcl::mock::Fault;
use ascendcl::sys::ACL_ERROR_RT_MEMORY_ALLOCATION;
use ascendcl_downstream_example::load;

const MODEL: &[(&str, &[f32])] = &[
    ("w1", &[0.5, 0.25]),
    ("b1", &[1.0]),
    ("w2", &[2.0, 2.0, 2.0]),
];

#[test]
fn load_uploads_every_tensor_unchanged() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let (device, weights) = load(&rt, MODEL)?;
    assert_eq!(weights.tensors.len(), 3);
    assert_eq!(weights.checksum()?, 7.75);
    drop((weights, device));
    rt.check_clean()
}

#[test]
fn load_running_out_of_device_memory_midway_frees_what_it_uploaded() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    // The third allocation fails as a full card's would.
    rt.inject(Fault::nth("aclrtMalloc", 3, ACL_ERROR_RT_MEMORY_ALLOCATION))?;
    let error = load(&rt, MODEL).unwrap_err();
    assert_eq!(
        error.code(),
        Some(ACL_ERROR_RT_MEMORY_ALLOCATION),
        "{error}"
    );
    // The journal shows the two buffers were freed on the error path.
    assert_eq!(rt.mock().call_count("aclrtMalloc"), 3);
    assert_eq!(rt.mock().call_count("aclrtFree"), 2);
    rt.check_clean()
}

#[test]
fn load_on_a_card_too_small_for_the_model_fails_cleanly() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    rt.mock().set_hbm_bytes(4 << 20)?; // before any device is opened
    let big = vec![0.0f32; 2 << 20]; // 8 MiB
    let error = load(&rt, &[("small", &[1.0]), ("big", &big)]).unwrap_err();
    assert_eq!(
        error.code(),
        Some(ACL_ERROR_RT_MEMORY_ALLOCATION),
        "{error}"
    );
    rt.check_clean()
}

#[test]
fn a_failing_main_prints_the_message_and_hints_not_a_debug_dump() {
    // The program's `fn main() -> ascendcl::Result<()>`, with no library to load.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ascendcl-downstream-example"))
        .env("ASCENDCL_LIBRARY", "/nonexistent/libascendcl.so")
        .output()
        .expect("the program runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("Error: could not load the AscendCL runtime library; tried:\n"),
        "{stderr}"
    );
    for needle in [
        "/nonexistent/libascendcl.so (from ASCENDCL_LIBRARY)",
        "Set ASCENDCL_LIBRARY",
        "ascendcl doctor",
    ] {
        assert!(stderr.contains(needle), "{needle} not in {stderr}");
    }
    assert!(!stderr.contains("NotFound {"), "a Debug dump: {stderr}");
}
