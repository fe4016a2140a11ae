//! What a replayed trace decides: results and out-values of a strict replay
//! (device count, memory info, granularity, versions, statuses, recorded
//! failures with their text, the point where allocation ran out, a result
//! the mock cannot reproduce), the facts of a lenient replay, rejected
//! traces, and the trace format the mock writes (header, `msg`).

mod common;

use std::ffi::CStr;
use std::path::PathBuf;

use ascendcl_mock::trace::{Symbol, Trace};
use ascendcl_mock::{REPLAY_DIVERGED, ReplayMode, ReplayState, Resource};
use ascendcl_sys::*;
use common::vmm::prop;
use common::*;

const HEADER: &str =
    r#"{"format":"ascendcl-trace","version":1,"producer":"ascendcl-record","target":"card"}"#;

/// Writes a trace of `calls`, each `(fn, args, out, ret, msg)`, thread 1.
fn card_trace(name: &str, calls: &[(&str, &str, &str, i32, Option<&str>)]) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("aclmock-facts-{}-{name}.jsonl", std::process::id()));
    let mut text = format!("{HEADER}\n");
    for (i, (f, args, out, ret, msg)) in calls.iter().enumerate() {
        let msg = msg.map_or(String::new(), |m| format!(",\"msg\":\"{m}\""));
        text.push_str(&format!(
            "{{\"seq\":{},\"thread\":1,\"fn\":\"{f}\",\"args\":{args},\"out\":{out},\"ret\":{ret}{msg},\"t_ns\":{},\"dur_ns\":1000}}\n",
            i + 1,
            i * 2000
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn soc(t: &T) -> Option<String> {
    // SAFETY: no arguments; the string is copied at once.
    let p = unsafe { t.lib.aclrtGetSocName() }.unwrap();
    // SAFETY: a non-null result is a NUL-terminated string of the mock.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

fn device_count(t: &T) -> u32 {
    let mut n = 0;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { t.lib.aclrtGetDeviceCount(&mut n) }.unwrap(), OK);
    n
}

fn granularity(t: &T) -> usize {
    let mut g = 0;
    let mut p = prop(0, 4);
    // SAFETY: valid property and out-pointer.
    let rc = unsafe {
        t.lib.aclrtMemGetAllocationGranularity(
            &mut p,
            aclrtMemGranularityOptions::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            &mut g,
        )
    }
    .unwrap();
    assert_eq!(rc, OK);
    g
}

fn version(t: &T) -> (i32, i32, i32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: valid out-pointers.
    let rc = unsafe { t.lib.aclrtGetVersion(&mut a, &mut b, &mut c) };
    assert_eq!(rc.unwrap(), OK);
    (a, b, c)
}

#[test]
fn strict_replay_takes_results_and_out_values_from_the_trace() {
    let t = T::new();
    let path = card_trace(
        "strict",
        &[
            ("aclrtGetDeviceCount", "{}", r#"{"count":2}"#, 0, None),
            (
                "aclrtGetSocName",
                "{}",
                r#"{"name":"Ascend910B3"}"#,
                0,
                None,
            ),
            (
                "aclrtGetVersion",
                "{}",
                r#"{"major":1,"minor":15,"patch":2}"#,
                0,
                None,
            ),
            ("aclrtSetDevice", r#"{"deviceId":1}"#, "{}", 0, None),
            (
                "aclrtGetMemInfo",
                r#"{"attr":1}"#,
                r#"{"free":60000000000,"total":68719476736}"#,
                0,
                None,
            ),
            (
                "aclrtMemGetAllocationGranularity",
                r#"{"memAttr":4,"option":1}"#,
                r#"{"granularity":4194304}"#,
                0,
                None,
            ),
            ("aclrtCreateStream", "{}", r#"{"stream":"s9"}"#, 0, None),
            (
                "aclrtStreamQuery",
                r#"{"stream":"s9"}"#,
                r#"{"status":1}"#,
                0,
                None,
            ),
            ("aclrtDestroyStream", r#"{"stream":"s9"}"#, "{}", 0, None),
            (
                "aclrtSetDevice",
                r#"{"deviceId":7}"#,
                "{}",
                107001,
                Some("EE1001: the card's own words about device 7"),
            ),
            (
                "aclGetRecentErrMsg",
                "{}",
                r#"{"msg":"EE1001: the card's own words about device 7"}"#,
                0,
                None,
            ),
            ("aclrtResetDevice", r#"{"deviceId":1}"#, "{}", 0, None),
        ],
    );
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(device_count(&t), 2);
    assert_eq!(soc(&t).as_deref(), Some("Ascend910B3"));
    assert_eq!(version(&t), (1, 15, 2));
    assert_eq!(t.set_device(1), OK);
    assert_eq!(t.mem_info(), (60_000_000_000, 68_719_476_736));
    assert_eq!(granularity(&t), 4 << 20);
    let s = t.create_stream().unwrap();
    assert!(!t.stream_done(s), "the card's stream was still busy");
    assert_eq!(t.destroy_stream(s), OK);
    assert_eq!(t.set_device(7), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(
        t.recent_msg().as_deref(),
        Some("EE1001: the card's own words about device 7")
    );
    assert_eq!(t.reset_device(1), OK);
    let status = t.s.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert_eq!(
        status
            .json
            .get("facts")
            .unwrap()
            .get("device_count")
            .unwrap()
            .as_u64(),
        Some(2)
    );
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn allocation_runs_out_where_it_did_on_the_card() {
    let t = T::new();
    let malloc = r#"{"size":1073741824,"policy":0}"#;
    let path = card_trace(
        "oom",
        &[
            ("aclrtSetDevice", r#"{"deviceId":0}"#, "{}", 0, None),
            ("aclrtMalloc", malloc, r#"{"devPtr":"m1+0x0"}"#, 0, None),
            ("aclrtMalloc", malloc, r#"{"devPtr":"m2+0x0"}"#, 0, None),
            (
                "aclrtMalloc",
                malloc,
                "{}",
                207001,
                Some("EL0004: out of memory on the card"),
            ),
            ("aclrtFree", r#"{"devPtr":"m2+0x0"}"#, "{}", 0, None),
            ("aclrtFree", r#"{"devPtr":"m1+0x0"}"#, "{}", 0, None),
            ("aclrtResetDevice", r#"{"deviceId":0}"#, "{}", 0, None),
        ],
    );
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(t.set_device(0), OK);
    let a = t.malloc(1 << 30, HUGE_FIRST).unwrap();
    let b = t.malloc(1 << 30, HUGE_FIRST).unwrap();
    assert_eq!(
        t.malloc(1 << 30, HUGE_FIRST),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    assert_eq!(
        t.s.live(Resource::DeviceBuffer),
        2,
        "the failed call allocated nothing"
    );
    let failed =
        t.s.journal()
            .into_iter()
            .rev()
            .find(|e| e.ret() != 0)
            .unwrap();
    assert_eq!(
        failed.message().as_deref(),
        Some("EL0004: out of memory on the card")
    );
    assert_eq!(t.free(b), OK);
    assert_eq!(t.free(a), OK);
    assert_eq!(t.reset_device(0), OK);
    assert!(t.s.replay_status().is_complete());
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_result_the_mock_cannot_reproduce_is_a_divergence() {
    let t = T::new();
    let path = card_trace(
        "result",
        &[
            ("aclrtGetDeviceCount", "{}", r#"{"count":2}"#, 0, None),
            ("aclrtSetDevice", r#"{"deviceId":5}"#, "{}", 0, None),
        ],
    );
    t.s.replay(&path, ReplayMode::Strict).unwrap();
    assert_eq!(device_count(&t), 2);
    // the trace says device 5 worked, but it also says there are 2 devices
    assert_eq!(t.set_device(5), ACL_ERROR_RT_INVALID_DEVICEID);
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Diverged);
    let d = status.divergence.unwrap();
    assert!(
        d.reason
            .contains("succeeded in the trace but failed in the mock"),
        "{}",
        d.reason
    );
    assert_eq!(d.expected.unwrap().ret, Some(0));
    assert_eq!(d.actual.ret, Some(ACL_ERROR_RT_INVALID_DEVICEID));
    assert!(d.actual.msg.unwrap().contains("out of range"));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn lenient_replay_returns_only_recorded_facts() {
    let t = T::new();
    let path = card_trace(
        "lenient",
        &[
            ("aclrtGetDeviceCount", "{}", r#"{"count":2}"#, 0, None),
            (
                "aclrtGetSocName",
                "{}",
                r#"{"name":"Ascend910B4"}"#,
                0,
                None,
            ),
            (
                "aclrtGetVersion",
                "{}",
                r#"{"major":1,"minor":14,"patch":0}"#,
                0,
                None,
            ),
            ("aclrtSetDevice", r#"{"deviceId":0}"#, "{}", 0, None),
            (
                "aclrtGetMemInfo",
                r#"{"attr":1}"#,
                r#"{"free":1073741824,"total":34359738368}"#,
                0,
                None,
            ),
            (
                "aclrtMemGetAllocationGranularity",
                r#"{"memAttr":4,"option":1}"#,
                r#"{"granularity":4194304}"#,
                0,
                None,
            ),
            (
                "aclrtMalloc",
                r#"{"size":64,"policy":0}"#,
                "{}",
                207001,
                Some("EL0004: card"),
            ),
        ],
    );
    t.s.replay(&path, ReplayMode::Lenient).unwrap();
    // any call sequence: the facts hold, the rest is the plain mock
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.set_device(2), ACL_ERROR_RT_INVALID_DEVICEID, "2 devices");
    assert_eq!(version(&t), (1, 14, 0));
    assert_eq!(soc(&t).as_deref(), Some("Ascend910B4"));
    assert_eq!(granularity(&t), 4 << 20);
    let p = t.malloc(64, HUGE_FIRST).unwrap();
    let (free, total) = t.mem_info();
    assert_eq!(total, 32 << 30, "the card's total");
    assert!(
        free < 1 << 30,
        "the mock's free memory, from the card's 1 GiB: {free}"
    );
    assert_eq!(
        t.malloc(2 << 30, HUGE_FIRST),
        Err(ACL_ERROR_RT_MEMORY_ALLOCATION)
    );
    assert_eq!(t.free(p), OK);
    assert_eq!(device_count(&t), 2);
    assert_eq!(t.reset_device(0), OK);
    let status = t.s.replay_status();
    assert_eq!(
        (status.mode, status.state),
        (Some(ReplayMode::Lenient), ReplayState::Replaying)
    );
    assert!(status.divergence.is_none());
    t.assert_clean(0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn traces_of_a_newer_version_or_no_file_are_rejected_and_fail_every_strict_call() {
    let t = T::new();
    let path = std::env::temp_dir().join(format!("aclmock-facts-{}-v3.jsonl", std::process::id()));
    std::fs::write(
        &path,
        r#"{"format":"ascendcl-trace","version":3,"producer":"future"}"#,
    )
    .unwrap();
    assert_eq!(
        t.s.replay(&path, ReplayMode::Strict).map_err(|e| e.code()),
        Err(ACL_ERROR_PARSE_FILE)
    );
    let status = t.s.replay_status();
    assert_eq!(status.state, ReplayState::Error);
    let error = status.error.unwrap();
    assert!(
        error.contains("version 3 is newer than this mock, which reads versions 1 to 2")
            && error.contains("update"),
        "{error}"
    );
    assert_eq!(
        t.set_device(0),
        REPLAY_DIVERGED,
        "a strict replay that could not load fails every call"
    );
    assert!(t.recent_msg().unwrap().contains("could not be loaded"));
    std::fs::write(&path, "{\"seq\":1,\"fn\":\"aclInit\"}\n").unwrap();
    assert_eq!(
        t.s.replay(&path, ReplayMode::Strict).map_err(|e| e.code()),
        Err(ACL_ERROR_PARSE_FILE)
    );
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        t.s.replay(&path, ReplayMode::Strict).map_err(|e| e.code()),
        Err(ACL_ERROR_INVALID_FILE)
    );
    t.s.stop_replay();
    assert_eq!(t.s.replay_status().state, ReplayState::Off);
    assert_eq!(t.set_device(0), OK);
    assert_eq!(t.reset_device(0), OK);
}

#[test]
fn failing_calls_carry_their_message_and_trace_files_a_header() {
    const NAME: &str = "failing_calls_carry_their_message_and_trace_files_a_header";
    let path =
        std::env::temp_dir().join(format!("aclmock-facts-{}-header.jsonl", std::process::id()));
    if is_child(NAME) {
        let t = T::new(); // a reset: a second segment starts
        assert_eq!(t.set_device(99), ACL_ERROR_RT_INVALID_DEVICEID);
        let entry = t.s.journal().pop().unwrap();
        let msg = entry.message().unwrap();
        assert!(
            msg.starts_with("EE1001: aclrtSetDevice: device id 99"),
            "{msg}"
        );
        assert_eq!(t.recent_msg().as_deref(), Some(msg.as_str()));
        return;
    }
    let _ = std::fs::remove_file(&path);
    let out = run_child(
        NAME,
        &[
            ("ASCENDCL_MOCK_TRACE", path.to_str().unwrap()),
            ("ASCENDCL_MOCK_SOC_NAME", "Ascend910B2"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let trace = Trace::parse(&text).unwrap();
    assert_eq!(trace.producer(), Some("aclmock"));
    assert_eq!(
        trace.header_field("soc_name").and_then(|v| v.as_str()),
        Some("Ascend910B2")
    );
    assert_eq!(
        trace.header_field("device_count").and_then(|v| v.as_u64()),
        Some(8)
    );
    let failed = &trace.records[0];
    assert_eq!(
        (failed.function.as_str(), failed.ret),
        ("aclrtSetDevice", 107001)
    );
    assert!(failed.failed());
    assert!(failed.msg.as_deref().unwrap().contains("out of range"));
    let read = &trace.records[1];
    assert_eq!(
        read.output("msg").and_then(|v| v.as_str()),
        failed.msg.as_deref()
    );
    // the text round-trips through the writer
    assert_eq!(Trace::parse(&trace.to_jsonl()).unwrap(), trace);
    assert_eq!(
        Symbol::parse("m3+0x40"),
        Some(Symbol::Address('m', 3, 0x40))
    );
    assert_eq!(Symbol::parse("s0"), Some(Symbol::Handle('s', 0)));
    assert_eq!(Symbol::parse("host"), Some(Symbol::Host));
    assert_eq!(Symbol::parse("x1"), None);
    std::fs::remove_file(path).unwrap();
}
