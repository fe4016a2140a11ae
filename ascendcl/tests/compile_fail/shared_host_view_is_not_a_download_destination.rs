// A shared view of pinned memory is read-only: a download cannot write it.
use ascendcl::prelude::*;

fn download(stream: &Stream, device: &DeviceBuffer<u8>, host: &HostBuffer<u8>) -> ascendcl::Result<()> {
    let source = device.slice(..4)?;
    let mut part = host.slice(..4)?;
    stream.copy_device_to_host(&source, &mut part)?.wait()
}

fn main() {}
