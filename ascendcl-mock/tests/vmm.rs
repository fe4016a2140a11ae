//! Virtual memory management, the rules: granularity, reservations,
//! physical handles, mappings, releases and unmaps.

mod common;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::vmm::*;
use common::*;

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
