// Reading a collective's receive buffer before the collective is waited on.
use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::prelude::*;

fn sum(comm: &Communicator, stream: &Stream, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> ascendcl::Result<Vec<f32>> {
    let pending = comm.all_reduce(x, y, ReduceOp::Sum, stream)?;
    let early = y.to_vec()?;
    pending.wait()?;
    Ok(early)
}

fn main() {}
