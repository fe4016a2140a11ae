//! Virtual memory management in use: copies across mappings, deferred
//! frees, unmapping under queued work, the shared HBM arena, access rights
//! and the torch_npu expandable-segments pattern.

mod common;

use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::vmm::*;
use common::*;

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
fn free_physical_while_mapped_is_misuse_and_the_release_waits_for_the_unmap() {
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
    // the docs ask for aclrtUnmapMem first: misuse, but the call succeeds
    t.assert_misuse(Misuse::FreeMappedPhysical, 1);
    assert!(t.s.misuse_log().contains("p1 still has 1 mapping"));
    let last = t.s.journal().pop().unwrap();
    assert_eq!(last.function(), "aclrtFreePhysical");
    assert_eq!(last.misuse(), Some(Misuse::FreeMappedPhysical));
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
    assert_eq!(t.s.misuse(Misuse::DestroyedHandle), 1);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(t.s.live(Resource::Physical), 0);
    assert_eq!(t.mem_info().0, total, "released at the last unmap");
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 2);
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
    // releasing the memory is a host write the queued fill is not ordered before
    assert_eq!(t.s.misuse(Misuse::UnorderedAccess), 1);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.s.misuse(Misuse::UseAfterFree), 1);
    assert_eq!(t.s.misuse_total(), 2);
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
    assert_eq!(t.s.misuse_total(), 3);
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
    // retaining gives the handle back and counts a reference; virPtr must
    // be the mapped address (CANN 8.5.0
    // docs/api_docs/aclrtMemRetainAllocationHandle.md:29)
    let mut r: aclrtDrvMemHandle = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe {
        t.lib
            .aclrtMemRetainAllocationHandle(va.wrapping_byte_add(100), &mut r)
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtMemRetainAllocationHandle(va, &mut r) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(r, h);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(
        t.s.live(Resource::Physical),
        1,
        "the retained reference keeps it"
    );
    assert_eq!(free_physical(&t, r), OK, "the retained reference");
    assert_eq!(t.s.live(Resource::Physical), 0);
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
