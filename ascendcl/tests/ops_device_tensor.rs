//! `DeviceTensor`: memory, shape and dtype checked once; views, reshapes
//! and transposes without copies that the operator wrappers take; values
//! shown for small tensors after a wait.

mod common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::{self, CubeMath, DeviceTensor};
use ascendcl::prelude::*;

#[test]
fn a_tensor_is_refused_over_memory_of_another_element_count() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let buffer = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let refused = DeviceTensor::new(buffer, &[2, 2]);
        assert!(matches!(refused, Err(ascendcl::Error::InvalidArgument(_))));
        let short = DeviceTensor::from_host(&ctx, &[1.0f32; 5], &[2, 3]);
        assert!(matches!(short, Err(ascendcl::Error::InvalidArgument(_))));
        let huge = DeviceTensor::<f32>::zeros(&ctx, &[usize::MAX, 2]);
        assert!(matches!(huge, Err(ascendcl::Error::InvalidArgument(_))));
        Ok(())
    });
}

#[test]
fn reshapes_keep_the_element_count_and_transposes_swap_strides_without_copies() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut t = DeviceTensor::from_host(&ctx, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        assert_eq!(t.reshape(&[3, 2])?.shape(), vec![3, 2]);
        assert_eq!(t.reshape(&[6])?.strides(), vec![1]);
        assert!(t.reshape(&[4, 2]).is_err());
        assert!(t.reshape_mut(&[7]).is_err());
        let tt = t.t()?;
        assert_eq!((tt.shape(), tt.strides()), (vec![3, 2], vec![1, 3]));
        assert!(
            DeviceTensor::from_host(&ctx, &[1i32; 8], &[2, 2, 2])?
                .t()
                .is_err()
        );
        assert_eq!(t.dtype(), ops::DType::I32);
        assert_eq!(t.numel(), 6);
        Ok(())
    });
}

#[test]
fn views_of_an_allocator_tensor_feed_operators_and_reads_wait_for_them() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(std::time::Duration::from_millis(30));
        let stream = Stream::new(&ctx)?;
        let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let a = DeviceTensor::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        let mut c = DeviceTensor::<f32, _>::alloc(&alloc, &stream, &[2, 2])?;
        // c = a @ aᵀ, through a transposed view of a.
        ops::mm(&a.view(), &a.t()?, c.view_mut(), CubeMath::KeepDtype)?
            .launch(&stream, &alloc)?
            .detach();
        assert_eq!(c.to_vec()?, vec![5.0, 11.0, 11.0, 25.0]);
        drop(c);
        Ok(())
    });
}

#[test]
fn display_shows_the_values_of_small_tensors_and_only_the_shape_of_large_ones() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let small = DeviceTensor::from_host(&ctx, &[1u8, 2, 3, 4, 5, 6], &[2, 1, 3])?;
        assert_eq!(
            small.to_string(),
            "DeviceTensor(U8, [2, 1, 3]) [[[1, 2, 3]], [[4, 5, 6]]]"
        );
        assert_eq!(format!("{small:?}"), small.to_string());
        let scalar = DeviceTensor::from_host(&ctx, &[7i64], &[])?;
        assert_eq!(scalar.to_string(), "DeviceTensor(I64, []) 7");
        let large = DeviceTensor::<f32>::zeros(&ctx, &[ops::SHOWN_ELEMENTS + 1])?;
        assert_eq!(
            large.to_string(),
            format!("DeviceTensor(F32, [{}])", ops::SHOWN_ELEMENTS + 1)
        );
        let (memory, shape) = small.into_parts();
        assert_eq!((memory.len(), shape), (6, vec![2, 1, 3]));
        Ok(())
    });
}
