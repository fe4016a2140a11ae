//! A report thread under strict replay: in the recording the program made
//! its report thread wait until the stream was subscribed; the replayed
//! program does not, so its report thread polls at once - the replay holds
//! that first aclrtProcessReport back until the aclrtSubscribeReport that
//! preceded it in the trace has started, and the replay completes.

mod common;

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use ascendcl_mock::ReplayMode;
use ascendcl_sys::*;
use common::*;

unsafe extern "C" {
    fn pthread_self() -> u64;
}

static RAN: AtomicUsize = AtomicUsize::new(0);

extern "C" fn callback(_: *mut c_void) {
    RAN.fetch_add(1, Ordering::SeqCst);
}

/// The program; `gate`: the report thread waits for the subscription.
fn program(t: &T, gate: bool) {
    assert_eq!(t.set_device(0), OK);
    let ctx = t.current_context().unwrap() as usize;
    let s = t.create_stream().unwrap() as usize;
    let stop = AtomicBool::new(false);
    let (subscribed_tx, subscribed_rx) = mpsc::channel::<()>();
    let (id_tx, id_rx) = mpsc::channel::<u64>();
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            // SAFETY: pthread_self has no preconditions.
            id_tx.send(unsafe { pthread_self() }).unwrap();
            if gate {
                subscribed_rx.recv().unwrap();
            }
            // SAFETY: a live context of this mock.
            let rc = unsafe { t.lib.aclrtSetCurrentContext(ctx as *mut c_void) }.unwrap();
            assert_eq!(rc, OK);
            while !stop.load(Ordering::SeqCst) {
                // SAFETY: a plain timeout.
                let rc = unsafe { t.lib.aclrtProcessReport(20) }.unwrap();
                assert!(rc == OK || rc == 507_012, "aclrtProcessReport: {rc}");
            }
        });
        let reporter = id_rx.recv().unwrap();
        if !gate {
            // a slow main thread: without the replay's order the report
            // thread would poll before the subscription and fail
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // SAFETY: a live stream; the id is the report thread's.
        let rc = unsafe { t.lib.aclrtSubscribeReport(reporter, s as aclrtStream) }.unwrap();
        assert_eq!(rc, OK);
        subscribed_tx.send(()).unwrap();
        for _ in 0..3 {
            // SAFETY: a valid callback without data; the stream is live.
            let rc = unsafe {
                t.lib.aclrtLaunchCallback(
                    Some(callback),
                    std::ptr::null_mut(),
                    aclrtCallbackBlockType(1),
                    s as aclrtStream,
                )
            }
            .unwrap();
            assert_eq!(rc, OK);
        }
        // bounded: if the report thread failed, nobody runs the callbacks
        assert_eq!(t.sync_stream_timeout(s as aclrtStream, 10_000), OK);
        stop.store(true, Ordering::SeqCst);
    });
    assert_eq!(t.destroy_stream(s as aclrtStream), OK);
    assert_eq!(t.reset_device(0), OK);
}

#[test]
fn a_report_threads_first_poll_waits_for_the_subscription_it_depends_on() {
    let t = T::new();
    let path = std::env::temp_dir().join(format!(
        "aclmock-report-thread-{}.jsonl",
        std::process::id()
    ));
    program(&t, true);
    t.s.save_trace(&path).unwrap();
    t.s.reset();
    RAN.store(0, Ordering::SeqCst);
    for run in 0..5 {
        t.s.replay(&path, ReplayMode::Strict).unwrap();
        program(&t, false);
        let status = t.s.replay_status();
        assert!(status.is_complete(), "run {run}: {}", status.text);
        t.s.reset();
    }
    assert_eq!(RAN.load(Ordering::SeqCst), 5 * 3, "every callback ran");
    std::fs::remove_file(path).unwrap();
}
