//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): data buffers
//! (data_buffer.cpp) and the CANN feature attributes (acl.cpp,
//! cann_info_utils.cpp, swFeatureList.json). Each test cites its source.

mod common;

use std::ffi::c_void;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

fn create(t: &T, data: *mut c_void, size: usize) -> *mut aclDataBuffer {
    // SAFETY: the descriptor only records the pointer; nothing is read.
    unsafe { t.lib.aclCreateDataBuffer(data, size) }.unwrap()
}

fn addr(t: &T, b: *const aclDataBuffer) -> *mut c_void {
    // SAFETY: the mock validates the descriptor before reading it.
    unsafe { t.lib.aclGetDataBufferAddr(b) }.unwrap()
}

fn size(t: &T, b: *const aclDataBuffer) -> usize {
    // SAFETY: as `addr`.
    unsafe { t.lib.aclGetDataBufferSizeV2(b) }.unwrap()
}

fn destroy(t: &T, b: *const aclDataBuffer) -> i32 {
    // SAFETY: as `addr`.
    unsafe { t.lib.aclDestroyDataBuffer(b) }.unwrap()
}

fn attribute(t: &T, a: i32) -> Result<i32, i32> {
    let mut v = -7;
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclGetCannAttribute(aclCannAttr(a), &mut v) }.unwrap();
    if rc == OK { Ok(v) } else { Err(rc) }
}

fn attribute_list(t: &T) -> Vec<i32> {
    let mut list: *const aclCannAttr = std::ptr::null();
    let mut n = 0usize;
    // SAFETY: valid out-pointers.
    let rc = unsafe { t.lib.aclGetCannAttributeList(&mut list, &mut n) }.unwrap();
    assert_eq!(rc, OK);
    // SAFETY: the runtime's static array of `n` attributes.
    unsafe { std::slice::from_raw_parts(list, n) }
        .iter()
        .map(|a| a.0)
        .collect()
}

/// data_buffer.cpp:56-115: any (data, size) is accepted without init, a
/// device or a context, and read back; aclUpdateDataBuffer re-points it;
/// destroying it leaves the memory alone.
#[test]
fn data_buffers_describe_memory_without_touching_it_or_needing_a_device() {
    let t = T::new();
    let mut host = [1u8; 32];
    let b = create(&t, host.as_mut_ptr().cast(), 32);
    assert!(!b.is_null());
    assert_eq!(addr(&t, b), host.as_mut_ptr().cast());
    assert_eq!(size(&t, b), 32);
    let empty = create(&t, std::ptr::null_mut(), 0);
    assert!(
        !empty.is_null(),
        "null data and size 0 are a valid descriptor"
    );
    assert_eq!(
        (addr(&t, empty), size(&t, empty)),
        (std::ptr::null_mut(), 0)
    );
    // SAFETY: a live descriptor, re-pointed at a dangling but never-read address.
    let rc = unsafe {
        t.lib
            .aclUpdateDataBuffer(b, 0x1000 as *mut c_void, usize::MAX)
    };
    assert_eq!(rc.unwrap(), OK);
    assert_eq!((addr(&t, b) as usize, size(&t, b)), (0x1000, usize::MAX));
    assert_eq!(destroy(&t, b), OK);
    assert_eq!(destroy(&t, empty), OK);
    assert_eq!(host, [1u8; 32]);
    t.assert_clean(0);
}

/// data_buffer.cpp:64-115: NULL -> 100000 (destroy, silently; update,
/// reported), NULL address and size 0 from the getters.
#[test]
fn null_data_buffers_are_refused_or_read_as_empty() {
    let t = T::new();
    assert_eq!(destroy(&t, std::ptr::null()), 100000);
    assert_eq!(t.recent_msg(), None, "no log at all");
    // SAFETY: a null descriptor is refused before anything is written.
    let rc = unsafe {
        t.lib
            .aclUpdateDataBuffer(std::ptr::null_mut(), std::ptr::null_mut(), 1)
    };
    assert_eq!(rc.unwrap(), 100000);
    assert!(t.recent_msg().is_some());
    assert_eq!(addr(&t, std::ptr::null()), std::ptr::null_mut());
    assert_eq!(size(&t, std::ptr::null()), 0);
    t.assert_clean(0);
}

/// The runtime reads freed memory for a destroyed descriptor; the mock keeps
/// it as a zombie, refuses it and counts the misuse.
#[test]
fn destroyed_data_buffers_are_refused_and_counted_as_misuse() {
    let t = T::new();
    let b = create(&t, std::ptr::null_mut(), 8);
    assert_eq!(destroy(&t, b), OK);
    assert_eq!(destroy(&t, b), 100000);
    t.assert_misuse(Misuse::DoubleFree, 1);
    assert_eq!(size(&t, b), 0);
    assert_eq!(addr(&t, b), std::ptr::null_mut());
    assert_eq!(t.s.misuse(Misuse::DestroyedHandle), 2);
    let mut x = 0u64;
    assert_eq!(destroy(&t, bogus_handle(&mut x).cast()), 100000);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
}

/// swFeatureList.json and cann_info_utils.cpp:186-211: on an Ascend910B1
/// INF_NAN, BF16 and JIT_COMPILE are available, listed in ascending order
/// (a std::map, cann_info_utils.h:62).
#[test]
fn cann_attributes_on_a_910b_list_all_three_features() {
    let t = T::new();
    assert_eq!(attribute_list(&t), vec![0, 1, 2]);
    for a in 0..=2 {
        assert_eq!(attribute(&t, a), Ok(1), "attr {a}");
    }
    t.assert_clean(0);
}

/// The SoC decides INF_NAN and BF16 (prefix match); JIT_COMPILE is on any
/// SoC. An attribute the feature list does not name is 100000, a warning
/// without text (cann_info_utils.cpp:65-70); null outputs are 100000
/// (acl.cpp:1167-1180).
#[test]
fn cann_attributes_follow_the_soc_and_refuse_unknown_attributes() {
    let t = T::new();
    t.s.set_soc_name("Ascend310P3").unwrap();
    assert_eq!(attribute_list(&t), vec![2]);
    assert_eq!(attribute(&t, 0), Ok(0));
    assert_eq!(attribute(&t, 1), Ok(0));
    assert_eq!(attribute(&t, 2), Ok(1));
    t.s.set_soc_name("Ascend910_9391").unwrap();
    assert_eq!(attribute_list(&t), vec![0, 1, 2], "Ascend910_9 is a prefix");
    for bad in [-1, 3, 100] {
        assert_eq!(attribute(&t, bad), Err(100000), "attr {bad}");
    }
    assert_eq!(t.recent_msg(), None);
    // SAFETY: null out-pointers are refused by the acl layer.
    unsafe {
        let mut n = 0usize;
        let rc = t.lib.aclGetCannAttributeList(std::ptr::null_mut(), &mut n);
        assert_eq!(rc.unwrap(), 100000);
        let mut l: *const aclCannAttr = std::ptr::null();
        let rc = t.lib.aclGetCannAttributeList(&mut l, std::ptr::null_mut());
        assert_eq!(rc.unwrap(), 100000);
        let rc = t
            .lib
            .aclGetCannAttribute(aclCannAttr(0), std::ptr::null_mut());
        assert_eq!(rc.unwrap(), 100000);
    }
    t.assert_clean(0);
}
