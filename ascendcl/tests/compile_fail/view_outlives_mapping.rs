// A view into mapped memory cannot outlive the mapping.
use ascendcl::prelude::*;
use ascendcl::vmm::{PhysicalMemory, VirtualRange};

fn dangling(range: &VirtualRange, page: &PhysicalMemory) -> ascendcl::Result<Vec<u8>> {
    let view = {
        let mapping = range.map(0, page)?;
        mapping.slice(0..16)?
    };
    view.to_vec()
}

fn main() {}
