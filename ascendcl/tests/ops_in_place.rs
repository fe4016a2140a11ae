//! The in-place Sub and Addmm of the safe layer: `inplace_sub` is
//! `self -= alpha * other` and `inplace_addmm` is
//! `self = beta * self + alpha * (mat1 @ mat2)`, as PyTorch's `Tensor.sub_`
//! and `Tensor.addmm_`; with `beta = 1` the latter accumulates a linear
//! layer's weight gradient over steps without a temporary.

mod common;

use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

#[test]
fn inplace_sub_is_self_minus_alpha_times_a_broadcast_other() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
        let row = DeviceBuffer::from_host(&ctx, &[0.5f32, -1.0, 2.0])?;
        ops::inplace_sub(
            TensorMut::new(&mut a, &[2, 3])?,
            &Tensor::new(&row, &[3])?,
            0.5f32,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        // torch.tensor([[1,2,3],[4,5,6.]]).sub_(torch.tensor([.5,-1,2]), alpha=.5)
        assert_eq!(a.to_vec()?, vec![0.75, 2.5, 2.0, 3.75, 5.5, 5.0]);
        Ok(())
    });
}

#[test]
fn inplace_sub_refuses_an_other_that_would_grow_self() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut a = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let b = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let text = match ops::inplace_sub(
            TensorMut::new(&mut a, &[3])?,
            &Tensor::new(&b, &[2, 3])?,
            1.0f32,
        ) {
            Err(e) => e.to_string(),
            Ok(_prepared) => panic!("other [2,3] into self [3] was accepted"),
        };
        assert!(text.contains("aclnnInplaceSub"), "{text}");
        assert_eq!(a.to_vec()?, vec![1.0; 3], "self untouched");
        Ok(())
    });
}

/// `grad_w += grad_out^T @ x` for one step of a linear layer with 2 outputs
/// and 2 inputs over a batch of 3, launched on `grad_w` in place.
fn accumulate(
    stream: &Stream,
    grad_w: TensorMut<'_>,
    grad_out: &DeviceBuffer<f32>,
    x: &DeviceBuffer<f32>,
) -> ascendcl::Result<()> {
    let ctx = stream.context();
    // grad_out is stored [3, 2]; its transpose is a [2, 3] view
    let go_t = Tensor::strided(grad_out, &[2, 3], &[1, 2], 0)?;
    let prepared = ops::inplace_addmm(
        grad_w,
        &go_t,
        &Tensor::new(x, &[3, 2])?,
        1.0f32,
        1.0f32,
        CubeMath::KeepDtype,
    )?;
    let mut ws = DeviceBuffer::<u8>::zeroed(ctx, prepared.workspace_size() as usize)?;
    prepared
        .launch(stream, Workspace::from_buffer(&mut ws))?
        .wait()?;
    Ok(())
}

#[test]
fn inplace_addmm_with_beta_one_accumulates_weight_gradients_over_steps() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut grad_w = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let go1 = DeviceBuffer::from_host(&ctx, &[1.0f32, 0.0, 2.0, 1.0, 0.0, 3.0])?;
        let x1 = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
        let go2 = DeviceBuffer::from_host(&ctx, &[1.0f32, 1.0, 1.0, 1.0, 1.0, 1.0])?;
        let x2 = DeviceBuffer::from_host(&ctx, &[1.0f32, -1.0, 2.0, -2.0, 3.0, -3.0])?;
        accumulate(&stream, TensorMut::new(&mut grad_w, &[2, 2])?, &go1, &x1)?;
        // go1^T @ x1 = [[1,2,0],[0,1,3]] @ [[1,2],[3,4],[5,6]]
        assert_eq!(grad_w.to_vec()?, vec![7.0, 10.0, 18.0, 22.0]);
        accumulate(&stream, TensorMut::new(&mut grad_w, &[2, 2])?, &go2, &x2)?;
        // + ones(2,3) @ x2 = [[6,-6],[6,-6]]
        assert_eq!(grad_w.to_vec()?, vec![13.0, 4.0, 24.0, 16.0]);
        Ok(())
    });
}

#[test]
fn inplace_addmm_writes_a_transposed_self_view_through_its_strides() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        // self is the transpose of the stored [[1,2],[3,4]]: [[1,3],[2,4]]
        let mut s = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        let eye = DeviceBuffer::from_host(&ctx, &[1.0f32, 0.0, 0.0, 1.0])?;
        let m = DeviceBuffer::from_host(&ctx, &[10.0f32, 20.0, 30.0, 40.0])?;
        let prepared = ops::inplace_addmm(
            TensorMut::strided(&mut s, &[2, 2], &[1, 2], 0)?,
            &Tensor::new(&eye, &[2, 2])?,
            &Tensor::new(&m, &[2, 2])?,
            2.0f32,
            0.5f32,
            CubeMath::KeepDtype,
        )?;
        let mut ws = DeviceBuffer::<u8>::zeroed(&ctx, prepared.workspace_size() as usize)?;
        prepared
            .launch(&stream, Workspace::from_buffer(&mut ws))?
            .wait()?;
        // 2*[[1,3],[2,4]] + 0.5*[[10,20],[30,40]] = [[7,16],[19,28]], stored transposed
        assert_eq!(s.to_vec()?, vec![7.0, 19.0, 16.0, 28.0]);
        Ok(())
    });
}
