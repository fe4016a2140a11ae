//! The operator layer's rules: typed errors with the aclnn status, checks
//! before any FFI call, the executor and workspace contracts, and launches
//! that keep the async-safety contract of copies. Every test ends with the
//! mock's live counts (descriptors and executors included) back at zero.

mod common;

use std::time::Duration;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::{self, CubeMath, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

#[test]
fn a_phase_one_rejection_is_a_typed_error_with_status_name_message_and_hint() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let a = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let b = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        // 2x3 @ 2x3: the inner dimensions differ.
        let error = ops::mm(
            &Tensor::new(&a, &[2, 3])?,
            &Tensor::new(&b, &[2, 3])?,
            TensorMut::new(&mut out, &[2, 2])?,
            CubeMath::KeepDtype,
        )
        .expect_err("shapes do not multiply");
        assert_eq!(error.code(), Some(161002));
        assert_eq!(error.code_name(), Some("ACLNN_ERR_PARAM_INVALID"));
        assert!(error.message().is_some_and(|m| !m.is_empty()), "{error}");
        assert_eq!(error.category(), ascendcl::Category::InvalidArgument);
        assert!(
            error.to_string().contains("aclnnMmGetWorkspaceSize"),
            "{error}"
        );
        assert!(error.to_string().contains("hint:"), "{error}");
        Ok(())
    });
}

#[test]
fn the_view_constructors_take_memory_then_shape_then_what_they_add() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        // bf16 in u16 storage: the dtype comes last, after the shape, as in strided_as
        let mut bits = DeviceBuffer::<u16>::zeroed(&ctx, 6)?;
        let view = Tensor::with_dtype(&bits, &[2, 3], ops::DType::BF16)?;
        assert_eq!((view.dtype(), view.shape()), (ops::DType::BF16, vec![2, 3]));
        let strided = Tensor::strided_as(&bits, &[3, 2], &[1, 3], 0, ops::DType::BF16)?;
        assert_eq!(strided.strides(), vec![1, 3]);
        let out = TensorMut::with_dtype(&mut bits, &[6], ops::DType::F16)?;
        assert_eq!(out.dtype(), ops::DType::F16);
        Ok(())
    });
}

#[test]
fn resize_default_is_pytorchs_default() {
    // F.interpolate(x, size=..., mode="bicubic") : align_corners=False, scales from the sizes
    let resize = ops::Resize::default();
    assert_eq!(
        resize,
        ops::Resize {
            align_corners: false,
            scales_h: 0.0,
            scales_w: 0.0
        }
    );
    let aligned = ops::Resize {
        align_corners: true,
        ..Default::default()
    };
    assert!(aligned.align_corners && aligned.scales_h == 0.0);
}

#[test]
fn views_that_do_not_fit_or_are_misaligned_are_refused_before_any_ffi_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut buffer = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
        env.session.clear_journal();
        assert!(Tensor::new(&buffer, &[5, 4]).is_err(), "20 elements in 16");
        assert!(
            Tensor::strided(&buffer, &[4, 4], &[4, 1], 1).is_err(),
            "offset pushes past the end"
        );
        assert!(Tensor::new(&buffer, &[1; 9]).is_err(), "9 dimensions");
        assert!(
            Tensor::strided(&buffer, &[usize::MAX, 2], &[usize::MAX, 1], 0).is_err(),
            "overflow"
        );
        // A slice starting 4 bytes in is not 32-byte aligned.
        let sliced = buffer.slice(1..)?;
        let error = Tensor::new(&sliced, &[15]).expect_err("misaligned");
        assert!(error.to_string().contains("32-byte"), "{error}");
        // The same view expressed with an offset is fine.
        let view = Tensor::strided(&buffer, &[15], &[1], 1)?;
        assert_eq!(view.offset(), 1);
        assert!(TensorMut::new(&mut buffer, &[17]).is_err());
        assert!(env.calls().is_empty(), "no FFI call: {:?}", env.calls());
        Ok(())
    });
}

#[test]
fn a_prepared_operator_dropped_unlaunched_destroys_its_executor() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32, -1.0])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
        let prepared = ops::relu(&Tensor::new(&x, &[2])?, TensorMut::new(&mut y, &[2])?)?;
        assert_eq!(prepared.op(), "Relu");
        drop(prepared);
        assert!(env.calls().iter().any(|c| c == "aclDestroyAclOpExecutor"));
        Ok(())
    });
}

/// `a @ a` for a 2x2 `a`.
fn prepare_matmul<'a>(
    a: &'a DeviceBuffer<f32>,
    out: &'a mut DeviceBuffer<f32>,
) -> ascendcl::Result<ops::Prepared<'a>> {
    let t = Tensor::new(a, &[2, 2])?;
    ops::matmul(
        &t,
        &t.clone(),
        TensorMut::new(out, &[2, 2])?,
        CubeMath::KeepDtype,
    )
}

#[test]
fn a_workspace_is_required_when_phase_one_asks_and_is_held_until_the_launch_ran() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(30));
        let stream = Stream::new(&ctx)?;
        let a = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let prepared = prepare_matmul(&a, &mut out)?;
        let size = prepared.workspace_size();
        assert!(size > 0, "the mock's Matmul asks for a workspace");
        let refused = prepared
            .launch(&stream, Workspace::none())
            .expect_err("no workspace given");
        assert!(refused.to_string().contains("workspace"), "{refused}");
        let mut small = DeviceBuffer::<u8>::zeroed(&ctx, 1)?;
        assert!(
            prepare_matmul(&a, &mut out)?
                .launch(&stream, &mut small)
                .is_err(),
            "too small"
        );
        let mut big = DeviceBuffer::<u8>::zeroed(&ctx, size as usize)?;
        prepare_matmul(&a, &mut out)?
            .launch(&stream, &mut big)?
            .detach();
        drop(big); // must wait for the queued matmul using it
        assert_eq!(out.to_vec()?, vec![7.0, 10.0, 15.0, 22.0]);
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        prepare_matmul(&a, &mut out)?
            .launch(&stream, &allocator)?
            .wait()?;
        Ok(())
    });
}

#[test]
fn a_repeatable_executor_relaunches_on_new_memory_of_the_same_layout_only() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x1 = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0, -3.0, 4.0])?;
        let x2 = DeviceBuffer::from_host(&ctx, &[5.0f32, -6.0, 7.0, -8.0])?;
        let (mut y1, mut y2) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
            DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
        );
        let mut relu = ops::relu(&Tensor::new(&x1, &[4])?, TensorMut::new(&mut y1, &[4])?)?
            .into_repeatable()?;
        relu.launch(
            &stream,
            &[&Tensor::new(&x1, &[4])?],
            vec![TensorMut::new(&mut y1, &[4])?],
            Workspace::none(),
        )?
        .wait()?;
        relu.launch(
            &stream,
            &[&Tensor::new(&x2, &[4])?],
            vec![TensorMut::new(&mut y2, &[4])?],
            Workspace::none(),
        )?
        .wait()?;
        assert_eq!(y1.to_vec()?, vec![0.0, 2.0, 0.0, 4.0]);
        assert_eq!(y2.to_vec()?, vec![5.0, 0.0, 7.0, 0.0]);
        // Another layout is refused before any FFI call.
        let other = relu
            .launch(
                &stream,
                &[&Tensor::new(&x2, &[2, 2])?],
                vec![TensorMut::new(&mut y2, &[4])?],
                Workspace::none(),
            )
            .map(drop);
        assert!(
            matches!(other, Err(ascendcl::Error::InvalidArgument(_))),
            "{other:?}"
        );
        // And the wrong number of tensors too.
        assert!(
            relu.launch(
                &stream,
                &[],
                vec![TensorMut::new(&mut y2, &[4])?],
                Workspace::none()
            )
            .is_err()
        );
        drop(relu);
        assert!(env.calls().iter().any(|c| c == "aclDestroyAclOpExecutor"));
        Ok(())
    });
}

#[test]
fn a_detached_launch_still_orders_host_reads_frees_and_other_streams_after_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(40));
        let (s1, s2) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let x = DeviceBuffer::from_host(&ctx, &[-2.0f32; 256])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        let mut z = DeviceBuffer::<f32>::zeroed(&ctx, 256)?;
        ops::muls(
            &Tensor::new(&x, &[256])?,
            3.0f32,
            TensorMut::new(&mut y, &[256])?,
        )?
        .launch(&s1, Workspace::none())?
        .detach();
        // On another stream: ordered after the write of y by the tracker.
        ops::relu(&Tensor::new(&y, &[256])?, TensorMut::new(&mut z, &[256])?)?
            .launch(&s2, Workspace::none())?
            .detach();
        ops::adds(
            &Tensor::new(&y, &[256])?,
            10.0f32,
            1.0f32,
            TensorMut::new(&mut z, &[256])?,
        )?
        .launch(&s2, Workspace::none())?
        .detach();
        drop(x); // waits for the muls reading it
        assert_eq!(y.to_vec()?, vec![-6.0f32; 256]);
        assert_eq!(z.to_vec()?, vec![4.0f32; 256]);
        Ok(())
    });
}

#[test]
fn tensors_of_another_device_are_refused_before_any_ffi_call() {
    common::check(|env| {
        let (_device0, ctx0) = env.device0();
        let device1 = Device::open(&env.rt, 1)?;
        let ctx1 = device1.default_context();
        let x = DeviceBuffer::from_host(&ctx0, &[1.0f32; 4])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx1, 4)?;
        let error = ops::relu(&Tensor::new(&x, &[4])?, TensorMut::new(&mut y, &[4])?)
            .expect_err("two devices");
        assert!(error.to_string().contains("device 1"), "{error}");
        let stream1 = Stream::new(&ctx1)?;
        let mut y0 = DeviceBuffer::<f32>::zeroed(&ctx0, 4)?;
        let prepared = ops::relu(&Tensor::new(&x, &[4])?, TensorMut::new(&mut y0, &[4])?)?;
        assert!(
            prepared.launch(&stream1, Workspace::none()).is_err(),
            "stream of another device"
        );
        Ok(())
    });
}
