//! Loading the DVPP operator library: typed errors for a missing library or
//! symbol (never a panic), symbols resolved from the file opened, and the
//! order of the places tried. Uses a small fake library compiled here with
//! the system C compiler.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

use ascendcl_sys::dvpp::{DVPP_ENV_VAR, DVPP_LIBRARY, Dvpp, candidate_files};
use ascendcl_sys::{
    ACLDVPP_ERR_REPEAT_INITIALIZE, ACLDVPP_SUCCESS, DVPP_FUNCTIONS, LoadError, aclOpExecutor,
    aclTensor,
};

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
    let dir = std::env::temp_dir().join(format!("ascendcl-dvpp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Two of the functions: a second acldvppInit says it repeats, the resize
/// query asks for 64 bytes per interpolation mode and hands back a dummy
/// executor.
const FAKE: &str = r#"
#include <stdint.h>
static int initialised;
int32_t acldvppInit(const char *configPath) {
    if (configPath) return 106002;
    return initialised++ ? 106102 : 0;
}
int32_t acldvppResizeGetWorkspaceSize(const void *self, uint32_t mode, void *out,
                                      uint64_t *workspaceSize, void **executor) {
    (void)self; (void)out;
    *workspaceSize = 64u * (mode + 1);
    *executor = (void *)workspaceSize;
    return 0;
}
"#;

#[test]
fn functions_resolve_from_the_library_and_a_missing_one_is_a_symbol_error() {
    let dir = temp_dir("fake");
    fake_library(&dir, DVPP_LIBRARY, FAKE);
    let dvpp = Dvpp::open(dir.join(DVPP_LIBRARY)).expect("opens");
    assert_eq!(dvpp.path(), dir.join(DVPP_LIBRARY));

    // SAFETY: the fake reads nothing through the null configuration path.
    let first = unsafe { dvpp.acldvppInit(std::ptr::null()) }.expect("resolves");
    assert_eq!(first, ACLDVPP_SUCCESS);
    // SAFETY: as above.
    let again = unsafe { dvpp.acldvppInit(std::ptr::null()) }.expect("resolves");
    assert_eq!(again, ACLDVPP_ERR_REPEAT_INITIALIZE);

    let mut size = 0u64;
    let mut executor: *mut aclOpExecutor = std::ptr::null_mut();
    // SAFETY: the fake only writes the two out-pointers.
    let code = unsafe {
        dvpp.acldvppResizeGetWorkspaceSize(
            std::ptr::null::<aclTensor>(),
            2,
            std::ptr::null_mut(),
            &mut size,
            &mut executor,
        )
    }
    .expect("resolves");
    assert_eq!((code, size), (ACLDVPP_SUCCESS, 192));
    assert!(!executor.is_null());

    // Not exported by the fake: an error naming the symbol and the file, twice
    // (the failed lookup is cached, the error is not a panic).
    for _ in 0..2 {
        // SAFETY: the symbol is missing, so nothing is called.
        let err = unsafe {
            dvpp.acldvppResize(
                std::ptr::null_mut::<c_void>(),
                0,
                executor,
                std::ptr::null_mut(),
            )
        }
        .unwrap_err();
        assert_eq!(err.symbol, "acldvppResize");
        assert_eq!(err.library, dir.join(DVPP_LIBRARY));
        assert!(err.to_string().contains("acldvppResize"), "{err}");
    }
    // SAFETY: the symbol is missing, so nothing is called.
    let finalize = unsafe { dvpp.acldvppFinalize() }.unwrap_err();
    assert_eq!(finalize.symbol, "acldvppFinalize");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_library_without_any_dvpp_symbol_opens_and_every_call_is_a_symbol_error() {
    // The mock's profiler library is a real shared library that exports no
    // acldvpp function.
    let dvpp = Dvpp::open(ascendcl_mock::PROFILER_PATH).expect("opens");
    // SAFETY: the symbols are missing, so nothing is called.
    let err = unsafe { dvpp.acldvppInit(std::ptr::null()) }.unwrap_err();
    assert_eq!(err.symbol, "acldvppInit");
    let mut size = 0u64;
    let mut executor = std::ptr::null_mut();
    // SAFETY: as above.
    let err = unsafe {
        dvpp.acldvppNormalizeGetWorkspaceSize(
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut size,
            &mut executor,
        )
    }
    .unwrap_err();
    assert_eq!(err.symbol, "acldvppNormalizeGetWorkspaceSize");
}

#[test]
fn a_missing_file_is_dvpp_not_found_saying_what_to_do() {
    let missing = std::env::temp_dir().join("ascendcl-dvpp-none/libacl_dvpp_op.so");
    let err = Dvpp::open(&missing).unwrap_err();
    let LoadError::DvppNotFound { attempts } = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].candidate, missing);
    assert_eq!(attempts[0].reason, "no such file");
    assert_eq!(err.attempts(), attempts.as_slice());
    let text = err.to_string();
    assert!(
        text.starts_with("could not load the DVPP operator library"),
        "{text}"
    );
    for needed in [DVPP_ENV_VAR, DVPP_LIBRARY, "mock"] {
        assert!(text.contains(needed), "{needed} missing from: {text}");
    }
}

#[test]
fn the_variable_overrides_every_other_place() {
    let env = |name: &str| match name {
        "ASCENDCL_DVPP_LIBRARY" => Some("/x/libacl_dvpp_op.so".into()),
        "ASCEND_TOOLKIT_HOME" => Some("/opt/cann".into()),
        _ => None,
    };
    let files = candidate_files(&env, Some(Path::new("/rt/libascendcl.so")));
    assert_eq!(
        files,
        vec![(
            PathBuf::from("/x/libacl_dvpp_op.so"),
            DVPP_ENV_VAR.to_string()
        )]
    );
}

#[test]
fn the_functions_are_the_two_phases_of_five_operators_and_init_finalize() {
    assert_eq!(DVPP_FUNCTIONS.len(), 12);
    for op in [
        "DecodeJpeg",
        "CropAndResize",
        "Resize",
        "HorizontalFlip",
        "Normalize",
    ] {
        for name in [
            format!("acldvpp{op}GetWorkspaceSize"),
            format!("acldvpp{op}"),
        ] {
            assert!(DVPP_FUNCTIONS.contains(&name.as_str()), "{name}");
        }
    }
    assert!(DVPP_FUNCTIONS.contains(&"acldvppInit"));
    assert!(DVPP_FUNCTIONS.contains(&"acldvppFinalize"));
}
