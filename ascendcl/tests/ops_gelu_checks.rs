//! The argument checks of the GELU operators as the real ones make them
//! (each rule cited in the mock's `op_gelu.c`): refused in phase 1 with the
//! operator named, and what CANN takes that PyTorch's `gelu_backward` would
//! not (a gradient cast into another dtype, an integer `gradOutput`).

mod common;

use ascendcl::ops::{self, DType, GeluApproximate, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

use common::refused;

#[test]
fn gelu_refuses_an_out_of_another_dtype_or_shape_and_an_integer_self() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut y16 = DeviceBuffer::<u16>::zeroed(&ctx, 6)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 6)?;
        refused(
            "an f16 out for an f32 self",
            "aclnnGelu",
            ops::gelu(
                &Tensor::new(&x, &[6])?,
                TensorMut::with_dtype(&mut y16, &[6], DType::F16)?,
            ),
        );
        refused(
            "out [3, 2] for self [2, 3]",
            "aclnnGelu",
            ops::gelu(&Tensor::new(&x, &[2, 3])?, TensorMut::new(&mut y, &[3, 2])?),
        );
        refused(
            "an int32 self",
            "aclnnGelu",
            ops::gelu(&Tensor::new(&xi, &[6])?, TensorMut::new(&mut yi, &[6])?),
        );
        refused(
            "an int32 x",
            "aclnnGeluV2",
            ops::gelu_v2(
                &Tensor::new(&xi, &[6])?,
                GeluApproximate::None,
                TensorMut::new(&mut yi, &[6])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn gelu_backward_casts_into_any_grad_input_dtype_but_v2_wants_the_promoted_one() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let g = DeviceBuffer::from_host(&ctx, &[2i32, 2, 2])?;
        let x = DeviceBuffer::from_host(&ctx, &[0.0f32, 10.0, -10.0])?;
        let mut dx16 = DeviceBuffer::<u16>::zeroed(&ctx, 3)?;
        // an int32 gradOutput promotes with an f32 self to f32 (in the list),
        // and the f32 result goes into an f16 gradInput
        ops::gelu_backward(
            &Tensor::new(&g, &[3])?,
            &Tensor::new(&x, &[3])?,
            TensorMut::with_dtype(&mut dx16, &[3], DType::F16)?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        // 1.0, 2.0, 0.0 in f16
        assert_eq!(dx16.to_vec()?, vec![0x3c00, 0x4000, 0x0000]);
        refused(
            "an f16 gradInput for an f32 promoted dtype",
            "aclnnGeluBackwardV2",
            ops::gelu_backward_v2(
                &Tensor::new(&g, &[3])?,
                &Tensor::new(&x, &[3])?,
                GeluApproximate::Tanh,
                TensorMut::with_dtype(&mut dx16, &[3], DType::F16)?,
            ),
        );
        Ok(())
    });
}

#[test]
fn gelu_backwards_refuse_operands_that_do_not_broadcast_to_grad_input() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        refused(
            "gradOutput [2, 3] with self [3, 2]",
            "aclnnGeluBackward",
            ops::gelu_backward(
                &Tensor::new(&g, &[2, 3])?,
                &Tensor::new(&x, &[3, 2])?,
                TensorMut::new(&mut dx, &[2, 3])?,
            ),
        );
        refused(
            "gradInput [6] for the broadcast shape [2, 3]",
            "aclnnGeluBackwardV2",
            ops::gelu_backward_v2(
                &Tensor::new(&g, &[2, 3])?,
                &Tensor::new(&x, &[2, 3])?,
                GeluApproximate::None,
                TensorMut::new(&mut dx, &[6])?,
            ),
        );
        Ok(())
    });
}
