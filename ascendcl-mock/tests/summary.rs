//! The trace summary: calls, failures and time per function, live
//! resources over the trace, text and JSON output, the command line.

use ascendcl_mock::summary::{self, Resource, sparkline};
use ascendcl_mock::trace::{Trace, Value};

/// A trace of `(thread, fn, args, out, ret, dur_ns)` calls.
fn trace(calls: &[(u64, &str, &str, &str, i32, u64)]) -> Trace {
    let mut text =
        String::from("{\"format\":\"ascendcl-trace\",\"version\":1,\"producer\":\"test\"}\n");
    let mut t = 1000;
    for (i, (thread, f, args, out, ret, dur)) in calls.iter().enumerate() {
        text.push_str(&format!(
            "{{\"seq\":{},\"thread\":{thread},\"fn\":\"{f}\",\"args\":{args},\"out\":{out},\"ret\":{ret},\"t_ns\":{t},\"dur_ns\":{dur}}}\n",
            i + 1
        ));
        t += dur + 10;
    }
    Trace::parse(&text).unwrap()
}

fn sample() -> Trace {
    trace(&[
        (1, "aclrtSetDevice", r#"{"deviceId":0}"#, "{}", 0, 150),
        (
            1,
            "aclrtMalloc",
            r#"{"size":1024,"policy":0}"#,
            r#"{"devPtr":"m1+0x0"}"#,
            0,
            10,
        ),
        (
            1,
            "aclrtMalloc",
            r#"{"size":2048,"policy":0}"#,
            r#"{"devPtr":"m2+0x0"}"#,
            0,
            20,
        ),
        (
            2,
            "aclrtMalloc",
            r#"{"size":4096,"policy":0}"#,
            "{}",
            207001,
            30,
        ),
        (1, "aclrtCreateStream", "{}", r#"{"stream":"s1"}"#, 0, 5),
        (1, "aclrtFree", r#"{"devPtr":"m1+0x0"}"#, "{}", 0, 40),
        (2, "aclrtGetLastError", r#"{"level":0}"#, "{}", 207001, 1),
        (1, "aclrtDestroyStream", r#"{"stream":"s1"}"#, "{}", 0, 5),
        (1, "aclrtFree", r#"{"devPtr":"m2+0x0"}"#, "{}", 0, 50),
        (1, "aclrtResetDevice", r#"{"deviceId":0}"#, "{}", 0, 100),
    ])
}

#[test]
fn calls_failures_and_time_per_function() {
    let s = summary::summarize(&sample());
    assert_eq!((s.calls, s.threads, s.errors), (10, 2, 1));
    assert_eq!(s.producer.as_deref(), Some("test"));
    let malloc = s
        .functions
        .iter()
        .find(|f| f.function == "aclrtMalloc")
        .unwrap();
    assert_eq!((malloc.calls, malloc.errors, malloc.total_ns), (3, 1, 60));
    assert_eq!(
        (malloc.mean_ns, malloc.p50_ns, malloc.p99_ns, malloc.max_ns),
        (20, 20, 30, 30)
    );
    // the value-returning aclrtGetLastError is not a failure
    let last = s
        .functions
        .iter()
        .find(|f| f.function == "aclrtGetLastError")
        .unwrap();
    assert_eq!(last.errors, 0);
    assert_eq!(
        s.error_codes,
        vec![(207001, 1, vec!["aclrtMalloc".to_string()])]
    );
    // most total time first
    assert_eq!(s.functions[0].function, "aclrtSetDevice");
    let first_start = 1000;
    let last = sample().records.last().unwrap().clone();
    assert_eq!(s.span_ns, last.t_ns + last.dur_ns - first_start);
}

#[test]
fn live_resources_over_the_trace() {
    let s = summary::summarize(&sample());
    let get = |r: Resource| s.resources.iter().find(|x| x.resource == r).unwrap();
    let buffers = get(Resource::DeviceBuffers);
    assert_eq!((buffers.peak, buffers.peak_seq, buffers.end), (2, 3, 0));
    assert_eq!(buffers.changes, vec![(2, 1), (3, 2), (6, 1), (9, 0)]);
    let bytes = get(Resource::DeviceBytes);
    assert_eq!((bytes.peak, bytes.end), (3072, 0));
    assert_eq!(get(Resource::Streams).changes, vec![(5, 1), (8, 0)]);
    assert_eq!(get(Resource::DeviceRefs).peak, 1);
    assert!(
        s.resources.iter().all(|r| r.resource != Resource::Events),
        "never alive"
    );
    assert_eq!(buffers.sparkline(10, 10), " ▄███▄▄▄  ");
    assert_eq!(
        buffers.sparkline(10, 5),
        "▄██▄ ",
        "two calls a column, the highest count"
    );
    assert_eq!(sparkline(&[0, 1, 2, 4, 8]), " ▁▂▄█");
}

#[test]
fn text_and_json_reports() {
    let s = summary::summarize(&sample());
    let text = s.to_text(20);
    for needle in [
        "10 calls on 2 threads",
        "1 failed (producer: test)",
        "aclrtMalloc",
        "failures by code:",
        "207001 x1",
        "device_buffers    peak          2 at #3",
        "device_bytes      peak    3.0 KiB",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    let json = Value::parse(&s.to_json()).unwrap();
    assert_eq!(json.get("calls").and_then(Value::as_u64), Some(10));
    let Some(Value::Array(functions)) = json.get("functions") else {
        panic!("functions is an array");
    };
    assert_eq!(functions.len(), s.functions.len());
    assert_eq!(
        functions[0].get("fn").and_then(Value::as_str),
        Some("aclrtSetDevice")
    );
    let Some(Value::Array(resources)) = json.get("resources") else {
        panic!("resources is an array");
    };
    assert_eq!(
        resources[0].get("name").and_then(Value::as_str),
        Some("device_buffers")
    );
    assert_eq!(
        resources[0].get("changes").unwrap().to_string(),
        "[[2,1],[3,2],[6,1],[9,0]]"
    );
}

#[test]
fn the_command_line_reads_golden_traces() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/05_allocator.jsonl");
    let text = summary::cli(&[file.to_string()]).unwrap();
    assert!(text.starts_with(&format!("trace: {file}\n")));
    assert!(text.contains("physical_handles  peak       2048"), "{text}");
    let json = summary::cli(&[file.to_string(), "--json".into()]).unwrap();
    let v = Value::parse(&json).unwrap();
    assert_eq!(
        v.get("producer").and_then(Value::as_str),
        Some("ascendcl-record")
    );
    let usage = summary::cli(&[]).unwrap_err();
    assert!(usage.starts_with("usage: trace_summary FILE"));
    assert!(summary::cli(&[file.into(), "--width".into(), "0".into()]).is_err());
    let missing = summary::cli(&["/nonexistent.jsonl".into()]).unwrap_err();
    assert!(missing.contains("cannot read"), "{missing}");
}
