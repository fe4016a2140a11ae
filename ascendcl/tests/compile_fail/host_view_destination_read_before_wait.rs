// Reading pinned host memory while a download into a view of it may still
// write it.
use ascendcl::prelude::*;

fn download(stream: &Stream, device: &DeviceBuffer<u8>, host: &mut HostBuffer<u8>) -> ascendcl::Result<u8> {
    let source = device.slice(..4)?;
    let mut part = host.slice_mut(..4)?;
    let pending = stream.copy_device_to_host(&source, &mut part)?;
    let first = host[0]; // read before the data has arrived
    pending.wait()?;
    Ok(first)
}

fn main() {}
