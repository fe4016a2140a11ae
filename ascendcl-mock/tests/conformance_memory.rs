//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): aclrtGetMemInfo,
//! copies and fills (order of checks, stream of another context),
//! aclrtMemRetainAllocationHandle and aclrtResetDevice with live memory.
//! Each test cites its source.

mod common;

use std::ffi::c_void;

use ascendcl_sys::*;
use common::vmm::*;
use common::*;

fn info(t: &T, attr: u32) -> i32 {
    let (mut f, mut tot) = (0usize, 0usize);
    // SAFETY: valid out-pointers.
    unsafe { t.lib.aclrtGetMemInfo(aclrtMemAttr(attr), &mut f, &mut tot) }.unwrap()
}

fn peek(t: &T) -> i32 {
    // SAFETY: plain enum argument.
    unsafe {
        t.lib
            .aclrtPeekAtLastError(aclrtLastErrLevel::ACL_RT_THREAD_LEVEL)
    }
    .unwrap()
}

/// A second context on device 0, made current; returns it.
fn other_context(t: &T) -> aclrtContext {
    let mut c: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtCreateContext(&mut c, 0) }.unwrap(), OK);
    c
}

fn destroy_context(t: &T, c: aclrtContext) {
    // SAFETY: live context.
    assert_eq!(unsafe { t.lib.aclrtDestroyContext(c) }.unwrap(), OK);
}

/// api_error.cc:2418-2419 with mem.h:152-163: attributes 0..11 pass, 12..17
/// (the 8.5 header's ACL_MEM_NORMAL..ACL_MEM_P2P_HUGE1G) and beyond are
/// 107016, checked before the context (api_impl.cc:3130-3131).
#[test]
fn get_mem_info_takes_attributes_0_to_11_only() {
    let t = T::new();
    assert_eq!(
        info(&t, 12),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE,
        "before the context"
    );
    assert_eq!(peek(&t), ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    assert_eq!(info(&t, 1), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(t.set_device(0), OK);
    for attr in 0..=11 {
        assert_eq!(info(&t, attr), OK, "attr {attr}");
    }
    for attr in [12, 13, 17, 18, u32::MAX] {
        assert_eq!(
            info(&t, attr),
            ACL_ERROR_RT_INVALID_MEMORY_TYPE,
            "attr {attr}"
        );
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_impl.cc:2754-2762 (MemcpyAsync) and 3071-3080 (MemsetAsync): a stream
/// of another context is refused with 107003.
#[test]
fn async_copies_and_fills_refuse_a_stream_of_another_context() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let a = t.malloc(4096, HUGE_FIRST).unwrap();
    let b = t.malloc(4096, HUGE_FIRST).unwrap();
    let c = other_context(&t);
    assert_eq!(
        t.memcpy_async(b, 4096, a, 4096, D2D, s),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    assert_eq!(
        t.memset_async(a, 4096, 1, 4096, s),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    assert_eq!(peek(&t), ACL_ERROR_RT_STREAM_CONTEXT);
    // the same calls on the new context's default stream work
    assert_eq!(t.memset_async(a, 4096, 1, 4096, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    destroy_context(&t, c);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(a), OK);
    assert_eq!(t.free(b), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:1612-1614 and 2373-2375: count checks (107000) come before
/// the context (api_error.cc:2099-2100 / api_impl.cc:3071-3072, 107002);
/// memory.cpp:572-579: null pointers and a bad kind are the acl layer's
/// 100000 before those.
#[test]
fn copy_and_fill_check_order_count_before_context() {
    let t = T::new();
    let mut x = 0u64;
    let p: *mut c_void = (&mut x as *mut u64).cast();
    assert_eq!(
        t.memcpy_async(p, 4, p, 8, D2D, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID,
        "count > destMax before the missing context"
    );
    assert_eq!(
        t.memset_async(p, 8, 0, 0, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        t.memcpy_async(
            p,
            8,
            p,
            8,
            aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE.0,
            std::ptr::null_mut()
        ),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        t.memcpy_async(p, 8, p, 8, D2D, std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(
        t.memset_async(p, 8, 0, 8, std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
}

/// api_error.cc:1577: a synchronous copy onto itself succeeds before any
/// context is needed; api_error.cc:1658-1659: the asynchronous one checks
/// the context first, then returns success without looking at the stream.
#[test]
fn copy_onto_itself_is_a_no_op_sync_without_context_async_with() {
    let t = T::new();
    let mut x = 0u64;
    let p: *mut c_void = (&mut x as *mut u64).cast();
    assert_eq!(t.memcpy(p, 8, p, 8, H2H), OK);
    assert_eq!(
        t.memcpy_async(p, 8, p, 8, H2H, std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(t.set_device(0), OK);
    let s = t.create_stream().unwrap();
    let c = other_context(&t);
    assert_eq!(
        t.memcpy_async(p, 8, p, 8, H2H, s),
        OK,
        "dst == src wins over the stream check"
    );
    destroy_context(&t, c);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// docs/api_docs/aclrtMemRetainAllocationHandle.md:15, 29 (v8.5.0): every
/// retain takes a reference that its own aclrtFreePhysical releases, and
/// virPtr must be the address aclrtMapMem mapped; memory.cpp:1852: null
/// virPtr is 100000.
#[test]
fn retain_allocation_handle_counts_references_at_the_mapped_address() {
    let t = T::with_device(0);
    let va = reserve(&t, 2 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(map(&t, va, G2, h), OK);
    let retain = |p: *mut c_void| {
        let mut out: aclrtDrvMemHandle = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the mock validates the address.
        let rc = unsafe { t.lib.aclrtMemRetainAllocationHandle(p, &mut out) }.unwrap();
        (rc, out)
    };
    assert_eq!(retain(std::ptr::null_mut()).0, ACL_ERROR_INVALID_PARAM);
    // SAFETY: an address inside the mapping, not its start.
    let inside = unsafe { va.cast::<u8>().add(4096) }.cast::<c_void>();
    assert_eq!(retain(inside).0, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(retain(va), (OK, h));
    assert_eq!(retain(va), (OK, h));
    // three references: the allocation and two retains (unmapped first:
    // docs/api_docs/aclrtFreePhysical.md:34)
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(free_physical(&t, h), OK);
    let mut pr = prop(0, 0);
    // SAFETY: still referenced once: its properties can be read.
    let rc = unsafe { t.lib.aclrtMemGetAllocationPropertiesFromHandle(h, &mut pr) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(pr.memAttr, aclrtMemAttr(HBM_HUGE));
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// Not decided by the source: api_impl.cc:3572-3590 releases the primary
/// context (runtime.cc:2951-3006: streams and context teardown) and
/// runtime.cc:3255-3290 closes the driver device; what the closed driver
/// does with the process's device memory is not visible. The 8.5.0 docs
/// (docs/api_docs/aclrtResetDevice.md:12) list the released resources:
/// default context, default stream and the streams of the default context,
/// not memory. The mock's documented choice (docs/mock-conformance.md):
/// allocations survive the reset and are freed with aclrtFree.
#[test]
fn mock_choice_reset_device_keeps_live_allocations() {
    let t = T::with_device(0);
    let p = t.malloc(MIB, HUGE_FIRST).unwrap();
    assert_eq!(t.upload(p, &[7; 64]), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(ascendcl_mock::Resource::DeviceRef), 0);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.download(p, 64), vec![7; 64]);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:140-185 and 233-265: null devPtr, size 0 and an overflowing
/// size are the acl layer's 100000 (no thread error); an unknown policy is
/// RT_MEMORY_DEFAULT, not an error (memory.cpp:175-177, 257-259).
#[test]
fn malloc_unknown_policy_is_accepted_and_size_checks_are_acl_level() {
    let t = T::with_device(0);
    for policy in [7, 8, 0x55, 0xFFFF_FFFF] {
        let p = t.malloc(4096, policy).unwrap();
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.malloc(0, HUGE_FIRST), Err(ACL_ERROR_INVALID_PARAM));
    assert_eq!(peek(&t), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:187-215 then api_error.cc:5842-5844: aclrtMallocWithCfg
/// checks cfg (numAttrs != 0 with null attrs: 100000) before size 0
/// (100000); the runtime then refuses any cfg with null attrs (107000).
#[test]
fn malloc_with_cfg_checks_cfg_before_size_and_null_attrs_in_the_runtime() {
    let t = T::with_device(0);
    let mut q: *mut c_void = std::ptr::null_mut();
    let mut cfg = aclrtMallocConfig {
        attrs: std::ptr::null_mut(),
        numAttrs: 1,
    };
    // SAFETY: valid out-pointer; cfg is a live struct.
    let rc = unsafe {
        t.lib
            .aclrtMallocWithCfg(&mut q, 0, aclrtMemMallocPolicy(0), &mut cfg)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    cfg.numAttrs = 0;
    // SAFETY: as above.
    let rc = unsafe {
        t.lib
            .aclrtMallocWithCfg(&mut q, 64, aclrtMemMallocPolicy(0), &mut cfg)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:912-1014: aclrtMallocPhysical on a device takes HBM_HUGE,
/// HBM_NORMAL, HBM_HUGE1G and the 8.5 ACL_MEM_* attributes (12..17); it
/// refuses ACL_DDR_MEM, ACL_HBM_MEM, the ACL_HBM_MEM_P2P_* values and the
/// DDR ones with 100000 (acl layer, no thread error).
#[test]
fn malloc_physical_attribute_set_of_the_acl_layer() {
    let t = T::with_device(0);
    for attr in [0, 1, 2, 3, 8, 9, 11, 18] {
        assert_eq!(
            malloc_physical(&t, G2, &prop(0, attr)),
            Err(ACL_ERROR_INVALID_PARAM),
            "attr {attr}"
        );
    }
    assert_eq!(peek(&t), OK);
    for attr in [HBM_HUGE, HBM_NORMAL, 12, 13, 15, 16] {
        let h = malloc_physical(&t, G2, &prop(0, attr)).unwrap();
        assert_eq!(free_physical(&t, h), OK, "attr {attr}");
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:1225-1248: aclrtMemGetAllocationGranularity checks the
/// attribute in the acl layer, before the option (passed to the driver).
#[test]
fn granularity_checks_the_attribute_before_the_option() {
    let t = T::with_device(0);
    let mut g = 0usize;
    let mut p = prop(0, 13);
    // SAFETY: valid pointers; both the attribute and the option are bad.
    let rc = unsafe {
        t.lib
            .aclrtMemGetAllocationGranularity(&mut p, aclrtMemGranularityOptions(7), &mut g)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert!(t.recent_msg().unwrap().contains("memAttr 13"));
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// memory.cpp:1862-1903: the properties of a physical handle are rebuilt
/// from the driver's page and memory type: ACL_MEM_HUGE reads back as
/// ACL_HBM_MEM_HUGE, ACL_MEM_NORMAL as ACL_HBM_MEM_NORMAL, and a P2P memory
/// type (ACL_MEM_P2P_*) is refused with 100000.
#[test]
fn allocation_properties_report_the_hbm_attribute_of_the_page_type() {
    let t = T::with_device(0);
    let props = |h: aclrtDrvMemHandle| {
        let mut pr = prop(7, 0);
        // SAFETY: valid out-pointer; the mock validates the handle.
        let rc = unsafe { t.lib.aclrtMemGetAllocationPropertiesFromHandle(h, &mut pr) }.unwrap();
        (rc, pr.memAttr.0, pr.location.id)
    };
    for (attr, back) in [(13, HBM_HUGE), (12, HBM_NORMAL), (HBM_HUGE, HBM_HUGE)] {
        let h = malloc_physical(&t, G2, &prop(0, attr)).unwrap();
        assert_eq!(props(h), (OK, back, 0), "attr {attr}");
        assert_eq!(free_physical(&t, h), OK);
    }
    let h = malloc_physical(&t, G2, &prop(0, 16)).unwrap();
    assert_eq!(props(h).0, ACL_ERROR_INVALID_PARAM, "P2P memory type");
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(props(std::ptr::null_mut()).0, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// api_error.cc:5203-5204: aclrtMemSetAccess has no acl-layer checks; the
/// runtime refuses a null address or descriptor with 107000.
#[test]
fn mem_set_access_null_arguments_are_the_runtimes_107000() {
    let t = T::with_device(0);
    // SAFETY: null address and descriptor are rejected before use.
    let rc = unsafe {
        t.lib
            .aclrtMemSetAccess(std::ptr::null_mut(), G2, std::ptr::null_mut(), 1)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(peek(&t), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// docs/api_docs/aclrtMemset.md:15 and aclrtMemsetAsync.md:15: the memory
/// filled may be on the host or the device, told apart by its address; host
/// memory must come from acl (aclrtMallocHost). No device-only check on the
/// way (api_impl.cc:3049-3064 to drvMemsetD8); the async fill of host memory
/// is a memset in the calling thread (context.cc:2600-2602), not a task.
#[test]
fn memset_fills_pinned_host_memory_and_the_async_fill_of_it_is_immediate() {
    let t = T::with_device(0);
    let h = t.malloc_host(64).unwrap();
    assert_eq!(t.memset(h, 64, 0x15A, 64), OK, "{:?}", t.recent_msg());
    // SAFETY: `h` is a live pinned block of 64 bytes, not in use by a stream.
    let bytes = |n: usize| unsafe { std::slice::from_raw_parts(h.cast::<u8>(), n) }.to_vec();
    assert_eq!(bytes(64), vec![0x5A; 64]);
    // a busy default stream: the host fill does not wait behind its task
    t.s.set_stream_delay(std::time::Duration::from_millis(200));
    let d = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.memset_async(d, 64, 1, 64, std::ptr::null_mut()), OK);
    assert_eq!(
        t.memset_async(h, 64, 7, 32, std::ptr::null_mut()),
        OK,
        "{:?}",
        t.recent_msg()
    );
    let now = bytes(64);
    assert_eq!(&now[..32], &[7; 32], "filled before the call returned");
    assert_eq!(&now[32..], &[0x5A; 32]);
    // the pinned block's bounds still hold
    assert_eq!(t.memset(h, 128, 0, 65), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_misuse(ascendcl_mock::Misuse::OutOfBounds, 1);
    t.s.set_stream_delay(std::time::Duration::ZERO);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.download(d, 64), vec![1; 64]);
    assert_eq!(t.free(d), OK);
    assert_eq!(t.free_host(h), OK);
}
