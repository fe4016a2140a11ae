//! Fault sweep of the tensor-list operators (batch ops3b): a Cat of three
//! tensors and a split of the result back into a list, with each FFI call
//! failing in turn (the method of `fault_sweep.rs`). A failed
//! `aclCreateTensorList` leaves its tensors to the safe layer, a created
//! list destroys them: either way nothing stays alive.

mod common;

use ascendcl::Runtime;
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use common::sweep::sweep;

fn cat_then_split(rt: &Runtime) -> ascendcl::Result<()> {
    let device = Device::open(rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let (a, b, c) = (
        DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?,
        DeviceBuffer::from_host(&ctx, &[3.0f32])?,
        DeviceBuffer::from_host(&ctx, &[4.0f32, 5.0, 6.0])?,
    );
    let mut joined = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
    let ts = [
        Tensor::new(&a, &[2])?,
        Tensor::new(&b, &[1])?,
        Tensor::new(&c, &[3])?,
    ];
    ops::cat(
        &[&ts[0], &ts[1], &ts[2]],
        0,
        TensorMut::new(&mut joined, &[6])?,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    let (mut p, mut q) = (
        DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
        DeviceBuffer::<f32>::zeroed(&ctx, 2)?,
    );
    ops::split_with_size(
        &Tensor::new(&joined, &[6])?,
        &[4, 2],
        0,
        vec![TensorMut::new(&mut p, &[4])?, TensorMut::new(&mut q, &[2])?],
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    assert_eq!(
        (p.to_vec()?, q.to_vec()?),
        (vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0])
    );
    Ok(())
}

#[test]
fn failing_any_call_of_a_cat_and_a_split_returns_an_error_and_leaks_nothing() {
    sweep(cat_then_split, 20);
}
