// A view of pinned memory cannot outlive (or be used after freeing) its buffer.
use ascendcl::prelude::*;

fn upload(stream: &Stream, host: HostBuffer<u8>, device: &mut DeviceBuffer<u8>) -> ascendcl::Result<()> {
    let batch = host.slice(..4)?;
    drop(host); // frees the pinned memory the view points into
    let mut target = device.slice_mut(..4)?;
    stream.copy_host_to_device(&batch, &mut target)?.wait()
}

fn main() {}
