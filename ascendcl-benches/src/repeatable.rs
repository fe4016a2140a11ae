//! The repeatable-executor row: a ReLU executor re-pointed and launched,
//! raw (`aclSetInputTensorAddr`, `aclSetOutputTensorAddr`, phase 2) against
//! [`Repeatable::launch`].

use std::hint::black_box;

use ascendcl::ops::{self, Repeatable, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl::sys::aclOpExecutor;

use crate::calls::CallCounter;
use crate::raw_ops::RawOps;
use crate::rows::{Row, hold, interleave};

/// Measures the row over 1-element buffers `x` and `y` on `stream`.
pub fn measure(
    raw: &RawOps<'_>,
    x: &DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    stream: &Stream,
    shape: (usize, usize),
    counter: &CallCounter,
) -> ascendcl::Result<Row> {
    let aclnn = raw.aclnn;
    let (rx, ry) = (x.as_device_ptr().cast_mut(), y.as_device_ptr().cast_mut());
    // SAFETY: live 1-element buffers; the descriptors and the executor live
    // until the end of this function, after the queue is drained.
    let (a, b) = unsafe { (raw.f32s(rx, &[1]), raw.f32s(ry, &[1])) };
    let (mut ws, mut executor): (u64, *mut aclOpExecutor) = (0, std::ptr::null_mut());
    // SAFETY: live descriptors and valid out-pointers.
    let status = unsafe { aclnn.aclnnReluGetWorkspaceSize(a, b, &mut ws, &mut executor) };
    assert_eq!(status, Ok(0), "Relu phase 1");
    // SAFETY: the executor phase 1 just returned.
    let status = unsafe { aclnn.aclSetAclOpExecutorRepeatable(executor) };
    assert_eq!(status, Ok(0));
    let mut raw_launch = || {
        // SAFETY: our repeatable executor and its descriptors, live buffers.
        unsafe {
            assert_eq!(aclnn.aclSetInputTensorAddr(executor, 0, a, rx), Ok(0));
            assert_eq!(aclnn.aclSetOutputTensorAddr(executor, 0, b, ry), Ok(0));
            assert_eq!(
                aclnn.aclnnRelu(std::ptr::null_mut(), 0, executor, raw.stream),
                Ok(0)
            );
        }
    };
    let mut repeatable: Repeatable =
        ops::relu(&Tensor::new(x, &[1])?, TensorMut::new(y, &[1])?)?.into_repeatable()?;
    let mut safe_launch = || {
        let p = repeatable
            .launch(
                stream,
                &[&Tensor::new(x, &[1]).unwrap()],
                [TensorMut::new(y, &[1]).unwrap()],
                Workspace::none(),
            )
            .expect("launch");
        black_box(p).detach();
    };
    let drain = || stream.synchronize().expect("drain");
    let row = interleave(
        "relu_repeatable",
        &mut raw_launch,
        &mut safe_launch,
        shape,
        &drain,
        &|| hold(stream),
        counter,
    );
    drain();
    drop(repeatable);
    // SAFETY: the raw executor and descriptors, no queued launch left.
    unsafe {
        aclnn
            .aclDestroyAclOpExecutor(executor)
            .expect("destroy executor");
    }
    raw.drop_tensors(&[a, b]);
    Ok(row)
}
