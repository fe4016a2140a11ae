//! Fuzz of the recording shim's trace writer: hostile texts (quotes,
//! backslashes, control characters, invalid UTF-8, very long texts) reach
//! the trace as failure messages, as the joined texts aclGetRecentErrMsg
//! returns, and as a string argument; every trace line must parse with a
//! strict JSON parser and keep the text. This binary uses the shim as its
//! AscendCL library (the mock is the shim's target).

mod common;

use std::ffi::CString;
use std::path::Path;

use ascendcl_mock::{LIBRARY_PATH, Mock, RECORDER_PATH, Recorder};
use ascendcl_sys::select_library;
use common::OK;
use common::hostile::*;

#[test]
fn every_trace_line_the_shim_writes_is_strict_json_whatever_the_texts() {
    let lib = select_library(RECORDER_PATH).expect("the shim loads");
    let mock = Mock::get();
    mock.reset();
    let path = std::env::temp_dir().join(format!("aclrecord-fuzz-{}.jsonl", std::process::id()));
    Recorder::get()
        .start(&path, Some(Path::new(LIBRARY_PATH)))
        .unwrap();

    let mut cases = fixed_cases();
    cases.extend(random_cases(&mut Rng::new(0xfeed_0042), 150, 1500));
    let mut joined_lengths = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let text = CString::new(case.clone()).expect("no NUL in a case");
        let message = String::from_utf8_lossy(case).into_owned();
        mock.inject(
            &ascendcl_mock::Fault::nth("aclrtSetDevice", 1, 107_001).with_message(&message),
        )
        .unwrap();
        // failing twice, so that aclGetRecentErrMsg joins two texts
        mock.inject(
            &ascendcl_mock::Fault::nth("aclrtSetDevice", 2, 107_001).with_message(&message),
        )
        .unwrap();
        for _ in 0..2 {
            // SAFETY: a plain integer argument.
            let rc = unsafe { lib.aclrtSetDevice(0) }.unwrap();
            assert_eq!(rc, 107_001, "case {i}");
        }
        // SAFETY: no arguments; the text is read before the next call.
        let p = unsafe { lib.aclGetRecentErrMsg() }.unwrap();
        assert!(!p.is_null(), "case {i}: the message was lost");
        // SAFETY: a non-null result is a NUL-terminated string.
        joined_lengths.push(unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes().len());
        // SAFETY: a valid C string (a config file that is not there).
        let rc = unsafe { lib.aclInit(text.as_ptr()) }.unwrap();
        if rc == OK {
            // SAFETY: no arguments.
            unsafe { lib.aclFinalize() }.unwrap();
        }
        mock.clear_faults();
    }
    Recorder::get().stop();

    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let lines = assert_every_line_is_json(&bytes, "the shim's trace");
    let failures: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["fn"] == "aclrtSetDevice")
        .collect();
    assert_eq!(failures.len(), 2 * cases.len());
    for (i, case) in cases.iter().enumerate() {
        let msg = failures[2 * i]["msg"]
            .as_str()
            .unwrap_or_else(|| panic!("case {i}: no msg"));
        if case.len() < 1000 {
            assert_eq!(
                without_replacements(msg),
                without_replacements(&String::from_utf8_lossy(case)),
                "case {i}"
            );
        }
    }
    let queries: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["fn"] == "aclGetRecentErrMsg")
        .collect();
    assert_eq!(queries.len(), cases.len());
    for (i, (q, len)) in queries.iter().zip(&joined_lengths).enumerate() {
        let out = q["out"]["msg"]
            .as_str()
            .unwrap_or_else(|| panic!("case {i}: the returned text is missing: {q}"));
        // the whole joined text is in the trace (U+FFFD may replace bytes)
        assert!(
            out.len() + 2 >= *len,
            "case {i}: {} of {len} bytes",
            out.len()
        );
    }
    mock.reset();
}
