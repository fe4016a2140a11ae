//! The journal, call counts, fault injection (API and environment), the
//! trace file, reset, concurrency and the cost of a call.

mod common;

use std::time::Instant;

use ascendcl_mock::{Fault, Misuse, Resource};
use ascendcl_sys::*;
use common::*;

fn args_of(e: &ascendcl_mock::JournalEntry) -> &str {
    e.raw_field("args").unwrap_or("")
}

#[test]
fn journal_records_every_call_with_symbolic_handles() {
    let t = T::new();
    assert_eq!(t.set_device(0), OK);
    let s = t.create_stream().unwrap();
    let p = t.malloc(4096, HUGE_FIRST).unwrap();
    let h = t.malloc_host(4096).unwrap();
    assert_eq!(
        t.memcpy_async(p.wrapping_byte_add(64), 64, h, 64, H2D, s),
        OK
    );
    assert_eq!(t.memset_async(p, 4096, 0, 64, std::ptr::null_mut()), OK);
    let e = t.create_event();
    assert_eq!(t.record(e, s), OK);
    assert_eq!(t.sync_stream(s), OK);
    // SAFETY: no arguments.
    let rc = unsafe { t.lib.aclrtSynchronizeDevice() }.unwrap();
    assert_eq!(rc, OK);
    assert_eq!(t.free(p), OK);
    assert_eq!(t.free(p), ACL_ERROR_RT_PARAM_INVALID);
    let j = t.s.journal();
    let names: Vec<_> = j.iter().map(|e| e.function().to_owned()).collect();
    assert_eq!(
        names,
        [
            "aclrtSetDevice",
            "aclrtCreateStream",
            "aclrtMalloc",
            "aclrtMallocHost",
            "aclrtMemcpyAsync",
            "aclrtMemsetAsync",
            "aclrtCreateEvent",
            "aclrtRecordEvent",
            "aclrtSynchronizeStream",
            "aclrtSynchronizeDevice",
            "aclrtFree",
            "aclrtFree",
        ]
    );
    for (i, e) in j.iter().enumerate() {
        assert_eq!(e.seq(), i as u64 + 1);
        assert_eq!(e.thread(), 1);
        assert!(e.raw_field("t_ns").unwrap().parse::<u64>().is_ok());
        assert!(e.raw_field("dur_ns").unwrap().parse::<u64>().is_ok());
    }
    assert_eq!(
        j[0].line.split("\"out\"").next().unwrap(),
        "{\"seq\":1,\"thread\":1,\"fn\":\"aclrtSetDevice\",\"args\":{\"deviceId\":0},"
    );
    assert_eq!(j[1].raw_field("out"), Some("{\"stream\":\"s1\"}"));
    assert_eq!(args_of(&j[2]), "{\"size\":4096,\"policy\":0}");
    assert!(
        j[2].raw_field("out")
            .unwrap()
            .starts_with("{\"devPtr\":\"m1+0x0\"")
    );
    assert_eq!(j[3].raw_field("out"), Some("{\"hostPtr\":\"h1+0x0\"}"));
    assert!(
        args_of(&j[4]).contains("\"dst\":\"m1+0x40\""),
        "{}",
        j[4].line
    );
    assert!(args_of(&j[4]).contains("\"src\":\"h1+0x0\""));
    assert!(args_of(&j[4]).contains("\"stream\":\"s1\""));
    assert!(
        args_of(&j[5]).contains("\"stream\":\"s0\""),
        "null stream is s0"
    );
    assert_eq!(j[6].raw_field("out"), Some("{\"event\":\"e1\"}"));
    assert_eq!(args_of(&j[7]), "{\"event\":\"e1\",\"stream\":\"s1\"}");
    assert_eq!(args_of(&j[10]), "{\"devPtr\":\"m1+0x0\"}");
    assert_eq!(j[10].ret(), 0);
    assert_eq!(j[11].ret(), ACL_ERROR_RT_PARAM_INVALID);
    // a plain host pointer is "host"; null is null
    let mut local = [0u8; 8];
    assert_eq!(
        t.memcpy(local.as_mut_ptr().cast(), 8, std::ptr::null(), 8, H2H),
        ACL_ERROR_INVALID_PARAM
    );
    let last = t.s.journal_since(13);
    assert_eq!(last.len(), 1);
    assert!(args_of(&last[0]).starts_with("{\"dst\":\"host\",\"destMax\":8,\"src\":null"));
    assert_eq!(t.s.journal_len(), 13);
    t.s.clear_journal();
    assert_eq!(t.s.journal_len(), 0);
    assert_eq!(t.destroy_event(e), OK);
    assert_eq!(
        t.s.journal()[0].seq(),
        14,
        "sequence numbers continue after a clear"
    );
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.free_host(h), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_misuse(Misuse::DoubleFree, 1);
}

#[test]
fn journal_names_threads_in_order_of_first_call() {
    let t = T::new();
    let mut n = 0u32;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap(), OK);
    let lib = t.lib;
    std::thread::spawn(move || {
        let mut n = 0u32;
        // SAFETY: valid out-pointer.
        unsafe { lib.aclrtGetDeviceCount(&mut n) }.unwrap()
    })
    .join()
    .unwrap();
    let threads: Vec<_> = t.s.journal().iter().map(|e| e.thread()).collect();
    assert_eq!(threads, [1, 2]);
    t.assert_clean(0);
}

#[test]
fn call_count_counts_failing_calls_too() {
    let t = T::new();
    assert_eq!(t.set_device(42), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.s.call_count("aclrtSetDevice"), 2);
    assert_eq!(t.s.call_count("aclrtMalloc"), 0);
    assert_eq!(t.s.call_count("noSuchFunction"), 0);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn faults_fail_the_nth_call_with_the_given_code_and_message() {
    let t = T::with_device(0);
    t.s.inject(&Fault::nth("aclrtMalloc", 2, ACL_ERROR_RT_MEMORY_ALLOCATION).with_message("boom"))
        .unwrap();
    let a = t.malloc(64, HUGE_FIRST).unwrap();
    let free_before = t.mem_info().0;
    assert_eq!(
        t.malloc(64, HUGE_FIRST),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    let msg = t.recent_msg().unwrap();
    assert_eq!(msg, "boom", "an injected message is returned verbatim");
    assert_eq!(t.mem_info().0, free_before, "a faulted call does nothing");
    assert_eq!(t.s.live(Resource::DeviceBuffer), 1);
    let b = t.malloc(64, HUGE_FIRST).unwrap();
    let j = t.s.journal();
    let mallocs: Vec<_> = j
        .iter()
        .filter(|e| e.function() == "aclrtMalloc")
        .map(|e| e.ret())
        .collect();
    assert_eq!(mallocs, [0, ACL_ERROR_RT_MEMORY_ALLOCATION, 0]);
    // every call, until cleared; the default message names the injection
    t.s.inject(&Fault::always(
        "aclrtCreateStream",
        ACL_ERROR_RT_NO_STREAM_RESOURCE,
    ))
    .unwrap();
    for _ in 0..3 {
        assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_NO_STREAM_RESOURCE));
    }
    assert!(t.recent_msg().unwrap().contains("injected fault"));
    t.s.clear_faults();
    let s = t.create_stream().unwrap();
    // pointer-returning functions return null
    t.s.inject(&Fault::nth("aclGetRecentErrMsg", 1, 500000))
        .unwrap();
    assert_eq!(t.malloc(0, HUGE_FIRST), Err(ACL_ERROR_INVALID_PARAM));
    assert_eq!(t.recent_msg(), None, "faulted");
    assert!(
        t.recent_msg().unwrap().contains("size is 0"),
        "the message survived"
    );
    assert_eq!(
        t.s.inject(&Fault::always("aclrtNoSuchThing", 1))
            .map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_PARAM)
    );
    assert_eq!(t.destroy_stream(s), OK);
    for p in [a, b] {
        assert_eq!(t.free(p), OK);
    }
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn faults_trace_and_journal_capacity_come_from_the_environment() {
    const NAME: &str = "faults_trace_and_journal_capacity_come_from_the_environment";
    let trace = std::env::temp_dir().join(format!("aclmock-trace-{}.jsonl", std::process::id()));
    if is_child(NAME) {
        let t = T::with_device(0);
        assert_eq!(t.malloc(64, HUGE_FIRST).map(|_| ()), Ok(()));
        assert_eq!(
            t.malloc(64, HUGE_FIRST),
            Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
        );
        assert!(t.recent_msg().unwrap().contains("out of memory"));
        assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_NO_STREAM_RESOURCE));
        assert_eq!(t.create_stream(), Err(ACL_ERROR_RT_NO_STREAM_RESOURCE));
        // capacity 4: the oldest entries are gone
        assert_eq!(t.s.journal_len(), 4);
        let j = t.s.journal();
        assert_eq!(j[0].seq(), 3);
        assert_eq!(j[3].function(), "aclrtCreateStream");
        return;
    }
    let _ = std::fs::remove_file(&trace);
    let out = run_child(
        NAME,
        &[
            (
                "ASCENDCL_MOCK_FAULTS",
                "aclrtMalloc@2=207001:out of memory;aclrtCreateStream@*=207008",
            ),
            ("ASCENDCL_MOCK_TRACE", trace.to_str().unwrap()),
            ("ASCENDCL_MOCK_JOURNAL_CAPACITY", "4"),
        ],
    );
    assert!(
        out.status.success(),
        "child: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<_> = text.lines().collect();
    // every call of the child's test is in the trace, the oldest too
    assert!(lines.len() >= 6, "{text}");
    let tail = &lines[lines.len() - 6..];
    assert!(tail[0].contains("\"fn\":\"aclrtSetDevice\""));
    assert!(tail[2].contains("\"fn\":\"aclrtMalloc\"") && tail[2].contains("\"ret\":207001"));
    assert!(tail[5].contains("\"ret\":207008"));
    std::fs::remove_file(&trace).unwrap();
    let t = T::new();
    t.assert_clean(0);
}

#[test]
fn reset_returns_to_the_pristine_state() {
    let t = T::with_device(0);
    t.s.set_stream_delay(std::time::Duration::from_millis(20));
    let s = t.create_stream().unwrap();
    let p = t.malloc(MIB, HUGE_FIRST).unwrap();
    for _ in 0..5 {
        assert_eq!(t.memset_async(p, MIB, 1, MIB, s), OK);
    }
    let _ = t.malloc_host(64).unwrap();
    t.s.inject(&Fault::always("aclrtFree", 1)).unwrap();
    assert_eq!(t.free(p), 1);
    t.s.reset();
    assert!(t.s.live_counts().is_empty());
    assert_eq!(t.s.journal_len(), 0);
    assert_eq!(t.s.call_count("aclrtFree"), 0);
    assert_eq!(t.s.backed_bytes(), 0);
    assert_eq!(
        t.get_device(),
        Err(ACL_ERROR_RT_CONTEXT_NULL),
        "thread-local contexts are forgotten"
    );
    // aclrtGetDevice reports no text without a context (api_c_device.cc:103,
    // CANN 8.5.0); synchronizing the default stream does (api_impl.cc:1581)
    assert_eq!(
        t.sync_stream(std::ptr::null_mut()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(
        t.recent_msg().unwrap().matches("EE").count(),
        1,
        "only the new failure"
    );
    // handles from before the reset are unknown now, and never read
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.sync_stream(s), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        t.free(p),
        ACL_ERROR_RT_PARAM_INVALID,
        "no fault any more; the block is gone"
    );
    assert_eq!(t.s.misuse(Misuse::DestroyedHandle), 1);
    assert_eq!(t.s.misuse(Misuse::UnknownPointer), 1);
    assert_eq!(t.reset_device(0), OK);
}

#[test]
fn concurrent_calls_from_many_threads_are_safe() {
    let t = T::new();
    let lib = t.lib;
    let threads: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                // SAFETY: plain integer argument.
                assert_eq!(unsafe { lib.aclrtSetDevice(i % 4) }.unwrap(), OK);
                let mut s: aclrtStream = std::ptr::null_mut();
                // SAFETY: valid out-pointer.
                assert_eq!(unsafe { lib.aclrtCreateStream(&mut s) }.unwrap(), OK);
                for round in 0..200u32 {
                    let mut p = std::ptr::null_mut();
                    // SAFETY: valid out-pointer.
                    let rc =
                        unsafe { lib.aclrtMalloc(&mut p, 256, aclrtMemMallocPolicy(0)) }.unwrap();
                    assert_eq!(rc, OK);
                    let v = (round % 251) as u8;
                    let data = [v; 256];
                    let mut back = [0u8; 256];
                    // SAFETY: 256-byte buffers on both sides.
                    unsafe {
                        let k = aclrtMemcpyKind(1);
                        assert_eq!(
                            lib.aclrtMemcpyAsync(p, 256, data.as_ptr().cast(), 256, k, s)
                                .unwrap(),
                            OK
                        );
                        let k = aclrtMemcpyKind(2);
                        assert_eq!(
                            lib.aclrtMemcpy(back.as_mut_ptr().cast(), 256, p, 256, k)
                                .unwrap(),
                            OK
                        );
                        assert_eq!(lib.aclrtFree(p).unwrap(), OK);
                    }
                    assert_eq!(back, data);
                }
                // SAFETY: live stream of the current context.
                assert_eq!(unsafe { lib.aclrtDestroyStream(s) }.unwrap(), OK);
                // SAFETY: plain integer argument.
                assert_eq!(unsafe { lib.aclrtResetDevice(i % 4) }.unwrap(), OK);
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    assert_eq!(t.s.call_count("aclrtMalloc"), 1600);
    assert_eq!(t.s.call_count("aclrtFree"), 1600);
    let ids: std::collections::BTreeSet<_> = t.s.journal().iter().map(|e| e.thread()).collect();
    assert_eq!(ids.len(), 8);
    t.assert_clean(0);
}

#[test]
fn a_simple_call_costs_well_under_a_microsecond() {
    let t = T::with_device(0);
    let mut n = 0u32;
    let calls = 200_000;
    let start = Instant::now();
    for _ in 0..calls {
        // SAFETY: valid out-pointer.
        unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap();
    }
    let per_call = start.elapsed() / calls;
    println!("aclrtGetDeviceCount: {per_call:?} per call");
    // generous bound for a loaded debug run; typically a few hundred ns
    assert!(per_call.as_nanos() < 5_000, "{per_call:?}");
    assert_eq!(
        t.s.journal_len(),
        65536,
        "the ring keeps the newest 65536 entries"
    );
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}
