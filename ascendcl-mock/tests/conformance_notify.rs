//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): notifies
//! (aclrtCreateNotify, aclrtDestroyNotify, aclrtRecordNotify,
//! aclrtWaitAndResetNotify), as runtime sample stream/2_multi_stream uses
//! them: a record on one stream releases a wait on another, and the wait
//! clears the notify. Each test cites the lines of the rule it checks.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::{Misuse, Resource};
use ascendcl_sys::*;
use common::*;

fn create(t: &T, flag: u64) -> Result<aclrtNotify, i32> {
    let mut n: aclrtNotify = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateNotify(&mut n, flag) }.unwrap();
    if rc == OK { Ok(n) } else { Err(rc) }
}

fn destroy(t: &T, n: aclrtNotify) -> i32 {
    // SAFETY: the mock checks the handle.
    unsafe { t.lib.aclrtDestroyNotify(n) }.unwrap()
}

fn record(t: &T, n: aclrtNotify, s: aclrtStream) -> i32 {
    // SAFETY: the mock checks the handles.
    unsafe { t.lib.aclrtRecordNotify(n, s) }.unwrap()
}

fn wait(t: &T, n: aclrtNotify, s: aclrtStream, timeout: u32) -> i32 {
    // SAFETY: the mock checks the handles.
    unsafe { t.lib.aclrtWaitAndResetNotify(n, s, timeout) }.unwrap()
}

/// Not finished after a while (a wait is holding its stream).
fn still_waiting(t: &T, s: aclrtStream) -> bool {
    std::thread::sleep(Duration::from_millis(30));
    !t.stream_done(s)
}

/// notify.cc:272-305 and aclrtWaitAndResetNotify.md:9: the wait holds its
/// stream until the notify is recorded, whichever is queued first.
#[test]
fn a_wait_holds_its_stream_until_a_record_on_another_stream_runs() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    assert_eq!(t.s.live(Resource::Notify), 1);
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(wait(&t, n, a, 0), OK);
    assert!(still_waiting(&t, a));
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(t.sync_stream(b), OK);
    assert_eq!(t.sync_stream(a), OK);
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

/// The notify is one bit (notify.cc:143, a single-bit record): a wait clears
/// it, so one record releases one wait, and two records before a wait set
/// it once.
#[test]
fn one_record_releases_one_wait_and_records_before_a_wait_collapse_into_one() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(t.sync_stream(b), OK);
    assert_eq!(wait(&t, n, a, 0), OK);
    assert_eq!(t.sync_stream(a), OK, "the first wait takes the bit");
    assert_eq!(wait(&t, n, a, 0), OK);
    assert!(still_waiting(&t, a), "the second record set no second bit");
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(t.sync_stream(a), OK);
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

/// example/stream/2_multi_stream/main.cpp:170-177: work on the waiting
/// stream runs after the recording stream's earlier work; the model orders
/// it (order.h), so reading what the recorder wrote is no misuse.
#[test]
fn work_after_a_wait_sees_and_is_ordered_after_the_recorders_earlier_work() {
    let t = T::with_device(0);
    let data = t.malloc(4, HUGE_FIRST).unwrap();
    let n = create(&t, 0).unwrap();
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(t.memset_async(data, 4, 7, 4, b), OK);
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(wait(&t, n, a, 0), OK);
    let host = t.malloc_host(4).unwrap();
    assert_eq!(t.memcpy_async(host, 4, data, 4, D2H, a), OK);
    assert_eq!(t.sync_stream(a), OK);
    // SAFETY: 4 bytes of pinned memory the synchronized copy wrote.
    let copied = unsafe { std::slice::from_raw_parts(host as *const u8, 4) };
    assert_eq!(copied, [7; 4]);
    assert_eq!(t.sync_stream(b), OK);
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.free(data), OK);
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

fn read_after(t: &T, data: *mut c_void, waiter: aclrtStream) -> *mut c_void {
    let host = t.malloc_host(4).unwrap();
    assert_eq!(t.memcpy_async(host, 4, data, 4, D2H, waiter), OK);
    assert_eq!(t.sync_stream(waiter), OK);
    host
}

/// Without the wait the same read is a race; with records on two streams
/// before one wait, either may release it (the bit is set by whichever
/// runs first), so the wait is ordered only after what both cover: a read
/// of what only the later-queued one wrote before its record is a race too
/// (order.h).
#[test]
fn a_wait_is_ordered_only_after_what_every_record_that_may_release_it_covers() {
    let t = T::with_device(0);
    let data = t.malloc(4, HUGE_FIRST).unwrap();
    let n = create(&t, 0).unwrap();
    let (a, b, c) = (
        t.create_stream().unwrap(),
        t.create_stream().unwrap(),
        t.create_stream().unwrap(),
    );
    assert_eq!(t.memset_async(data, 4, 1, 4, b), OK);
    let host = read_after(&t, data, a);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.sync_stream(b), OK);

    assert_eq!(t.memset_async(data, 4, 2, 4, b), OK);
    assert_eq!(record(&t, n, c), OK);
    assert_eq!(record(&t, n, b), OK);
    assert_eq!(wait(&t, n, a, 0), OK);
    let host = read_after(&t, data, a);
    t.assert_misuse(Misuse::UnorderedAccess, 2);
    assert_eq!(t.free_host(host), OK);
    for s in [a, b, c] {
        assert_eq!(t.sync_stream(s), OK);
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.free(data), OK);
    assert_eq!(destroy(&t, n), OK);
}

/// notify.cpp:25 (null out-pointer, 100000), api_c_event.cc:138-142 (a flag
/// other than ACL_NOTIFY_DEFAULT and ACL_NOTIFY_DEVICE_USE_ONLY, 107000);
/// notify.cpp:41, 57, 73: a null notify -> 100000.
#[test]
fn notify_calls_check_null_then_the_flag() {
    let t = T::with_device(0);
    // SAFETY: a null out-pointer, refused before use.
    let rc = unsafe { t.lib.aclrtCreateNotify(std::ptr::null_mut(), 2) }.unwrap();
    assert_eq!(rc, ACL_ERROR_INVALID_PARAM);
    for flag in [2, 0x40, 0x41, u64::MAX] {
        assert_eq!(
            create(&t, flag).unwrap_err(),
            ACL_ERROR_RT_PARAM_INVALID,
            "flag {flag:#x}"
        );
    }
    let n = create(&t, ACL_NOTIFY_DEVICE_USE_ONLY as u64).unwrap();
    let null = std::ptr::null_mut();
    assert_eq!(destroy(&t, null), ACL_ERROR_INVALID_PARAM);
    assert_eq!(record(&t, null, null), ACL_ERROR_INVALID_PARAM);
    assert_eq!(wait(&t, null, null, 0), ACL_ERROR_INVALID_PARAM);
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

/// api_c_event.cc:143-147 and api_impl.cc:4596, 4606, 4679: no current
/// context -> 107002; api_impl.cc:4614-4615, 4688-4691: a stream of another
/// context -> 107003.
#[test]
fn notify_calls_need_a_context_and_a_stream_of_it() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    let (lib, h) = (t.lib, n as usize);
    let rcs = std::thread::spawn(move || {
        let mut m: aclrtNotify = std::ptr::null_mut();
        let n = h as aclrtNotify;
        // SAFETY: a valid out-pointer and a live notify, refused before use.
        unsafe {
            (
                lib.aclrtCreateNotify(&mut m, 0).unwrap(),
                lib.aclrtRecordNotify(n, std::ptr::null_mut()).unwrap(),
                lib.aclrtWaitAndResetNotify(n, std::ptr::null_mut(), 0)
                    .unwrap(),
                lib.aclrtDestroyNotify(n).unwrap(),
            )
        }
    })
    .join()
    .unwrap();
    let none = ACL_ERROR_RT_CONTEXT_NULL;
    assert_eq!(rcs, (none, none, none, none));
    let default = t.current_context().unwrap();
    let mut other: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut other, 0) }.unwrap();
    assert_eq!(rc, OK);
    let s = t.create_stream().unwrap();
    // SAFETY: a live context.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(default) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(record(&t, n, s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(wait(&t, n, s, 0), ACL_ERROR_RT_STREAM_CONTEXT);
    // SAFETY: live handles, destroyed with their context current.
    unsafe {
        assert_eq!(t.lib.aclrtSetCurrentContext(other).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyStream(s).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyContext(other).unwrap(), OK);
        assert_eq!(t.lib.aclrtSetCurrentContext(default).unwrap(), OK);
    }
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

/// aclrtWaitAndResetNotify.md:20: a timeout in seconds; a wait that is not
/// released within it fails its stream, reported by the next synchronize
/// (the code is the firmware's: ACL_ERROR_RT_WAIT_TIMEOUT, a mock choice,
/// docs/mock-conformance.md); the stream then works again.
#[test]
fn a_wait_not_released_within_its_timeout_fails_the_streams_next_synchronize() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(wait(&t, n, s, 1), OK);
    assert_eq!(t.sync_stream(s), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert!(
        t.recent_msg()
            .unwrap_or_default()
            .contains("not recorded within 1 s")
    );
    assert_eq!(record(&t, n, s), OK);
    assert_eq!(wait(&t, n, s, 1), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}

/// api_impl.cc:4593-4600 deletes the notify whatever is queued on it; the
/// mock reports that as misuse and releases the held wait (a mock choice,
/// docs/mock-conformance.md); a destroyed notify is refused like a
/// destroyed event (107000).
#[test]
fn destroying_a_waited_notify_is_misuse_and_releases_the_wait() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(wait(&t, n, s, 0), OK);
    assert!(still_waiting(&t, s));
    assert_eq!(destroy(&t, n), OK);
    assert_eq!(t.sync_stream(s), OK);
    t.assert_misuse(Misuse::DestroyedHandle, 1);
    assert_eq!(record(&t, n, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(destroy(&t, n), ACL_ERROR_RT_PARAM_INVALID);
    t.assert_misuse(Misuse::DestroyedHandle, 3);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.s.live(Resource::Notify), 0);
}

/// A held wait does not outlive a forced destroy of its stream.
#[test]
fn a_forced_stream_destroy_releases_a_held_wait() {
    let t = T::with_device(0);
    let n = create(&t, 0).unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(wait(&t, n, s, 0), OK);
    assert!(still_waiting(&t, s));
    // SAFETY: a live stream.
    assert_eq!(unsafe { t.lib.aclrtDestroyStreamForce(s) }.unwrap(), OK);
    assert_eq!(destroy(&t, n), OK);
    t.assert_clean(1);
}
