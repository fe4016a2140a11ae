// Releasing consumes the range handle: nothing can be mapped into it after.
use ascendcl::vmm::{PhysicalMemory, VirtualRange};

fn release_then_map(range: VirtualRange, page: &PhysicalMemory) -> ascendcl::Result<()> {
    range.release()?;
    range.map(0, page).map(drop)
}

fn main() {}
