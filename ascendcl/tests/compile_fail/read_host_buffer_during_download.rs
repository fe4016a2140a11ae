// Reading a pinned host buffer while an asynchronous copy into it is queued.
use ascendcl::prelude::*;

fn download(stream: &Stream, device: &DeviceBuffer<f32>, host: &mut HostBuffer<f32>) -> ascendcl::Result<f32> {
    let pending = stream.copy_device_to_host(device, host)?;
    let first = host[0]; // the copy may not have run yet
    pending.wait()?;
    Ok(first)
}

fn main() {}
