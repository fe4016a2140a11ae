//! The argument checks of the reductions over a list of dims (norm_shape
//! batch), as the real operators make them (each rule cited in the mock's
//! `op_reduce_dims.c`): refused in phase 1 with the operator named; and what
//! CANN does that PyTorch does not (an integer mean, truncated; the maximum
//! of an empty self over every dim).

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

use common::refused;

#[test]
fn mean_refuses_repeated_or_out_of_range_dims_a_float_into_an_integer_and_a_wrong_out_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 6)?;
        let xt = Tensor::new(&x, &[2, 3])?;
        refused(
            "dim 2 of a 2-D self",
            "aclnnMean",
            ops::mean(&xt, &[2], false, DType::F32, TensorMut::new(&mut y, &[2])?),
        );
        refused(
            "dims 1 and -1 (the same dim twice)",
            "aclnnMean",
            ops::mean(
                &xt,
                &[1, -1],
                false,
                DType::F32,
                TensorMut::new(&mut y, &[2])?,
            ),
        );
        refused(
            "an f32 self into dtype int32",
            "aclnnMean",
            ops::mean(&xt, &[1], false, DType::I32, TensorMut::new(&mut yi, &[2])?),
        );
        refused(
            "out [3] for the mean of [2, 3] over dim 1",
            "aclnnMean",
            ops::mean(&xt, &[1], false, DType::F32, TensorMut::new(&mut y, &[3])?),
        );
        Ok(())
    });
}

#[test]
fn mean_of_integers_is_taken_and_truncated_and_an_empty_self_gives_nan() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32, 2, 2, 7, -3, -4])?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 2)?;
        ops::mean(
            &Tensor::new(&xi, &[2, 3])?,
            &[1],
            false,
            DType::I32,
            TensorMut::new(&mut yi, &[2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        // 5/3 and 0/3
        assert_eq!(yi.to_vec()?, vec![1, 0]);
        let e = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        ops::mean(
            &Tensor::new(&e, &[2, 0])?,
            &[1],
            false,
            DType::F32,
            TensorMut::new(&mut y, &[2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert!(y.to_vec()?.iter().all(|v| v.is_nan()));
        Ok(())
    });
}

#[test]
fn amax_refuses_another_out_dtype_an_empty_reduced_dim_and_a_repeated_dim() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut yh = DeviceBuffer::<f64>::zeroed(&ctx, 6)?;
        let xt = Tensor::new(&x, &[2, 3])?;
        refused(
            "an f64 out for an f32 self",
            "aclnnAmax",
            ops::amax(&xt, &[1], false, TensorMut::new(&mut yh, &[2])?),
        );
        refused(
            "dims 0 and -2 (the same dim twice)",
            "aclnnAmax",
            ops::amax(&xt, &[0, -2], false, TensorMut::new(&mut y, &[3])?),
        );
        refused(
            "dim -3 of a 2-D self",
            "aclnnAmax",
            ops::amax(&xt, &[-3], false, TensorMut::new(&mut y, &[3])?),
        );
        let e = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        refused(
            "reducing a dim of size 0",
            "aclnnAmax",
            ops::amax(
                &Tensor::new(&e, &[2, 0])?,
                &[1],
                false,
                TensorMut::new(&mut y, &[2])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn amax_of_an_empty_self_over_every_dim_leaves_out_unwritten_and_int8_maxima_are_exact() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let e = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut y = DeviceBuffer::from_host(&ctx, &[42.0f32])?;
        ops::amax(
            &Tensor::new(&e, &[0, 3])?,
            &[],
            false,
            TensorMut::new(&mut y, &[])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(y.to_vec()?, vec![42.0]);
        let b = DeviceBuffer::from_host(&ctx, &[-128i8, 127, -5, -7])?;
        let mut yb = DeviceBuffer::<i8>::zeroed(&ctx, 2)?;
        ops::amax(
            &Tensor::new(&b, &[2, 2])?,
            &[1],
            false,
            TensorMut::new(&mut yb, &[2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(yb.to_vec()?, vec![127, -5]);
        Ok(())
    });
}
