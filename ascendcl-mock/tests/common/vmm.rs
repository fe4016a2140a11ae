//! VMM helpers shared by the VMM tests.

use std::ffi::c_void;

use ascendcl_sys::*;

use super::{MIB, OK, T};

pub const G2: usize = 2 * MIB;

pub fn prop(dev: u32, attr: u32) -> aclrtPhysicalMemProp {
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

pub const HBM_HUGE: u32 = 4;
pub const HBM_NORMAL: u32 = 5;
pub const HBM_HUGE1G: u32 = 10;

pub fn reserve(t: &T, size: usize, flags: u64) -> Result<*mut c_void, i32> {
    let mut va = std::ptr::null_mut();
    // SAFETY: valid out-pointer; no fixed address.
    let rc = unsafe {
        t.lib
            .aclrtReserveMemAddress(&mut va, size, 0, std::ptr::null_mut(), flags)
    }
    .unwrap();
    if rc == OK { Ok(va) } else { Err(rc) }
}

pub fn release(t: &T, va: *mut c_void) -> i32 {
    // SAFETY: the mock validates the address.
    unsafe { t.lib.aclrtReleaseMemAddress(va) }.unwrap()
}

pub fn malloc_physical(
    t: &T,
    size: usize,
    p: &aclrtPhysicalMemProp,
) -> Result<aclrtDrvMemHandle, i32> {
    let mut h: aclrtDrvMemHandle = std::ptr::null_mut();
    // SAFETY: valid out-pointer and properties.
    let rc = unsafe { t.lib.aclrtMallocPhysical(&mut h, size, p, 0) }.unwrap();
    if rc == OK { Ok(h) } else { Err(rc) }
}

pub fn free_physical(t: &T, h: aclrtDrvMemHandle) -> i32 {
    // SAFETY: the mock validates the handle.
    unsafe { t.lib.aclrtFreePhysical(h) }.unwrap()
}

pub fn map(t: &T, va: *mut c_void, size: usize, h: aclrtDrvMemHandle) -> i32 {
    // SAFETY: the mock validates address and handle.
    unsafe { t.lib.aclrtMapMem(va, size, 0, h, 0) }.unwrap()
}

pub fn unmap(t: &T, va: *mut c_void) -> i32 {
    // SAFETY: the mock validates the address.
    unsafe { t.lib.aclrtUnmapMem(va) }.unwrap()
}
