//! A tracked launch makes the runtime calls the raw sequence makes, no more:
//! no event is recorded per launch. Events appear only when something waits,
//! one per stream however many uses wait on it. Counted from the mock's
//! journal.

mod common;

use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

/// The functions called since the journal was last cleared, in order.
fn calls_since_clear(env: &common::Env) -> Vec<String> {
    let calls = env.calls();
    env.session.clear_journal();
    calls
}

#[test]
fn a_steady_async_copy_makes_only_the_copy_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let host = HostBuffer::from_slice(&ctx, &[1u8; 4096])?;
        let mut device = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        stream.copy_host_to_device(&host, &mut device)?.detach();
        env.session.clear_journal();
        for _ in 0..3 {
            stream.copy_host_to_device(&host, &mut device)?.detach();
        }
        assert_eq!(calls_since_clear(env), vec!["aclrtMemcpyAsync"; 3]);
        stream.synchronize()?;
        Ok(())
    });
}

#[test]
fn a_fresh_operator_launch_makes_only_the_raw_sequence_calls() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut relu = || -> ascendcl::Result<()> {
            ops::relu(&Tensor::new(&x, &[1])?, TensorMut::new(&mut y, &[1])?)?
                .launch(&stream, Workspace::none())?
                .detach();
            Ok(())
        };
        relu()?;
        env.session.clear_journal();
        relu()?;
        let raw = [
            "aclCreateTensor",
            "aclCreateTensor",
            "aclnnReluGetWorkspaceSize",
            "aclnnRelu",
            "aclDestroyTensor",
            "aclDestroyTensor",
        ];
        assert_eq!(calls_since_clear(env), raw);
        assert_eq!(y.to_vec()?, vec![0.0]);
        Ok(())
    });
}

#[test]
fn a_repeatable_launch_makes_only_the_repoint_and_phase_two_calls() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &[-1.0f32])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut relu =
            ops::relu(&Tensor::new(&x, &[1])?, TensorMut::new(&mut y, &[1])?)?.into_repeatable()?;
        for round in 0..2 {
            relu.launch(
                &stream,
                &[&Tensor::new(&x, &[1])?],
                vec![TensorMut::new(&mut y, &[1])?],
                Workspace::none(),
            )?
            .detach();
            let calls = calls_since_clear(env);
            if round == 1 {
                assert_eq!(
                    calls,
                    [
                        "aclSetInputTensorAddr",
                        "aclSetOutputTensorAddr",
                        "aclnnRelu"
                    ]
                );
            }
        }
        drop(relu);
        Ok(())
    });
}

#[test]
fn a_host_read_after_many_launches_records_one_event_on_their_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let host = HostBuffer::from_slice(&ctx, &[3u32; 64])?;
        let mut buffers = Vec::new();
        for _ in 0..8 {
            buffers.push(DeviceBuffer::<u32>::zeroed(&ctx, 64)?);
        }
        env.session.clear_journal();
        for b in &mut buffers {
            stream.copy_host_to_device(&host, b)?.detach();
        }
        for b in &buffers {
            assert_eq!(b.to_vec()?, vec![3u32; 64]);
        }
        let calls = calls_since_clear(env);
        let count = |f: &str| calls.iter().filter(|c| *c == f).count();
        assert_eq!(count("aclrtMemcpyAsync"), 8);
        assert_eq!(
            count("aclrtRecordEvent"),
            1,
            "one shared tail event: {calls:?}"
        );
        assert_eq!(
            count("aclrtSynchronizeEvent"),
            1,
            "later reads know: {calls:?}"
        );
        Ok(())
    });
}

#[test]
fn ordering_after_another_stream_records_one_event_there_and_waits_on_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (first, second) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let host = HostBuffer::from_slice(&ctx, &[5u16; 32])?;
        let mut a = DeviceBuffer::<u16>::zeroed(&ctx, 32)?;
        let mut b = DeviceBuffer::<u16>::zeroed(&ctx, 32)?;
        let mut c = DeviceBuffer::<u16>::zeroed(&ctx, 32)?;
        env.session.clear_journal();
        first.copy_host_to_device(&host, &mut a)?.detach();
        first.copy_host_to_device(&host, &mut b)?.detach();
        second.copy_device_to_device(&a, &mut c)?.detach();
        second.copy_device_to_device(&b, &mut c)?.detach();
        let calls = calls_since_clear(env);
        let count = |f: &str| calls.iter().filter(|c| *c == f).count();
        assert_eq!(count("aclrtRecordEvent"), 1, "{calls:?}");
        assert_eq!(count("aclrtStreamWaitEvent"), 2, "{calls:?}");
        assert_eq!(c.to_vec()?, vec![5u16; 32]);
        Ok(())
    });
}
