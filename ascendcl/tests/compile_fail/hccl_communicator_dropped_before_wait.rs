// Destroying a communicator while one of its collectives' guards is alive.
use ascendcl::hccl::Communicator;
use ascendcl::prelude::*;

fn broadcast(comm: Communicator, stream: &Stream, x: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    let pending = comm.broadcast(x, 0, stream)?;
    drop(comm);
    pending.wait()
}

fn main() {}
