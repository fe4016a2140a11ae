//! The argument checks of `aclnnBatchMatMul` as the real operator makes them
//! (each rule cited in the mock's `op_batch_matmul.c`): exactly 3-D
//! operands, a batch dim broadcast only from 1, out `[batch, M, N]`; and the
//! one broadcast `torch.bmm` does not have.

mod common;

use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

fn refused(what: &str, result: ascendcl::Result<ascendcl::ops::Prepared<'_>>) {
    match result {
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("aclnnBatchMatMul"), "{what}: {text}");
        }
        Ok(_prepared) => panic!("{what} was accepted"),
    }
}

#[test]
fn batch_matmul_refuses_2d_operands_unequal_batches_and_a_wrong_out_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let a = DeviceBuffer::from_host(&ctx, &[1.0f32; 24])?;
        let b = DeviceBuffer::from_host(&ctx, &[1.0f32; 24])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 24)?;
        let k = CubeMath::KeepDtype;
        refused(
            "2-D operands",
            ops::batch_matmul(
                &Tensor::new(&a, &[3, 4])?,
                &Tensor::new(&b, &[4, 2])?,
                TensorMut::new(&mut y, &[3, 2])?,
                k,
            ),
        );
        refused(
            "batches 2 and 3",
            ops::batch_matmul(
                &Tensor::new(&a, &[2, 3, 4])?,
                &Tensor::new(&b, &[3, 4, 2])?,
                TensorMut::new(&mut y, &[3, 3, 2])?,
                k,
            ),
        );
        refused(
            "K 4 against 3",
            ops::batch_matmul(
                &Tensor::new(&a, &[2, 3, 4])?,
                &Tensor::new(&b, &[2, 3, 4])?,
                TensorMut::new(&mut y, &[2, 3, 4])?,
                k,
            ),
        );
        refused(
            "out [2, 2, 3] for [2, 3, 2]",
            ops::batch_matmul(
                &Tensor::new(&a, &[2, 3, 4])?,
                &Tensor::new(&b, &[2, 4, 2])?,
                TensorMut::new(&mut y, &[2, 2, 3])?,
                k,
            ),
        );
        Ok(())
    });
}

#[test]
fn a_batch_of_one_on_the_left_is_broadcast_over_the_right_batches() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?; // [1, 1, 2]
        let b = DeviceBuffer::from_host(&ctx, &[1.0f32, 0.0, 0.0, 1.0, 3.0, 4.0])?; // [3, 2, 1]
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        ops::batch_matmul(
            &Tensor::new(&a, &[1, 1, 2])?,
            &Tensor::new(&b, &[3, 2, 1])?,
            TensorMut::new(&mut y, &[3, 1, 1])?,
            CubeMath::KeepDtype,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(y.to_vec()?, vec![1.0, 2.0, 11.0]);
        Ok(())
    });
}
