//! The process-wide init guard. These tests change ACL's init state, so they
//! live in their own test binary (their own process) and take the mock lock.

use ascendcl::{Device, Error, Runtime};

#[test]
fn init_happens_once_finalize_is_explicit_and_refused_while_objects_live() {
    let session = ascendcl_mock::session();
    let lib = session.library();

    let rt = Runtime::with_library(lib).unwrap();
    assert!(rt.owns_init());
    let again = Runtime::with_library(lib).unwrap();
    assert_eq!(
        session.call_count("aclInit"),
        1,
        "a second Runtime shares the first init"
    );

    // Live objects (including the second handle) block finalizing.
    let device = Device::open(&rt, 0).unwrap();
    let refused = rt.clone().finalize().unwrap_err();
    assert!(matches!(refused, Error::InvalidState(_)), "{refused:?}");
    assert!(refused.to_string().contains("still alive"), "{refused}");
    assert_eq!(session.call_count("aclFinalize"), 0);

    drop((device, again));
    rt.finalize().unwrap();
    assert_eq!(session.call_count("aclFinalize"), 1);

    // Initialising again after finalizing is allowed.
    let rt = Runtime::with_library(lib).unwrap();
    assert_eq!(session.call_count("aclInit"), 2);
    rt.finalize().unwrap();
    assert_eq!(session.call_count("aclFinalize"), 2);
    assert!(session.live_counts().is_empty());
    assert_eq!(session.misuse_total(), 0, "{}", session.misuse_log());
}

#[test]
fn acl_initialised_by_someone_else_is_used_but_never_finalized_by_us() {
    let session = ascendcl_mock::session();
    let lib = session.library();
    // Another component of the process initialised ACL first.
    // SAFETY: a null config path is allowed.
    assert_eq!(unsafe { lib.aclInit(std::ptr::null()) }.unwrap(), 0);

    let rt = Runtime::with_library(lib).unwrap();
    assert!(!rt.owns_init(), "aclInit answered REPEAT_INITIALIZE");
    let device = Device::open(&rt, 0).unwrap();
    drop(device);
    rt.finalize().unwrap();
    assert_eq!(
        session.call_count("aclFinalize"),
        0,
        "finalizing is the other component's job"
    );

    // SAFETY: the other component finalizes its own init.
    assert_eq!(unsafe { lib.aclFinalize() }.unwrap(), 0);
}

#[test]
fn a_failing_acl_init_is_a_typed_error_and_leaves_nothing_initialised() {
    let session = ascendcl_mock::session();
    session
        .inject(&ascendcl_mock::Fault::nth("aclInit", 1, 500001))
        .unwrap();
    let err = Runtime::with_library(session.library()).unwrap_err();
    assert_eq!(err.code(), Some(500001));
    assert_eq!(err.code_name(), Some("ACL_ERROR_FAILURE"));
    // The next attempt initialises for real.
    let rt = Runtime::with_library(session.library()).unwrap();
    assert!(rt.owns_init());
    rt.finalize().unwrap();
}

/// A profiling session keeps a runtime handle while it runs and gives it
/// back when it ends: finalizing afterwards is not refused for a clone
/// still alive.
#[test]
fn a_finished_profiling_session_leaves_no_runtime_handle_behind() {
    let session = ascendcl_mock::session();
    let lib = session.library();
    let rt = Runtime::with_library(lib).unwrap();
    let dir = std::env::temp_dir().join(format!("ascendcl-lifecycle-prof-{}", std::process::id()));
    let config = ascendcl::profiling::ProfileConfig::new(&dir);
    ascendcl::profiling::profile(&rt, &config, || ()).unwrap();
    assert_eq!(session.call_count("aclprofFinalize"), 1);
    rt.finalize().unwrap();
    assert_eq!(session.call_count("aclFinalize"), 1);
    let _ = std::fs::remove_dir_all(dir);
}
