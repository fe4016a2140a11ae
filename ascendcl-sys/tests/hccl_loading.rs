//! Loading the HCCL libraries: which directory, which library each symbol
//! comes from (libhccl first, then libhcomm), and typed errors for what is
//! missing. Uses small fake libraries compiled here with the system C compiler.

use std::path::{Path, PathBuf};
use std::process::Command;

use ascendcl_sys::hccl::{HCCL_LIBRARY, HCOMM_LIBRARY, Hccl, candidate_dirs};
use ascendcl_sys::{HcclComm, HcclResult, LoadError};

/// Compiles `source` into `dir/name`.
fn fake_library(dir: &Path, name: &str, source: &str) {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join(name))
        .arg(&c)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "compiling {name}");
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-hccl-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `HcclGetRankSize` writing `size`, so a test can tell which library answered.
fn rank_size(size: u32) -> String {
    format!("int HcclGetRankSize(void *c, unsigned *n) {{ (void)c; *n = {size}; return 0; }}\n")
}
const ALL_REDUCE: &str = "int HcclAllReduce(void *s, void *r, unsigned long n, int t, int o, \
    void *c, void *st) { (void)s; (void)r; (void)n; (void)t; (void)o; (void)c; (void)st; return 5; }\n";
const DESTROY: &str = "int HcclCommDestroy(void *c) { (void)c; return 20; }\n";

fn call_rank_size(hccl: &Hccl) -> u32 {
    let mut size = 0u32;
    // SAFETY: the fake function only writes `size`.
    let code = unsafe { hccl.HcclGetRankSize(std::ptr::null_mut(), &mut size) }.expect("resolves");
    assert_eq!(code, HcclResult::HCCL_SUCCESS);
    size
}

#[test]
fn symbols_resolve_from_libhccl_first_then_from_libhcomm() {
    let dir = temp_dir("order");
    fake_library(&dir, HCCL_LIBRARY, &format!("{}{ALL_REDUCE}", rank_size(1)));
    fake_library(&dir, HCOMM_LIBRARY, &format!("{}{DESTROY}", rank_size(2)));
    let hccl = Hccl::open_dir(&dir).expect("opens");
    assert!(hccl.has_hcomm());
    assert_eq!(call_rank_size(&hccl), 1, "libhccl.so answers first");
    // SAFETY: the fake functions ignore their arguments.
    let destroy =
        unsafe { hccl.HcclCommDestroy(std::ptr::null_mut::<std::ffi::c_void>() as HcclComm) };
    assert_eq!(
        destroy.unwrap(),
        HcclResult::HCCL_E_AGAIN,
        "from libhcomm.so"
    );
    // SAFETY: as above.
    let reduce = unsafe {
        hccl.HcclAllReduce(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            ascendcl_sys::HcclDataType::HCCL_DATA_TYPE_FP32,
            ascendcl_sys::HcclReduceOp::HCCL_REDUCE_SUM,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(reduce.unwrap(), HcclResult::HCCL_E_NOT_SUPPORT);
}

#[test]
fn without_libhcomm_everything_resolves_from_libhccl_and_a_missing_symbol_is_an_error() {
    let dir = temp_dir("single");
    fake_library(&dir, HCCL_LIBRARY, &rank_size(7));
    let hccl = Hccl::open_dir(&dir).expect("opens");
    assert!(!hccl.has_hcomm());
    assert_eq!(call_rank_size(&hccl), 7);
    // An optional function neither library exports: an error, not a panic,
    // and the same error on every later call.
    for _ in 0..2 {
        // SAFETY: never called: the symbol does not resolve.
        let missing = unsafe { hccl.HcclGroupStart() }.unwrap_err();
        assert_eq!(missing.symbol, "HcclGroupStart");
        assert!(
            missing.reason.contains("no libhcomm.so"),
            "{}",
            missing.reason
        );
    }
    let error = hccl.require_function("HcclBatchSendRecv").unwrap_err();
    assert_eq!(error.symbol, "HcclBatchSendRecv");
    assert!(hccl.require_function("HcclGetRankSize").is_ok());
    assert_eq!(
        hccl.require_function("NotAnHcclFunction")
            .unwrap_err()
            .symbol,
        "(unknown)"
    );
}

#[test]
fn a_missing_symbol_names_both_libraries_searched() {
    let dir = temp_dir("both");
    fake_library(&dir, HCCL_LIBRARY, ALL_REDUCE);
    fake_library(&dir, HCOMM_LIBRARY, DESTROY);
    let hccl = Hccl::open_dir(&dir).expect("opens");
    let error = hccl.require_function("HcclGetRootInfo").unwrap_err();
    assert!(error.reason.contains(HCCL_LIBRARY), "{}", error.reason);
    assert!(error.reason.contains(HCOMM_LIBRARY), "{}", error.reason);
    assert!(error.to_string().contains("HcclGetRootInfo"));
}

#[test]
fn a_directory_without_libhccl_is_a_typed_error_listing_what_was_tried() {
    let dir = temp_dir("empty");
    // libhcomm alone is not enough: the collectives live in libhccl.
    fake_library(&dir, HCOMM_LIBRARY, DESTROY);
    let error = Hccl::open_dir(&dir).expect_err("no libhccl.so");
    assert!(matches!(error, LoadError::HcclNotFound { .. }));
    assert_eq!(error.attempts().len(), 1);
    assert_eq!(error.attempts()[0].candidate, dir.join(HCCL_LIBRARY));
    let text = error.to_string();
    assert!(text.contains("ASCENDCL_HCCL_DIR"), "{text}");
    assert!(text.contains(&dir.display().to_string()), "{text}");
}

#[test]
fn the_env_override_is_the_only_directory_and_the_runtime_directory_comes_before_cann() {
    let env = |name: &str| (name == "ASCENDCL_HCCL_DIR").then(|| "/opt/hccl".into());
    let dirs = candidate_dirs(&env, Some(Path::new("/x/lib64/libascendcl.so")));
    assert_eq!(dirs.len(), 1);
    assert_eq!(dirs[0].0, Path::new("/opt/hccl"));

    let env = |name: &str| (name == "ASCEND_TOOLKIT_HOME").then(|| "/cann".into());
    let dirs = candidate_dirs(&env, Some(Path::new("/mock/out/libascendcl.so")));
    assert_eq!(dirs[0].0, Path::new("/mock/out"));
    let cann = dirs
        .iter()
        .position(|(d, _)| d == Path::new("/cann/lib64"))
        .expect("CANN's lib64 is tried");
    assert!(cann > 0);
    assert!(dirs[cann].1.contains("ASCEND_TOOLKIT_HOME"), "{dirs:?}");
}
