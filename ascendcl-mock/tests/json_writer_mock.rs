//! Fuzz of the mock's journal writer: hostile texts (quotes, backslashes,
//! control characters, invalid UTF-8, texts far longer than any old fixed
//! buffer) reach the journal as failure messages, as the text
//! aclGetRecentErrMsg returns and as a string argument; every journal line
//! must parse with a strict JSON parser and keep the text.

mod common;

use std::ffi::{CString, c_char};

use ascendcl_mock::LIBRARY_PATH;
use common::hostile::*;
use common::*;

type InjectFault = unsafe extern "C" fn(*const c_char, u64, i32, *const c_char) -> i32;
type JournalRead = unsafe extern "C" fn(u64, *mut c_char, usize) -> usize;

/// The journal's raw bytes (not decoded: invalid UTF-8 must show).
fn journal_bytes(read: JournalRead) -> Vec<u8> {
    // SAFETY: a null buffer with capacity 0 only asks for the length.
    let len = unsafe { read(0, std::ptr::null_mut(), 0) };
    let mut buf = vec![0u8; len + 1];
    // SAFETY: `buf` is writable for its length.
    unsafe { read(0, buf.as_mut_ptr().cast(), buf.len()) };
    buf.truncate(len);
    buf
}

#[test]
fn every_journal_line_is_strict_json_whatever_the_texts() {
    let t = T::new();
    // SAFETY: the mock is loaded (the session selected it); these are its
    // control functions with their C signatures from aclmock.h.
    let lib = unsafe { libloading::Library::new(LIBRARY_PATH) }.unwrap();
    // SAFETY: as above.
    let inject = *unsafe { lib.get::<InjectFault>(b"aclmockInjectFault\0") }.unwrap();
    // SAFETY: as above.
    let read = *unsafe { lib.get::<JournalRead>(b"aclmockJournalRead\0") }.unwrap();

    let mut cases = fixed_cases();
    cases.extend(random_cases(&mut Rng::new(0x5eed_1234), 150, 1500));
    let function = CString::new("aclrtSetDevice").unwrap();
    for (i, case) in cases.iter().enumerate() {
        let text = CString::new(case.clone()).expect("no NUL in a case");
        // SAFETY: valid C strings; the mock copies the message.
        let rc = unsafe { inject(function.as_ptr(), 1, 107_001, text.as_ptr()) };
        assert_eq!(rc, OK);
        assert_eq!(t.set_device(0), 107_001, "case {i}");
        let returned = t.recent_msg();
        assert!(returned.is_some(), "case {i}: the message was lost");
        // the same text as a string argument (a config file that is not there)
        // SAFETY: a valid C string.
        let rc = unsafe { t.lib.aclInit(text.as_ptr()) }.unwrap();
        if rc == OK {
            // SAFETY: no arguments.
            unsafe { t.lib.aclFinalize() }.unwrap();
        }
        t.s.clear_faults();
    }

    let lines = assert_every_line_is_json(&journal_bytes(read), "the mock's journal");
    let failures: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["fn"] == "aclrtSetDevice")
        .collect();
    assert_eq!(failures.len(), cases.len());
    for (i, (line, case)) in failures.iter().zip(&cases).enumerate() {
        let msg = line["msg"]
            .as_str()
            .unwrap_or_else(|| panic!("case {i}: no msg"));
        let expected = String::from_utf8_lossy(case);
        if case.len() < 1000 {
            // shorter than the mock's own message buffer: kept whole
            assert_eq!(
                without_replacements(msg),
                without_replacements(&expected),
                "case {i}"
            );
        } else {
            assert!(msg.len() >= 900, "case {i}: only {} bytes kept", msg.len());
        }
    }
    let queries = lines
        .iter()
        .filter(|l| l["fn"] == "aclGetRecentErrMsg")
        .count();
    assert_eq!(queries, cases.len(), "every query was journaled");
    assert!(
        lines
            .iter()
            .filter(|l| l["fn"] == "aclGetRecentErrMsg")
            .all(|l| l["out"]["msg"].is_string()),
        "every query's out-value is the text"
    );
    t.s.reset();
}
