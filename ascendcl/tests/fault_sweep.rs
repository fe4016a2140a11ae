//! Fault sweep: for each scenario, make each FFI call it performs fail, one
//! at a time, with the mock's fault injection. Every time: no panic, an error
//! comes back (or the failing call was in a destructor and was retried),
//! nothing stays alive and the mock sees no misuse.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Runtime, StreamFlags};
use common::sweep::sweep;

fn copies_and_events(rt: &Runtime) -> ascendcl::Result<()> {
    let device = Device::open(rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::with_config(&ctx, 0, StreamFlags::default())?;
    let input = HostBuffer::from_slice(&ctx, &[1.5f32; 256])?;
    let mut on_device = DeviceBuffer::<f32>::alloc(&ctx, 256)?;
    let mut output = HostBuffer::<f32>::zeroed(&ctx, 256)?;
    let upload = stream.copy_host_to_device(&input, &mut on_device)?;
    let download = stream.copy_device_to_host(upload.destination(), &mut output)?;
    download.wait()?;
    upload.wait()?;
    let done = Event::with_flags(&ctx, EventFlags::TIMELINE)?;
    done.record(&stream)?;
    done.synchronize()?;
    stream.fill_bytes(&mut on_device, 0)?.wait()?;
    on_device.copy_from_host(&output)?;
    stream.synchronize_timeout(Duration::from_secs(5))?;
    assert_eq!(on_device.to_vec()?, vec![1.5f32; 256]);
    on_device.free()?;
    stream.destroy()
}

fn explicit_context_and_two_streams(rt: &Runtime) -> ascendcl::Result<()> {
    let device = Device::open(rt, 1)?;
    let ctx = Context::new(&device)?;
    let (a, b) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
    let source = DeviceBuffer::from_host(&ctx, &[3u8; 4096])?;
    let mut copy = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
    let first = a.copy_device_to_device(&source, &mut copy)?;
    let mut host = HostBuffer::<u8>::zeroed(&ctx, 4096)?;
    b.copy_device_to_host(first.destination(), &mut host)?
        .wait()?;
    first.wait()?;
    b.launch_host_fn(|| {})?;
    b.synchronize()?;
    device.synchronize()?;
    assert!(host.iter().all(|&v| v == 3));
    Ok(())
}

#[test]
fn failing_any_call_of_copies_and_events_returns_an_error_and_leaks_nothing() {
    sweep(copies_and_events, 20);
}

#[test]
fn failing_any_call_of_an_explicit_context_with_two_streams_returns_an_error_and_leaks_nothing() {
    sweep(explicit_context_and_two_streams, 20);
}

/// An MLP-like chain of operators with an allocator workspace.
fn operators(rt: &Runtime) -> ascendcl::Result<()> {
    use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
    use ascendcl::ops::{self, CubeMath, Tensor, TensorMut};
    let device = Device::open(rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let x = DeviceBuffer::from_host(&ctx, &[1.0f32, -2.0, 3.0, -4.0])?;
    let bias = DeviceBuffer::from_host(&ctx, &[0.5f32, -0.5])?;
    let mut h = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
    let xt = Tensor::new(&x, &[2, 2])?;
    ops::addmm(
        &Tensor::new(&bias, &[2])?,
        &xt,
        &xt.clone().t()?,
        1.0f32,
        1.0f32,
        TensorMut::new(&mut h, &[2, 2])?,
        CubeMath::KeepDtype,
    )?
    .launch(&stream, &allocator)?
    .wait()?;
    ops::relu(&Tensor::new(&h, &[4])?, TensorMut::new(&mut y, &[4])?)?
        .launch(&stream, &allocator)?
        .wait()?;
    assert_eq!(y.to_vec()?, vec![5.5, 10.5, 11.5, 24.5]);
    Ok(())
}

#[test]
fn failing_any_call_of_an_operator_chain_returns_an_error_and_leaks_nothing() {
    sweep(operators, 20);
}
