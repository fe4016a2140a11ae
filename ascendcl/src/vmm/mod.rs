//! Virtual memory: reserve an address range, allocate physical pages, map them.
//!
//! The NPU's answer to fragmentation (and torch_npu's *expandable segments*)
//! is the VMM API: a [`VirtualRange`] reserves device addresses with no memory
//! behind them, [`PhysicalMemory`] allocates pages that have no address, and a
//! [`Mapping`] puts one whole physical allocation at a granularity-aligned
//! offset of a range. Growing a buffer is mapping more pages after it: its
//! address never changes and nothing is copied.
//!
//! # The ownership contract
//!
//! * a [`Mapping`] keeps its [`PhysicalMemory`] and its [`VirtualRange`] alive,
//!   so physical memory is never freed while mapped, and a range is released
//!   only after its last mapping is gone (dropping a range's handle while it
//!   is mapped defers the release; [`VirtualRange::release`] refuses);
//! * unmapping first waits for queued stream work that used the mapping (the
//!   runtime's unmap does not: torch_npu calls a device synchronize before
//!   every unmap for exactly that reason);
//! * sizes and offsets are checked against the granularity before any FFI
//!   call, and the errors name the granularity.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::prelude::*;
//! use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange};
//! let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
//! let page = ascendcl::vmm::granularity(&ctx, PageSize::Huge2M)?; // 2 MiB
//! let range = VirtualRange::reserve(&ctx, 8 * page, PageSize::Huge2M)?;
//! let first = range.map(0, &PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?)?;
//! let second = range.map(page, &PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?)?;
//! assert_eq!(second.as_device_ptr() as usize - first.as_device_ptr() as usize, page);
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod mapping;
mod physical;
mod range;

pub use mapping::Mapping;
pub use physical::PhysicalMemory;
pub use range::VirtualRange;

use ascendcl_sys::{self as sys, aclrtPhysicalMemProp};

use crate::call::check;
use crate::context::Context;
use crate::error::{Error, Result};

/// Physical page size of VMM memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageSize {
    /// 2 MiB huge pages (`ACL_HBM_MEM_HUGE`).
    Huge2M,
    /// 1 GiB pages (`ACL_HBM_MEM_HUGE1G`, Atlas A2/A3).
    Huge1G,
}

impl PageSize {
    fn mem_attr(self) -> sys::aclrtMemAttr {
        match self {
            PageSize::Huge2M => sys::aclrtMemAttr::ACL_HBM_MEM_HUGE,
            PageSize::Huge1G => sys::aclrtMemAttr::ACL_HBM_MEM_HUGE1G,
        }
    }

    /// The physical memory properties for pages of this size on `ctx`'s device.
    pub(crate) fn prop(self, ctx: &Context) -> aclrtPhysicalMemProp {
        aclrtPhysicalMemProp {
            handleType: sys::aclrtMemHandleType::ACL_MEM_HANDLE_TYPE_NONE,
            allocationType: sys::aclrtMemAllocationType::ACL_MEM_ALLOCATION_TYPE_PINNED,
            memAttr: self.mem_attr(),
            location: sys::aclrtMemLocation {
                id: ctx.device_id(),
                type_: sys::aclrtMemLocationType::ACL_MEM_LOCATION_TYPE_DEVICE,
            },
            reserve: 0,
        }
    }
}

/// The allocation granularity (minimum page) of `page` memory on `ctx`'s
/// device: what physical sizes, range sizes and mapping offsets must be
/// multiples of (2 MiB for [`PageSize::Huge2M`] on current cards).
pub fn granularity(ctx: &Context, page: PageSize) -> Result<usize> {
    ctx.bind()?;
    let lib = ctx.lib();
    let mut prop = page.prop(ctx);
    let mut granularity = 0usize;
    // SAFETY: valid pointers to a prop of the declared layout and an out-value.
    let result = unsafe {
        lib.aclrtMemGetAllocationGranularity(
            &mut prop,
            sys::aclrtMemGranularityOptions::ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
            &mut granularity,
        )
    };
    check(lib, "aclrtMemGetAllocationGranularity", result)?;
    if granularity == 0 || !granularity.is_power_of_two() {
        return Err(Error::InvalidState(format!(
            "the runtime reported a granularity of {granularity} bytes"
        )));
    }
    Ok(granularity)
}

/// Checks that `value` (named `what`) is a non-zero multiple of `granularity`.
pub(crate) fn check_multiple(what: &str, value: usize, granularity: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::invalid(format!("{what} must not be zero")));
    }
    if value % granularity != 0 {
        // The hint is computed with checked arithmetic: `value` is user input.
        let hint = match value.div_ceil(granularity).checked_mul(granularity) {
            Some(rounded) => format!("round it up to {rounded}"),
            None => "it is too large to round up".to_string(),
        };
        return Err(Error::invalid(format!(
            "{what} of {value} bytes is not a multiple of the {} granularity; {hint}",
            format_bytes(granularity),
        )));
    }
    Ok(())
}

/// "2 MiB", "1 GiB", "4096 B".
pub(crate) fn format_bytes(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}
