// Reading an in-place broadcast's buffer on the host before the wait.
use ascendcl::prelude::*;

fn bcast(comm: &ascendcl::hccl::Communicator, stream: &Stream, x: &mut DeviceBuffer<i32>) -> ascendcl::Result<usize> {
    let pending = comm.broadcast(x, 0, stream)?;
    let n = x.len();
    pending.detach();
    Ok(n)
}

fn main() {}
