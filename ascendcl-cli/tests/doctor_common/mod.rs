//! Fixtures of the `ascendcl doctor` tests (`ascendcl_cli::doctor`): made-up
//! facts of a healthy Atlas server and of a laptop on the mock, helpers to
//! edit them, and a minimal JSON validator for the report.

#![allow(dead_code)]

use std::path::PathBuf;

use ascendcl::{MemoryInfo, RunMode};
use ascendcl_cli::doctor::{
    self, DeviceFacts, DriverDir, Facts, LibraryFacts, LoadedLibrary, Origin, Problem, ProblemKind,
    RootFacts, RuntimeFacts,
};
use ascendcl_sys::Attempt;
use ascendcl_sys::cann::Layout;

pub const GIB: usize = 1 << 30;

// ------------------------------------------------------------------ made-up facts

pub fn env(pairs: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
    doctor::ENV_VARS
        .iter()
        .map(|name| {
            let value = pairs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.to_string());
            (name.to_string(), value)
        })
        .collect()
}

pub fn runtime(version: (i32, i32, i32), devices: u32) -> RuntimeFacts {
    RuntimeFacts {
        version: Ok(version),
        cann_version: Ok(Some("8.5.0".into())),
        soc_name: Ok("Ascend910B3".into()),
        run_mode: Ok(RunMode::Host),
        device_count: Ok(devices),
        devices: (0..devices)
            .map(|id| DeviceFacts {
                id,
                memory: Ok(MemoryInfo {
                    free: 60 * GIB,
                    total: 61 * GIB,
                }),
            })
            .collect(),
    }
}

pub fn root(path: &str, source: &str, layout: Option<Layout>) -> RootFacts {
    RootFacts {
        path: PathBuf::from(path),
        source: source.into(),
        exists: layout.is_some(),
        layout,
        libraries: Vec::new(),
    }
}

pub fn driver(has_library: bool) -> Vec<DriverDir> {
    vec![DriverDir {
        path: PathBuf::from("/usr/local/Ascend/driver/lib64/driver"),
        source: "default install".into(),
        exists: has_library,
        has_driver_library: has_library,
    }]
}

/// A working Atlas server with CANN 8.5 and 8 cards.
pub fn healthy() -> Facts {
    Facts {
        library: LibraryFacts::Loaded(LoadedLibrary {
            path: "/usr/local/Ascend/cann/lib64/libacl_rt.so".into(),
            origin: Origin::Discovered,
            is_mock: false,
            missing_functions: Vec::new(),
        }),
        runtime: Some(Ok(runtime((1, 16, 0), 8))),
        cann_roots: vec![
            root(
                "/usr/local/Ascend/cann",
                "ASCEND_HOME_PATH",
                Some(Layout::Cann85),
            ),
            root(
                "/usr/local/Ascend/ascend-toolkit/latest",
                "default location",
                None,
            ),
        ],
        env: env(&[
            ("ASCEND_HOME_PATH", "/usr/local/Ascend/cann"),
            ("LD_LIBRARY_PATH", "/usr/local/Ascend/driver/lib64/driver"),
        ]),
        driver_dirs: driver(true),
        device_nodes: (0..8)
            .map(|i| PathBuf::from(format!("/dev/davinci{i}")))
            .collect(),
    }
}

/// A laptop with no CANN, running on the bundled mock (`--mock`).
pub fn mock() -> Facts {
    Facts {
        library: LibraryFacts::Loaded(LoadedLibrary {
            path: "/work/target/debug/build/ascendcl-mock-0/out/libascendcl.so".into(),
            origin: Origin::Mock,
            is_mock: true,
            missing_functions: Vec::new(),
        }),
        runtime: Some(Ok(runtime((1, 16, 0), 8))),
        cann_roots: vec![
            root("/usr/local/Ascend/cann", "default location", None),
            root(
                "/usr/local/Ascend/ascend-toolkit/latest",
                "default location",
                None,
            ),
        ],
        env: env(&[]),
        driver_dirs: driver(false),
        device_nodes: Vec::new(),
    }
}

pub fn attempt(candidate: &str, source: &str, reason: &str) -> Attempt {
    Attempt {
        candidate: candidate.into(),
        source: source.into(),
        reason: reason.into(),
    }
}

pub fn loaded(facts: &mut Facts) -> &mut LoadedLibrary {
    match &mut facts.library {
        LibraryFacts::Loaded(lib) => lib,
        other => panic!("not loaded: {other:?}"),
    }
}

pub fn runtime_mut(facts: &mut Facts) -> &mut RuntimeFacts {
    match &mut facts.runtime {
        Some(Ok(rt)) => rt,
        other => panic!("no runtime: {other:?}"),
    }
}

pub fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
    problems.iter().map(|p| p.kind).collect()
}

/// The only problem of `facts`, which must be of `kind`.
pub fn only_problem(facts: &Facts, kind: ProblemKind) -> Problem {
    let problems = doctor::diagnose(facts);
    assert_eq!(kinds(&problems), vec![kind], "{problems:#?}");
    problems.into_iter().next().unwrap()
}

// ------------------------------------------------------------------ JSON

/// A minimal JSON validator: returns the rest after one value, or panics.
pub fn value(s: &str) -> &str {
    let s = s.trim_start();
    match s.as_bytes().first() {
        Some(b'{') => {
            let mut rest = s[1..].trim_start();
            if let Some(r) = rest.strip_prefix('}') {
                return r;
            }
            loop {
                rest = string(rest.trim_start());
                rest = rest.trim_start().strip_prefix(':').expect("colon");
                rest = value(rest).trim_start();
                if let Some(r) = rest.strip_prefix(',') {
                    rest = r;
                } else {
                    break rest.strip_prefix('}').expect("closing brace");
                }
            }
        }
        Some(b'[') => {
            let mut rest = s[1..].trim_start();
            if let Some(r) = rest.strip_prefix(']') {
                return r;
            }
            loop {
                rest = value(rest).trim_start();
                if let Some(r) = rest.strip_prefix(',') {
                    rest = r;
                } else {
                    break rest.strip_prefix(']').expect("closing bracket");
                }
            }
        }
        Some(b'"') => string(s),
        _ => {
            for word in ["null", "true", "false"] {
                if let Some(r) = s.strip_prefix(word) {
                    return r;
                }
            }
            let end = s
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .unwrap_or(s.len());
            assert!(end > 0, "unexpected JSON at {:?}", &s[..s.len().min(40)]);
            &s[end..]
        }
    }
}

pub fn string(s: &str) -> &str {
    let mut chars = s.strip_prefix('"').expect("string").char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return &s[i + 2..],
            '\\' => {
                let (_, e) = chars.next().expect("escape");
                if e == 'u' {
                    for _ in 0..4 {
                        assert!(chars.next().expect("hex").1.is_ascii_hexdigit());
                    }
                } else {
                    assert!("\"\\/bfnrt".contains(e), "bad escape \\{e}");
                }
            }
            c => assert!(u32::from(c) >= 0x20, "raw control character in string"),
        }
    }
    panic!("unterminated string");
}

pub fn assert_valid_json(json: &str) {
    let rest = value(json);
    assert!(rest.trim().is_empty(), "trailing text: {rest:?}");
}
