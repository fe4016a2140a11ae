//! The argument checks of batch ops3b (Cat, ...), as the real operators make
//! them (each rule cited in the mock's `op_<op>.c`): refused in phase 1 with
//! the operator named; and what CANN does that PyTorch does not.

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

use common::refused;

#[test]
fn cat_refuses_a_0d_member_other_sizes_outside_dim_a_float_into_an_integer_and_a_wrong_out_shape() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let a = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let b = DeviceBuffer::from_host(&ctx, &[2.0f32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 15)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 12)?;
        let (a23, b32) = (Tensor::new(&a, &[2, 3])?, Tensor::new(&b, &[3, 2])?);
        let (a0, b0) = (Tensor::new(&a, &[])?, Tensor::new(&b, &[])?);
        refused(
            "two 0-d tensors",
            "aclnnCat",
            ops::cat(&[&a0, &b0], 0, TensorMut::new(&mut y, &[2])?),
        );
        refused(
            "[2, 3] and [3, 2] along dim 0",
            "aclnnCat",
            ops::cat(&[&a23, &b32], 0, TensorMut::new(&mut y, &[5, 3])?),
        );
        refused(
            "dim 2 of 2-D tensors",
            "aclnnCat",
            ops::cat(&[&a23, &a23], 2, TensorMut::new(&mut y, &[2, 6])?),
        );
        refused(
            "f32 tensors into an int32 out",
            "aclnnCat",
            ops::cat(&[&a23, &a23], 0, TensorMut::new(&mut yi, &[4, 3])?),
        );
        refused(
            "out [4, 2] for two [2, 3] along dim 0",
            "aclnnCat",
            ops::cat(&[&a23, &a23], 0, TensorMut::new(&mut y, &[4, 2])?),
        );
        Ok(())
    });
}

#[test]
fn cat_of_only_empty_1d_tensors_succeeds_without_looking_at_out_and_leaves_it_unwritten() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let e = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut y = DeviceBuffer::from_host(&ctx, &[7.0f32, 7.0, 7.0])?;
        let e0 = Tensor::new(&e, &[0])?;
        // out's shape fits nothing: not looked at (aclnn_cat.cpp:290-294)
        ops::cat(&[&e0, &e0], 0, TensorMut::new(&mut y, &[3])?)?
            .launch(&stream, Workspace::none())?
            .wait()?;
        assert_eq!(y.to_vec()?, vec![7.0, 7.0, 7.0]);
        Ok(())
    });
}

fn views(bufs: &[DeviceBuffer<f32>]) -> ascendcl::Result<Vec<Tensor<'_>>> {
    bufs.iter().map(|b| Tensor::new(b, &[2, 1])).collect()
}

#[test]
fn a_repeatable_cat_of_twelve_tensors_is_re_pointed_at_new_members_per_launch() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        // more tensors than an executor holds without growing its slots
        let first: Vec<DeviceBuffer<f32>> = (0..12)
            .map(|i| DeviceBuffer::from_host(&ctx, &[i as f32, -(i as f32)]))
            .collect::<ascendcl::Result<_>>()?;
        let second: Vec<DeviceBuffer<f32>> = (0..12)
            .map(|i| DeviceBuffer::from_host(&ctx, &[100.0 + i as f32, 0.5]))
            .collect::<ascendcl::Result<_>>()?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 24)?;
        let mut rep = {
            let ts = views(&first)?;
            let refs: Vec<&Tensor<'_>> = ts.iter().collect();
            ops::cat(&refs, 1, TensorMut::new(&mut y, &[2, 12])?)?.into_repeatable()?
        };
        let ts = views(&first)?;
        let refs: Vec<&Tensor<'_>> = ts.iter().collect();
        rep.launch(
            &stream,
            &refs,
            vec![TensorMut::new(&mut y, &[2, 12])?],
            Workspace::none(),
        )?
        .wait()?;
        let want: Vec<f32> = (0..12)
            .map(|i| i as f32)
            .chain((0..12).map(|i| -(i as f32)))
            .collect();
        assert_eq!(y.to_vec()?, want);
        let ts = views(&second)?;
        let refs: Vec<&Tensor<'_>> = ts.iter().collect();
        rep.launch(
            &stream,
            &refs,
            vec![TensorMut::new(&mut y, &[2, 12])?],
            Workspace::none(),
        )?
        .wait()?;
        let want: Vec<f32> = (0..12)
            .map(|i| 100.0 + i as f32)
            .chain((0..12).map(|_| 0.5))
            .collect();
        assert_eq!(y.to_vec()?, want);
        Ok(())
    });
}

#[test]
fn split_refuses_too_few_outputs_a_wrong_piece_shape_zero_sections_and_sizes_that_do_not_sum() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let (mut a, mut b, mut c) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 6)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 6)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 6)?,
        );
        let xt = Tensor::new(&x, &[6])?;
        refused(
            "6 into sections of 2 with two outputs",
            "aclnnSplitTensor",
            ops::split_tensor(
                &xt,
                2,
                0,
                vec![TensorMut::new(&mut a, &[2])?, TensorMut::new(&mut b, &[2])?],
            ),
        );
        refused(
            "a piece of 2 into an output of 3",
            "aclnnSplitTensor",
            ops::split_tensor(
                &xt,
                4,
                0,
                vec![TensorMut::new(&mut a, &[4])?, TensorMut::new(&mut b, &[3])?],
            ),
        );
        refused(
            "splitSections 0 for a dim of 6",
            "aclnnSplitTensor",
            ops::split_tensor(&xt, 0, 0, vec![TensorMut::new(&mut a, &[6])?]),
        );
        refused(
            "sizes 2 and 3 for a dim of 6",
            "aclnnSplitWithSize",
            ops::split_with_size(
                &xt,
                &[2, 3],
                0,
                vec![TensorMut::new(&mut a, &[2])?, TensorMut::new(&mut b, &[3])?],
            ),
        );
        refused(
            "two sizes and three outputs",
            "aclnnSplitWithSize",
            ops::split_with_size(
                &xt,
                &[2, 4],
                0,
                vec![
                    TensorMut::new(&mut a, &[2])?,
                    TensorMut::new(&mut b, &[4])?,
                    TensorMut::new(&mut c, &[1])?,
                ],
            ),
        );
        Ok(())
    });
}

#[test]
fn split_leaves_outputs_past_the_pieces_unwritten_and_truncates_a_float_into_an_integer_output() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[1.5f32, -2.7, 3.9, 4.2])?;
        let mut a = DeviceBuffer::<i32>::zeroed(&ctx, 2)?;
        let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let mut extra = DeviceBuffer::from_host(&ctx, &[9.0f32, 9.0])?;
        // no cast rule (aclnn_split_tensor.cpp:141): f32 into i32 truncates
        ops::split_tensor(
            &Tensor::new(&x, &[4])?,
            2,
            0,
            vec![
                TensorMut::new(&mut a, &[2])?,
                TensorMut::new(&mut b, &[2])?,
                TensorMut::new(&mut extra, &[2])?,
            ],
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(a.to_vec()?, vec![1, -2]);
        assert_eq!(b.to_vec()?, vec![3.9, 4.2]);
        assert_eq!(extra.to_vec()?, vec![9.0, 9.0]);
        Ok(())
    });
}

#[test]
fn max_dim_refuses_an_i32_self_another_out_dtype_a_wrong_indices_shape_and_an_out_of_range_dim() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 3)?;
        let mut yl = DeviceBuffer::<i64>::zeroed(&ctx, 3)?;
        let mut i = DeviceBuffer::<i64>::zeroed(&ctx, 3)?;
        let xt = Tensor::new(&x, &[2, 3])?;
        refused(
            "an i32 self",
            "aclnnMaxDim",
            ops::max_dim(
                &Tensor::new(&xi, &[2, 3])?,
                1,
                false,
                TensorMut::new(&mut yi, &[2])?,
                TensorMut::new(&mut i, &[2])?,
            ),
        );
        refused(
            "an i64 out of an f32 self",
            "aclnnMaxDim",
            ops::max_dim(
                &xt,
                1,
                false,
                TensorMut::new(&mut yl, &[2])?,
                TensorMut::new(&mut i, &[2])?,
            ),
        );
        refused(
            "indices [3] for a max over dim 1 of [2, 3]",
            "aclnnMaxDim",
            ops::max_dim(
                &xt,
                1,
                false,
                TensorMut::new(&mut y, &[2])?,
                TensorMut::new(&mut i, &[3])?,
            ),
        );
        refused(
            "dim 2 of a 2-D self",
            "aclnnMaxDim",
            ops::max_dim(
                &xt,
                2,
                false,
                TensorMut::new(&mut y, &[2])?,
                TensorMut::new(&mut i, &[2])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn max_dim_over_an_empty_dim_writes_nothing_and_casts_indices_to_their_dtype() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let e = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut y = DeviceBuffer::from_host(&ctx, &[7.0f32, 7.0])?;
        let mut i = DeviceBuffer::from_host(&ctx, &[7i64, 7])?;
        // torch.max refuses a reduction over a dim of size 0; CANN writes nothing (:138-142)
        ops::max_dim(
            &Tensor::new(&e, &[2, 0])?,
            1,
            false,
            TensorMut::new(&mut y, &[2])?,
            TensorMut::new(&mut i, &[2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!((y.to_vec()?, i.to_vec()?), (vec![7.0, 7.0], vec![7, 7]));
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 9.0, 3.0, 8.0, -1.0, 2.0])?;
        let mut i32s = DeviceBuffer::<i32>::zeroed(&ctx, 3)?;
        let mut y3 = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        ops::max_dim(
            &Tensor::new(&x, &[2, 3])?,
            0,
            true,
            TensorMut::new(&mut y3, &[1, 3])?,
            TensorMut::new(&mut i32s, &[1, 3])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(
            (y3.to_vec()?, i32s.to_vec()?),
            (vec![8.0, 9.0, 3.0], vec![1, 0, 0])
        );
        Ok(())
    });
}

#[test]
fn s_where_and_masked_fill_refuse_a_float_condition_an_out_of_another_shape_and_a_mask_past_self() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let c = DeviceBuffer::from_host(&ctx, &[1u8; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut z = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut d = DeviceBuffer::from_host(&ctx, &[1.0f64; 6])?;
        let xt = Tensor::new(&x, &[2, 3])?;
        let cond = Tensor::with_dtype(&c, &[2, 3], DType::Bool)?;
        refused(
            "an f32 condition",
            "aclnnSWhere",
            ops::s_where(&xt, &xt, &xt, TensorMut::new(&mut y, &[2, 3])?),
        );
        refused(
            "out [3, 2] for [2, 3] inputs",
            "aclnnSWhere",
            ops::s_where(&cond, &xt, &xt, TensorMut::new(&mut y, &[3, 2])?),
        );
        refused(
            "a [2, 3] mask over a [3] selfRef",
            "aclnnInplaceMaskedFillScalar",
            ops::inplace_masked_fill_scalar(TensorMut::new(&mut z, &[3])?, &cond, 0.0f32),
        );
        refused(
            "a u8 (not bool) mask",
            "aclnnInplaceMaskedFillScalar",
            ops::inplace_masked_fill_scalar(
                TensorMut::new(&mut z, &[2, 3])?,
                &Tensor::new(&c, &[2, 3])?,
                0.0f32,
            ),
        );
        refused(
            "an f64 selfRef",
            "aclnnInplaceMaskedFillScalar",
            ops::inplace_masked_fill_scalar(TensorMut::new(&mut d, &[2, 3])?, &cond, 0.0f32),
        );
        refused(
            "a 1-d value tensor",
            "aclnnInplaceMaskedFillTensor",
            ops::inplace_masked_fill_tensor(
                TensorMut::new(&mut z, &[2, 3])?,
                &cond,
                &Tensor::new(&x, &[1])?,
            ),
        );
        Ok(())
    });
}

#[test]
fn s_where_takes_a_nonzero_u8_condition_as_true_and_truncates_a_float_into_an_integer_out() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let c = DeviceBuffer::from_host(&ctx, &[0u8, 2, 255, 0])?;
        let x = DeviceBuffer::from_host(&ctx, &[1.5f32, 2.5, -3.7, 4.5])?;
        let o = DeviceBuffer::from_host(&ctx, &[-9.9f32])?;
        let mut y = DeviceBuffer::<i32>::zeroed(&ctx, 4)?;
        // no cast rule into out (aclnn_s_where.cpp:173), where torch.where refuses
        ops::s_where(
            &Tensor::new(&c, &[4])?,
            &Tensor::new(&x, &[4])?,
            &Tensor::new(&o, &[1])?,
            TensorMut::new(&mut y, &[4])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(y.to_vec()?, vec![-9, 2, -3, -9]);
        let m = DeviceBuffer::from_host(&ctx, &[1u8, 0])?;
        let mut xi = DeviceBuffer::from_host(&ctx, &[5i32, 6])?;
        ops::inplace_masked_fill_scalar(
            TensorMut::new(&mut xi, &[2])?,
            &Tensor::with_dtype(&m, &[2], DType::Bool)?,
            2.7f32,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(xi.to_vec()?, vec![2, 6]);
        Ok(())
    });
}

#[test]
fn cat_of_an_empty_list_succeeds_and_leaves_out_unwritten() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut y = DeviceBuffer::from_host(&ctx, &[7.0f32, 7.0])?;
        // EraseDim1EmptyTensor leaves nothing: a no-op (aclnn_cat.cpp:290-294)
        ops::cat(&[], 0, TensorMut::new(&mut y, &[2])?)?
            .launch(&stream, Workspace::none())?
            .wait()?;
        assert_eq!(y.to_vec()?, vec![7.0, 7.0]);
        Ok(())
    });
}
