//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): the stream
//! tasks on a 64-bit word of device memory (aclrtValueWrite,
//! aclrtValueWait), as runtime sample memory/9 uses them: a wait queued on
//! one stream is released by a write queued on another. Each test cites the
//! lines of the rule it checks.

mod common;

use std::ffi::c_void;
use std::time::Duration;

use ascendcl_mock::Misuse;
use ascendcl_sys::*;
use common::*;

fn write(t: &T, p: *mut c_void, v: u64, flag: u32, s: aclrtStream) -> i32 {
    // SAFETY: the mock checks the address before queuing anything.
    unsafe { t.lib.aclrtValueWrite(p, v, flag, s) }.unwrap()
}

fn wait(t: &T, p: *mut c_void, v: u64, flag: u32, s: aclrtStream) -> i32 {
    // SAFETY: the mock checks the address before queuing anything.
    unsafe { t.lib.aclrtValueWait(p, v, flag, s) }.unwrap()
}

fn word(t: &T, p: *mut c_void) -> u64 {
    u64::from_le_bytes(t.download(p, 8).try_into().unwrap())
}

fn set_word(t: &T, p: *mut c_void, v: u64) {
    assert_eq!(t.upload(p, &v.to_le_bytes()), OK);
}

/// Not finished after a while (the task is holding its stream).
fn still_waiting(t: &T, s: aclrtStream) -> bool {
    std::thread::sleep(Duration::from_millis(30));
    !t.stream_done(s)
}

/// context.cc:5335-5361: a write task stores the value; the stream's
/// synchronize returns once it ran.
#[test]
fn value_write_stores_the_64_bit_value_when_its_stream_runs() {
    let t = T::with_device(0);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    let s = t.create_stream().unwrap();
    assert_eq!(write(&t, p, 0x0123_4567_89AB_CDEF, 0, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    assert_eq!(word(&t, p), 0x0123_4567_89AB_CDEF);
    assert_eq!(
        write(&t, p, 5, 0, std::ptr::null_mut()),
        OK,
        "NULL: the default stream"
    );
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(word(&t, p), 5);
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// example/memory/9_multistream_sync_memory/main.cpp:30, 52: the wait is
/// queued first, the write later on another stream; the wait holds its
/// stream until the write runs. The two accesses to the word are the
/// synchronization, not a race (order.h).
#[test]
fn a_wait_queued_before_the_write_on_another_stream_holds_until_the_write_runs() {
    let t = T::with_device(0);
    let p = t.malloc(1 << 20, HUGE_FIRST).unwrap();
    set_word(&t, p, 0);
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(wait(&t, p, 100, ACL_STREAM_WAIT_VALUE_EQ, a), OK);
    assert!(still_waiting(&t, a));
    assert_eq!(write(&t, p, 100, 0, b), OK);
    assert_eq!(t.sync_stream(b), OK);
    assert_eq!(t.sync_stream(a), OK);
    assert_eq!(t.destroy_stream(a), OK);
    assert_eq!(t.destroy_stream(b), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// A wait orders its stream after the write it waited for (order.h): a
/// copy queued after the wait reads what the writer's stream wrote before
/// its value write, with no misuse.
#[test]
fn work_queued_after_a_wait_is_ordered_after_the_writers_earlier_work() {
    let t = T::with_device(0);
    let flag = t.malloc(8, HUGE_FIRST).unwrap();
    let data = t.malloc(4, HUGE_FIRST).unwrap();
    set_word(&t, flag, 0);
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    assert_eq!(t.memset_async(data, 4, 9, 4, b), OK);
    assert_eq!(write(&t, flag, 1, 0, b), OK);
    assert_eq!(wait(&t, flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, a), OK);
    let host = t.malloc_host(4).unwrap();
    assert_eq!(t.memcpy_async(host, 4, data, 4, D2H, a), OK);
    assert_eq!(t.sync_stream(a), OK);
    // SAFETY: 4 bytes of pinned memory the synchronized copy wrote.
    let copied = unsafe { std::slice::from_raw_parts(host as *const u8, 4) };
    assert_eq!(copied, [9; 4]);
    assert_eq!(t.sync_stream(b), OK);
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.free(flag), OK);
    assert_eq!(t.free(data), OK);
    t.assert_clean(1);
}

/// The conditions (stars_cond_isa_define.hpp:299-305,
/// docs/api_docs/aclrtValueWait.md:28): GEQ on the signed difference (so it
/// holds across a wrap), EQ, AND (a common bit), NOR (a bit clear in both).
#[test]
fn value_wait_conditions_are_geq_eq_and_nor_of_the_word_and_the_value() {
    let t = T::with_device(0);
    let p = t.malloc(8, HUGE_FIRST).unwrap();
    let (s, other) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    let met = |word: u64, value: u64, flag: u32| -> bool {
        set_word(&t, p, word);
        assert_eq!(wait(&t, p, value, flag, s), OK);
        let held = still_waiting(&t, s);
        if held {
            // release it: a word that meets every condition for this value
            let release = match flag {
                ACL_STREAM_WAIT_VALUE_NOR => 0,
                ACL_STREAM_WAIT_VALUE_AND => u64::MAX,
                _ => value,
            };
            assert_eq!(write(&t, p, release, 0, other), OK);
            assert_eq!(t.sync_stream(other), OK);
        }
        assert_eq!(t.sync_stream(s), OK);
        !held
    };
    assert!(met(5, 5, ACL_STREAM_WAIT_VALUE_GEQ));
    assert!(met(6, 5, ACL_STREAM_WAIT_VALUE_GEQ));
    assert!(!met(4, 5, ACL_STREAM_WAIT_VALUE_GEQ));
    assert!(met(1, u64::MAX, ACL_STREAM_WAIT_VALUE_GEQ), "1 - (-1) >= 0");
    assert!(met(7, 7, ACL_STREAM_WAIT_VALUE_EQ));
    assert!(!met(8, 7, ACL_STREAM_WAIT_VALUE_EQ));
    assert!(met(0b0110, 0b0100, ACL_STREAM_WAIT_VALUE_AND));
    assert!(!met(0b0011, 0b0100, ACL_STREAM_WAIT_VALUE_AND));
    assert!(met(u64::MAX - 1, 0, ACL_STREAM_WAIT_VALUE_NOR));
    assert!(!met(u64::MAX, 0, ACL_STREAM_WAIT_VALUE_NOR));
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.destroy_stream(other), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// memory.cpp:1370, 1384 (null -> 100000, no thread error); api_error.cc:6022
/// (a write's flag must be 0) and 6039-6040 (a wait's condition below 4):
/// 107000; api_error.cc:6026-6031, 6044-6049: device memory only (pinned,
/// pageable and unowned addresses -> 107000).
#[test]
fn value_calls_check_null_then_flag_then_that_the_word_is_device_memory() {
    let t = T::with_device(0);
    let p = t.malloc(8, HUGE_FIRST).unwrap();
    let s = std::ptr::null_mut();
    assert_eq!(
        write(&t, std::ptr::null_mut(), 1, 7, s),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        wait(&t, std::ptr::null_mut(), 1, 9, s),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(write(&t, p, 1, 1, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(wait(&t, p, 1, 4, s), ACL_ERROR_RT_PARAM_INVALID);
    let host = t.malloc_host(8).unwrap();
    assert_eq!(write(&t, host, 1, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(wait(&t, host, 1, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    let mut local = 0u64;
    let lp = (&mut local as *mut u64).cast();
    assert_eq!(write(&t, lp, 1, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// docs/api_docs/aclrtValueWrite.md:26: the word is 8-byte aligned; no
/// open-source layer checks it, the mock refuses it (107000,
/// docs/mock-conformance.md).
#[test]
fn mock_choice_an_unaligned_word_is_refused() {
    let t = T::with_device(0);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    // SAFETY: an address inside the allocation (not dereferenced here).
    let odd = unsafe { p.cast::<u8>().add(4) }.cast();
    assert_eq!(
        write(&t, odd, 1, 0, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        wait(&t, odd, 1, 0, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// api_impl.cc:8634-8635, 8651-8652: no current context -> 107002;
/// api_impl.cc:8643-8644, 8660-8661: a stream of another context -> 107003.
#[test]
fn value_calls_need_a_context_and_a_stream_of_it() {
    let t = T::with_device(0);
    let p = t.malloc(8, HUGE_FIRST).unwrap();
    let addr = p as usize;
    let lib = t.lib;
    let rcs = std::thread::spawn(move || {
        let p = addr as *mut c_void;
        // SAFETY: device memory the main thread keeps alive; refused before use.
        unsafe {
            (
                lib.aclrtValueWrite(p, 1, 0, std::ptr::null_mut()).unwrap(),
                lib.aclrtValueWait(p, 1, 0, std::ptr::null_mut()).unwrap(),
            )
        }
    })
    .join()
    .unwrap();
    assert_eq!(rcs, (ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_CONTEXT_NULL));
    let default = t.current_context().unwrap();
    let mut other: aclrtContext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let rc = unsafe { t.lib.aclrtCreateContext(&mut other, 0) }.unwrap();
    assert_eq!(rc, OK);
    let s = t.create_stream().unwrap();
    // SAFETY: a live context.
    let rc = unsafe { t.lib.aclrtSetCurrentContext(default) }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(write(&t, p, 1, 0, s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(wait(&t, p, 1, 0, s), ACL_ERROR_RT_STREAM_CONTEXT);
    // SAFETY: live handles, destroyed with their context current.
    unsafe {
        assert_eq!(t.lib.aclrtSetCurrentContext(other).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyStream(s).unwrap(), OK);
        assert_eq!(t.lib.aclrtDestroyContext(other).unwrap(), OK);
        assert_eq!(t.lib.aclrtSetCurrentContext(default).unwrap(), OK);
    }
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

/// The 8-byte word bounds-checked like any access (arena.c): in the padding
/// a card adds to a 1-byte allocation (docs/api_docs/aclrtMalloc.md:15,
/// rounded to 32 plus 32: 64 bytes) it works and is misuse; past it,
/// refused.
#[test]
fn a_word_in_the_padding_works_as_on_a_card_and_is_misuse_past_it_refused() {
    let t = T::with_device(0);
    let p = t.malloc(1, HUGE_FIRST).unwrap();
    assert_eq!(write(&t, p, 42, 0, std::ptr::null_mut()), OK);
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 1, "{}", t.s.misuse_log());
    // SAFETY: the last word of the padded block, and one straddling its end
    // (refused by the bounds check before its alignment is looked at).
    let (last, across) = unsafe { (p.cast::<u8>().add(56).cast(), p.cast::<u8>().add(60).cast()) };
    assert_eq!(write(&t, last, 1, 0, std::ptr::null_mut()), OK);
    assert_eq!(
        write(&t, across, 1, 0, std::ptr::null_mut()),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(t.sync_stream(std::ptr::null_mut()), OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 3, "{}", t.s.misuse_log());
}

/// The word is device memory like any other to the happens-before model
/// (order.h): a copy reading it on another stream, unordered with a queued
/// value write, is a race.
#[test]
fn a_copy_of_the_word_unordered_with_a_value_write_is_an_unordered_access() {
    let t = T::with_device(0);
    let p = t.malloc(8, HUGE_FIRST).unwrap();
    let (a, b) = (t.create_stream().unwrap(), t.create_stream().unwrap());
    let host = t.malloc_host(8).unwrap();
    assert_eq!(write(&t, p, 3, 0, a), OK);
    assert_eq!(t.memcpy_async(host, 8, p, 8, D2H, b), OK);
    assert_eq!(t.sync_stream(a), OK);
    assert_eq!(t.sync_stream(b), OK);
    t.assert_misuse(Misuse::UnorderedAccess, 1);
    for s in [a, b] {
        assert_eq!(t.destroy_stream(s), OK);
    }
    assert_eq!(t.free_host(host), OK);
    assert_eq!(t.free(p), OK);
}

/// A held wait does not outlive a forced destroy of its stream
/// (aclrtDestroyStreamForce drops the stream's queued tasks).
#[test]
fn a_forced_stream_destroy_releases_a_held_wait() {
    let t = T::with_device(0);
    let p = t.malloc(8, HUGE_FIRST).unwrap();
    set_word(&t, p, 0);
    let s = t.create_stream().unwrap();
    assert_eq!(wait(&t, p, 1, ACL_STREAM_WAIT_VALUE_EQ, s), OK);
    assert!(still_waiting(&t, s));
    // SAFETY: a live stream.
    assert_eq!(unsafe { t.lib.aclrtDestroyStreamForce(s) }.unwrap(), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}
