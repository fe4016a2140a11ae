//! Device memory: the HBM arena (padding, alignment, page policies, best fit,
//! fragmentation, OOM), free errors, copies and fills with their validation,
//! pinned host memory and use-after-free detection for queued work.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

/// Bytes of HBM an allocation consumed, seen through aclrtGetMemInfo.
fn consumed_by(t: &T, alloc: impl FnOnce() -> *mut c_void) -> (usize, *mut c_void) {
    let before = t.mem_info().0;
    let p = alloc();
    (before - t.mem_info().0, p)
}

#[test]
fn malloc_pads_to_32_plus_32_and_aligns_to_64() {
    let t = T::with_device(0);
    let mut ptrs = Vec::new();
    for (size, expected) in [(1usize, 64usize), (100, 160), (128, 160), (4096, 4128)] {
        let (used, p) = consumed_by(&t, || t.malloc(size, HUGE_FIRST).unwrap());
        assert_eq!(used, expected, "aclrtMalloc({size})");
        assert_eq!(p as usize % 64, 0, "64-byte aligned");
        ptrs.push(p);
    }
    // aclrtMallocAlign32: rounded to 32, no padding
    let (used, p) = consumed_by(&t, || t.malloc_align32(100, HUGE_FIRST).unwrap());
    assert_eq!(used, 128);
    ptrs.push(p);
    for p in ptrs {
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.mem_info().0, t.mem_info().1, "everything is free again");
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn page_policies_round_large_requests_to_whole_pages() {
    let t = T::with_device(0);
    let cases: [(usize, u32, usize, usize); 7] = [
        // (size, policy, consumed, alignment)
        (MIB, HUGE_FIRST, MIB + 32, 64),
        (MIB + 1, HUGE_FIRST, 2 * MIB, 2 * MIB),
        (2 * MIB, HUGE_FIRST, 4 * MIB, 2 * MIB), // 2 MiB + 32 bytes of padding
        (3 * MIB, HUGE_ONLY, 4 * MIB, 2 * MIB),
        (3 * MIB, NORMAL_ONLY, 3 * MIB + 32, 64),
        (3 * MIB, HUGE1G_ONLY, GIB, GIB),
        (3 * MIB, 3, 4 * MIB, 2 * MIB), // HUGE_FIRST_P2P
    ];
    for (size, policy, consumed, align) in cases {
        let (used, p) = consumed_by(&t, || t.malloc(size, policy).unwrap());
        assert_eq!(used, consumed, "size {size} policy {policy}");
        assert_eq!(p as usize % align, 0, "size {size} policy {policy}");
        assert_eq!(t.free(p), OK);
    }
    // aclrtMallocAlign32 with HUGE_FIRST: whole 2 MiB pages, no padding
    let (used, p) = consumed_by(&t, || t.malloc_align32(2 * MIB, HUGE_FIRST).unwrap());
    assert_eq!(used, 2 * MIB);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn malloc_rejects_null_zero_overflow_but_not_unknown_policies() {
    let t = T::with_device(0);
    // SAFETY: a null out-pointer is rejected.
    let rc = unsafe {
        t.lib
            .aclrtMalloc(std::ptr::null_mut(), 64, aclrtMemMallocPolicy(0))
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.malloc(0, HUGE_FIRST), Err(ACL_ERROR_INVALID_PARAM));
    assert_eq!(
        t.malloc(usize::MAX, HUGE_FIRST),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(
        t.malloc(usize::MAX - 31, NORMAL_ONLY),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    // CANN 8.5.0 maps an unknown policy to RT_MEMORY_DEFAULT
    // (memory.cpp:175-177): accepted, the driver picks the pages
    for policy in [8, 0x200] {
        let p = t.malloc(64, policy).unwrap();
        assert_eq!(t.free(p), OK);
    }
    // documented high flags combined with a base policy are accepted
    let p = t.malloc(64, 0x1000 | NORMAL_ONLY).unwrap();
    assert_eq!(t.free(p), OK);
    let mut q = std::ptr::null_mut();
    // SAFETY: valid out-pointer, cfg may be null.
    let rc = unsafe {
        t.lib
            .aclrtMallocWithCfg(&mut q, 64, aclrtMemMallocPolicy(0), std::ptr::null_mut())
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.free(q), OK);
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtMallocCached(&mut q, 64, aclrtMemMallocPolicy(0)) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.free(q), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(
        t.malloc(64, HUGE_FIRST),
        Err(ACL_ERROR_RT_CONTEXT_NULL),
        "needs a current context"
    );
    t.assert_clean(0);
}

#[test]
fn out_of_memory_returns_207001_with_a_message() {
    let t = T::new();
    t.s.set_hbm_bytes(64 * MIB as u64).unwrap();
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.mem_info(), (64 * MIB, 64 * MIB));
    assert_eq!(
        t.malloc(65 * MIB, HUGE_FIRST),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    let msg = t.recent_msg().unwrap();
    assert!(msg.starts_with("EL0004"), "{msg}");
    assert!(
        msg.contains("Failed to allocate memory of 68157440 bytes on device 0"),
        "{msg}"
    );
    assert!(
        msg.contains("free 67108864 bytes, largest free block 67108864 bytes"),
        "{msg}"
    );
    let p = t.malloc(64 * MIB, NORMAL_ONLY).err();
    assert_eq!(
        p,
        Some(ACL_ERROR_RT_MEMORY_ALLOCATION),
        "64 MiB + 32 bytes of padding do not fit"
    );
    let p = t.malloc_align32(64 * MIB, NORMAL_ONLY).unwrap();
    assert_eq!(t.mem_info().0, 0);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn fragmented_arena_fails_a_request_smaller_than_total_free() {
    let t = T::new();
    t.s.set_hbm_bytes(64 * MIB as u64).unwrap();
    assert_eq!(t.set_device(0), OK);
    let blocks: Vec<_> = (0..8)
        .map(|_| t.malloc_align32(8 * MIB, NORMAL_ONLY).unwrap())
        .collect();
    assert_eq!(t.mem_info().0, 0);
    for b in blocks.iter().step_by(2) {
        assert_eq!(t.free(*b), OK);
    }
    assert_eq!(t.mem_info().0, 32 * MIB, "32 MiB free in four 8 MiB holes");
    assert_eq!(
        t.malloc_align32(16 * MIB, NORMAL_ONLY),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    assert!(
        t.recent_msg()
            .unwrap()
            .contains("largest free block 8388608 bytes")
    );
    // freeing a neighbour coalesces two holes and one extent of 24 MiB
    assert_eq!(t.free(blocks[1]), OK);
    let big = t.malloc_align32(16 * MIB, NORMAL_ONLY).unwrap();
    assert_eq!(
        big, blocks[0],
        "placed at the start of the coalesced extent"
    );
    assert_eq!(t.free(big), OK);
    for b in blocks.iter().skip(3).step_by(2) {
        assert_eq!(t.free(*b), OK);
    }
    assert_eq!(t.mem_info().0, 64 * MIB);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn best_fit_places_a_request_in_the_smallest_hole_that_fits() {
    let t = T::new();
    t.s.set_hbm_bytes(64 * MIB as u64).unwrap();
    assert_eq!(t.set_device(0), OK);
    let sizes = [8 * MIB, MIB, 4 * MIB, MIB];
    let v: Vec<_> = sizes
        .iter()
        .map(|&s| t.malloc_align32(s, NORMAL_ONLY).unwrap())
        .collect();
    assert_eq!(t.free(v[0]), OK); // 8 MiB hole
    assert_eq!(t.free(v[2]), OK); // 4 MiB hole, and a 50 MiB tail
    let p = t.malloc_align32(3 * MIB, NORMAL_ONLY).unwrap();
    assert_eq!(p, v[2], "the 4 MiB hole is the best fit");
    let q = t.malloc_align32(6 * MIB, NORMAL_ONLY).unwrap();
    assert_eq!(q, v[0], "the 8 MiB hole is the best fit");
    for x in [p, q, v[1], v[3]] {
        assert_eq!(t.free(x), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn get_mem_info_reports_hbm_and_zero_for_ddr() {
    let t = T::with_device(0);
    let (free, total) = t.mem_info();
    assert_eq!(total, 62423 * MIB, "default: 62423 MiB");
    assert_eq!(free, total);
    let info = |attr: u32| {
        let (mut f, mut tot) = (1usize, 1usize);
        // SAFETY: valid out-pointers.
        let rc = unsafe { t.lib.aclrtGetMemInfo(aclrtMemAttr(attr), &mut f, &mut tot) }.unwrap();
        (rc, f, tot)
    };
    assert_eq!(info(0), (OK, 0, 0), "ACL_DDR_MEM");
    assert_eq!(info(4), (OK, free, total), "ACL_HBM_MEM_HUGE");
    assert_eq!(info(11), (OK, free, total), "ACL_HBM_MEM_P2P_HUGE1G");
    // CANN 8.5.0 accepts only RT_MEMORYINFO_DDR..HBM_P2P_HUGE1G (0..11,
    // api_error.cc:2418-2419): the header's ACL_MEM_HUGE (13) is 107016
    assert_eq!(info(13).0, ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    assert_eq!(info(18).0, ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    let mut f = 0usize;
    // SAFETY: a null output is rejected.
    let rc = unsafe {
        t.lib
            .aclrtGetMemInfo(aclrtMemAttr(1), &mut f, std::ptr::null_mut())
    }
    .unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn free_errors_tell_unknown_pointers_from_double_frees() {
    let t = T::with_device(0);
    assert_eq!(t.free(std::ptr::null_mut()), ACL_ERROR_INVALID_PARAM);
    let p = t.malloc(256, HUGE_FIRST).unwrap();
    let q = t.malloc(256, HUGE_FIRST).unwrap();
    assert_eq!(t.free(p), OK);
    assert_eq!(t.free(p), ACL_ERROR_RT_PARAM_INVALID);
    assert!(t.recent_msg().unwrap().contains("already freed"));
    t.assert_misuse(Misuse::DoubleFree, 1);
    assert_eq!(t.free(q.wrapping_byte_add(64)), ACL_ERROR_RT_PARAM_INVALID);
    let mut local = 0u64;
    assert_eq!(t.free(bogus_handle(&mut local)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 2);
    assert!(
        t.s.misuse_log()
            .contains("not the start of an aclrtMalloc block")
    );
    assert_eq!(t.free(q), OK);
    assert_eq!(t.s.misuse_total(), 3);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::DeviceBuffer), 0);
}

#[test]
fn memcpy_validates_arguments_in_the_runtime_order() {
    let t = T::with_device(0);
    let d = t.malloc(64, HUGE_FIRST).unwrap();
    let mut h = [0u8; 64];
    let hp: *mut c_void = h.as_mut_ptr().cast();
    assert_eq!(
        t.memcpy(std::ptr::null_mut(), 64, hp, 64, H2D),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        t.memcpy(d, 64, std::ptr::null(), 64, H2D),
        ACL_ERROR_INVALID_PARAM
    );
    for kind in [6, 7, 8, 100] {
        assert_eq!(
            t.memcpy(d, 64, hp, 64, kind),
            ACL_ERROR_INVALID_PARAM,
            "kind {kind}"
        );
    }
    assert_eq!(t.memcpy(d, 0, hp, 64, H2D), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.memcpy(d, 64, hp, 0, H2D), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.memcpy(d, 32, hp, 64, H2D), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.memcpy(d, 64, d, 64, D2D), OK, "dst == src is a no-op");
    // the kind must agree with the addresses
    assert_eq!(t.memcpy(hp, 64, d, 64, H2D), ACL_ERROR_RT_PARAM_INVALID);
    assert!(t.recent_msg().unwrap().contains("dst"));
    assert_eq!(t.memcpy(d, 64, hp, 64, D2H), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.memcpy(d, 64, hp, 64, H2H), ACL_ERROR_RT_PARAM_INVALID);
    // DEFAULT infers the direction; HOST_TO_BUF_TO_DEVICE is host to device
    h.fill(0x42);
    assert_eq!(t.memcpy(d, 64, h.as_ptr().cast(), 64, DEFAULT), OK);
    assert_eq!(t.download(d, 64), vec![0x42; 64]);
    h.fill(0x43);
    assert_eq!(t.memcpy(d, 64, h.as_ptr().cast(), 64, 5), OK);
    let mut back = [0u8; 64];
    assert_eq!(t.memcpy(back.as_mut_ptr().cast(), 64, d, 64, DEFAULT), OK);
    assert_eq!(back, [0x43; 64]);
    // host to host is a plain copy
    let mut other = [0u8; 64];
    assert_eq!(
        t.memcpy(other.as_mut_ptr().cast(), 64, h.as_ptr().cast(), 64, H2H),
        OK
    );
    assert_eq!(other, h);
    assert_eq!(t.free(d), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// A card pads every allocation: the size rounded up to 32 bytes, plus 32
/// (runtime v8.5.0 docs/api_docs/aclrtMalloc.md:15), and takes an access
/// inside that padding; the mock lets it through too but counts it as
/// misuse (the bytes were not asked for), and refuses anything beyond.
#[test]
fn an_access_in_the_padding_of_an_allocation_works_but_is_misuse_and_past_it_is_refused() {
    let t = T::with_device(0);
    let d = t.malloc(100, HUGE_FIRST).unwrap();
    let h = [1u8; 161];
    // 100 bytes asked for: a card gives round_up(100, 32) + 32 = 160
    assert_eq!(t.memcpy(d, 100, h.as_ptr().cast(), 100, H2D), OK);
    t.assert_misuse(Misuse::OutOfBounds, 0);
    assert_eq!(t.memcpy(d, 160, h.as_ptr().cast(), 128, H2D), OK);
    assert_eq!(
        t.memcpy(d.wrapping_byte_add(99), 2, h.as_ptr().cast(), 2, H2D),
        OK
    );
    t.assert_misuse(Misuse::OutOfBounds, 2);
    let log = t.s.misuse_log();
    assert!(
        log.contains("m1+0x0, 128 bytes, reaches past the 100 bytes allocated into the padding"),
        "{log}"
    );
    assert_eq!(t.download(d, 100), vec![1u8; 100]);
    // past the padding: refused, as before
    assert_eq!(
        t.memcpy(d, 161, h.as_ptr().cast(), 161, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        t.memcpy(d.wrapping_byte_add(159), 2, h.as_ptr().cast(), 2, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::OutOfBounds, 4);
    assert!(
        t.s.misuse_log()
            .contains("m1+0x9f (2 bytes past an allocation of 100)")
    );
    // a 1G huge-page allocation gets no extra 32 bytes (aclrtMalloc.md:15)
    let g = t.malloc(100, HUGE1G_ONLY).unwrap();
    assert_eq!(t.memcpy(g, 128, h.as_ptr().cast(), 128, H2D), OK);
    assert_eq!(
        t.memcpy(g, 129, h.as_ptr().cast(), 129, H2D),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::OutOfBounds, 6);
    assert_eq!(t.free(g), OK);
    assert_eq!(t.free(d), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::DeviceBuffer), 0);
}

#[test]
fn memcpy_of_a_freed_pointer_is_use_after_free() {
    let t = T::with_device(0);
    let d = t.malloc(64, HUGE_FIRST).unwrap();
    assert_eq!(t.free(d), OK);
    let mut h = [0u8; 64];
    assert_eq!(
        t.memcpy(h.as_mut_ptr().cast(), 64, d, 64, D2H),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::UseAfterFree, 1);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::DeviceBuffer), 0);
}

#[test]
fn device_to_device_copies_work_within_and_across_devices() {
    let t = T::with_device(0);
    let a = t.malloc(4096, HUGE_FIRST).unwrap();
    let b = t.malloc(4096, HUGE_FIRST).unwrap();
    let data: Vec<u8> = (0..4096).map(|i| (i * 7 % 251) as u8).collect();
    assert_eq!(t.upload(a, &data), OK);
    assert_eq!(t.memcpy(b, 4096, a, 4096, D2D), OK);
    assert_eq!(t.set_device(1), OK);
    let c = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.memcpy(c, 4096, b, 4096, D2D), OK);
    assert_eq!(t.download(c, 4096), data);
    // overlapping copy inside one allocation behaves like memmove
    assert_eq!(t.memcpy(a.wrapping_byte_add(1), 4095, a, 4095, D2D), OK);
    assert_eq!(
        t.download(a.wrapping_byte_add(1), 4095),
        data[..4095].to_vec()
    );
    for p in [a, b, c] {
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.reset_device(1), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn memset_fills_with_the_low_byte_of_an_int32_value() {
    let t = T::with_device(0);
    let d = t.malloc(8192, HUGE_FIRST).unwrap();
    assert_eq!(t.memset(d, 8192, 0x1AB, 8192), OK);
    assert_eq!(t.download(d, 8192), vec![0xAB; 8192]);
    assert_eq!(t.memset(d.wrapping_byte_add(10), 8000, 0, 8000), OK);
    let data = t.download(d, 8192);
    assert_eq!(&data[..10], &[0xAB; 10]);
    assert!(data[10..8010].iter().all(|&b| b == 0));
    assert_eq!(&data[8010..], &[0xAB; 182]);
    assert_eq!(
        t.memset(std::ptr::null_mut(), 1, 0, 1),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(t.memset(d, 8192, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.memset(d, 16, 0, 17), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.s.misuse_total(), 0);
    let mut h = [0u8; 16];
    assert_eq!(
        t.memset(h.as_mut_ptr().cast(), 16, 0, 16),
        ACL_ERROR_RT_PARAM_INVALID
    );
    t.assert_misuse(Misuse::UnknownPointer, 1);
    assert_eq!(t.free(d), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::DeviceBuffer), 0);
}

#[test]
fn freeing_memory_with_a_queued_copy_is_detected_as_use_after_free() {
    let t = T::with_device(0);
    t.s.set_stream_delay(Duration::from_millis(30));
    let s = t.create_stream().unwrap();
    let d = t.malloc(4096, HUGE_FIRST).unwrap();
    let h = t.malloc_host(4096).unwrap();
    assert_eq!(t.memcpy_async(d, 4096, h, 4096, H2D, s), OK);
    // free does not wait for the stream; the free itself is already flagged
    assert_eq!(t.free(d), OK);
    assert_eq!(t.s.misuse(Misuse::UnorderedAccess), 1);
    assert!(
        t.s.misuse_log()
            .contains("aclrtFree: free of m1[0x0, 0x1000) by the host")
    );
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.s.misuse(Misuse::UseAfterFree), 1);
    assert_eq!(t.s.misuse_total(), 2);
    let log = t.s.misuse_log();
    assert!(log.contains("aclrtMemcpyAsync queued on s1"), "{log}");
    assert!(log.contains("destination"), "{log}");
    // the same for pinned host memory freed under a queued copy
    let d2 = t.malloc(4096, HUGE_FIRST).unwrap();
    assert_eq!(t.memcpy_async(h, 4096, d2, 4096, D2H, s), OK);
    assert_eq!(t.free_host(h), OK);
    // aclrtFreeHost itself already sees the unfinished copy
    assert_eq!(t.s.misuse(Misuse::PinnedHostAccess), 1);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.s.misuse(Misuse::UseAfterFree), 2);
    assert_eq!(t.free(d2), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 4);
    assert_eq!(
        t.s.live(Resource::DeviceBuffer) + t.s.live(Resource::HostBuffer),
        0
    );
}

#[test]
fn malloc_host_returns_pinned_host_memory_and_detects_bad_frees() {
    let t = T::with_device(0);
    // SAFETY: a null out-pointer is rejected.
    let rc = unsafe { t.lib.aclrtMallocHost(std::ptr::null_mut(), 64) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    assert_eq!(t.malloc_host(0), Err(ACL_ERROR_INVALID_PARAM));
    let h = t.malloc_host(1000).unwrap();
    assert_eq!(h as usize % 64, 0);
    // it is real host memory
    // SAFETY: `h` is 1000 bytes of host memory.
    unsafe { std::ptr::write_bytes(h.cast::<u8>(), 0x11, 1000) };
    assert_eq!(t.s.live(Resource::HostBuffer), 1);
    assert_eq!(t.free_host(std::ptr::null_mut()), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        t.free_host(h.wrapping_byte_add(8)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
    assert_eq!(t.free_host(h), OK);
    assert_eq!(t.free_host(h), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.s.misuse(Misuse::DoubleFree), 1);
    assert_eq!(t.s.misuse_total(), 2);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.live(Resource::HostBuffer), 0);
}

#[test]
fn async_copies_and_fills_run_on_the_stream() {
    let t = T::with_device(0);
    let s = t.create_stream().unwrap();
    let a = t.malloc(1 << 16, HUGE_FIRST).unwrap();
    let b = t.malloc(1 << 16, HUGE_FIRST).unwrap();
    let h = t.malloc_host(1 << 16).unwrap();
    assert_eq!(t.memset_async(a, 1 << 16, 0x77, 1 << 16, s), OK);
    assert_eq!(t.memcpy_async(b, 1 << 16, a, 1 << 16, D2D, s), OK);
    assert_eq!(t.memcpy_async(h, 1 << 16, b, 1 << 16, D2H, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    // SAFETY: `h` holds 64 KiB and the stream is synchronized.
    let got = unsafe { std::slice::from_raw_parts(h.cast::<u8>(), 1 << 16) };
    assert!(got.iter().all(|&x| x == 0x77));
    // enqueue-time validation is the same as for synchronous calls
    assert_eq!(t.memset_async(a, 16, 0, 17, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        t.memcpy_async(a, 1 << 20, h, 1 << 20, H2D, s),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 1);
    assert_eq!(t.destroy_stream(s), OK);
    for p in [a, b] {
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.free_host(h), OK);
    assert_eq!(t.reset_device(0), OK);
    assert_eq!(t.s.misuse_total(), 1);
}

#[test]
fn abort_on_misuse_stops_the_process_at_the_first_misuse() {
    const NAME: &str = "abort_on_misuse_stops_the_process_at_the_first_misuse";
    if is_child(NAME) {
        let t = T::with_device(0);
        let p = t.malloc(64, HUGE_FIRST).unwrap();
        assert_eq!(t.free(p), OK);
        let _ = t.free(p);
        println!("survived a double free");
        return;
    }
    let out = run_child(NAME, &[("ASCENDCL_MOCK_ABORT_ON_MISUSE", "1")]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT: {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("misuse DOUBLE_FREE in aclrtFree"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("survived"));
    let t = T::new();
    t.assert_clean(0);
}
