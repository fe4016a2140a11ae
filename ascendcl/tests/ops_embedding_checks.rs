//! The argument checks of `aclnnEmbedding` and `aclnnEmbeddingDenseBackward`
//! as the real operators make them (each rule cited in the mock's
//! `op_embedding.c`), and an index outside the table: nothing checks it
//! before the kernel, so the mock counts the launch as misuse
//! (`OUT_OF_BOUNDS`) and skips the element. These tests cause misuse on
//! purpose, so they are not in CI's abort-on-misuse run.

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Misuse;

use common::refused;

#[test]
fn embedding_refuses_float_indices_another_out_dtype_and_an_out_not_indices_then_dim() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let w = DeviceBuffer::from_host(&ctx, &[1.0f32; 12])?;
        let i = DeviceBuffer::from_host(&ctx, &[0i64, 1])?;
        let fi = DeviceBuffer::from_host(&ctx, &[0.0f32, 1.0])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 12)?;
        let mut y16 = DeviceBuffer::<u16>::zeroed(&ctx, 12)?;
        let wt = Tensor::new(&w, &[4, 3])?;
        refused(
            "f32 indices",
            "aclnnEmbedding",
            ops::embedding(
                &wt,
                &Tensor::new(&fi, &[2])?,
                TensorMut::new(&mut y, &[2, 3])?,
            ),
        );
        refused(
            "an f16 out for an f32 weight",
            "aclnnEmbedding",
            ops::embedding(
                &wt,
                &Tensor::new(&i, &[2])?,
                TensorMut::with_dtype(&mut y16, &[2, 3], DType::F16)?,
            ),
        );
        refused(
            "out [2, 4] for indices [2] and weight [4, 3]",
            "aclnnEmbedding",
            ops::embedding(
                &wt,
                &Tensor::new(&i, &[2])?,
                TensorMut::new(&mut y, &[2, 4])?,
            ),
        );
        refused(
            "out [3] (not one dim more than indices)",
            "aclnnEmbedding",
            ops::embedding(&wt, &Tensor::new(&i, &[2])?, TensorMut::new(&mut y, &[6])?),
        );
        Ok(())
    });
}

#[test]
fn embedding_dense_backward_takes_float_indices_and_another_out_dtype_but_checks_its_shapes() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        // 1.9 truncates to 1, as CANN's cast to int32 does
        let fi = DeviceBuffer::from_host(&ctx, &[1.9f32, 0.0])?;
        let mut dw16 = DeviceBuffer::<u16>::zeroed(&ctx, 6)?;
        let mut dw = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let (gt, it) = (Tensor::new(&g, &[2, 2])?, Tensor::new(&fi, &[2])?);
        ops::embedding_dense_backward(
            &gt,
            &it,
            3,
            None,
            false,
            TensorMut::with_dtype(&mut dw16, &[3, 2], DType::F16)?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        // rows: [3, 4], [1, 2], [0, 0] in f16
        assert_eq!(dw16.to_vec()?, vec![0x4200, 0x4400, 0x3c00, 0x4000, 0, 0]);
        refused(
            "out [2, 2] for numWeights 3",
            "aclnnEmbeddingDenseBackward",
            ops::embedding_dense_backward(
                &gt,
                &it,
                3,
                None,
                false,
                TensorMut::new(&mut dw, &[2, 2])?,
            ),
        );
        refused(
            "grad with 2 rows for 1 index",
            "aclnnEmbeddingDenseBackward",
            ops::embedding_dense_backward(
                &gt,
                &Tensor::new(&fi, &[1])?,
                3,
                None,
                false,
                TensorMut::new(&mut dw, &[3, 2])?,
            ),
        );
        assert!(
            ops::embedding_dense_backward(
                &gt,
                &it,
                3,
                Some(u64::MAX),
                false,
                TensorMut::new(&mut dw, &[3, 2])?
            )
            .is_err(),
            "a padding_idx CANN would read as negative is refused by the wrapper"
        );
        Ok(())
    });
}

#[test]
fn an_index_outside_the_table_is_misuse_once_per_launch_and_its_row_is_skipped() {
    let env = common::env();
    let run = || -> ascendcl::Result<(Vec<f32>, Vec<f32>)> {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let w = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        let i = DeviceBuffer::from_host(&ctx, &[1i64, 2, -1])?;
        let mut y = DeviceBuffer::from_host(&ctx, &[9.0f32; 6])?;
        ops::embedding(
            &Tensor::new(&w, &[2, 2])?,
            &Tensor::new(&i, &[3])?,
            TensorMut::new(&mut y, &[3, 2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut dw = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        ops::embedding_dense_backward(
            &Tensor::new(&g, &[3, 2])?,
            &Tensor::new(&i, &[3])?,
            2,
            None,
            false,
            TensorMut::new(&mut dw, &[2, 2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        Ok((y.to_vec()?, dw.to_vec()?))
    };
    let (y, dw) = run().expect("the launches themselves succeed");
    assert_eq!(
        y,
        vec![3.0, 4.0, 9.0, 9.0, 9.0, 9.0],
        "rows of bad indices untouched"
    );
    assert_eq!(dw, vec![0.0, 0.0, 1.0, 1.0], "only index 1 contributes");
    assert_eq!(env.session.misuse(Misuse::OutOfBounds), 2, "one per launch");
    let log = env.session.misuse_log();
    assert!(
        log.contains("aclnnEmbedding: 2 index(es)")
            && log.contains("aclnnEmbeddingDenseBackward: 2 index(es)"),
        "{log:?}"
    );
}
