//! aclInit/aclFinalize reference counting, versions, SoC name and the
//! per-thread error text and last error.

mod common;

use std::ffi::{CStr, CString};

use ascendcl_sys::*;
use common::*;

#[test]
fn second_acl_init_returns_repeat_initialize_and_finalize_resets_the_count() {
    let t = T::new();
    // SAFETY: a null config path is allowed.
    let init = || unsafe { t.lib.aclInit(std::ptr::null()) }.unwrap();
    // SAFETY: no arguments.
    let finalize = || unsafe { t.lib.aclFinalize() }.unwrap();
    assert_eq!(init(), OK);
    assert_eq!(init(), ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(init(), ACL_ERROR_REPEAT_INITIALIZE);
    // one aclFinalize resets the count of 3 to zero
    assert_eq!(finalize(), OK);
    assert_eq!(finalize(), ACL_ERROR_REPEAT_FINALIZE);
    // re-initialization after finalize is allowed
    assert_eq!(init(), OK);
    assert_eq!(finalize(), OK);
    assert_eq!(t.s.call_count("aclInit"), 4);
    assert_eq!(t.s.call_count("aclFinalize"), 3);
    t.assert_clean(0);
}

#[test]
fn finalize_reference_decrements_and_tears_down_at_zero() {
    let t = T::new();
    // SAFETY: a null config path is allowed.
    let init = || unsafe { t.lib.aclInit(std::ptr::null()) }.unwrap();
    let fin_ref = || {
        let mut rc = u64::MAX;
        // SAFETY: `rc` is a valid out-pointer.
        let code = unsafe { t.lib.aclFinalizeReference(&mut rc) }.unwrap();
        (code, rc)
    };
    assert_eq!(init(), OK);
    assert_eq!(init(), ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(fin_ref(), (OK, 1));
    assert_eq!(fin_ref(), (OK, 0));
    assert_eq!(fin_ref().0, ACL_ERROR_REPEAT_FINALIZE);
    // torn down: aclFinalize now reports a repeated finalize
    // SAFETY: no arguments.
    let rc = unsafe { t.lib.aclFinalize() }.unwrap();
    assert_eq!(rc, ACL_ERROR_REPEAT_FINALIZE);
    // a null refCount is allowed
    assert_eq!(init(), OK);
    // SAFETY: refCount may be null in 8.5.
    let rc = unsafe { t.lib.aclFinalizeReference(std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, OK);
    t.assert_clean(0);
}

#[test]
fn acl_init_checks_its_config_file_and_rejects_a_different_one_on_reinit() {
    let t = T::new();
    let dir = std::env::temp_dir().join(format!("aclmock-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    let bad = dir.join("bad.json");
    std::fs::write(&a, "{}").unwrap();
    std::fs::write(&b, "{\"dump\":{}}").unwrap();
    std::fs::write(&bad, "not json").unwrap();
    let init = |p: &std::path::Path| {
        let c = CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a NUL-terminated path.
        unsafe { t.lib.aclInit(c.as_ptr()) }.unwrap()
    };
    assert_eq!(init(&dir.join("missing.json")), ACL_ERROR_INVALID_FILE);
    assert_eq!(init(&bad), ACL_ERROR_PARSE_FILE);
    assert_eq!(init(&a), OK);
    // SAFETY: no arguments.
    assert_eq!(unsafe { t.lib.aclFinalize() }.unwrap(), OK);
    assert_eq!(init(&b), ACL_ERROR_INVALID_PARAM);
    assert!(t.recent_msg().unwrap().contains("different"));
    assert_eq!(init(&a), OK);
    std::fs::remove_dir_all(&dir).unwrap();
    t.assert_clean(0);
}

#[test]
fn runtime_calls_do_not_require_acl_init() {
    let t = T::new();
    assert_eq!(t.set_device(0), OK);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.call_count("aclInit"), 0);
    t.assert_clean(0);
}

#[test]
fn versions_report_interface_1_16_0_cann_8_5_0_and_host_run_mode() {
    let t = T::new();
    let (mut ma, mut mi, mut pa) = (0, 0, 0);
    // SAFETY: three valid out-pointers.
    let rc = unsafe { t.lib.aclrtGetVersion(&mut ma, &mut mi, &mut pa) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!((ma, mi, pa), (1, 16, 0));
    // SAFETY: null outputs are rejected by the runtime.
    let rc = unsafe {
        t.lib
            .aclrtGetVersion(std::ptr::null_mut(), &mut mi, &mut pa)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);

    let mut mode = aclrtRunMode(7);
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtGetRunMode(&mut mode) }.unwrap(), OK);
    assert_eq!(mode, aclrtRunMode::ACL_HOST);

    // SAFETY: all-zero bytes are a valid aclCANNPackageVersion.
    let mut v: aclCANNPackageVersion = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclsysGetCANNVersion(aclCANNPackageName::ACL_PKG_NAME_CANN, &mut v)
    }
    .unwrap();
    assert_eq!(rc, OK);
    // SAFETY: the mock NUL-terminates the field.
    let version = unsafe { CStr::from_ptr(v.version.as_ptr()) }
        .to_str()
        .unwrap();
    assert_eq!(version, "8.5.0");
    // SAFETY: valid out-pointer; the package name is out of range.
    let rc = unsafe { t.lib.aclsysGetCANNVersion(aclCANNPackageName(99), &mut v) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);

    let runtime = CString::new("runtime").unwrap();
    let mut buf = [0 as std::ffi::c_char; ACL_PKG_VERSION_MAX_SIZE as usize];
    // SAFETY: the buffer has ACL_PKG_VERSION_MAX_SIZE bytes.
    let rc = unsafe {
        t.lib
            .aclsysGetVersionStr(runtime.as_ptr().cast_mut(), buf.as_mut_ptr())
    }
    .unwrap();
    assert_eq!(rc, OK);
    // SAFETY: NUL-terminated by the mock.
    let rc = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
    assert_eq!(rc, "8.5.0");
    let mut num = 0;
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclsysGetVersionNum(runtime.as_ptr().cast_mut(), &mut num)
    }
    .unwrap();
    assert_eq!((rc, num), (OK, 80_500_000));
    let unknown = CString::new("no-such-package").unwrap();
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclsysGetVersionNum(unknown.as_ptr().cast_mut(), &mut num)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_FILE);
    t.assert_clean(0);
}

#[test]
fn soc_name_is_the_configured_one_and_null_when_faulted() {
    let t = T::new();
    let name = || {
        // SAFETY: no arguments.
        let p = unsafe { t.lib.aclrtGetSocName() }.unwrap();
        // SAFETY: non-null results are NUL-terminated strings.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
    };
    assert_eq!(name().as_deref(), Some("Ascend910B1"));
    t.s.set_soc_name("Ascend910B4").unwrap();
    assert_eq!(name().as_deref(), Some("Ascend910B4"));
    t.s.inject(&ascendcl_mock::Fault::nth("aclrtGetSocName", 1, 507899))
        .unwrap();
    assert_eq!(name(), None);
    // SAFETY: level 0 is the thread level.
    let last = unsafe {
        t.lib
            .aclrtGetLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap();
    assert_eq!(last, 507899);
    t.assert_clean(0);
}

#[test]
fn recent_error_message_is_returned_once_then_cleared() {
    let t = T::with_device(0);
    assert_eq!(t.recent_msg(), None);
    assert_eq!(t.malloc(0, HUGE_FIRST), Err(ACL_ERROR_INVALID_PARAM));
    let msg = t.recent_msg().expect("a failing call leaves a message");
    assert!(msg.contains("aclrtMalloc"), "{msg}");
    assert!(msg.contains("size is 0"), "{msg}");
    assert!(msg.starts_with("EE1001"), "{msg}");
    assert_eq!(t.recent_msg(), None, "reading clears the message");

    // messages accumulate until read, and belong to the failing thread
    assert_eq!(t.set_device(99), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(t.malloc(0, HUGE_FIRST), Err(ACL_ERROR_INVALID_PARAM));
    let lib = t.lib;
    let other = std::thread::spawn(move || {
        // SAFETY: no arguments.
        unsafe { lib.aclGetRecentErrMsg() }.unwrap().is_null()
    })
    .join()
    .unwrap();
    assert!(other, "another thread has no message");
    let both = t.recent_msg().unwrap();
    assert!(
        both.contains("device id 99") && both.contains("size is 0"),
        "{both}"
    );
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn last_error_is_peeked_without_clearing_and_got_with_clearing() {
    let t = T::with_device(0);
    let level = aclrtLastErrLevel::ACL_RT_THREAD_LEVEL;
    // SAFETY: plain enum argument.
    let peek = || unsafe { t.lib.aclrtPeekAtLastError(level) }.unwrap();
    // SAFETY: plain enum argument.
    let get = || unsafe { t.lib.aclrtGetLastError(level) }.unwrap();
    assert_eq!(get(), OK);
    assert_eq!(t.set_device(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    // a later success does not clear it
    assert_eq!(t.set_device(0), OK);
    assert_eq!(peek(), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(peek(), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(get(), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(get(), OK);
    // SAFETY: an unknown level is rejected.
    let rc = unsafe { t.lib.aclrtGetLastError(aclrtLastErrLevel(3)) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
