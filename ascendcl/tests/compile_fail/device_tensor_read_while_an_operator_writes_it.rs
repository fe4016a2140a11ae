// A DeviceTensor written by a queued operator cannot be read before the
// launch is waited on: its view_mut borrows it until then.
use ascendcl::ops::{self, DeviceTensor, Workspace};
use ascendcl::Stream;

fn relu_then_read_early(stream: &Stream, x: &DeviceTensor<f32>, y: &mut DeviceTensor<f32>) -> ascendcl::Result<()> {
    let pending = ops::relu(&x.view(), y.view_mut())?.launch(stream, Workspace::none())?;
    let early = y.to_vec()?;
    pending.wait()?;
    drop(early);
    Ok(())
}

fn main() {}
