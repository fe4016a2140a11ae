// Dropping a buffer that a queued operation borrows.
use ascendcl::prelude::*;

fn fill(stream: &Stream, mut device: DeviceBuffer<u32>) -> ascendcl::Result<()> {
    let pending = stream.fill_bytes(&mut device, 0)?;
    drop(device);
    pending.wait()
}

fn main() {}
