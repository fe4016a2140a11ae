//! Output views whose elements alias each other (a stride-0 dimension,
//! strides that overlap) are refused when the view is made, before any FFI
//! call: the device would write such elements from several cores in no
//! defined order. Views that only look unusual (transposed, padded,
//! interleaved without meeting) stay writable.

mod common;

use ascendcl::Error;
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

fn refused(result: ascendcl::Result<TensorMut<'_>>, needle: &str) {
    match result {
        Err(Error::InvalidArgument(text)) => {
            assert!(text.contains(needle), "`{needle}` not in: {text}");
            assert!(text.contains("aliases its own elements"), "{text}");
        }
        Err(other) => panic!("expected an invalid argument about {needle}, got {other}"),
        Ok(view) => panic!("expected an invalid argument about {needle}, got {view:?}"),
    }
}

#[test]
fn stride_0_and_overlapping_output_views_are_refused_before_any_ffi_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
        env.session.clear_journal();
        refused(TensorMut::strided(&mut y, &[4, 3], &[0, 1], 0), "stride 0");
        refused(
            TensorMut::strided(&mut y, &[2, 3], &[1, 1], 0),
            "written more than once",
        );
        refused(
            TensorMut::strided_as(&mut y, &[3, 3], &[2, 1], 1, ops::DType::F32),
            "dimension 0 has stride 2",
        );
        assert_eq!(env.calls(), Vec::<String>::new(), "no FFI call");
        // the same strides are fine for a view that is only read
        let x = Tensor::strided(&y, &[4, 3], &[0, 1], 0)?;
        assert_eq!(x.shape(), vec![4, 3]);
        Ok(())
    });
}

#[test]
fn transposed_and_interleaved_output_views_that_never_meet_are_written() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32, 2.0, -3.0, 4.0, 5.0, -6.0])?;
        let mut out = DeviceBuffer::from_host(&ctx, &[9.0f32; 8])?;
        // shape [3, 2], strides [2, 3]: offsets 0, 3, 2, 5, 4, 7 (1 and 6 untouched)
        let view = TensorMut::strided(&mut out, &[3, 2], &[2, 3], 0)?;
        ops::relu(&Tensor::new(&x, &[3, 2])?, view)?
            .launch(&stream, Workspace::none())?
            .wait()?;
        assert_eq!(out.to_vec()?, vec![0.0, 9.0, 0.0, 2.0, 5.0, 4.0, 9.0, 0.0]);
        Ok(())
    });
}
