// Unmapping consumes the mapping: its memory cannot be touched afterwards.
use ascendcl::prelude::*;
use ascendcl::vmm::Mapping;

fn unmap_then_read(mapping: Mapping) -> ascendcl::Result<Vec<u8>> {
    mapping.unmap()?;
    mapping.to_vec()
}

fn main() {}
