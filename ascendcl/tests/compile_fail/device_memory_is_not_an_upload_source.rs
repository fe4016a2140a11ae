// Only pinned host memory is the source of an upload: device memory is not
// host memory, even if the element type matches.
use ascendcl::prelude::*;

fn upload(stream: &Stream, other: &DeviceBuffer<u8>, device: &mut DeviceBuffer<u8>) -> ascendcl::Result<()> {
    stream.copy_host_to_device(other, device)?.wait()
}

fn main() {}
