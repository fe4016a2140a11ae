// Launching a single-use executor twice.
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

fn relu(stream: &Stream, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    let prepared = ops::relu(&Tensor::new(x, &[4])?, TensorMut::new(y, &[4])?)?;
    prepared.launch(stream, Workspace::none())?.wait()?;
    prepared.launch(stream, Workspace::none())?.wait()
}

fn main() {}
