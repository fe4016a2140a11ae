//! Virtual memory management: granularity, reservations, physical handles,
//! mappings, deferred frees, copies across mappings, and the torch_npu
//! expandable-segments pattern.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

const G2: usize = 2 * MIB;

fn prop(dev: u32, attr: u32) -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: aclrtMemAllocationType::ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: aclrtMemAttr(attr),
        location: aclrtMemLocation {
            id: dev,
            type_: aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE,
        },
        reserve: 0,
    }
}

const HBM_HUGE: u32 = 4;
const HBM_NORMAL: u32 = 5;
const HBM_HUGE1G: u32 = 10;

fn reserve(t: &T, size: usize, flags: u64) -> Result<*mut c_void, i32> {
    let mut va = std::ptr::null_mut();
    // SAFETY: valid out-pointer; no fixed address.
    let rc = unsafe {
        t.lib
            .aclrtReserveMemAddress(&mut va, size, 0, std::ptr::null_mut(), flags)
    }
    .unwrap();
    if rc == OK { Ok(va) } else { Err(rc) }
}

fn release(t: &T, va: *mut c_void) -> i32 {
    // SAFETY: the mock validates the address.
    unsafe { t.lib.aclrtReleaseMemAddress(va) }.unwrap()
}

fn malloc_physical(t: &T, size: usize, p: &aclrtPhysicalMemProp) -> Result<aclrtDrvMemHandle, i32> {
    let mut h: aclrtDrvMemHandle = std::ptr::null_mut();
    // SAFETY: valid out-pointer and properties.
    let rc = unsafe { t.lib.aclrtMallocPhysical(&mut h, size, p, 0) }.unwrap();
    if rc == OK { Ok(h) } else { Err(rc) }
}

fn free_physical(t: &T, h: aclrtDrvMemHandle) -> i32 {
    // SAFETY: the mock validates the handle.
    unsafe { t.lib.aclrtFreePhysical(h) }.unwrap()
}

fn map(t: &T, va: *mut c_void, size: usize, h: aclrtDrvMemHandle) -> i32 {
    // SAFETY: the mock validates address and handle.
    unsafe { t.lib.aclrtMapMem(va, size, 0, h, 0) }.unwrap()
}

fn unmap(t: &T, va: *mut c_void) -> i32 {
    // SAFETY: the mock validates the address.
    unsafe { t.lib.aclrtUnmapMem(va) }.unwrap()
}

#[test]
fn granularity_is_2_mib_and_1_gib_for_huge1g() {
    let t = T::new();
    let gran = |attr: u32, opt: u32| {
        let mut p = prop(0, attr);
        let mut g = 0usize;
        // SAFETY: valid property and out-pointer.
        let rc = unsafe {
            t.lib
                .aclrtMemGetAllocationGranularity(&mut p, aclrtMemGranularityOptions(opt), &mut g)
        }
        .unwrap();
        (rc, g)
    };
    assert_eq!(gran(HBM_HUGE, 0), (OK, G2));
    assert_eq!(gran(HBM_NORMAL, 1), (OK, G2));
    assert_eq!(gran(HBM_HUGE1G, 0), (OK, GIB));
    assert_eq!(
        gran(1, 0).0,
        ACL_ERROR_INVALID_PARAM,
        "ACL_HBM_MEM is not accepted"
    );
    assert_eq!(
        gran(13, 0).0,
        ACL_ERROR_INVALID_PARAM,
        "ACL_MEM_HUGE is not accepted"
    );
    assert_eq!(gran(HBM_HUGE, 0xFFFF).0, ACL_ERROR_INVALID_PARAM);
    let mut g = 0usize;
    // SAFETY: a null property is rejected.
    let rc = unsafe {
        t.lib.aclrtMemGetAllocationGranularity(
            std::ptr::null_mut(),
            aclrtMemGranularityOptions(0),
            &mut g,
        )
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    t.assert_clean(0);
}

#[test]
fn reserve_checks_its_arguments_and_needs_a_context() {
    let t = T::new();
    assert_eq!(reserve(&t, G2, 0), Err(ACL_ERROR_RT_CONTEXT_NULL));
    assert_eq!(t.set_device(0), OK);
    let mut va = std::ptr::null_mut();
    let mut x = 0u64;
    // SAFETY: each call passes one invalid argument; no memory is written.
    unsafe {
        let l = t.lib;
        assert_eq!(
            l.aclrtReserveMemAddress(std::ptr::null_mut(), G2, 0, std::ptr::null_mut(), 0)
                .unwrap(),
            100000
        );
        assert_eq!(
            l.aclrtReserveMemAddress(&mut va, 0, 0, std::ptr::null_mut(), 0)
                .unwrap(),
            100000
        );
        assert_eq!(
            l.aclrtReserveMemAddress(&mut va, G2, 0, std::ptr::null_mut(), 2)
                .unwrap(),
            100000
        );
        assert_eq!(
            l.aclrtReserveMemAddress(&mut va, G2, G2, std::ptr::null_mut(), 0)
                .unwrap(),
            100000
        );
        assert_eq!(
            l.aclrtReserveMemAddress(&mut va, G2, 0, bogus_handle(&mut x), 0)
                .unwrap(),
            100000
        );
    }
    assert_eq!(reserve(&t, G2 + 4096, 0), Err(ACL_ERROR_RT_PARAM_INVALID));
    let a = reserve(&t, 4 * G2, 1).unwrap();
    let b = reserve(&t, 2 * GIB, 0).unwrap();
    assert_eq!(a as usize % G2, 0);
    assert_eq!(b as usize % GIB, 0, "large ranges are 1 GiB aligned");
    assert_eq!(t.s.live(Resource::Reservation), 2);
    // a reserved address is not memory until mapped
    let h = [0u8; 16];
    assert_eq!(
        t.memcpy(a, 16, h.as_ptr().cast(), 16, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::UnknownPointer, 1);
    assert!(t.s.misuse_log().contains("reserved but not mapped"));
    assert_eq!(release(&t, a), OK);
    assert_eq!(release(&t, b), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::Reservation), 0);
}

#[test]
fn malloc_physical_checks_the_properties() {
    let t = T::new();
    let good = prop(0, HBM_HUGE);
    let mut bad = good;
    bad.handleType = aclrtMemHandleType(1);
    assert_eq!(malloc_physical(&t, G2, &bad), Err(ACL_ERROR_INVALID_PARAM));
    bad = good;
    bad.allocationType = aclrtMemAllocationType(1);
    assert_eq!(malloc_physical(&t, G2, &bad), Err(ACL_ERROR_INVALID_PARAM));
    for ty in [0, 2, 4] {
        bad = good;
        bad.location.type_ = aclrtMemLocationType(ty);
        assert_eq!(
            malloc_physical(&t, G2, &bad),
            Err(ACL_ERROR_INVALID_PARAM),
            "location type {ty}"
        );
    }
    for attr in [0, 1, 2, 3, 6, 7, 99] {
        assert_eq!(
            malloc_physical(&t, G2, &prop(0, attr)),
            Err(ACL_ERROR_INVALID_PARAM),
            "attr {attr}"
        );
    }
    assert_eq!(
        malloc_physical(&t, G2, &prop(8, HBM_HUGE)),
        Err(ACL_ERROR_RT_INVALID_DEVICEID)
    );
    assert_eq!(malloc_physical(&t, 0, &good), Err(ACL_ERROR_INVALID_PARAM));
    assert_eq!(
        malloc_physical(&t, G2 + 4096, &good),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    assert_eq!(
        malloc_physical(&t, G2, &prop(0, HBM_HUGE1G)),
        Err(ACL_ERROR_RT_PARAM_INVALID)
    );
    let mut h: aclrtDrvMemHandle = std::ptr::null_mut();
    // SAFETY: valid pointers; flags must be 0.
    let rc = unsafe { t.lib.aclrtMallocPhysical(&mut h, G2, &good, 1) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // SAFETY: a null property is rejected.
    let rc = unsafe { t.lib.aclrtMallocPhysical(&mut h, G2, std::ptr::null(), 0) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    // no current context needed: the device is in the properties
    let h = malloc_physical(&t, 2 * G2, &prop(3, HBM_NORMAL)).unwrap();
    let mut back = prop(0, 0);
    // SAFETY: live handle, valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclrtMemGetAllocationPropertiesFromHandle(h, &mut back)
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(back, prop(3, HBM_NORMAL));
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(free_physical(&t, h), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_misuse(Misuse::DoubleFree, 1);
    assert_eq!(t.s.live(Resource::Physical), 0);
}

#[test]
fn map_checks_offset_size_alignment_range_overlap_and_device() {
    let t = T::with_device(0);
    let va = reserve(&t, 4 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    let other_dev = malloc_physical(&t, G2, &prop(1, HBM_HUGE)).unwrap();
    // SAFETY: each call passes one invalid argument.
    unsafe {
        let l = t.lib;
        assert_eq!(
            l.aclrtMapMem(va, G2, G2, h, 0).unwrap(),
            ACL_ERROR_RT_PARAM_INVALID,
            "offset"
        );
        assert_eq!(
            l.aclrtMapMem(va, G2, 0, h, 1).unwrap(),
            ACL_ERROR_INVALID_PARAM,
            "flags"
        );
        assert_eq!(
            l.aclrtMapMem(va, 0, 0, h, 0).unwrap(),
            ACL_ERROR_INVALID_PARAM,
            "size 0"
        );
        assert_eq!(
            l.aclrtMapMem(std::ptr::null_mut(), G2, 0, h, 0).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            l.aclrtMapMem(va, G2, 0, std::ptr::null_mut(), 0).unwrap(),
            ACL_ERROR_INVALID_PARAM
        );
    }
    assert_eq!(
        map(&t, va, 2 * G2, h),
        ACL_ERROR_RT_PARAM_INVALID,
        "size is not the handle's"
    );
    assert_eq!(
        map(&t, va.wrapping_byte_add(4096), G2, h),
        ACL_ERROR_RT_PARAM_INVALID,
        "unaligned"
    );
    assert_eq!(
        map(&t, va.wrapping_byte_add(4 * G2), G2, h),
        ACL_ERROR_RT_PARAM_INVALID,
        "outside"
    );
    let mut local = [0u8; 8];
    assert_eq!(
        map(&t, local.as_mut_ptr().cast(), G2, h),
        ACL_ERROR_RT_PARAM_INVALID,
        "host address"
    );
    assert_eq!(
        map(&t, va, G2, other_dev),
        ACL_ERROR_RT_PARAM_INVALID,
        "handle of another device"
    );
    assert!(t.recent_msg().unwrap().contains("device 1"));
    assert_eq!(
        map(&t, va.wrapping_byte_add(3 * G2), G2, h),
        OK,
        "any aligned offset inside the range"
    );
    let h2 = malloc_physical(&t, 2 * G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(
        map(&t, va.wrapping_byte_add(2 * G2), 2 * G2, h2),
        ACL_ERROR_RT_PARAM_INVALID,
        "overlap"
    );
    assert_eq!(
        map(&t, va.wrapping_byte_add(3 * G2), 2 * G2, h2),
        ACL_ERROR_RT_PARAM_INVALID,
        "past the end"
    );
    assert_eq!(map(&t, va, 2 * G2, h2), OK);
    assert_eq!(t.s.live(Resource::Mapping), 2);
    assert_eq!(t.s.misuse_total(), 0);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(unmap(&t, va.wrapping_byte_add(3 * G2)), OK);
    for x in [h, h2, other_dev] {
        assert_eq!(free_physical(&t, x), OK);
    }
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn copy_spanning_two_mappings_of_one_reservation_reads_back() {
    let t = T::with_device(0);
    let va = reserve(&t, 3 * G2, 1).unwrap();
    let first = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    // something in between, so the two pages are not adjacent in the arena
    let spacer = t.malloc(G2, HUGE_FIRST).unwrap();
    let second = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    // map them in the opposite order of their arena placement
    assert_eq!(map(&t, va, G2, second), OK);
    assert_eq!(map(&t, va.wrapping_byte_add(G2), G2, first), OK);
    let data: Vec<u8> = (0..MIB).map(|i| (i % 253) as u8).collect();
    let straddle = va.wrapping_byte_add(G2 - MIB / 2);
    assert_eq!(t.upload(straddle, &data), OK);
    assert_eq!(t.download(straddle, MIB), data);
    // each half landed in its own mapping
    assert_eq!(
        t.download(va.wrapping_byte_add(G2), MIB / 2),
        data[MIB / 2..].to_vec()
    );
    // a device-to-device copy across the boundary and an async fill too
    let dst = t.malloc(MIB, HUGE_FIRST).unwrap();
    assert_eq!(t.memcpy(dst, MIB, straddle, MIB, D2D), OK);
    assert_eq!(t.download(dst, MIB), data);
    assert_eq!(
        t.memset_async(straddle, MIB, 0x3C, MIB, std::ptr::null_mut()),
        OK
    );
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.download(straddle, MIB), vec![0x3C; MIB]);
    // the reservation's third page is not mapped: running into it fails
    let h = [0u8; 64];
    let tail = va.wrapping_byte_add(2 * G2 - 32);
    assert_eq!(
        t.memcpy(tail, 64, h.as_ptr().cast(), 64, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::UnknownPointer, 1);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(unmap(&t, va.wrapping_byte_add(G2)), OK);
    for x in [first, second] {
        assert_eq!(free_physical(&t, x), OK);
    }
    assert_eq!(t.free(spacer), OK);
    assert_eq!(t.free(dst), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 1);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn free_physical_while_mapped_is_deferred_until_unmap() {
    let t = T::with_device(0);
    let total = t.mem_info().1;
    let va = reserve(&t, 2 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(
        t.mem_info().0,
        total - G2,
        "physical memory comes from the HBM arena"
    );
    assert_eq!(map(&t, va, G2, h), OK);
    assert_eq!(t.upload(va, &[9; 32]), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(
        t.s.live(Resource::Physical),
        1,
        "still mapped: not released yet"
    );
    assert_eq!(t.mem_info().0, total - G2);
    assert_eq!(t.download(va, 32), vec![9; 32], "the mapping still works");
    // but the handle cannot be used for new mappings
    assert_eq!(
        map(&t, va.wrapping_byte_add(G2), G2, h),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::DestroyedHandle, 1);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(t.s.live(Resource::Physical), 0);
    assert_eq!(t.mem_info().0, total, "released at the last unmap");
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 1);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn release_with_mappings_is_refused_and_the_range_stays() {
    let t = T::with_device(0);
    let va = reserve(&t, 2 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(map(&t, va, G2, h), OK);
    assert_eq!(release(&t, va), ACL_ERROR_RT_PARAM_INVALID);
    assert!(t.recent_msg().unwrap().contains("unmap them first"));
    t.assert_misuse(Misuse::ReleaseMapped, 1);
    assert_eq!(t.upload(va, &[1; 8]), OK, "the range and its mapping stay");
    assert_eq!(
        release(&t, va.wrapping_byte_add(G2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
    assert_eq!(release(&t, std::ptr::null_mut()), ACL_ERROR_INVALID_PARAM);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(release(&t, va), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.s.misuse(Misuse::DoubleFree), 1);
    assert_eq!(t.s.misuse_total(), 3);
    assert_eq!(t.reset_device(0), OK);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn unmap_of_an_address_that_is_not_a_mapping_start_is_misuse() {
    let t = T::with_device(0);
    let va = reserve(&t, 2 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(unmap(&t, va), ACL_ERROR_RT_PARAM_INVALID, "nothing mapped");
    assert_eq!(map(&t, va, G2, h), OK);
    assert_eq!(
        unmap(&t, va.wrapping_byte_add(4096)),
        ACL_ERROR_RT_PARAM_INVALID,
        "inside, not the start"
    );
    assert_eq!(unmap(&t, std::ptr::null_mut()), ACL_ERROR_INVALID_PARAM);
    t.assert_misuse(Misuse::UnmapUnmapped, 2);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(unmap(&t, va), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.s.misuse(Misuse::UnmapUnmapped), 3);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 3);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn unmap_does_not_wait_for_queued_work_which_then_reports_use_after_free() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(30));
    let va = reserve(&t, G2, 1).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(map(&t, va, G2, h), OK);
    assert_eq!(t.memset_async(va, G2, 1, G2, std::ptr::null_mut()), OK);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    t.assert_misuse(Misuse::UseAfterFree, 1);
    assert!(t.s.misuse_log().contains("aclrtMemsetAsync"));
    // remapping the same address to new memory is still detected: the
    // queued task recorded which mapping it was given
    let h2 = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    let h3 = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(map(&t, va, G2, h2), OK);
    assert_eq!(t.memset_async(va, G2, 2, 64, std::ptr::null_mut()), OK);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(map(&t, va, G2, h3), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.s.misuse(Misuse::UseAfterFree), 2);
    assert_eq!(
        t.download(va, 64),
        vec![0; 64],
        "the stale task did not write the new memory"
    );
    assert_eq!(unmap(&t, va), OK);
    for x in [h2, h3] {
        assert_eq!(free_physical(&t, x), OK);
    }
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 2);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn physical_memory_and_malloc_share_the_hbm_arena() {
    let t = T::new();
    t.s.set_hbm_bytes(64 * MIB as u64).unwrap();
    assert_eq!(t.set_device(0), OK);
    let p = t.malloc(59 * MIB, HUGE_FIRST).unwrap();
    assert_eq!(
        malloc_physical(&t, 8 * MIB, &prop(0, HBM_HUGE)),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    assert!(
        t.recent_msg()
            .unwrap()
            .contains("Failed to allocate memory of 8388608 bytes")
    );
    let h = malloc_physical(&t, 4 * MIB, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(t.mem_info().0, 0);
    assert_eq!(t.malloc(1, HUGE_FIRST), Err(ACL_ERROR_RT_MEMORY_ALLOCATION));
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn access_rights_and_handle_queries() {
    let t = T::with_device(0);
    let va = reserve(&t, G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    assert_eq!(map(&t, va, G2, h), OK);
    let loc = aclrtMemLocation {
        id: 0,
        type_: aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE,
    };
    let get = |loc: aclrtMemLocation| {
        let mut l = loc;
        let mut flag = 99u64;
        // SAFETY: valid pointers.
        let rc = unsafe { t.lib.aclrtMemGetAccess(va, &mut l, &mut flag) }.unwrap();
        (rc, flag)
    };
    assert_eq!(
        get(loc),
        (OK, 3),
        "a new mapping is read-write for its device"
    );
    assert_eq!(
        get(aclrtMemLocation { id: 1, ..loc }),
        (OK, 0),
        "no peer access"
    );
    assert_eq!(
        get(aclrtMemLocation { id: 9, ..loc }).0,
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    let set = |flags: u32, id: u32| {
        let mut d = aclrtMemAccessDesc {
            flags: aclrtMemAccessFlags(flags),
            location: aclrtMemLocation { id, ..loc },
            rsv: [0; 12],
        };
        // SAFETY: valid pointers, one descriptor.
        unsafe { t.lib.aclrtMemSetAccess(va, G2, &mut d, 1) }.unwrap()
    };
    assert_eq!(
        set(1, 1),
        ACL_ERROR_RT_PARAM_INVALID,
        "only the owner device"
    );
    assert_eq!(set(2, 0), ACL_ERROR_INVALID_PARAM, "not an access flag");
    assert_eq!(set(1, 0), OK);
    assert_eq!(get(loc), (OK, 1));
    assert_eq!(
        t.upload(va, &[1; 8]),
        ACL_ERROR_RT_PARAM_INVALID,
        "read-only mapping"
    );
    assert_eq!(t.download(va, 8), vec![0; 8]);
    assert_eq!(set(3, 0), OK);
    assert_eq!(t.upload(va, &[1; 8]), OK);
    // retaining gives the handle back and counts a reference
    let mut r: aclrtDrvMemHandle = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclrtMemRetainAllocationHandle(va.wrapping_byte_add(100), &mut r)
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(r, h);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(free_physical(&t, r), OK, "the retained reference");
    assert_eq!(t.s.live(Resource::Physical), 1, "still mapped");
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn expandable_segments_like_torch_npu() {
    // torch_npu: reserve 1 1/8 x HBM of VA in 20 MiB segments, map segments on
    // demand, treat 207001 from aclrtMallocPhysical as OOM, unmap after a
    // device synchronize, release at the end.
    let t = T::new();
    t.s.set_hbm_bytes(100 * MIB as u64).unwrap();
    assert_eq!(t.set_device(0), OK);
    let seg = 20 * MIB;
    let (_, total) = t.mem_info();
    let max_handles = (total + total / 8).div_ceil(seg);
    let va = reserve(&t, seg * max_handles, 1).unwrap();
    let mut handles = Vec::new();
    loop {
        match malloc_physical(&t, seg, &prop(0, HBM_HUGE)) {
            Ok(h) => {
                assert_eq!(
                    map(&t, va.wrapping_byte_add(handles.len() * seg), seg, h),
                    OK
                );
                handles.push(h);
            }
            Err(code) => {
                assert_eq!(code, ACL_ERROR_RT_MEMORY_ALLOCATION);
                break;
            }
        }
    }
    assert_eq!(handles.len(), 5, "100 MiB holds five 20 MiB segments");
    // one tensor spanning all segments
    let len = handles.len() * seg - 4096;
    let data: Vec<u8> = (0..len).map(|i| (i / 4096) as u8).collect();
    assert_eq!(t.upload(va.wrapping_byte_add(4096), &data), OK);
    assert_eq!(t.download(va.wrapping_byte_add(4096), len), data);
    // SAFETY: no arguments.
    assert_eq!(unsafe { t.lib.aclrtSynchronizeDevice() }.unwrap(), OK);
    for (i, h) in handles.iter().enumerate().rev() {
        assert_eq!(unmap(&t, va.wrapping_byte_add(i * seg)), OK);
        assert_eq!(free_physical(&t, *h), OK);
    }
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.mem_info().0, total);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
