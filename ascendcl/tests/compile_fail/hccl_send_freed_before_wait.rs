// Freeing a collective's send buffer before the collective is waited on.
use ascendcl::prelude::*;

fn gather(comm: &ascendcl::hccl::Communicator, stream: &Stream, x: DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    let pending = comm.all_gather(&x, y, stream)?;
    drop(x);
    pending.wait()
}

fn main() {}
