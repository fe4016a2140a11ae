// Overwriting pinned host memory while an upload from a view of it may still
// read it: the view borrows the buffer, the upload borrows the view.
use ascendcl::prelude::*;

fn upload(stream: &Stream, host: &mut HostBuffer<u8>, device: &mut DeviceBuffer<u8>) -> ascendcl::Result<()> {
    let batch = host.slice(..4)?;
    let mut target = device.slice_mut(..4)?;
    let pending = stream.copy_host_to_device(&batch, &mut target)?;
    host[0] = 1; // the next batch written into the staging buffer too early
    pending.wait()
}

fn main() {}
