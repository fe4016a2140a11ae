// An allocator block queued as a copy destination cannot be returned to the
// cache (dropped) before the copy is waited for.
use ascendcl::alloc::CachingAllocator;
use ascendcl::prelude::*;

fn upload(allocator: &CachingAllocator, stream: &Stream, input: &HostBuffer<f32>) -> ascendcl::Result<()> {
    let mut block = allocator.alloc::<f32>(stream, input.len())?;
    let pending = stream.copy_host_to_device(input, &mut block)?;
    drop(block);
    pending.wait()
}

fn main() {}
