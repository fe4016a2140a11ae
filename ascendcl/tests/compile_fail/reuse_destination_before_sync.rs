// Queuing a second write into a destination before the first one is waited for.
use ascendcl::prelude::*;

fn upload_twice(
    stream: &Stream,
    a: &HostBuffer<u8>,
    b: &HostBuffer<u8>,
    device: &mut DeviceBuffer<u8>,
) -> ascendcl::Result<()> {
    let first = stream.copy_host_to_device(a, device)?;
    let second = stream.copy_host_to_device(b, device)?;
    first.wait()?;
    second.wait()
}

fn main() {}
