// Freeing an operator's input before its launch is waited on.
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

fn relu(stream: &Stream, x: DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    let pending = ops::relu(&Tensor::new(&x, &[4])?, TensorMut::new(y, &[4])?)?.launch(stream, Workspace::none())?;
    drop(x);
    pending.wait()
}

fn main() {}
