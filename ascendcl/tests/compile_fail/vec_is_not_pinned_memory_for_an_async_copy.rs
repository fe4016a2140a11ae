// An asynchronous copy reads only pinned host memory: a Vec is not, and the
// error says what to use instead (HostBuffer::from_slice, or a synchronous copy).
use ascendcl::prelude::*;

fn upload(stream: &Stream, data: &Vec<f32>, device: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    stream.copy_host_to_device(data, device)?.wait()
}

fn main() {}
