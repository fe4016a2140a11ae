//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): device memory
//! and notifies shared between processes (aclrtIpcMem*, aclrtNotify*Key,
//! *SetImportPid), as runtime samples memory/10, memory/11, notify/0 and
//! notify/1 use them. The tests that share run a second process (this test
//! binary again) that imports what the first exported. Each test cites the
//! lines of the rule it checks; what the closed driver decides is the mock's
//! (docs/mock-conformance.md).

mod common;

use std::ffi::{CStr, CString, c_char, c_void};
use std::time::Duration;

use ascendcl_sys::*;
use common::*;

const SHARED: &str =
    "memory_and_a_notify_exported_without_pid_validation_are_shared_with_another_process";
const REFUSED: &str = "a_process_not_on_the_whitelist_cannot_import";

fn export_mem(t: &T, p: *mut c_void, size: usize, flags: u64) -> Result<String, i32> {
    let mut key = [0 as c_char; 65];
    // SAFETY: a 65-byte key buffer; the mock checks the address.
    let rc = unsafe {
        t.lib
            .aclrtIpcMemGetExportKey(p, size, key.as_mut_ptr(), key.len(), flags)
    }
    .unwrap();
    if rc != OK {
        return Err(rc);
    }
    // SAFETY: the mock wrote a NUL-terminated key.
    Ok(unsafe { CStr::from_ptr(key.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned())
}

fn export_notify(t: &T, n: aclrtNotify, flags: u64) -> String {
    let mut key = [0 as c_char; 65];
    // SAFETY: a 65-byte key buffer and a live notify.
    let rc = unsafe {
        t.lib
            .aclrtNotifyGetExportKey(n, key.as_mut_ptr(), key.len(), flags)
    }
    .unwrap();
    assert_eq!(rc, OK);
    // SAFETY: the mock wrote a NUL-terminated key.
    unsafe { CStr::from_ptr(key.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned()
}

fn import_mem(t: &T, key: &str) -> Result<*mut c_void, i32> {
    let k = CString::new(key).unwrap();
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a NUL-terminated key.
    let rc = unsafe { t.lib.aclrtIpcMemImportByKey(&mut p, k.as_ptr(), 0) }.unwrap();
    if rc == OK { Ok(p) } else { Err(rc) }
}

fn import_notify(t: &T, key: &str) -> Result<aclrtNotify, i32> {
    let k = CString::new(key).unwrap();
    let mut n: aclrtNotify = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a NUL-terminated key.
    let rc = unsafe { t.lib.aclrtNotifyImportByKey(&mut n, k.as_ptr(), 0) }.unwrap();
    if rc == OK { Ok(n) } else { Err(rc) }
}

fn close(t: &T, key: &str) -> i32 {
    let k = CString::new(key).unwrap();
    // SAFETY: a NUL-terminated key.
    unsafe { t.lib.aclrtIpcMemClose(k.as_ptr()) }.unwrap()
}

fn create_notify(t: &T) -> aclrtNotify {
    let mut n: aclrtNotify = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtCreateNotify(&mut n, 0) }.unwrap(), OK);
    n
}

fn destroy_notify(t: &T, n: aclrtNotify) -> i32 {
    // SAFETY: the mock checks the handle.
    unsafe { t.lib.aclrtDestroyNotify(n) }.unwrap()
}

/// The importing side of the sharing test, in the child process: reads what
/// the parent wrote, writes its own bytes, records the shared notify.
fn importer(keys: (&str, &str)) {
    let t = T::with_device(1);
    let p = import_mem(&t, keys.0).unwrap();
    assert_eq!(t.download(p, 4), [1, 2, 3, 4], "the exporter's bytes");
    assert_eq!(t.upload(p, &[9; 16]), OK);
    let n = import_notify(&t, keys.1).unwrap();
    // SAFETY: a live notify; NULL is the default stream.
    let rc = unsafe { t.lib.aclrtRecordNotify(n, std::ptr::null_mut()) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(
        t.free(p),
        ACL_ERROR_RT_PARAM_INVALID,
        "an import is closed, not freed"
    );
    assert_eq!(close(&t, keys.0), OK);
    assert_eq!(destroy_notify(&t, n), OK);
}

/// api_impl.cc:4332-4353 (export; DISABLE_PID_VALIDATION drops the
/// whitelist), 4385-4407 (import), 4423-4438 (close: the importer unmaps,
/// the exporter destroys the key); notify.cc:314-345, api_impl.cc:4736-4780:
/// a notify exported with DISABLE_PID_VALIDATION (2) is imported and
/// recorded by the other process, which releases a wait queued here.
#[test]
fn memory_and_a_notify_exported_without_pid_validation_are_shared_with_another_process() {
    if is_child(SHARED) {
        let (m, n) = (
            std::env::var("KEY_M").unwrap(),
            std::env::var("KEY_N").unwrap(),
        );
        importer((&m, &n));
        return;
    }
    let t = T::with_device(0);
    let p = t.malloc(4096, HUGE_FIRST).unwrap();
    let mut bytes = vec![0u8; 4096];
    bytes[..4].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(t.upload(p, &bytes), OK);
    let key_m = export_mem(
        &t,
        p,
        4096,
        ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION as u64,
    )
    .unwrap();
    let n = create_notify(&t);
    let key_n = export_notify(&t, n, 2);
    let s = t.create_stream().unwrap();
    // SAFETY: a live notify and stream.
    let rc = unsafe { t.lib.aclrtWaitAndResetNotify(n, s, 0) }.unwrap();
    assert_eq!(rc, OK);
    let child = run_child_within(
        SHARED,
        &[("KEY_M", &key_m), ("KEY_N", &key_n)],
        Duration::from_secs(60),
    )
    .expect("the importing process finishes");
    assert!(
        child.status.success(),
        "importer: {}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert_eq!(
        t.sync_stream(s),
        OK,
        "the other process's record released the wait"
    );
    assert_eq!(t.download(p, 16), [9; 16], "the importer's bytes");
    assert_eq!(close(&t, &key_m), OK);
    assert_eq!(
        close(&t, &key_m),
        ACL_ERROR_RT_PARAM_INVALID,
        "already destroyed"
    );
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(destroy_notify(&t, n), OK);
    t.assert_clean(1);
}

/// Without DISABLE_PID_VALIDATION only the pids of aclrt*SetImportPid may
/// import (acl_rt.h:3773; the whitelist is the driver's: 107000, a mock
/// decision); a key its exporter closed cannot be imported either.
#[test]
fn a_process_not_on_the_whitelist_cannot_import() {
    if is_child(REFUSED) {
        let t = T::with_device(1);
        for key in ["KEY_M", "KEY_CLOSED"] {
            let k = std::env::var(key).unwrap();
            assert_eq!(
                import_mem(&t, &k).unwrap_err(),
                ACL_ERROR_RT_PARAM_INVALID,
                "{key}"
            );
        }
        let k = std::env::var("KEY_N").unwrap();
        assert_eq!(
            import_notify(&t, &k).unwrap_err(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        return;
    }
    let t = T::with_device(0);
    // the mock exports whole pages: a spacer keeps the two blocks on different ones
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    let spacer = t.malloc(8192, HUGE_FIRST).unwrap();
    let q = t.malloc(64, HUGE_FIRST).unwrap();
    let key_m = export_mem(&t, p, 64, 0).unwrap();
    let key_closed = export_mem(&t, q, 64, 1).unwrap();
    assert_eq!(close(&t, &key_closed), OK);
    let n = create_notify(&t);
    let key_n = export_notify(&t, n, 0);
    let env = [
        ("KEY_M", key_m.as_str()),
        ("KEY_CLOSED", key_closed.as_str()),
        ("KEY_N", key_n.as_str()),
    ];
    let child =
        run_child_within(REFUSED, &env, Duration::from_secs(60)).expect("the child finishes");
    assert!(
        child.status.success(),
        "child: {}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert_eq!(close(&t, &key_m), OK);
    for x in [p, spacer, q] {
        assert_eq!(t.free(x), OK);
    }
    assert_eq!(destroy_notify(&t, n), OK);
    t.assert_clean(1);
}

/// memory.cpp:1662-1663, 1676, 1689-1690, 1722-1723 (null -> 100000);
/// api_error.cc:2923-2928 (size 0, len 0, flags > 1 -> 107000), 2986-2989
/// (import flags > 1), 2975-2978 (num <= 0); notify.cpp:123-124, 140-145
/// (null, import flags > 1 -> 100000), api_error.cc:3462, 3471-3473 (len 0,
/// export flag not 0 or 2 -> 107000). A process cannot import its own key,
/// nor export a block twice (mock).
#[test]
fn ipc_calls_check_null_sizes_and_flags_in_the_runtimes_order() {
    let t = T::with_device(0);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    let null = std::ptr::null_mut();
    let mut key = [0 as c_char; 65];
    let k = key.as_mut_ptr();
    // SAFETY: every call is refused before it writes (null or zero arguments).
    unsafe {
        assert_eq!(
            t.lib.aclrtIpcMemGetExportKey(null, 64, k, 65, 0).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib
                .aclrtIpcMemGetExportKey(p, 64, null.cast(), 65, 0)
                .unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib.aclrtIpcMemGetExportKey(p, 0, k, 65, 0).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            t.lib.aclrtIpcMemGetExportKey(p, 64, k, 0, 0).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            t.lib.aclrtIpcMemGetExportKey(p, 64, k, 65, 2).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            t.lib.aclrtIpcMemGetExportKey(p, 64, k, 4, 0).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID,
            "short key"
        );
        assert_eq!(
            t.lib.aclrtIpcMemClose(null.cast()).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib.aclrtIpcMemImportByKey(null.cast(), k, 0).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        let mut pid = 1;
        assert_eq!(
            t.lib
                .aclrtIpcMemSetImportPid(null.cast(), &mut pid, 1)
                .unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib.aclrtDeviceGetBareTgid(null.cast()).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
    }
    let key_m = export_mem(&t, p, 64, 0).unwrap();
    assert_eq!(
        export_mem(&t, p, 64, 0).unwrap_err(),
        ACL_ERROR_RT_PARAM_INVALID,
        "exported twice"
    );
    let km = CString::new(key_m.clone()).unwrap();
    let mut pid = std::process::id() as i32;
    // SAFETY: a NUL-terminated key and one pid.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtIpcMemSetImportPid(km.as_ptr(), &mut pid, 0)
                .unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            t.lib
                .aclrtIpcMemSetImportPid(km.as_ptr(), &mut pid, 1)
                .unwrap(),
            OK
        );
        let mut x = null;
        assert_eq!(
            t.lib
                .aclrtIpcMemImportByKey(&mut x, km.as_ptr(), 2)
                .unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut tgid = 0;
        assert_eq!(t.lib.aclrtDeviceGetBareTgid(&mut tgid).unwrap(), OK);
        assert_eq!(tgid, pid);
    }
    assert_eq!(
        import_mem(&t, &key_m).unwrap_err(),
        ACL_ERROR_RT_PARAM_INVALID,
        "its own key"
    );
    let n = create_notify(&t);
    // SAFETY: a live notify; the calls are refused before they write.
    unsafe {
        assert_eq!(
            t.lib
                .aclrtNotifyGetExportKey(n, null.cast(), 65, 0)
                .unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib.aclrtNotifyGetExportKey(n, k, 0, 0).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            t.lib.aclrtNotifyGetExportKey(n, k, 65, 1).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut m = null;
        assert_eq!(
            t.lib.aclrtNotifyImportByKey(&mut m, k, 2).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            t.lib.aclrtNotifySetImportPid(n, &mut pid, 1).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID,
            "not exported"
        );
    }
    let key_n = export_notify(&t, n, 0);
    // SAFETY: a live notify, exported once already.
    let again = unsafe { t.lib.aclrtNotifyGetExportKey(n, k, 65, 0) }.unwrap();
    assert_eq!(again, ACL_ERROR_RT_PARAM_INVALID, "exported twice");
    assert_eq!(
        import_notify(&t, &key_n).unwrap_err(),
        ACL_ERROR_RT_PARAM_INVALID,
        "its own key"
    );
    assert_eq!(close(&t, &key_m), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(destroy_notify(&t, n), OK);
    t.assert_clean(1);
}

const PHYS: &str =
    "a_physical_allocation_exported_as_a_shareable_handle_is_mapped_by_another_process";

fn phys_prop(dev: u32) -> aclrtPhysicalMemProp {
    // SAFETY: a plain C struct for which all zeroes is a valid value.
    let mut prop: aclrtPhysicalMemProp = unsafe { std::mem::zeroed() };
    prop.handleType = aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = aclrtMemAllocationType::ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = aclrtMemAttr::ACL_HBM_MEM_HUGE;
    prop.location.type_ = aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop
}

/// Maps `handle` at a new reservation: (address, reservation).
fn map(t: &T, handle: aclrtDrvMemHandle, size: usize) -> *mut c_void {
    let mut va: *mut c_void = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; a live physical handle of `size` bytes.
    unsafe {
        let rc = t
            .lib
            .aclrtReserveMemAddress(&mut va, size, 0, std::ptr::null_mut(), 0)
            .unwrap();
        assert_eq!(rc, OK);
        assert_eq!(t.lib.aclrtMapMem(va, size, 0, handle, 0).unwrap(), OK);
    }
    va
}

fn unmap_release(t: &T, va: *mut c_void, handle: aclrtDrvMemHandle) {
    // SAFETY: a mapping made by `map` and its physical handle.
    unsafe {
        assert_eq!(t.lib.aclrtUnmapMem(va).unwrap(), OK);
        assert_eq!(t.lib.aclrtReleaseMemAddress(va).unwrap(), OK);
        assert_eq!(t.lib.aclrtFreePhysical(handle).unwrap(), OK);
    }
}

/// memory.cpp:1104-1198, api_error.cc:5216-5283, api_impl.cc:7082-7201: a
/// physical allocation exported with DISABLE_PID_VALIDATION is imported as a
/// physical handle of the importer's device, mapped, and both processes see
/// the same bytes; without it, a process not whitelisted is refused
/// (the driver: 107000, a mock decision); handleType other than NONE and
/// pidNum 0 are refused by the acl layer (100000).
#[test]
fn a_physical_allocation_exported_as_a_shareable_handle_is_mapped_by_another_process() {
    const SIZE: usize = 2 << 20;
    if is_child(PHYS) {
        let t = T::with_device(1);
        let parse = |k: &str| std::env::var(k).unwrap().parse::<u64>().unwrap();
        let mut h: aclrtDrvMemHandle = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        let refused = unsafe {
            t.lib
                .aclrtMemImportFromShareableHandle(parse("H_PID"), 1, &mut h)
        }
        .unwrap();
        assert_eq!(refused, ACL_ERROR_RT_PARAM_INVALID, "not whitelisted");
        // SAFETY: a valid out-pointer.
        let rc = unsafe {
            t.lib
                .aclrtMemImportFromShareableHandle(parse("H_ANY"), 1, &mut h)
        }
        .unwrap();
        assert_eq!(rc, OK);
        let va = map(&t, h, SIZE);
        assert_eq!(t.download(va, 4), [5, 6, 7, 8], "the exporter's bytes");
        assert_eq!(t.upload(va, &[3; 8]), OK);
        unmap_release(&t, va, h);
        t.assert_clean(1);
        return;
    }
    let t = T::with_device(0);
    let prop = phys_prop(0);
    let mut handles = [std::ptr::null_mut(); 2];
    let mut shared = [0u64; 2];
    for (i, h) in handles.iter_mut().enumerate() {
        // SAFETY: valid pointers; a 2 MiB (granularity) device allocation.
        unsafe {
            assert_eq!(t.lib.aclrtMallocPhysical(h, SIZE, &prop, 0).unwrap(), OK);
            let none = aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE;
            let rc = t
                .lib
                .aclrtMemExportToShareableHandle(*h, none, i as u64, &mut shared[i])
                .unwrap();
            assert_eq!(rc, OK);
            let mut pid = 1;
            let rc = t
                .lib
                .aclrtMemSetPidToShareableHandle(shared[i], &mut pid, 0)
                .unwrap();
            assert_eq!(rc, ACL_ERROR_INVALID_PARAM, "pidNum 0");
        }
    }
    let va = map(&t, handles[1], SIZE);
    assert_eq!(t.upload(va, &[5, 6, 7, 8]), OK);
    let env = [
        ("H_PID", shared[0].to_string()),
        ("H_ANY", shared[1].to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let child = run_child_within(PHYS, &env, Duration::from_secs(60)).expect("the child finishes");
    assert!(
        child.status.success(),
        "child: {}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert_eq!(t.download(va, 8), [3; 8], "the importer's bytes");
    unmap_release(&t, va, handles[1]);
    // SAFETY: a live physical handle.
    assert_eq!(unsafe { t.lib.aclrtFreePhysical(handles[0]) }.unwrap(), OK);
    t.assert_clean(1);
}
