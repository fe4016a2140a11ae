//! Fault sweep: for each scenario, make each FFI call it performs fail, one
//! at a time, with the mock's fault injection. Every time: no panic, an error
//! comes back (or the failing call was in a destructor and was retried),
//! nothing stays alive and the mock sees no misuse.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Runtime, StreamFlags};
use ascendcl_mock::Fault;

/// The code injected: a driver-internal failure, which nothing retries by design.
const INJECTED: i32 = ascendcl::sys::ACL_ERROR_RT_DRV_INTERNAL_ERROR;

type Scenario = fn(&Runtime) -> ascendcl::Result<()>;

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

fn sweep(scenario: Scenario) {
    let baseline = {
        let env = common::env();
        scenario(&env.rt).expect("the scenario succeeds without faults");
        env.assert_clean();
        env.calls()
    };
    let mut tried = 0;
    for (index, function) in baseline.iter().enumerate() {
        if function == "aclGetRecentErrMsg" {
            continue;
        }
        let nth = baseline[..=index].iter().filter(|f| *f == function).count() as u64;
        let env = common::env();
        env.inject(Fault::nth(function, nth, INJECTED));
        let outcome = catch_unwind(AssertUnwindSafe(|| scenario(&env.rt)))
            .unwrap_or_else(|_| panic!("a panic when call {function} #{nth} failed"));
        let calls = env.calls();
        let count = |f: &str, list: &[String]| list.iter().filter(|c| *c == f).count();
        match outcome {
            Err(error) => {
                let code = error.code();
                assert!(
                    code == Some(INJECTED) || matches!(error, ascendcl::Error::Deferred { .. }),
                    "{function} #{nth}: unexpected error {error}"
                );
            }
            Ok(()) => assert!(
                count(function, &calls) > count(function, &baseline),
                "{function} #{nth} failed, the scenario returned Ok, and the call was not retried:\n{calls:?}\n{baseline:?}"
            ),
        }
        let _ = ascendcl::take_deferred_errors();
        let live = env.session.live_counts();
        assert!(
            live.is_empty(),
            "{function} #{nth} failed and left resources alive: {live:?}"
        );
        assert_eq!(
            env.session.misuse_total(),
            0,
            "{function} #{nth}: {}",
            env.session.misuse_log()
        );
        tried += 1;
    }
    assert!(tried >= 20, "the scenario made only {tried} fallible calls");
}

#[test]
fn failing_any_call_of_copies_and_events_returns_an_error_and_leaks_nothing() {
    sweep(copies_and_events);
}

#[test]
fn failing_any_call_of_an_explicit_context_with_two_streams_returns_an_error_and_leaks_nothing() {
    sweep(explicit_context_and_two_streams);
}
