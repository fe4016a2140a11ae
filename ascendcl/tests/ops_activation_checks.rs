//! The argument checks of the activations batch, as the real operators make
//! them (each rule cited in the mock's `op_softmax_probs.c` and
//! `op_smooth_activations.c`): refused in phase 1, with the operator named;
//! and what they take that PyTorch does not (an integer `self` for sigmoid
//! and tanh), or refuse what PyTorch takes (a broadcast in SiLU's gradient).

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut};
use ascendcl::prelude::*;

use common::refused;

#[test]
fn softmax_refuses_a_dim_out_of_range_an_integer_self_and_a_wrong_out_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 6)?;
        refused(
            "dim 2 of a 2-D self",
            "aclnnSoftmax",
            ops::softmax(
                &Tensor::new(&x, &[2, 3])?,
                2,
                TensorMut::new(&mut y, &[2, 3])?,
            ),
        );
        refused(
            "dim -3 of a 2-D self",
            "aclnnSoftmax",
            ops::softmax(
                &Tensor::new(&x, &[2, 3])?,
                -3,
                TensorMut::new(&mut y, &[2, 3])?,
            ),
        );
        refused(
            "an int32 self",
            "aclnnSoftmax",
            ops::softmax(
                &Tensor::new(&xi, &[2, 3])?,
                1,
                TensorMut::new(&mut yi, &[2, 3])?,
            ),
        );
        refused(
            "out [3, 2] for self [2, 3]",
            "aclnnSoftmax",
            ops::softmax(
                &Tensor::new(&x, &[2, 3])?,
                1,
                TensorMut::new(&mut y, &[3, 2])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn softmax_backward_refuses_mixed_dtypes_and_an_output_of_another_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let y16 = DeviceBuffer::from_host(&ctx, &[0x3800u16; 6])?; // 0.5 in f16
        let y = DeviceBuffer::from_host(&ctx, &[0.5f32; 6])?;
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        refused(
            "gradOutput f32 with output f16",
            "aclnnSoftmaxBackward",
            ops::softmax_backward(
                &Tensor::new(&g, &[2, 3])?,
                &Tensor::with_dtype(&y16, &[2, 3], DType::F16)?,
                1,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        refused(
            "output [3, 2] for gradOutput [2, 3]",
            "aclnnSoftmaxBackward",
            ops::softmax_backward(
                &Tensor::new(&g, &[2, 3])?,
                &Tensor::new(&y, &[3, 2])?,
                1,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn sigmoid_takes_an_integer_self_but_refuses_an_integer_out() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let xi = DeviceBuffer::from_host(&ctx, &[0i32, 1, -1])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 3)?;
        ops::sigmoid(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut y, &[3])?)?
            .launch(&stream, ops::Workspace::none())?
            .wait()?;
        let y = y.to_vec()?;
        assert_eq!(y[0], 0.5);
        assert!(
            (y[1] - 0.731_058_6).abs() < 1e-6 && (y[2] - 0.268_941_43).abs() < 1e-6,
            "{y:?}"
        );
        refused(
            "an int32 out",
            "aclnnSigmoid",
            ops::sigmoid(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut yi, &[3])?),
        );
        Ok(())
    });
}

#[test]
fn sigmoid_backward_refuses_a_grad_input_that_is_not_the_broadcast_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let y = DeviceBuffer::from_host(&ctx, &[0.5f32; 6])?;
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        refused(
            "gradInput [3] for the broadcast [2, 3]",
            "aclnnSigmoidBackward",
            ops::sigmoid_backward(
                &Tensor::new(&g, &[3])?,
                &Tensor::new(&y, &[2, 3])?,
                TensorMut::new(&mut dx, &[3])?,
            ),
        );
        refused(
            "gradOutput [2] against output [2, 3]",
            "aclnnSigmoidBackward",
            ops::sigmoid_backward(
                &Tensor::new(&g, &[2])?,
                &Tensor::new(&y, &[2, 3])?,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn tanh_takes_an_integer_or_bool_self_into_a_float_out_but_refuses_an_integer_out_and_f64() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let xi = DeviceBuffer::from_host(&ctx, &[0i32, 1, -2])?;
        let xb = DeviceBuffer::from_host(&ctx, &[0u8, 1, 1])?;
        let xd = DeviceBuffer::from_host(&ctx, &[0.5f64; 3])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 3)?;
        let mut yd = DeviceBuffer::<f64>::zeroed(&ctx, 3)?;
        ops::tanh(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut y, &[3])?)?
            .launch(&stream, ops::Workspace::none())?
            .wait()?;
        let v = y.to_vec()?;
        assert!(
            v[0] == 0.0 && (v[1] - 0.761_594_2).abs() < 1e-6 && (v[2] + 0.964_027_6).abs() < 1e-6,
            "{v:?}"
        );
        ops::tanh(
            &Tensor::with_dtype(&xb, &[3], DType::Bool)?,
            TensorMut::new(&mut y, &[3])?,
        )?
        .launch(&stream, ops::Workspace::none())?
        .wait()?;
        let v = y.to_vec()?;
        assert!(v[0] == 0.0 && (v[2] - 0.761_594_2).abs() < 1e-6, "{v:?}");
        refused(
            "an int32 out (the f32 result cannot be cast into it)",
            "aclnnTanh",
            ops::tanh(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut yi, &[3])?),
        );
        refused(
            "an f64 self (not in the 910B list)",
            "aclnnTanh",
            ops::tanh(&Tensor::new(&xd, &[3])?, TensorMut::new(&mut yd, &[3])?),
        );
        refused(
            "out [1, 3] for self [3]",
            "aclnnTanh",
            ops::tanh(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut y, &[1, 3])?),
        );
        Ok(())
    });
}

#[test]
fn tanh_backward_refuses_mixed_dtypes_and_a_grad_input_that_is_not_the_broadcast_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let y = DeviceBuffer::from_host(&ctx, &[0.5f32; 6])?;
        let y16 = DeviceBuffer::from_host(&ctx, &[0x3800u16; 6])?; // 0.5 in f16
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut dx16 = DeviceBuffer::<u16>::zeroed(&ctx, 6)?;
        refused(
            "gradOutput f32 with output f16",
            "aclnnTanhBackward",
            ops::tanh_backward(
                &Tensor::new(&g, &[3])?,
                &Tensor::with_dtype(&y16, &[2, 3], DType::F16)?,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        refused(
            "gradInput f16 for f32 operands",
            "aclnnTanhBackward",
            ops::tanh_backward(
                &Tensor::new(&g, &[3])?,
                &Tensor::new(&y, &[2, 3])?,
                TensorMut::with_dtype(&mut dx16, &[2, 3], DType::F16)?,
            ),
        );
        refused(
            "gradInput [3] for the broadcast [2, 3]",
            "aclnnTanhBackward",
            ops::tanh_backward(
                &Tensor::new(&g, &[3])?,
                &Tensor::new(&y, &[2, 3])?,
                TensorMut::new(&mut dx, &[3])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn silu_refuses_an_out_of_another_dtype_and_an_integer_self() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32; 3])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let mut y16 = DeviceBuffer::<u16>::zeroed(&ctx, 3)?;
        refused(
            "an f16 out for an f32 self",
            "aclnnSilu",
            ops::silu(
                &Tensor::new(&x, &[3])?,
                TensorMut::with_dtype(&mut y16, &[3], DType::F16)?,
            ),
        );
        refused(
            "an int32 self",
            "aclnnSilu",
            ops::silu(&Tensor::new(&xi, &[3])?, TensorMut::new(&mut y, &[3])?),
        );
        refused(
            "out [1, 3] for self [3]",
            "aclnnSilu",
            ops::silu(&Tensor::new(&x, &[3])?, TensorMut::new(&mut y, &[1, 3])?),
        );
        Ok(())
    });
}

#[test]
fn silu_backward_on_910b_refuses_a_broadcast_grad_output_and_mixed_dtypes() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let g1 = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let x = DeviceBuffer::from_host(&ctx, &[0.0f32; 6])?;
        let x16 = DeviceBuffer::from_host(&ctx, &[0u16; 6])?;
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        refused(
            "gradOutput [3] against self [2, 3] (PyTorch would broadcast)",
            "aclnnSiluBackward",
            ops::silu_backward(
                &Tensor::new(&g1, &[3])?,
                &Tensor::new(&x, &[2, 3])?,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        refused(
            "self f16 with gradOutput and gradInput f32",
            "aclnnSiluBackward",
            ops::silu_backward(
                &Tensor::new(&g, &[2, 3])?,
                &Tensor::with_dtype(&x16, &[2, 3], DType::F16)?,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        // the same shapes and dtype are taken: silu'(0) = 1/2
        ops::silu_backward(
            &Tensor::new(&g, &[2, 3])?,
            &Tensor::new(&x, &[2, 3])?,
            TensorMut::new(&mut dx, &[2, 3])?,
        )?
        .launch(&stream, ops::Workspace::none())?
        .wait()?;
        assert_eq!(dx.to_vec()?, vec![0.5; 6]);
        Ok(())
    });
}
