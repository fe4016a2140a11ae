//! Device and pinned host buffers: allocation, synchronous copies, views,
//! fills, raw parts.

mod common;

use ascendcl::prelude::*;
use ascendcl::{DeviceView, Error, MallocPolicy};
use ascendcl_mock::Resource;

#[test]
fn device_buffers_round_trip_through_synchronous_copies() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let data: Vec<f64> = (0..10_000).map(|i| f64::from(i) / 7.0).collect();
        let buffer = DeviceBuffer::from_host(&ctx, &data)?;
        assert_eq!(buffer.len(), 10_000);
        assert_eq!(buffer.size_bytes(), 80_000);
        assert_eq!(buffer.to_vec()?, data);
        let mut copy =
            DeviceBuffer::<f64>::alloc_with_policy(&ctx, data.len(), MallocPolicy::NormalOnly)?;
        copy.copy_from_device(&buffer)?;
        let mut back = vec![0.0; data.len()];
        copy.copy_to_host(&mut back)?;
        assert_eq!(back, data);
        assert_eq!(env.session.live(Resource::DeviceBuffer), 2);
        Ok(())
    });
}

#[test]
fn zeroed_buffers_and_fills_set_every_byte() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut buffer = DeviceBuffer::<u32>::zeroed(&ctx, 300)?;
        assert!(buffer.to_vec()?.iter().all(|&v| v == 0));
        buffer.fill_bytes(0xAB)?;
        assert!(buffer.to_vec()?.iter().all(|&v| v == 0xABAB_ABAB));
        Ok(())
    });
}

#[test]
fn views_address_sub_ranges_and_reject_bad_ranges_without_panicking() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut buffer = DeviceBuffer::from_host(&ctx, &(0u16..100).collect::<Vec<_>>())?;
        let view: DeviceView<'_, u16> = buffer.slice(10..20)?;
        assert_eq!(view.to_vec()?, (10..20).collect::<Vec<u16>>());
        assert_eq!(view.slice(2..=3)?.to_vec()?, vec![12, 13]);
        assert_eq!(
            view.as_device_ptr() as usize - buffer.as_device_ptr() as usize,
            20
        );
        {
            let mut tail = buffer.slice_mut(95..)?;
            tail.copy_from_host(&[1, 2, 3, 4, 5])?;
            tail.slice_mut(..1)?.fill_bytes(0)?;
        }
        assert_eq!(buffer.slice(94..)?.to_vec()?, vec![94, 0, 2, 3, 4, 5]);
        for bad in [
            buffer.slice(90..101).err(),
            buffer.slice(5..5).err(),
            buffer.slice(usize::MAX..).err(),
        ] {
            assert!(matches!(bad, Some(Error::InvalidArgument(_))), "{bad:?}");
        }
        Ok(())
    });
}

#[test]
fn pinned_host_buffers_are_zeroed_and_deref_to_slices() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut pinned = HostBuffer::<i32>::zeroed(&ctx, 1000)?;
        assert!(pinned.iter().all(|&v| v == 0));
        pinned[999] = -5;
        assert_eq!(pinned.as_slice()?[999], -5);
        pinned.as_mut_slice()?[0] = 3;
        assert_eq!(pinned.iter().sum::<i32>(), -2);
        let copy = HostBuffer::from_slice(&ctx, &pinned[..10])?;
        assert_eq!(copy.len(), 10);
        assert_eq!(env.session.live(Resource::HostBuffer), 2);
        Ok(())
    });
}

#[test]
fn free_returns_the_runtime_error_and_drop_retries_so_nothing_leaks() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let buffer = DeviceBuffer::<u8>::alloc(&ctx, 10)?;
        env.inject(ascendcl_mock::Fault::nth("aclrtFree", 1, 107000));
        let err = buffer.free().unwrap_err();
        assert_eq!(err.code(), Some(107000));
        // The failed free was retried when the buffer was dropped.
        assert_eq!(env.session.live(Resource::DeviceBuffer), 0);
        DeviceBuffer::<u8>::alloc(&ctx, 10)?.free()?;
        Ok(())
    });
}

#[test]
fn raw_parts_give_up_and_take_back_ownership() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let buffer = DeviceBuffer::from_host(&ctx, &[1u8, 2, 3])?;
        let (ptr, len) = buffer.into_raw_parts()?;
        assert_eq!(
            env.session.live(Resource::DeviceBuffer),
            1,
            "still allocated, now owned by the caller"
        );
        // SAFETY: the pointer came from into_raw_parts of a buffer on `ctx`.
        let back = unsafe { DeviceBuffer::<u8>::from_raw_parts(&ctx, ptr, len) }?;
        assert_eq!(back.to_vec()?, vec![1, 2, 3]);
        Ok(())
    });
}

#[test]
fn out_of_memory_is_typed_and_leaves_the_arena_usable() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let total = device.memory_info()?.total;
        let big = DeviceBuffer::<u8>::alloc(&ctx, total / 2)?;
        let err = DeviceBuffer::<u8>::alloc(&ctx, total / 2 + (64 << 20)).unwrap_err();
        assert!(err.is_out_of_memory(), "{err:?}");
        assert!(
            err.message().is_some_and(|m| !m.is_empty()),
            "the runtime explains the OOM"
        );
        drop(big);
        DeviceBuffer::<u8>::alloc(&ctx, total / 2 + (64 << 20))?.free()?;
        Ok(())
    });
}
