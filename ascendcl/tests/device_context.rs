//! Devices and contexts: reference counts, default and explicit contexts,
//! and objects used from threads that never bound their context.

mod common;

use ascendcl::prelude::*;
use ascendcl::{RunMode, forget_current_context};
use ascendcl_mock::Resource;

#[test]
fn runtime_reports_versions_soc_run_mode_and_device_count_of_the_mock() {
    common::check(|env| {
        assert_eq!(env.rt.version()?, (1, 16, 0));
        assert_eq!(env.rt.soc_name()?, "Ascend910B1");
        assert_eq!(env.rt.run_mode()?, RunMode::Host);
        assert_eq!(Device::count(&env.rt)?, 8);
        assert!(env.rt.is_mock());
        assert!(env.rt.cann_version()?.is_some_and(|v| !v.is_empty()));
        Ok(())
    });
}

#[test]
fn the_backend_of_a_runtime_on_the_mock_is_the_mock_and_names_its_file() {
    common::check(|env| {
        let path = env.rt.library().path().to_path_buf();
        assert_eq!(env.rt.backend(), ascendcl::Backend::Mock(path.clone()));
        assert_eq!(
            env.rt.backend().to_string(),
            format!("mock ({})", path.display())
        );
        Ok(())
    });
}

#[test]
fn device_memory_info_reports_60_96_gib_and_shrinks_by_what_is_allocated() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let before = device.memory_info()?;
        assert_eq!(before.total, 62423 << 20);
        let buffer = DeviceBuffer::<u8>::alloc(&ctx, 64 << 20)?;
        let during = device.memory_info()?;
        // aclrtMalloc pads by 32 bytes before the driver rounds to 2 MiB
        // pages, so 64 MiB asked for takes 66 MiB of HBM.
        assert_eq!(before.free - during.free, 66 << 20);
        drop(buffer);
        assert_eq!(device.memory_info()?.free, before.free);
        Ok(())
    });
}

#[test]
fn each_open_device_holds_one_set_device_reference_until_its_last_user_drops() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let second = Device::open(&env.rt, 0)?;
        assert_eq!(env.session.live(Resource::DeviceRef), 2);
        drop(second);
        assert_eq!(env.session.live(Resource::DeviceRef), 1);
        // A buffer keeps its context, and so the device, alive.
        let buffer = DeviceBuffer::<f32>::alloc(&ctx, 16)?;
        drop((device, ctx));
        assert_eq!(env.session.live(Resource::DeviceRef), 1);
        drop(buffer);
        assert_eq!(env.session.live(Resource::DeviceRef), 0);
        Ok(())
    });
}

#[test]
fn explicit_contexts_are_created_current_and_destroyed_with_their_last_user() {
    common::check(|env| {
        let (device, default) = env.device0();
        let explicit = Context::new(&device)?;
        assert!(explicit.is_explicit());
        assert!(!default.is_explicit());
        assert_eq!(env.session.live(Resource::Context), 1);
        let stream = Stream::new(&explicit)?;
        // Work in both contexts, interleaved: every call binds its own.
        let a = DeviceBuffer::from_host(&default, &[1u8, 2, 3])?;
        let b = DeviceBuffer::from_host(&explicit, &[4u8, 5, 6])?;
        stream.synchronize()?;
        assert_eq!(a.to_vec()?, vec![1, 2, 3]);
        assert_eq!(b.to_vec()?, vec![4, 5, 6]);
        drop((explicit, b));
        assert_eq!(
            env.session.live(Resource::Context),
            1,
            "the stream still uses the context"
        );
        drop(stream);
        assert_eq!(env.session.live(Resource::Context), 0);
        Ok(())
    });
}

#[test]
fn objects_work_from_threads_that_never_set_a_device_or_context() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut buffer = DeviceBuffer::<u64>::zeroed(&ctx, 1024)?;
        std::thread::scope(|scope| {
            scope
                .spawn(|| -> ascendcl::Result<()> {
                    buffer.copy_from_host(&(0..1024).collect::<Vec<u64>>())?;
                    stream.synchronize()?;
                    Ok(())
                })
                .join()
                .expect("no panic")
        })?;
        assert_eq!(buffer.to_vec()?[1023], 1023);
        // A thread that frees a buffer it did not allocate binds the context too.
        std::thread::spawn(move || drop(buffer))
            .join()
            .expect("no panic");
        Ok(())
    });
}

#[test]
fn forgetting_the_current_context_makes_the_next_call_bind_again() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let buffer = DeviceBuffer::<u8>::zeroed(&ctx, 4)?;
        env.session.clear_journal();
        buffer.to_vec()?;
        assert!(
            !env.calls().contains(&"aclrtSetCurrentContext".to_string()),
            "already current: no rebinding"
        );
        forget_current_context();
        buffer.to_vec()?;
        assert_eq!(
            env.calls()
                .iter()
                .filter(|c| *c == "aclrtSetCurrentContext")
                .count(),
            1
        );
        let current = ctx.make_current()?;
        assert!(current.context().same_as(&ctx));
        Ok(())
    });
}
