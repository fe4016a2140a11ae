//! The mock's happens-before model: raw C-API sequences whose accesses to one
//! range are not ordered (no same stream, no event record/wait chain, no host
//! synchronize) are misuse whatever the timing; correctly ordered ones are not.
//! No stream delay is needed: the model judges the order of the calls, not
//! what the workers happened to run first.

mod common;

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::vmm::*;
use common::*;

const N: usize = 4096;

fn wait_event(t: &T, s: aclrtStream, e: aclrtEvent) -> i32 {
    // SAFETY: the mock validates both handles.
    unsafe { t.lib.aclrtStreamWaitEvent(s, e) }.unwrap()
}

fn sync_event(t: &T, e: aclrtEvent) -> i32 {
    // SAFETY: the mock validates the handle.
    unsafe { t.lib.aclrtSynchronizeEvent(e) }.unwrap()
}

fn sync_device(t: &T) -> i32 {
    // SAFETY: no arguments.
    unsafe { t.lib.aclrtSynchronizeDevice() }.unwrap()
}

/// A device-to-device copy of `n` bytes queued on `s`.
fn d2d(t: &T, dst: *mut c_void, src: *mut c_void, n: usize, s: aclrtStream) -> i32 {
    t.memcpy_async(dst, n, src, n, D2D, s)
}

/// Two streams, two device buffers of N bytes (the first filled by the host).
struct Two {
    t: T,
    s1: aclrtStream,
    s2: aclrtStream,
    a: *mut c_void,
    b: *mut c_void,
}

impl Two {
    fn new() -> Two {
        let t = T::with_device(0);
        let s1 = t.create_stream().unwrap();
        let s2 = t.create_stream().unwrap();
        let a = t.malloc(N, HUGE_FIRST).unwrap();
        let b = t.malloc(N, HUGE_FIRST).unwrap();
        assert_eq!(t.upload(a, &[7; N]), OK);
        Two { t, s1, s2, a, b }
    }

    /// Synchronizes and frees everything; nothing may stay alive.
    fn clean_up(&self) {
        let t = &self.t;
        assert_eq!(t.sync_stream(self.s1), OK);
        assert_eq!(t.sync_stream(self.s2), OK);
        assert_eq!(t.free(self.a), OK);
        assert_eq!(t.free(self.b), OK);
        assert_eq!(t.destroy_stream(self.s1), OK);
        assert_eq!(t.destroy_stream(self.s2), OK);
        assert_eq!(t.reset_device(0), OK);
        assert!(t.s.live_counts().is_empty(), "{:?}", t.s.live_counts());
    }

    /// Cleans up; `misuse` of `kind` must have been counted, and nothing else.
    fn finish(self, kind: Misuse, misuse: u64) {
        self.clean_up();
        self.t.assert_misuse(kind, misuse);
    }
}

// ------------------------------------------------------------------ races

#[test]
fn two_writes_from_unordered_streams_are_an_unordered_access_naming_both_calls() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.s.misuse_total(), 0);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    w.t.assert_misuse(Misuse::UnorderedAccess, 1);
    let log = w.t.s.misuse_log();
    assert!(
        log.starts_with("UNORDERED_ACCESS: aclrtMemsetAsync: write of m1"),
        "{log}"
    );
    assert!(
        log.contains("by s2 is not ordered after the write"),
        "{log}"
    );
    assert!(log.contains("by s1 (queued by aclrtMemsetAsync)"), "{log}");
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn the_journal_marks_the_racing_call_with_its_misuse_kind() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    let from = w.t.s.journal().last().map_or(0, |e| e.seq()) + 1;
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    assert_eq!(w.t.memcpy_async(h, N, w.b, N, D2H, w.s1), OK);
    assert_eq!(w.t.free_host(h), OK);
    let marks: Vec<(String, Option<Misuse>)> =
        w.t.s
            .journal_since(from)
            .iter()
            .map(|e| (e.function().to_string(), e.misuse()))
            .collect();
    let expected = [
        ("aclrtMemsetAsync", None),
        ("aclrtMemsetAsync", Some(Misuse::UnorderedAccess)),
        ("aclrtMemcpyAsync", None),
        ("aclrtFreeHost", Some(Misuse::PinnedHostAccess)),
    ];
    let expected: Vec<(String, Option<Misuse>)> =
        expected.iter().map(|(f, m)| (f.to_string(), *m)).collect();
    assert_eq!(marks, expected);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    let use_after_free = w.t.s.misuse(Misuse::UseAfterFree);
    assert_eq!(w.t.s.misuse_total(), 2 + use_after_free);
    w.clean_up();
}

#[test]
fn misuse_names_round_trip_through_the_journal_spelling() {
    for kind in Misuse::ALL {
        assert_eq!(Misuse::from_name(kind.name()), Some(kind));
    }
    assert_eq!(Misuse::UnorderedAccess.name(), "UNORDERED_ACCESS");
    assert_eq!(Misuse::from_name("NOT_A_KIND"), None);
}

#[test]
fn a_read_overlapping_part_of_an_unordered_write_is_an_unordered_access() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    // s2 reads the second quarter only
    let part = w.a.wrapping_byte_add(N / 4);
    assert_eq!(d2d(&w.t, w.b, part, N / 4, w.s2), OK);
    assert!(
        w.t.s
            .misuse_log()
            .contains("read of m1[0x400, 0x800) by s2")
    );
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_write_after_an_unordered_read_is_an_unordered_access() {
    let w = Two::new();
    assert_eq!(d2d(&w.t, w.b, w.a, N, w.s1), OK);
    assert_eq!(w.t.memset_async(w.a, N, 3, N, w.s2), OK);
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_wait_on_an_event_recorded_before_the_conflicting_write_does_not_order_it() {
    let w = Two::new();
    let e = w.t.create_event();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.record(e, w.s1), OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s1), OK); // after the record
    assert_eq!(wait_event(&w.t, w.s2, e), OK);
    assert_eq!(w.t.memset_async(w.a, N, 3, N, w.s2), OK);
    assert_eq!(w.t.destroy_event(e), OK);
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_synchronous_read_of_a_buffer_a_stream_still_writes_is_an_unordered_access() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    let mut out = vec![0u8; 16];
    let rc = w.t.memcpy(out.as_mut_ptr().cast(), 16, w.a, 16, D2H);
    assert_eq!(rc, OK);
    assert!(
        w.t.s
            .misuse_log()
            .contains("read of m1[0x0, 0x10) by the host")
    );
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn writes_through_two_mappings_of_one_physical_allocation_race_like_one_buffer() {
    let t = T::with_device(0);
    let s1 = t.create_stream().unwrap();
    let s2 = t.create_stream().unwrap();
    let va = reserve(&t, 2 * G2, 0).unwrap();
    let h = malloc_physical(&t, G2, &prop(0, HBM_HUGE)).unwrap();
    let alias = va.wrapping_byte_add(G2);
    assert_eq!(map(&t, va, G2, h), OK);
    assert_eq!(map(&t, alias, G2, h), OK);
    assert_eq!(t.memset_async(va, N, 1, N, s1), OK);
    assert_eq!(t.s.misuse_total(), 0);
    assert_eq!(
        t.memset_async(alias.wrapping_byte_add(N - 1), 1, 2, 1, s2),
        OK
    );
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert!(
        t.s.misuse_log()
            .contains("write of p1[0xfff, 0x1000) by s2")
    );
    assert_eq!(t.sync_stream(s1), OK);
    assert_eq!(t.sync_stream(s2), OK);
    assert_eq!(unmap(&t, va), OK);
    assert_eq!(unmap(&t, alias), OK);
    assert_eq!(free_physical(&t, h), OK);
    assert_eq!(release(&t, va), OK);
    assert_eq!(t.destroy_stream(s1), OK);
    assert_eq!(t.destroy_stream(s2), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    assert!(t.s.live_counts().is_empty());
}

#[test]
fn an_unordered_access_aborts_under_abort_on_misuse() {
    const NAME: &str = "an_unordered_access_aborts_under_abort_on_misuse";
    if is_child(NAME) {
        let w = Two::new();
        assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
        let _ = w.t.memset_async(w.a, N, 2, N, w.s2);
        println!("survived an unordered write");
        return;
    }
    let out = run_child(NAME, &[("ASCENDCL_MOCK_ABORT_ON_MISUSE", "1")]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT: {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("misuse UNORDERED_ACCESS in aclrtMemsetAsync"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("survived"));
}

// -------------------------------------------------------- ordered: no race

#[test]
fn accesses_queued_on_one_stream_are_ordered() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(d2d(&w.t, w.b, w.a, N, w.s1), OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s1), OK);
    assert_eq!(d2d(&w.t, w.a, w.b, N, w.s1), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn reads_from_unordered_streams_do_not_race() {
    let w = Two::new();
    let c = w.t.malloc(N, HUGE_FIRST).unwrap();
    assert_eq!(d2d(&w.t, w.b, w.a, N, w.s1), OK);
    assert_eq!(d2d(&w.t, c, w.a, N, w.s2), OK);
    assert_eq!(w.t.sync_stream(w.s2), OK);
    assert_eq!(w.t.free(c), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn disjoint_parts_of_one_buffer_do_not_race() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N / 2, 1, N / 2, w.s1), OK);
    let upper = w.a.wrapping_byte_add(N / 2);
    assert_eq!(w.t.memset_async(upper, N / 2, 2, N / 2, w.s2), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn a_wait_on_an_event_recorded_after_the_conflicting_write_orders_the_second_stream() {
    let w = Two::new();
    let e = w.t.create_event();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(d2d(&w.t, w.b, w.a, N, w.s1), OK);
    assert_eq!(w.t.record(e, w.s1), OK);
    assert_eq!(wait_event(&w.t, w.s2, e), OK);
    assert_eq!(w.t.memset_async(w.a, N, 3, N, w.s2), OK);
    assert_eq!(w.t.memset_async(w.b, N, 4, N, w.s2), OK);
    // and back: s1 after s2 through a second record/wait
    assert_eq!(w.t.record(e, w.s2), OK);
    assert_eq!(wait_event(&w.t, w.s1, e), OK);
    assert_eq!(d2d(&w.t, w.b, w.a, N, w.s1), OK);
    assert_eq!(w.t.destroy_event(e), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn an_event_chain_through_a_third_stream_orders_the_first_and_the_last() {
    let w = Two::new();
    let s3 = w.t.create_stream().unwrap();
    let (e1, e2) = (w.t.create_event(), w.t.create_event());
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.record(e1, w.s1), OK);
    assert_eq!(wait_event(&w.t, s3, e1), OK);
    assert_eq!(w.t.record(e2, s3), OK);
    assert_eq!(wait_event(&w.t, w.s2, e2), OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    assert_eq!(w.t.sync_stream(s3), OK);
    assert_eq!(w.t.destroy_stream(s3), OK);
    assert_eq!(w.t.destroy_event(e1), OK);
    assert_eq!(w.t.destroy_event(e2), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn a_stream_synchronize_orders_the_host_and_work_queued_after_it() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(w.t.download(w.a, N), vec![1; N]);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn a_device_synchronize_orders_every_stream_of_the_device() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.memset_async(w.b, N, 1, N, w.s2), OK);
    assert_eq!(sync_device(&w.t), OK);
    // each buffer is now written by the other stream, and read by the host
    assert_eq!(w.t.download(w.b, 8), vec![1; 8]);
    assert_eq!(w.t.memset_async(w.b, N, 2, N, w.s1), OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn an_event_synchronize_orders_the_host_after_the_recorded_work_only() {
    let w = Two::new();
    let e = w.t.create_event();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(w.t.record(e, w.s1), OK);
    assert_eq!(w.t.memset_async(w.b, N, 2, N, w.s1), OK);
    assert_eq!(sync_event(&w.t, e), OK);
    assert_eq!(w.t.download(w.a, 8), vec![1; 8], "recorded: ordered");
    assert_eq!(w.t.memset_async(w.a, N, 3, N, w.s2), OK);
    assert_eq!(w.t.s.misuse_total(), 0);
    // b was written after the record: the event says nothing about it
    let _ = w.t.download(w.b, 8);
    assert_eq!(w.t.destroy_event(e), OK);
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_stream_query_that_reports_completion_orders_the_host() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    while !w.t.stream_done(w.s1) {
        std::thread::yield_now();
    }
    assert_eq!(w.t.download(w.a, 8), vec![1; 8]);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn a_pageable_async_copy_returns_ordered_after_its_stream() {
    let w = Two::new();
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    let mut out = vec![0u8; N];
    let rc =
        w.t.memcpy_async(out.as_mut_ptr().cast(), N, w.a, N, D2H, w.s1);
    assert_eq!(rc, OK);
    assert_eq!(out, vec![1; N]);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s2), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn freeing_device_memory_a_queued_copy_still_reads_is_an_unordered_access() {
    let w = Two::new();
    let c = w.t.malloc(N, HUGE_FIRST).unwrap();
    assert_eq!(d2d(&w.t, w.b, c, N, w.s1), OK);
    assert_eq!(w.t.free(c), OK);
    assert!(
        w.t.s
            .misuse_log()
            .starts_with("UNORDERED_ACCESS: aclrtFree: free of m3[0x0, 0x1000) by the host")
    );
    assert_eq!(w.t.sync_stream(w.s1), OK);
    // whether the worker also found the block gone depends on timing
    let use_after_free = w.t.s.misuse(Misuse::UseAfterFree);
    assert!(use_after_free <= 1);
    assert_eq!(w.t.s.misuse(Misuse::UnorderedAccess), 1);
    assert_eq!(w.t.s.misuse_total(), 1 + use_after_free);
    w.clean_up();
}

#[test]
fn freeing_device_memory_after_the_stream_synchronize_is_not_misuse() {
    let w = Two::new();
    let c = w.t.malloc(N, HUGE_FIRST).unwrap();
    assert_eq!(d2d(&w.t, w.b, c, N, w.s1), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(w.t.free(c), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

// -------------------------------------------------------------- callbacks

/// A host function or callback that reads 16 bytes of `src` through
/// aclrtMemcpy, from the runtime's thread.
struct Reader {
    lib: &'static Library,
    src: *mut c_void,
    rc: AtomicI32,
}

impl Reader {
    fn new(t: &T, src: *mut c_void) -> Reader {
        Reader {
            lib: t.lib,
            src,
            rc: AtomicI32::new(-1),
        }
    }

    fn arg(&self) -> *mut c_void {
        (self as *const Reader).cast_mut().cast()
    }
}

extern "C" fn read16(arg: *mut c_void) {
    // SAFETY: the test passes a live Reader and synchronizes before dropping it.
    let r = unsafe { &*arg.cast::<Reader>() };
    let mut out = [0u8; 16];
    // SAFETY: 16 bytes into a live local; the device side is validated.
    let rc = unsafe {
        r.lib
            .aclrtMemcpy(out.as_mut_ptr().cast(), 16, r.src, 16, aclrtMemcpyKind(D2H))
    }
    .unwrap();
    r.rc.store(rc, Ordering::SeqCst);
}

fn launch_host_func(t: &T, s: aclrtStream, r: &Reader) -> i32 {
    // SAFETY: `read16` is a valid host function; `r` outlives the stream's work.
    unsafe { t.lib.aclrtLaunchHostFunc(s, Some(read16), r.arg()) }.unwrap()
}

#[test]
fn a_host_function_acts_at_its_place_in_its_stream() {
    let w = Two::new();
    w.t.s.set_stream_delay(Duration::from_millis(5));
    let r = Reader::new(&w.t, w.a);
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    assert_eq!(launch_host_func(&w.t, w.s1, &r), OK);
    // queued before the function runs, but runs after it
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s1), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(r.rc.load(Ordering::SeqCst), OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

#[test]
fn a_host_function_reading_what_an_unordered_stream_writes_is_an_unordered_access() {
    let w = Two::new();
    let r = Reader::new(&w.t, w.a);
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s2), OK);
    assert_eq!(launch_host_func(&w.t, w.s1, &r), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(r.rc.load(Ordering::SeqCst), OK);
    assert!(w.t.s.misuse_log().contains("read of m1[0x0, 0x10) by s1"));
    w.finish(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_blocking_report_callback_acts_at_its_place_in_its_stream() {
    let w = Two::new();
    let me = {
        unsafe extern "C" {
            fn pthread_self() -> u64;
        }
        // SAFETY: pthread_self has no preconditions.
        unsafe { pthread_self() }
    };
    let r = Reader::new(&w.t, w.a);
    // SAFETY: live stream.
    let rc = unsafe { w.t.lib.aclrtSubscribeReport(me, w.s1) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(w.t.memset_async(w.a, N, 1, N, w.s1), OK);
    // SAFETY: valid function; `r` outlives the stream's work.
    let rc = unsafe {
        w.t.lib
            .aclrtLaunchCallback(Some(read16), r.arg(), aclrtCallbackBlockType(1), w.s1)
    }
    .unwrap();
    assert_eq!(rc, OK);
    assert_eq!(w.t.memset_async(w.a, N, 2, N, w.s1), OK);
    // SAFETY: plain argument; this thread is subscribed.
    assert_eq!(unsafe { w.t.lib.aclrtProcessReport(10_000) }.unwrap(), OK);
    assert_eq!(r.rc.load(Ordering::SeqCst), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    // SAFETY: live stream.
    let rc = unsafe { w.t.lib.aclrtUnSubscribeReport(me, w.s1) }.unwrap();
    assert_eq!(rc, OK);
    w.finish(Misuse::UnorderedAccess, 0);
}

// ----------------------------------------------------------------- pinned

#[test]
fn a_synchronous_copy_out_of_pinned_memory_a_queued_copy_fills_is_a_pinned_host_access() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    assert_eq!(w.t.memcpy_async(h, N, w.a, N, D2H, w.s1), OK);
    assert_eq!(w.t.memcpy(w.b, N, h, N, H2D), OK);
    assert!(
        w.t.s
            .misuse_log()
            .starts_with("PINNED_HOST_ACCESS: aclrtMemcpy: read of h1[0x0, 0x1000) by the host")
    );
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(w.t.free_host(h), OK);
    w.finish(Misuse::PinnedHostAccess, 1);
}

#[test]
fn a_synchronous_copy_into_pinned_memory_a_queued_copy_reads_is_a_pinned_host_access() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    assert_eq!(w.t.memcpy_async(w.b, N, h, N, H2D, w.s1), OK);
    assert_eq!(w.t.memcpy(h, N, w.a, N, D2H), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(w.t.free_host(h), OK);
    w.finish(Misuse::PinnedHostAccess, 1);
}

#[test]
fn freeing_pinned_memory_a_queued_copy_reads_is_a_pinned_host_access() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    assert_eq!(w.t.memcpy_async(w.b, N, h, N, H2D, w.s1), OK);
    // the stream has not been waited for: the free races with the copy
    // (which the worker may also find freed when it runs)
    assert_eq!(w.t.free_host(h), OK);
    assert_eq!(w.t.s.misuse(Misuse::PinnedHostAccess), 1);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    // whether the worker also found the block gone depends on timing
    let use_after_free = w.t.s.misuse(Misuse::UseAfterFree);
    assert!(use_after_free <= 1);
    assert_eq!(w.t.s.misuse_total(), 1 + use_after_free);
    w.clean_up();
}

#[test]
fn pinned_memory_read_by_the_host_and_a_queued_copy_does_not_race() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    assert_eq!(w.t.memcpy(h, N, w.a, N, D2H), OK);
    assert_eq!(w.t.memcpy_async(w.b, N, h, N, H2D, w.s1), OK);
    assert_eq!(w.t.memcpy(w.a, N, h, N, H2D), OK);
    assert_eq!(w.t.sync_stream(w.s1), OK);
    assert_eq!(w.t.memcpy(h, N, w.b, N, D2H), OK, "after the synchronize");
    assert_eq!(w.t.free_host(h), OK);
    w.finish(Misuse::PinnedHostAccess, 0);
}

#[test]
fn pinned_memory_freed_after_an_event_synchronize_is_not_misuse() {
    let w = Two::new();
    let h = w.t.malloc_host(N).unwrap();
    let e = w.t.create_event();
    assert_eq!(w.t.memcpy_async(h, N, w.a, N, D2H, w.s1), OK);
    assert_eq!(w.t.record(e, w.s1), OK);
    assert_eq!(sync_event(&w.t, e), OK);
    assert_eq!(w.t.free_host(h), OK);
    assert_eq!(w.t.destroy_event(e), OK);
    w.finish(Misuse::PinnedHostAccess, 0);
}
