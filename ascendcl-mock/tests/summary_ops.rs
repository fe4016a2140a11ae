//! The trace summary's operator part: per aclnn operator its phases' calls,
//! host time, workspace bytes and failures; per stream its launches and the
//! device time measured between events recorded on it.

use ascendcl_mock::summary::summarize;
use ascendcl_mock::trace::{Trace, Value};

/// A trace of `(fn, args, out, ret, dur_ns)` calls on one thread.
fn trace(calls: &[(&str, &str, &str, i32, u64)]) -> Trace {
    let mut text =
        String::from("{\"format\":\"ascendcl-trace\",\"version\":2,\"producer\":\"test\"}\n");
    let mut t = 1000;
    for (i, (f, args, out, ret, dur)) in calls.iter().enumerate() {
        text.push_str(&format!(
            "{{\"seq\":{},\"thread\":1,\"fn\":\"{f}\",\"args\":{args},\"out\":{out},\"ret\":{ret},\"t_ns\":{t},\"dur_ns\":{dur}}}\n",
            i + 1
        ));
        t += dur + 10;
    }
    Trace::parse(&text).unwrap()
}

fn sample() -> Trace {
    let p1 = r#"{"self":"t1","out":"t2"}"#;
    let launch = |s: &str| {
        format!(r#"{{"workspace":"m1+0x0","workspaceSize":512,"executor":"x3","stream":"{s}"}}"#)
    };
    let (l1, l2) = (launch("s1"), launch("s2"));
    trace(&[
        (
            "aclrtRecordEvent",
            r#"{"event":"e1","stream":"s1"}"#,
            "{}",
            0,
            5,
        ),
        (
            "aclnnReluGetWorkspaceSize",
            p1,
            r#"{"executor":"x3","workspaceSize":512}"#,
            0,
            100,
        ),
        ("aclnnRelu", &l1, "{}", 0, 40),
        (
            "aclnnReluGetWorkspaceSize",
            p1,
            r#"{"executor":"x4","workspaceSize":1024}"#,
            0,
            300,
        ),
        ("aclnnRelu", &l2, "{}", 0, 60),
        ("aclnnReluGetWorkspaceSize", p1, "{}", 161002, 50),
        (
            "aclnnMmGetWorkspaceSize",
            p1,
            r#"{"executor":"x5","workspaceSize":0}"#,
            0,
            10,
        ),
        ("aclnnMm", &l1, "{}", 561000, 20),
        (
            "aclrtRecordEvent",
            r#"{"event":"e2","stream":"s1"}"#,
            "{}",
            0,
            5,
        ),
        (
            "aclrtRecordEvent",
            r#"{"event":"e3","stream":"s2"}"#,
            "{}",
            0,
            5,
        ),
        (
            "aclrtEventElapsedTime",
            r#"{"startEvent":"e1","endEvent":"e2"}"#,
            r#"{"ms":1.500000}"#,
            0,
            5,
        ),
        // events of two streams measure no stream's device time
        (
            "aclrtEventElapsedTime",
            r#"{"startEvent":"e1","endEvent":"e3"}"#,
            r#"{"ms":9.000000}"#,
            0,
            5,
        ),
        ("aclnnInit", r#"{"configPath":null}"#, "{}", 0, 5),
    ])
}

#[test]
fn each_operator_has_its_phases_calls_host_time_workspace_and_failures() {
    let s = summarize(&sample());
    let ops = &s.operators.operators;
    assert_eq!(ops.len(), 2, "aclnnInit is no operator: {ops:?}");
    let relu = &ops[0];
    assert_eq!(relu.op, "Relu", "most host time first");
    assert_eq!((relu.phase1.calls, relu.phase1.errors), (3, 1));
    assert_eq!((relu.phase1.total_ns, relu.phase1.mean_ns), (450, 150));
    assert_eq!(
        (relu.phase2.calls, relu.phase2.total_ns, relu.phase2.mean_ns),
        (2, 100, 50)
    );
    assert_eq!((relu.workspace_bytes, relu.workspace_max), (1536, 1024));
    let mm = &ops[1];
    assert_eq!(
        (mm.op.as_str(), mm.phase2.errors, mm.workspace_bytes),
        ("Mm", 1, 0)
    );
}

#[test]
fn each_stream_has_its_launches_and_device_time_only_where_the_trace_measures_it() {
    let s = summarize(&sample());
    let streams = &s.operators.streams;
    assert_eq!(streams.len(), 2);
    let (s1, s2) = (&streams[0], &streams[1]);
    assert_eq!(
        (s1.stream.as_str(), s1.launches, s1.launch_host_ns),
        ("s1", 2, 60)
    );
    assert_eq!((s1.device_ns, s1.measurements), (Some(1_500_000), 1));
    assert_eq!(
        (s2.stream.as_str(), s2.launches, s2.device_ns),
        ("s2", 1, None)
    );
    let text = s.to_text(20);
    assert!(text.contains("operator") && text.contains("Relu"), "{text}");
    assert!(text.contains("1.50 ms"), "{text}");
}

#[test]
fn the_json_summary_holds_the_operators_and_streams() {
    let json = Value::parse(&summarize(&sample()).to_json()).unwrap();
    let ops = match json.get("operators") {
        Some(Value::Array(a)) => a.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(ops[0].get("op").and_then(|v| v.as_str()), Some("Relu"));
    let p1 = ops[0].get("phase1").unwrap();
    assert_eq!(p1.get("calls").and_then(|v| v.as_u64()), Some(3));
    assert_eq!(p1.get("mean_ns").and_then(|v| v.as_u64()), Some(150));
    assert_eq!(
        ops[0].get("workspace_bytes").and_then(|v| v.as_u64()),
        Some(1536)
    );
    assert_eq!(ops[0].get("errors").and_then(|v| v.as_u64()), Some(1));
    let streams = match json.get("streams") {
        Some(Value::Array(a)) => a.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        streams[0].get("device_ns").and_then(|v| v.as_u64()),
        Some(1_500_000)
    );
    assert_eq!(streams[1].get("device_ns"), Some(&Value::Null));
}
