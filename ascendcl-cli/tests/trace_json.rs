//! The JSON lines format of allocation traces: lossless round trips, and
//! typed errors with line numbers (never a panic) for malformed input.

mod trace_common;

use ascendcl_cli::alloc_trace::schedule::SplitMix64;
use ascendcl_cli::alloc_trace::{
    Dtype, GradMode, Optimizer, Schedule, Trace, TraceError, TrainConfig, resnet50_trace,
};
use trace_common::{config, every_config};

#[test]
fn json_lines_round_trip_is_lossless() {
    for config in [
        TrainConfig::default(),
        config(Dtype::Fp16),
        every_config().pop().unwrap(),
    ] {
        let trace = resnet50_trace(&Schedule::varying_default(3, 3), &config);
        let mut text = Vec::new();
        trace.to_json_lines(&mut text).unwrap();
        let back = Trace::from_json_lines(&text[..]).unwrap();
        assert_eq!(back, trace);
        let mut again = Vec::new();
        back.to_json_lines(&mut again).unwrap();
        assert_eq!(again, text);
        assert_eq!(
            text.iter().filter(|&&b| b == b'\n').count(),
            trace.ops.len() + 1
        );
    }

    let trace = resnet50_trace(
        &Schedule::from_batches(vec![64, 65]).unwrap(),
        &TrainConfig::default(),
    );
    let mut text = Vec::new();
    trace.to_json_lines(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with(
        r#"{"model":"resnet50","dtype":"fp32","optimizer":"sgd_momentum","grads":"keep","batches":[64,65],"persistent":[0,1,2,"#
    ));
    // conv1.weight: 64×3×7×7 fp32.
    assert_eq!(
        lines.next(),
        Some(r#"{"step":0,"op":"alloc","id":0,"bytes":37632,"stream":0}"#)
    );

    // Names with characters JSON must escape survive too.
    let mut odd = trace.clone();
    odd.meta.model = "res\"net\\50\n\u{1}é".to_owned();
    let mut bytes = Vec::new();
    odd.to_json_lines(&mut bytes).unwrap();
    assert_eq!(Trace::from_json_lines(&bytes[..]).unwrap(), odd);

    // Whitespace, field order and blank lines are free.
    let loose = "{ \"persistent\" : [ ] , \"batches\":[1],\"grads\":\"set_to_none\",\"optimizer\":\"adam\",\
                 \"dtype\":\"bf16\",\"model\":\"m\"}\n\n{\"stream\":1,\"bytes\":8,\"id\":3,\"op\":\"alloc\",\"step\":0}\r\n";
    let parsed = Trace::from_json_lines(loose.as_bytes()).unwrap();
    assert_eq!(
        (parsed.meta.dtype, parsed.meta.optimizer, parsed.meta.grads),
        (Dtype::Bf16, Optimizer::Adam, GradMode::SetToNone)
    );
    assert_eq!(parsed.ops.len(), 1);
    assert_eq!(
        (parsed.ops[0].id, parsed.ops[0].bytes, parsed.ops[0].stream),
        (3, 8, 1)
    );
}

#[test]
fn malformed_json_lines_are_typed_errors_with_line_numbers() {
    const HEADER: &str = r#"{"model":"m","dtype":"fp32","optimizer":"adam","grads":"keep","batches":[8],"persistent":[]}"#;
    const OP: &str = r#"{"step":0,"op":"alloc","id":1,"bytes":8,"stream":0}"#;
    let parse = |body: &str| Trace::from_json_lines(format!("{HEADER}\n{OP}\n{body}\n").as_bytes());
    let syntax = |body: &str| match parse(body) {
        Err(TraceError::Syntax {
            line: 3, column, ..
        }) => column,
        other => panic!("{body}: {other:?}"),
    };
    assert_eq!(
        syntax(r#"{"step":0,"op":"free","id":1,"bytes":8,"stream":0"#),
        50
    );
    assert_eq!(
        syntax(r#"{"step":-1,"op":"free","id":1,"bytes":8,"stream":0}"#),
        9
    );
    assert_eq!(
        syntax(r#"{"step":0.5,"op":"free","id":1,"bytes":8,"stream":0}"#),
        10
    );
    assert_eq!(
        syntax(r#"{"step":01,"op":"free","id":1,"bytes":8,"stream":0}"#),
        9
    );
    assert_eq!(
        syntax(r#"{"step":0,"op":"free","id":99999999999999999999,"bytes":8,"stream":0}"#),
        28
    );
    assert_eq!(
        syntax(r#"{"step":0,"op":"free","id":1,"bytes":8,"stream":0} x"#),
        52
    );
    assert_eq!(syntax(r#"{"step":0,"op":{"a":1}}"#), 16);
    assert_eq!(syntax(r#"{"step":0,"op":"fr\qee"}"#), 20);
    assert_eq!(syntax(r#"{step:0}"#), 2);
    assert_eq!(syntax("[1]"), 1);

    let err = |body: &str| parse(body).unwrap_err();
    assert!(matches!(
        err(r#"{"step":0,"op":"free","id":1,"bytes":8}"#),
        TraceError::MissingField {
            line: 3,
            field: "stream"
        }
    ));
    assert!(matches!(
        err(r#"{"step":0,"op":"free","id":1,"bytes":8,"stream":0,"tag":1}"#),
        TraceError::UnknownField { line: 3, ref field } if field == "tag"
    ));
    assert!(matches!(
        err(r#"{"step":0,"op":"free","id":1,"id":2,"bytes":8,"stream":0}"#),
        TraceError::DuplicateField { line: 3, ref field } if field == "id"
    ));
    assert!(matches!(
        err(r#"{"step":"0","op":"free","id":1,"bytes":8,"stream":0}"#),
        TraceError::WrongType {
            line: 3,
            field: "step",
            ..
        }
    ));
    assert!(matches!(
        err(r#"{"step":0,"op":"free","id":1,"bytes":8,"stream":4294967296}"#),
        TraceError::OutOfRange {
            line: 3,
            field: "stream",
            value: 4_294_967_296
        }
    ));
    assert!(matches!(
        err(r#"{"step":0,"op":"realloc","id":1,"bytes":8,"stream":0}"#),
        TraceError::UnknownValue { line: 3, field: "op", ref value } if value == "realloc"
    ));

    // Header problems.
    let header_err = |text: &str| Trace::from_json_lines(text.as_bytes()).unwrap_err();
    assert!(matches!(
        header_err(""),
        TraceError::MissingHeader { line: 1 }
    ));
    assert!(matches!(
        header_err(&format!("\n{OP}\n")),
        TraceError::MissingHeader { line: 2 }
    ));
    let fp64 = HEADER.replace("fp32", "fp64");
    assert!(matches!(
        header_err(&fp64),
        TraceError::UnknownValue {
            line: 1,
            field: "dtype",
            ..
        }
    ));
    let big = HEADER.replace("[8]", "[8,4294967296]");
    assert!(matches!(
        header_err(&big),
        TraceError::OutOfRange {
            line: 1,
            field: "batches",
            ..
        }
    ));
    let bad_list = HEADER.replace("[8]", "[8,]");
    assert!(matches!(
        header_err(&bad_list),
        TraceError::Syntax {
            line: 1,
            column: 76,
            ..
        }
    ));
    let invalid_utf8 = [HEADER.as_bytes(), b"\n{\"op\":\"\xff\"}\n"].concat();
    let e = Trace::from_json_lines(&invalid_utf8[..]).unwrap_err();
    assert!(matches!(
        e,
        TraceError::Syntax {
            line: 2,
            column: 1,
            ..
        }
    ));
    assert_eq!(e.line(), 2);
    assert_eq!(e.to_string(), "line 2, column 1: expected UTF-8 text");

    // No input makes the parser panic: every truncation and random byte
    // corruptions of a real trace give a trace or an error.
    let mut text = Vec::new();
    resnet50_trace(&Schedule::fixed(2, 1).unwrap(), &TrainConfig::default())
        .to_json_lines(&mut text)
        .unwrap();
    let text = &text[..4000];
    for end in 0..text.len() {
        let _ = Trace::from_json_lines(&text[..end]);
    }
    let mut rng = SplitMix64::new(5);
    for _ in 0..2000 {
        let mut corrupt = text.to_vec();
        let at = rng.next_u64() as usize % corrupt.len();
        corrupt[at] = rng.next_u64() as u8;
        let _ = Trace::from_json_lines(&corrupt[..]);
    }
}
