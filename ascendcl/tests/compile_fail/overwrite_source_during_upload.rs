// Overwriting pinned host memory the device is still reading from.
use ascendcl::prelude::*;

fn upload(stream: &Stream, host: &mut HostBuffer<u8>, device: &mut DeviceBuffer<u8>) -> ascendcl::Result<()> {
    let pending = stream.copy_host_to_device(host, device)?;
    host[0] = 1; // an async image decode overwriting the buffer being uploaded
    pending.wait()
}

fn main() {}
