//! `Runtime::mock()` (feature `mock`): what a downstream crate's tests rely on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ascendcl::mock::{Fault, ReplayMode, Resource};
use ascendcl::prelude::*;
use ascendcl::sys::{ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_NO_DEVICE};
use ascendcl::{Error, Runtime};

/// Code under test, as a user writes it: takes the runtime, uploads, reads back.
fn round_trip(rt: &Runtime, data: &[f32]) -> ascendcl::Result<Vec<f32>> {
    let device = Device::open(rt, 0)?;
    let ctx = device.default_context();
    let on_device = DeviceBuffer::from_host(&ctx, data)?;
    on_device.to_vec()
}

#[test]
fn mock_runtime_runs_user_code_on_the_mock_and_leaves_it_clean() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    assert!(rt.is_mock());
    assert_eq!(round_trip(&rt, &[1.0, 2.0, 3.0])?, [1.0, 2.0, 3.0]);
    assert_eq!(rt.mock().call_count("aclrtMalloc"), 1);
    rt.check_clean()
}

#[test]
fn injected_fault_fails_the_named_call_with_its_code_and_nothing_leaks() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    rt.inject(Fault::nth("aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION))?;
    let error = round_trip(&rt, &[1.0]).unwrap_err();
    assert_eq!(error.code(), Some(ACL_ERROR_RT_MEMORY_ALLOCATION));
    // only the first call was faulted
    assert_eq!(round_trip(&rt, &[5.0])?, [5.0]);
    rt.check_clean()
}

#[test]
fn inject_refuses_a_function_the_mock_does_not_implement() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let error = rt
        .inject(Fault::always("aclrtMallocc", ACL_ERROR_RT_NO_DEVICE))
        .unwrap_err();
    assert!(matches!(error, Error::InvalidArgument(_)), "{error:?}");
    assert!(error.to_string().contains("aclrtMallocc"), "{error}");
    Ok(())
}

#[test]
fn a_refused_mock_control_is_an_ascendcl_error_that_says_what_to_do() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let cases: [(&str, ascendcl::Result<()>, &str); 4] = [
        (
            "set_device_count",
            rt.mock().set_device_count(0).map_err(Into::into),
            "1 to 64",
        ),
        (
            "set_hbm_bytes",
            rt.mock().set_hbm_bytes(4096).map_err(Into::into),
            "2 MiB to 16 TiB",
        ),
        (
            "set_soc_name",
            rt.mock().set_soc_name("a\0b").map_err(Into::into),
            "without NUL",
        ),
        (
            "replay",
            rt.mock()
                .replay("/nonexistent/trace.jsonl", ReplayMode::Strict)
                .map_err(Into::into),
            "/nonexistent/trace.jsonl",
        ),
    ];
    for (control, result, advice) in cases {
        let error = result.unwrap_err();
        assert!(matches!(error, Error::InvalidArgument(_)), "{error:?}");
        let text = error.to_string();
        assert!(text.contains(control) && text.contains(advice), "{text}");
    }
    rt.mock().stop_replay();
    // and `?` in a function returning ascendcl::Result compiles and passes
    fn smaller_card(rt: &ascendcl::mock::MockRuntime) -> ascendcl::Result<usize> {
        rt.mock().set_device_count(2)?;
        rt.mock().set_hbm_bytes(16 << 20)?;
        rt.mock().set_soc_name("Ascend910B1")?;
        Ok(rt.device_count()? as usize)
    }
    assert_eq!(smaller_card(&rt)?, 2);
    rt.check_clean()
}

#[test]
fn check_clean_names_what_is_still_alive_and_passes_once_it_is_dropped() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let device = Device::open(&rt, 0)?;
    let buffer = DeviceBuffer::<u8>::alloc(&device.default_context(), 16)?;
    let error = rt.check_clean().unwrap_err();
    assert!(matches!(error, Error::InvalidState(_)), "{error:?}");
    assert!(
        error.to_string().contains("1 DeviceBuffer (a DeviceBuffer"),
        "{error}"
    );
    drop(buffer);
    drop(device);
    rt.check_clean()
}

#[test]
fn check_clean_names_the_user_facing_object_a_held_context_keeps_open() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    drop(device); // the context still holds the device open
    let text = rt.check_clean().unwrap_err().to_string();
    for needle in [
        "1 Device open (a Device, or a Context, Stream",
        "the mock's DeviceRef: 1",
        "drop these objects (or end their scope) before check_clean()",
    ] {
        assert!(text.contains(needle), "{needle} not in {text}");
    }
    let stream = Stream::new(&ctx)?;
    drop(ctx);
    let text = rt.check_clean().unwrap_err().to_string();
    assert!(text.contains("1 Stream (a Stream"), "{text}");
    drop(stream);
    rt.check_clean()
}

#[test]
fn every_mock_runtime_starts_from_a_reset_mock() -> ascendcl::Result<()> {
    {
        let rt = Runtime::mock()?;
        rt.mock().set_device_count(2)?; // no device touched yet
        assert_eq!(rt.device_count()?, 2);
        rt.inject(Fault::always("aclrtMalloc", ACL_ERROR_RT_MEMORY_ALLOCATION))?;
    }
    let rt = Runtime::mock()?;
    assert_eq!(
        rt.device_count()?,
        8,
        "the device count is back to the default"
    );
    assert!(
        rt.mock()
            .journal()
            .iter()
            .all(|e| e.function() != "aclrtMalloc")
    );
    assert_eq!(round_trip(&rt, &[7.0])?, [7.0], "the fault is gone");
    rt.check_clean()
}

#[test]
fn runtime_init_in_code_under_test_returns_the_mock_runtime() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    // library code that calls Runtime::init() itself
    let inner = Runtime::init()?;
    assert!(inner.is_mock());
    assert!(std::ptr::eq(inner.library(), rt.library()));
    Ok(())
}

#[test]
fn small_hbm_makes_a_large_allocation_fail_as_out_of_memory() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    rt.mock().set_hbm_bytes(8 << 20)?; // no device touched yet
    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    let small = DeviceBuffer::<u8>::alloc(&ctx, 1 << 20)?;
    let error = DeviceBuffer::<u8>::alloc(&ctx, 16 << 20).unwrap_err();
    assert_eq!(
        error.code(),
        Some(ACL_ERROR_RT_MEMORY_ALLOCATION),
        "{error}"
    );
    drop(small);
    drop(ctx);
    drop(device);
    rt.check_clean()
}

#[test]
fn errors_parked_by_an_earlier_tests_destructors_do_not_fail_the_next_test() -> ascendcl::Result<()>
{
    {
        let rt = Runtime::mock()?;
        let device = Device::open(&rt, 0)?;
        let buffer = DeviceBuffer::<u8>::alloc(&device.default_context(), 16)?;
        rt.inject(Fault::always("aclrtFree", ACL_ERROR_RT_NO_DEVICE))?;
        drop(buffer); // the failed free is parked for a later call
        let journal = rt.mock().journal();
        assert!(
            journal
                .iter()
                .any(|e| e.function() == "aclrtFree" && e.ret() != 0)
        );
    }
    let rt = Runtime::mock()?;
    assert_eq!(round_trip(&rt, &[3.0])?, [3.0]);
    rt.check_clean()
}

#[test]
fn tests_taking_the_mock_from_parallel_threads_run_one_at_a_time() {
    static INSIDE: AtomicUsize = AtomicUsize::new(0);
    static MOST: AtomicUsize = AtomicUsize::new(0);
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let rt = Runtime::mock().expect("the mock");
                let now = INSIDE.fetch_add(1, Ordering::SeqCst) + 1;
                MOST.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                let value = i as f32;
                assert_eq!(round_trip(&rt, &[value]).expect("round trip"), [value]);
                INSIDE.fetch_sub(1, Ordering::SeqCst);
                rt.check_clean().expect("clean");
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("no test thread panicked");
    }
    assert_eq!(MOST.load(Ordering::SeqCst), 1);
}

#[test]
fn a_trace_saved_from_one_test_replays_strictly_in_the_next() -> ascendcl::Result<()> {
    let trace = std::env::temp_dir().join(format!("mock_runtime_{}.jsonl", std::process::id()));
    {
        let rt = Runtime::mock()?;
        round_trip(&rt, &[1.0, 2.0])?;
        rt.mock().save_trace(&trace).expect("writable temp dir");
    }
    let rt = Runtime::mock()?;
    rt.mock().replay(&trace, ReplayMode::Strict)?;
    assert_eq!(round_trip(&rt, &[1.0, 2.0])?, [1.0, 2.0]);
    let status = rt.mock().replay_status();
    rt.mock().stop_replay();
    let _ = std::fs::remove_file(&trace);
    assert!(status.is_complete(), "{}", status.text);
    assert_eq!(rt.mock().live(Resource::DeviceBuffer), 0);
    rt.check_clean()
}
