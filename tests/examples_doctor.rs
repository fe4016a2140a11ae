//! The `doctor` example's checks (`ascendcl_examples::doctor`): made-up
//! facts for each problem it names, facts gathered from disk for the CANN
//! roots and the driver, and one real gathering on the mock.
//!
//! Only one AscendCL library is ever selected per process: every test that
//! touches the library selects the mock first, so the tests can run in
//! parallel in any order.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ascendcl::{MemoryInfo, RunMode};
use ascendcl_examples::doctor::{
    self, DeviceFacts, DriverDir, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, Facts, LibraryFacts,
    LoadedLibrary, Origin, Problem, ProblemKind, Report, RootFacts, RuntimeFacts,
};
use ascendcl_sys::Attempt;
use ascendcl_sys::cann::Layout;

const GIB: usize = 1 << 30;

// ------------------------------------------------------------------ made-up facts

fn env(pairs: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
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

fn runtime(version: (i32, i32, i32), devices: u32) -> RuntimeFacts {
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

fn root(path: &str, source: &str, layout: Option<Layout>) -> RootFacts {
    RootFacts {
        path: PathBuf::from(path),
        source: source.into(),
        exists: layout.is_some(),
        layout,
        libraries: Vec::new(),
    }
}

fn driver(has_library: bool) -> Vec<DriverDir> {
    vec![DriverDir {
        path: PathBuf::from("/usr/local/Ascend/driver/lib64/driver"),
        source: "default install".into(),
        exists: has_library,
        has_driver_library: has_library,
    }]
}

/// A working Atlas server with CANN 8.5 and 8 cards.
fn healthy() -> Facts {
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

/// A laptop with no CANN, running on the mock.
fn mock() -> Facts {
    Facts {
        library: LibraryFacts::Loaded(LoadedLibrary {
            path: "/work/target/debug/build/ascendcl-mock-0/out/libascendcl.so".into(),
            origin: Origin::MockFallback {
                attempts: vec![attempt("libascendcl.so", "system loader", "dlopen failed")],
            },
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

fn attempt(candidate: &str, source: &str, reason: &str) -> Attempt {
    Attempt {
        candidate: candidate.into(),
        source: source.into(),
        reason: reason.into(),
    }
}

fn loaded(facts: &mut Facts) -> &mut LoadedLibrary {
    match &mut facts.library {
        LibraryFacts::Loaded(lib) => lib,
        other => panic!("not loaded: {other:?}"),
    }
}

fn runtime_mut(facts: &mut Facts) -> &mut RuntimeFacts {
    match &mut facts.runtime {
        Some(Ok(rt)) => rt,
        other => panic!("no runtime: {other:?}"),
    }
}

fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
    problems.iter().map(|p| p.kind).collect()
}

/// The only problem of `facts`, which must be of `kind`.
fn only_problem(facts: &Facts, kind: ProblemKind) -> Problem {
    let problems = doctor::diagnose(facts);
    assert_eq!(kinds(&problems), vec![kind], "{problems:#?}");
    problems.into_iter().next().unwrap()
}

#[test]
fn healthy_device_has_no_problem_and_exits_0() {
    let report = Report::new(healthy());
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert!(report.notes.is_empty(), "{:#?}", report.notes);
    assert_eq!(report.exit_code(), EXIT_OK);
    let text = report.to_text();
    assert!(text.contains("libacl_rt.so"), "{text}");
    assert!(text.contains("1.16.0 (bindings declare 1.16.0)"), "{text}");
    assert!(text.contains("device 7:"), "{text}");
    assert!(text.contains("61.00 GiB HBM, 60.00 GiB free"), "{text}");
    assert!(text.contains("CANN 8.5+ layout"), "{text}");
    assert!(text.contains("no problems found"), "{text}");
}

#[test]
fn mock_is_a_note_not_a_problem() {
    let report = Report::new(mock());
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.exit_code(), EXIT_OK);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("mock") && n.contains("not a device's")),
        "{:#?}",
        report.notes
    );
    // The fallback itself is explained: a program would not get the mock.
    assert!(
        report.notes.iter().any(|n| n.contains("Runtime::init()")),
        "{:#?}",
        report.notes
    );
    assert!(report.to_text().contains("(the ascendcl mock)"));
}

#[test]
fn mock_chosen_explicitly_is_not_a_problem_either() {
    let mut facts = mock();
    loaded(&mut facts).origin = Origin::Selected;
    let report = Report::new(facts);
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.notes.len(), 1, "{:#?}", report.notes);
}

#[test]
fn no_library_found_lists_every_path_tried_and_how_to_fix_it() {
    let mut facts = mock();
    facts.library = LibraryFacts::NotFound {
        attempts: vec![
            attempt(
                "/usr/local/Ascend/cann/lib64/libacl_rt.so",
                "ASCEND_HOME_PATH = /usr/local/Ascend/cann",
                "libascend_hal.so: cannot open shared object file",
            ),
            attempt("libascendcl.so", "system loader", "dlopen failed"),
        ],
    };
    facts.runtime = None;
    let problem = only_problem(&facts, ProblemKind::LibraryNotFound);
    assert_eq!(problem.details.len(), 2);
    assert!(problem.details[0].contains("/usr/local/Ascend/cann/lib64/libacl_rt.so"));
    assert!(problem.details[0].contains("libascend_hal.so: cannot open"));
    assert!(problem.details[1].contains("system loader"));
    assert!(problem.fix.contains("set_env.sh"), "{}", problem.fix);
    assert!(problem.fix.contains("ASCENDCL_LIBRARY"), "{}", problem.fix);

    let report = Report::new(facts);
    assert_eq!(report.exit_code(), EXIT_PROBLEMS);
    let text = report.to_text();
    assert!(
        text.contains("not started: no library was loaded"),
        "{text}"
    );
    assert!(text.contains("1 problem found"), "{text}");
}

#[test]
fn a_wrong_ascendcl_library_is_named_in_the_fix() {
    let mut facts = mock();
    facts.env = env(&[("ASCENDCL_LIBRARY", "/opt/wrong/libascendcl.so")]);
    facts.library = LibraryFacts::NotFound {
        attempts: vec![attempt(
            "/opt/wrong/libascendcl.so",
            "ASCENDCL_LIBRARY",
            "no such file",
        )],
    };
    facts.runtime = None;
    let problem = only_problem(&facts, ProblemKind::LibraryNotFound);
    assert!(
        problem.fix.contains("/opt/wrong/libascendcl.so"),
        "{}",
        problem.fix
    );
    assert!(problem.fix.contains("unset"), "{}", problem.fix);
}

#[test]
fn falling_back_to_the_mock_is_a_problem_when_cann_seems_installed() {
    let mut facts = mock();
    facts.cann_roots[1] = root(
        "/usr/local/Ascend/ascend-toolkit/latest",
        "default location",
        Some(Layout::Toolkit),
    );
    facts.driver_dirs = driver(true);
    let problem = only_problem(&facts, ProblemKind::LibraryNotFound);
    assert!(
        problem.summary.contains("fell back to the mock"),
        "{}",
        problem.summary
    );
    assert!(
        problem.details[0].contains("/usr/local/Ascend/ascend-toolkit/latest exists"),
        "{:?}",
        problem.details
    );
    // The notes no longer claim that nothing was expected.
    assert!(
        !doctor::notes(&facts)
            .iter()
            .any(|n| n.contains("Runtime::init()"))
    );
}

#[test]
fn unrecognised_root_is_named_with_its_source() {
    let mut facts = healthy();
    facts.cann_roots.push(root(
        "/opt/ascend",
        "ASCEND_INSTALL_PATH",
        Some(Layout::Unrecognised),
    ));
    let problem = only_problem(&facts, ProblemKind::UnrecognisedRoot);
    assert!(
        problem.summary.contains("/opt/ascend"),
        "{}",
        problem.summary
    );
    assert!(
        problem.summary.contains("ASCEND_INSTALL_PATH"),
        "{}",
        problem.summary
    );
    assert!(
        problem
            .fix
            .contains("point ASCEND_INSTALL_PATH at a CANN root"),
        "{}",
        problem.fix
    );
}

#[test]
fn a_root_variable_naming_nothing_is_a_problem_but_missing_defaults_are_not() {
    let mut facts = healthy();
    facts
        .cann_roots
        .push(root("/gone", "ASCEND_TOOLKIT_HOME", None));
    let problem = only_problem(&facts, ProblemKind::RootMissing);
    assert!(
        problem
            .summary
            .contains("ASCEND_TOOLKIT_HOME is set to /gone")
    );
    // healthy() already has a missing default location, which is fine.
    assert!(
        facts
            .cann_roots
            .iter()
            .any(|r| !r.exists && r.source == "default location")
    );
}

#[test]
fn older_library_lists_the_functions_it_lacks() {
    let mut facts = healthy();
    runtime_mut(&mut facts).version = Ok((1, 12, 0));
    loaded(&mut facts).missing_functions =
        vec!["aclrtLaunchHostFunc".into(), "aclsysGetVersionStr".into()];
    let problem = only_problem(&facts, ProblemKind::VersionMismatch);
    assert!(problem.summary.contains("1.12.0"), "{}", problem.summary);
    assert!(problem.summary.contains("1.16.0"), "{}", problem.summary);
    let details = problem.details.join("\n");
    assert!(details.contains("2 of the"), "{details}");
    assert!(
        details.contains("aclrtLaunchHostFunc, aclsysGetVersionStr"),
        "{details}"
    );
    assert!(problem.fix.contains("upgrade CANN"), "{}", problem.fix);
    let text = Report::new(facts).to_text();
    assert!(
        text.contains("missing: aclrtLaunchHostFunc, aclsysGetVersionStr"),
        "{text}"
    );
}

#[test]
fn version_differences_that_do_not_matter_are_notes() {
    // Older but complete.
    let mut facts = healthy();
    runtime_mut(&mut facts).version = Ok((1, 14, 0));
    assert!(doctor::diagnose(&facts).is_empty());
    assert!(doctor::notes(&facts).iter().any(|n| n.contains("older")));
    // Newer minor.
    runtime_mut(&mut facts).version = Ok((1, 17, 2));
    assert!(doctor::diagnose(&facts).is_empty());
    assert!(
        doctor::notes(&facts)
            .iter()
            .any(|n| n.contains("1.17.2 is newer"))
    );
    // Newer major: signatures may have changed.
    runtime_mut(&mut facts).version = Ok((2, 0, 0));
    only_problem(&facts, ProblemKind::VersionMismatch);
}

#[test]
fn missing_functions_at_the_declared_version_point_at_libacl_rt() {
    let mut facts = healthy();
    loaded(&mut facts).path = "/usr/local/Ascend/cann/lib64/libascendcl.so".into();
    loaded(&mut facts).missing_functions = vec!["aclrtMallocPhysical".into()];
    let problem = only_problem(&facts, ProblemKind::MissingFunctions);
    assert!(problem.details[0].contains("aclrtMallocPhysical"));
    assert!(problem.fix.contains("libacl_rt.so"), "{}", problem.fix);
}

#[test]
fn zero_devices_say_where_to_look() {
    let mut facts = healthy();
    *runtime_mut(&mut facts) = runtime((1, 16, 0), 0);
    let problem = only_problem(&facts, ProblemKind::NoDevices);
    assert!(problem.fix.contains("npu-smi info"), "{}", problem.fix);
    assert!(problem.fix.contains("HwHiAiUser"), "{}", problem.fix);

    // ASCEND_RT_VISIBLE_DEVICES is named with its value when it is set.
    facts.env = env(&[("ASCEND_RT_VISIBLE_DEVICES", "9")]);
    let problem = only_problem(&facts, ProblemKind::NoDevices);
    assert!(
        problem
            .fix
            .contains("ASCEND_RT_VISIBLE_DEVICES is set to \"9\""),
        "{}",
        problem.fix
    );

    // No device node at all: the driver, or a container without --device.
    facts.env = env(&[]);
    facts.device_nodes.clear();
    let problem = only_problem(&facts, ProblemKind::NoDevices);
    assert!(
        problem.fix.contains("--device /dev/davinci0"),
        "{}",
        problem.fix
    );
}

#[test]
fn devices_that_fail_are_reported_and_the_others_kept() {
    let mut facts = healthy();
    runtime_mut(&mut facts).devices[3].memory =
        Err("aclrtSetDevice returned 507033 (ACL_ERROR_RT_DEV_SETUP_ERROR)".into());
    let problem = only_problem(&facts, ProblemKind::DeviceUnavailable);
    assert!(
        problem.summary.starts_with("1 of 8 devices"),
        "{}",
        problem.summary
    );
    assert!(problem.details[0].starts_with("device 3: aclrtSetDevice"));
    let text = Report::new(facts).to_text();
    assert!(text.contains("device 3:"), "{text}");
    assert!(
        text.contains("failed: aclrtSetDevice returned 507033"),
        "{text}"
    );
    let device4 = text
        .lines()
        .find(|l| l.trim_start().starts_with("device 4:"));
    assert!(
        device4.is_some_and(|l| l.ends_with("61.00 GiB HBM, 60.00 GiB free")),
        "{text}"
    );
}

#[test]
fn failing_queries_and_a_failing_init_are_problems() {
    let mut facts = healthy();
    runtime_mut(&mut facts).soc_name = Err("aclrtGetSocName returned null".into());
    let problem = only_problem(&facts, ProblemKind::QueryFailed);
    assert!(problem.details[0].starts_with("aclrtGetSocName: "));

    let mut facts = healthy();
    facts.runtime = Some(Err("aclInit returned 500000".into()));
    let problem = only_problem(&facts, ProblemKind::LibraryUnusable);
    assert!(problem.details[0].contains("aclInit returned 500000"));
}

#[test]
fn missing_driver_is_a_problem_only_where_a_driver_is_needed() {
    let mut facts = healthy();
    facts.driver_dirs = driver(false);
    let problem = only_problem(&facts, ProblemKind::DriverMissing);
    assert!(problem.summary.contains("libascend_hal.so"));
    assert!(problem.details[0].contains("/usr/local/Ascend/driver/lib64/driver: does not exist"));
    // On the mock with no CANN root, no driver is needed.
    assert!(!doctor::driver_check_applies(&mock()));
    assert!(doctor::diagnose(&mock()).is_empty());
}

#[test]
fn problems_come_most_fundamental_first() {
    let mut facts = healthy();
    facts.cann_roots.push(root(
        "/opt/x",
        "ASCEND_INSTALL_PATH",
        Some(Layout::Unrecognised),
    ));
    *runtime_mut(&mut facts) = runtime((1, 16, 0), 0);
    facts.driver_dirs = driver(false);
    assert_eq!(
        kinds(&doctor::diagnose(&facts)),
        vec![
            ProblemKind::UnrecognisedRoot,
            ProblemKind::NoDevices,
            ProblemKind::DriverMissing
        ]
    );
    assert_eq!(Report::new(facts).exit_code(), EXIT_PROBLEMS);
}

// ------------------------------------------------------------------ JSON

/// A minimal JSON validator: returns the rest after one value, or panics.
fn value(s: &str) -> &str {
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

fn string(s: &str) -> &str {
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

fn assert_valid_json(json: &str) {
    let rest = value(json);
    assert!(rest.trim().is_empty(), "trailing text: {rest:?}");
}

#[test]
fn json_is_one_valid_object_for_every_kind_of_facts() {
    let mut broken = healthy();
    runtime_mut(&mut broken).devices[0].memory = Err("line one\nline \"two\"\ttab\u{1}".into());
    runtime_mut(&mut broken).cann_version = Ok(None);
    let mut not_found = mock();
    not_found.library = LibraryFacts::NotFound {
        attempts: vec![attempt("C:\\odd\\path", "ASCENDCL_LIBRARY", "no such file")],
    };
    not_found.runtime = None;
    let mut init_failed = healthy();
    init_failed.runtime = Some(Err("aclInit failed".into()));
    for facts in [healthy(), mock(), broken, not_found, init_failed] {
        let report = Report::new(facts);
        let json = report.to_json();
        assert!(!json.contains('\n'), "one line: {json}");
        assert_valid_json(&json);
        assert!(json.starts_with('{'));
        let ok = format!("\"ok\":{}", report.problems.is_empty());
        assert!(json.contains(&ok), "{json}");
    }
    let json = Report::new(healthy()).to_json();
    assert!(json.contains("\"version\":[1,16,0]"), "{json}");
    assert!(json.contains("\"declared_version\":[1,16,0]"), "{json}");
    assert!(json.contains("\"layout\":\"cann85\""), "{json}");
    assert!(json.contains("\"ASCENDCL_LIBRARY\":null"), "{json}");
    assert!(
        json.contains(&format!("\"hbm_total\":{}", 61 * GIB)),
        "{json}"
    );
    let mut zero = healthy();
    *runtime_mut(&mut zero) = runtime((1, 16, 0), 0);
    let json = Report::new(zero).to_json();
    assert!(json.contains("\"kind\":\"no-devices\""), "{json}");
}

// ------------------------------------------------------------------ from disk

/// A fresh directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-doctor-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn touch(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, b"").unwrap();
}

#[test]
fn cann_roots_on_disk_get_their_layout() {
    let dir = temp_dir("roots");
    let toolkit = dir.join("ascend-toolkit/latest");
    touch(&toolkit.join("lib64/libascendcl.so"));
    let cann85 = dir.join("cann");
    touch(&cann85.join("lib64/libacl_rt.so"));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let vars = [
        ("ASCEND_TOOLKIT_HOME", toolkit.clone()),
        ("ASCEND_HOME_PATH", cann85.clone()),
        ("ASCEND_INSTALL_PATH", empty.clone()),
        ("HOME", dir.join("home")),
    ];
    let env = |name: &str| -> Option<OsString> {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p.clone().into_os_string())
    };
    let roots = doctor::cann_roots(&env);
    let find = |path: &Path| roots.iter().find(|r| r.path == path).unwrap();
    assert_eq!(find(&toolkit).layout, Some(Layout::Toolkit));
    assert_eq!(
        find(&toolkit).libraries,
        vec![toolkit.join("lib64/libascendcl.so")]
    );
    assert_eq!(find(&cann85).layout, Some(Layout::Cann85));
    assert_eq!(find(&empty).layout, Some(Layout::Unrecognised));
    let home = find(&dir.join("home/Ascend/cann"));
    assert!(!home.exists && home.layout.is_none());
    assert_eq!(roots[0].source, "ASCEND_TOOLKIT_HOME");

    let facts = Facts {
        cann_roots: roots,
        env: doctor::env_vars(&env),
        ..healthy()
    };
    assert_eq!(facts.env_var("ASCEND_INSTALL_PATH"), empty.to_str());
    let problem = only_problem(&facts, ProblemKind::UnrecognisedRoot);
    assert!(problem.summary.contains(empty.to_str().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn driver_library_is_found_through_ld_library_path_and_install_info() {
    let dir = temp_dir("driver");
    let in_path = dir.join("lib-in-path");
    touch(&in_path.join("libascend_hal.so"));
    let paths = std::env::join_paths([in_path.clone(), dir.join("missing")]).unwrap();
    let env = |name: &str| (name == "LD_LIBRARY_PATH").then(|| paths.clone());
    let info = format!(
        "UserName=HwHiAiUser\nDriver_Install_Path_Param={}\n",
        dir.join("custom").display()
    );
    assert_eq!(
        doctor::driver_root_from_install_info(&info),
        Some(dir.join("custom/driver"))
    );
    let dirs = doctor::driver_dirs(&env, Some(&info));
    let sources: Vec<&str> = dirs.iter().map(|d| d.source.as_str()).collect();
    assert_eq!(&sources[..3], ["default install"; 3]);
    assert_eq!(&sources[3..6], ["ascend_install.info"; 3]);
    assert_eq!(&sources[6..], ["LD_LIBRARY_PATH"; 2]);
    let found: Vec<&DriverDir> = dirs.iter().filter(|d| d.has_driver_library).collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, in_path);
    assert!(
        dirs.iter()
            .any(|d| d.path == dir.join("missing") && !d.exists)
    );

    let facts = Facts {
        driver_dirs: dirs,
        ..healthy()
    };
    assert!(doctor::diagnose(&facts).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn device_nodes_are_davinci_followed_by_digits() {
    let dir = temp_dir("dev");
    for name in ["davinci1", "davinci0", "davinci_manager", "davinci", "null"] {
        touch(&dir.join(name));
    }
    assert_eq!(
        doctor::device_nodes(&dir),
        vec![dir.join("davinci0"), dir.join("davinci1")]
    );
    assert!(doctor::device_nodes(&dir.join("absent")).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ real, on the mock

/// Devices the mock has in this process (ASCENDCL_MOCK_DEVICE_COUNT, default 8).
fn mock_devices() -> u32 {
    std::env::var("ASCENDCL_MOCK_DEVICE_COUNT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8)
}

#[test]
fn gathering_on_the_mock_names_the_mock_and_its_devices() {
    ascendcl_sys::select_library(ascendcl_mock::LIBRARY_PATH).unwrap();
    let facts = doctor::gather(true);
    let lib = facts.loaded().expect("the mock is loaded");
    assert_eq!(lib.origin, Origin::Selected);
    assert!(lib.is_mock);
    assert!(
        lib.missing_functions.is_empty(),
        "{:?}",
        lib.missing_functions
    );
    assert_eq!(
        std::fs::canonicalize(&lib.path).unwrap(),
        std::fs::canonicalize(ascendcl_mock::LIBRARY_PATH).unwrap()
    );
    let rt = facts.runtime_facts().expect("ACL initialised");
    let (a, b, c) = ascendcl_sys::DECLARED_VERSION;
    assert_eq!(rt.version, Ok((a as i32, b as i32, c as i32)));
    assert_eq!(rt.device_count, Ok(mock_devices()));
    assert_eq!(rt.devices.len(), mock_devices() as usize);
    for device in &rt.devices {
        let memory = device.memory.as_ref().expect("every mock device opens");
        assert!(memory.free <= memory.total && memory.total > 0);
    }
    assert_eq!(facts.env.len(), doctor::ENV_VARS.len());

    let report = Report::new(facts);
    let text = report.to_text();
    assert!(text.contains("(the ascendcl mock)"), "{text}");
    assert!(
        text.contains(&format!("devices:          {}", mock_devices())),
        "{text}"
    );
    assert!(text.contains("selected by the program"), "{text}");
    assert!(report.notes.iter().any(|n| n.contains("behavioural mock")));
    // Whatever this machine has installed, the mock itself causes none of these.
    for problem in &report.problems {
        assert!(
            !matches!(
                problem.kind,
                ProblemKind::LibraryNotFound
                    | ProblemKind::LibraryUnusable
                    | ProblemKind::MissingFunctions
                    | ProblemKind::VersionMismatch
                    | ProblemKind::QueryFailed
                    | ProblemKind::NoDevices
                    | ProblemKind::DeviceUnavailable
            ),
            "{problem:#?}"
        );
    }
    assert_valid_json(&report.to_json());
}

#[test]
fn command_line_prints_json_and_rejects_unknown_arguments() {
    ascendcl_sys::select_library(ascendcl_mock::LIBRARY_PATH).unwrap();
    let out = doctor::run(["--json"]);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert_valid_json(out.stdout.trim_end());
    assert!(out.stdout.contains("\"is_mock\":true"), "{}", out.stdout);
    assert!(
        out.stdout.contains("\"origin\":\"selected\""),
        "{}",
        out.stdout
    );
    let ok = out.stdout.contains("\"ok\":true");
    assert_eq!(out.exit_code, if ok { EXIT_OK } else { EXIT_PROBLEMS });

    let help = doctor::run(["--help"]);
    assert_eq!(help.exit_code, EXIT_OK);
    assert!(help.stdout.starts_with("usage: doctor"));
    let bad = doctor::run(["--jsn"]);
    assert_eq!(bad.exit_code, EXIT_USAGE);
    assert!(
        bad.stderr.contains("unknown argument \"--jsn\""),
        "{}",
        bad.stderr
    );
    assert!(bad.stdout.is_empty());
}
