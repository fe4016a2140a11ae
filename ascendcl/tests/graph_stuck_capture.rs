//! A capture CANN never ends (its `aclmdlRICaptureEnd` keeps failing): what
//! it captured is leaked, never freed under the model CANN still holds, and
//! its stream keeps refusing work. In a test binary of its own: the leaked
//! capture stays counted for the rest of the process (as CANN still counts
//! it), which refuses device synchronizes there.

mod common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::ops::{self, Workspace};
use ascendcl::prelude::*;

#[test]
fn a_capture_cann_never_ends_leaks_what_it_captured_and_its_stream_refuses_work() {
    // Not `common::check`: the mock keeps the capture and its model alive,
    // on purpose; the next test's session resets it.
    let env = common::env();
    let ctx = Device::open(&env.rt, 0).expect("device").default_context();
    let stream = Stream::new(&ctx).expect("stream");
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::segments()).expect("allocator");
    let scenario = || -> ascendcl::Result<()> {
        let mut cap = Capture::begin(&stream, CaptureMode::ThreadLocal)?;
        let x = cap.scratch::<f32>(&alloc, 4)?;
        let y = cap.scratch::<f32>(&alloc, 4)?;
        let input = cap.host_input(HostBuffer::<f32>::zeroed(&ctx, 4)?);
        cap.upload(&input, x)?;
        cap.launch(
            |v| ops::relu(&v.view(x, &[4])?, v.view_mut(y, &[4])?),
            Workspace::none(),
        )?;
        env.inject(ascendcl_mock::Fault::always(
            "aclmdlRICaptureEnd",
            common::sweep::INJECTED,
        ));
        let ended = cap.end();
        assert_eq!(
            ended.as_ref().err().and_then(ascendcl::Error::code),
            Some(common::sweep::INJECTED),
            "{ended:?}"
        );
        Ok(())
    };
    scenario().expect("the capture itself");
    assert_eq!(
        env.session.call_count("aclmdlRICaptureEnd"),
        3,
        "tried three times"
    );
    let parked = ascendcl::take_deferred_errors();
    assert!(
        parked
            .iter()
            .any(|p| p.to_string().contains("still captures")),
        "{parked:?}"
    );
    assert!(
        matches!(stream.synchronize(), Err(ascendcl::Error::InvalidState(_))),
        "the stream stays captured, as CANN has it"
    );
    assert_eq!(
        env.session.misuse_total(),
        0,
        "nothing the model uses was freed: {}",
        env.session.misuse_log()
    );
    // CANN refuses to destroy a stream it still captures (107027): parked.
    drop(stream);
    let parked = ascendcl::take_deferred_errors();
    assert!(
        parked.iter().all(|p| p.code() == Some(107027)),
        "{parked:?}"
    );
}
