//! Loading the aclnn libraries: which directory, which library each symbol
//! comes from, and typed errors for what is missing. Uses small fake
//! libraries compiled here with the system C compiler.

use std::path::{Path, PathBuf};
use std::process::Command;

use ascendcl_sys::aclnn::{Aclnn, NNOPBASE, candidate_dirs};
use ascendcl_sys::{LoadError, aclOpExecutor, aclTensor};

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
    let dir = std::env::temp_dir().join(format!("ascendcl-aclnn-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const NNOPBASE_SOURCE: &str = "int aclDestroyTensor(const void *t) { (void)t; return 7; }\n";
/// The phase-1 function of Add in every op library, returning which library
/// answered; the phase-2 function only in some.
fn add_phase1(tag: i32) -> String {
    format!(
        "int aclnnAddGetWorkspaceSize(const void *a, const void *b, const void *c, void *d, \
         unsigned long *ws, void **ex) {{ (void)a; (void)b; (void)c; (void)d; (void)ex; *ws = 0; return {tag}; }}\n"
    )
}
const ADD_PHASE2: &str = "int aclnnAdd(void *w, unsigned long s, void *e, void *st) { (void)w; (void)s; (void)e; (void)st; return 0; }\n";
const MUL_BOTH: &str =
    "int aclnnMulGetWorkspaceSize(void) { return 99; }\nint aclnnMul(void) { return 99; }\n";

fn call_add_phase1(aclnn: &Aclnn) -> i32 {
    let mut workspace = 1u64;
    let mut executor: *mut aclOpExecutor = std::ptr::null_mut();
    // SAFETY: the fake functions only write the workspace size.
    unsafe {
        aclnn.aclnnAddGetWorkspaceSize(
            std::ptr::null::<aclTensor>(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut workspace,
            &mut executor,
        )
    }
    .expect("phase 1 resolves")
}

#[test]
fn operators_resolve_from_the_split_libraries_first_then_libopapi_never_the_legacy_ones() {
    let dir = temp_dir("order");
    fake_library(&dir, NNOPBASE, NNOPBASE_SOURCE);
    fake_library(&dir, "libopapi_math.so", &add_phase1(1));
    fake_library(&dir, "libopapi.so", &(add_phase1(2) + ADD_PHASE2));
    // A legacy library exporting Mul: must never be used.
    fake_library(&dir, "libaclnn_math.so", MUL_BOTH);
    let aclnn = Aclnn::open_dir(&dir).expect("opens");
    let opened: Vec<_> = aclnn
        .op_libraries()
        .map(|p| p.file_name().unwrap().to_owned())
        .collect();
    assert_eq!(opened, ["libopapi_math.so", "libopapi.so"]);
    assert_eq!(
        call_add_phase1(&aclnn),
        1,
        "the split library answers first"
    );
    aclnn
        .require_op("Add")
        .expect("both Add functions resolve across libraries");
    let mul = aclnn
        .require_op("Mul")
        .expect_err("Mul only exists in a legacy library");
    assert_eq!(mul.symbol, "aclnnMulGetWorkspaceSize");
    assert!(
        mul.reason.contains("libopapi_math.so, libopapi.so"),
        "{mul}"
    );
    // SAFETY: the fake destroy ignores its argument.
    assert_eq!(unsafe { aclnn.aclDestroyTensor(std::ptr::null()) }, Ok(7));
}

#[test]
fn an_operator_with_only_one_of_its_two_functions_is_not_usable() {
    let dir = temp_dir("half");
    fake_library(&dir, NNOPBASE, NNOPBASE_SOURCE);
    fake_library(&dir, "libopapi.so", &add_phase1(3));
    let aclnn = Aclnn::open_dir(&dir).expect("opens");
    let error = aclnn.require_op("Add").expect_err("aclnnAdd is missing");
    assert_eq!(error.symbol, "aclnnAdd");
    // A descriptor function the fake nnopbase lacks is an error too, not a panic.
    // SAFETY: never called: the symbol does not resolve.
    let missing = unsafe { aclnn.aclDestroyScalar(std::ptr::null()) };
    assert_eq!(missing.unwrap_err().symbol, "aclDestroyScalar");
}

#[test]
fn a_directory_without_nnopbase_or_op_libraries_is_a_typed_error_listing_what_was_tried() {
    let dir = temp_dir("empty");
    let error = Aclnn::open_dir(&dir).expect_err("nothing there");
    assert!(matches!(error, LoadError::AclnnNotFound { .. }));
    assert_eq!(error.attempts()[0].candidate, dir.join(NNOPBASE));
    let text = error.to_string();
    assert!(text.contains("ASCENDCL_ACLNN_DIR"), "{text}");

    fake_library(&dir, NNOPBASE, NNOPBASE_SOURCE);
    let error = Aclnn::open_dir(&dir).expect_err("no op library");
    let tried: Vec<_> = error
        .attempts()
        .iter()
        .map(|a| a.candidate.clone())
        .collect();
    assert_eq!(
        tried.len(),
        ascendcl_sys::aclnn::OPAPI_LIBRARIES.len(),
        "every op library name was tried: {tried:?}"
    );
    assert!(tried.ends_with(&[dir.join("libopapi.so")]));
}

#[test]
fn the_env_override_is_the_only_directory_and_the_runtime_directory_comes_before_cann() {
    let env = |name: &str| (name == "ASCENDCL_ACLNN_DIR").then(|| "/opt/ops".into());
    let dirs = candidate_dirs(&env, Some(Path::new("/x/lib64/libascendcl.so")));
    assert_eq!(dirs.len(), 1);
    assert_eq!(dirs[0].0, Path::new("/opt/ops"));

    let env = |name: &str| (name == "ASCEND_TOOLKIT_HOME").then(|| "/cann".into());
    let dirs = candidate_dirs(&env, Some(Path::new("/mock/out/libascendcl.so")));
    assert_eq!(dirs[0].0, Path::new("/mock/out"));
    assert!(
        dirs.iter().any(|(d, _)| d == Path::new("/cann/lib64")),
        "{dirs:?}"
    );
}

#[test]
fn every_declared_aclnn_function_is_loadable_and_every_loadable_one_is_declared() {
    let declarations = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bindings/aclnn_functions.rs"),
    )
    .unwrap();
    let mut declared: Vec<&str> = declarations
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .map(|rest| rest.split('(').next().unwrap())
        .collect();
    let mut loadable = ascendcl_sys::ACLNN_FUNCTIONS.to_vec();
    declared.sort_unstable();
    loadable.sort_unstable();
    assert_eq!(declared, loadable);
}

// ------------------------------------------------ operators III, attention batch

#[test]
fn flash_attention_resolves_from_libopapi_transformer_before_the_aggregate() {
    let dir = temp_dir("transformer");
    fake_library(&dir, NNOPBASE, NNOPBASE_SOURCE);
    let fa = |tag: i32| {
        format!(
            "int aclnnFlashAttentionScoreGetWorkspaceSize(void) {{ return {tag}; }}\n\
             int aclnnFlashAttentionScore(void) {{ return {tag}; }}\n"
        )
    };
    fake_library(&dir, "libopapi_transformer.so", &fa(5));
    fake_library(&dir, "libopapi.so", &(fa(6) + &add_phase1(2) + ADD_PHASE2));
    let aclnn = Aclnn::open_dir(&dir).expect("opens");
    let opened: Vec<_> = aclnn
        .op_libraries()
        .map(|p| p.file_name().unwrap().to_owned())
        .collect();
    assert_eq!(opened, ["libopapi_transformer.so", "libopapi.so"]);
    aclnn
        .require_op("FlashAttentionScore")
        .expect("both functions resolve");
    let mut layout = *b"BSH\0";
    let status = {
        let mut ws = 0u64;
        let mut ex: *mut aclOpExecutor = std::ptr::null_mut();
        let null = std::ptr::null::<aclTensor>();
        // SAFETY: the fake phase 1 reads no argument.
        unsafe {
            aclnn.aclnnFlashAttentionScoreGetWorkspaceSize(
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                std::ptr::null(),
                1.0,
                1.0,
                0,
                0,
                1,
                layout.as_mut_ptr().cast(),
                0,
                0,
                null,
                null,
                null,
                null,
                &mut ws,
                &mut ex,
            )
        }
    };
    assert_eq!(status, Ok(5), "libopapi_transformer.so answers first");
    // Add is only in the aggregate: still found there.
    assert_eq!(call_add_phase1(&aclnn), 2);
}
