//! `ascendcl doctor`'s diagnosis (`ascendcl_cli::doctor::diagnose`
//! and `notes`): made-up facts for each problem it names, and what the text
//! report says about them.

mod doctor_common;

use ascendcl_cli::doctor::{
    self, EXIT_OK, EXIT_PROBLEMS, LibraryFacts, Origin, ProblemKind, Report,
};
use ascendcl_sys::cann::Layout;
use doctor_common::{
    attempt, driver, env, healthy, kinds, loaded, mock, only_problem, root, runtime, runtime_mut,
};

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
    // --mock itself is explained: the machine facts are still this machine's.
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("--mock") && n.contains("still this machine's")),
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
    assert_eq!(problem.details.len(), 3);
    assert!(problem.details[0].contains("/usr/local/Ascend/cann/lib64/libacl_rt.so"));
    assert!(problem.details[0].contains("libascend_hal.so: cannot open"));
    assert!(problem.details[1].contains("system loader"));
    // No CANN root, driver or variable on this machine: install CANN first.
    assert!(problem.details[2].contains("no sign of a CANN install"));
    assert!(
        problem.fix.starts_with("install the CANN toolkit"),
        "{}",
        problem.fix
    );
    assert!(
        problem.fix.contains("ascendcl doctor --mock"),
        "{}",
        problem.fix
    );
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
fn no_library_while_cann_seems_installed_names_the_evidence_and_the_environment_fix() {
    let mut facts = mock();
    facts.library = LibraryFacts::NotFound {
        attempts: vec![attempt("libascendcl.so", "system loader", "dlopen failed")],
    };
    facts.runtime = None;
    facts.cann_roots[1] = root(
        "/usr/local/Ascend/ascend-toolkit/latest",
        "default location",
        Some(Layout::Toolkit),
    );
    facts.driver_dirs = driver(true);
    let problems = doctor::diagnose(&facts);
    let problem = problems
        .iter()
        .find(|p| p.kind == ProblemKind::LibraryNotFound)
        .expect("the missing library is a problem");
    assert!(
        problem
            .details
            .last()
            .unwrap()
            .contains("/usr/local/Ascend/ascend-toolkit/latest exists"),
        "{:?}",
        problem.details
    );
    assert!(
        problem.fix.starts_with("source CANN's environment script"),
        "{}",
        problem.fix
    );
    assert!(!problem.fix.contains("--mock"), "{}", problem.fix);
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

#[test]
fn a_bundled_mock_that_cannot_be_written_points_at_the_cache_directory() {
    let mut facts = mock();
    facts.library = LibraryFacts::Unusable {
        error: format!(
            "{}/nope/ascendcl/bundle: Permission denied",
            ascendcl_cli::bundled::BUNDLE_ERROR_PREFIX
        ),
    };
    facts.runtime = None;
    let problem = only_problem(&facts, ProblemKind::LibraryUnusable);
    assert!(problem.fix.contains("XDG_CACHE_HOME"), "{}", problem.fix);
}

#[test]
fn a_damaged_ascendcl_library_names_the_file_what_is_wrong_and_how_to_fix_it() {
    let mut facts = mock();
    facts.env = env(&[("ASCENDCL_LIBRARY", "/opt/copy/libascendcl.so")]);
    facts.library = LibraryFacts::InvalidFile {
        file: "/opt/copy/libascendcl.so".into(),
        source: "ASCENDCL_LIBRARY".into(),
        problem: ascendcl_sys::ElfProblem::SegmentOutside {
            index: 2,
            end: 127_449,
            file_bytes: 40_000,
        },
    };
    facts.runtime = None;
    let problem = only_problem(&facts, ProblemKind::LibraryInvalid);
    assert!(
        problem
            .summary
            .contains("/opt/copy/libascendcl.so (named by ASCENDCL_LIBRARY)"),
        "{}",
        problem.summary
    );
    assert_eq!(
        problem.details,
        ["truncated: segment 2 ends at byte 127449, the file has 40000"]
    );
    assert!(
        problem.fix.starts_with("copy or install the file again"),
        "{}",
        problem.fix
    );
    assert!(
        problem.fix.contains("set ASCENDCL_LIBRARY to another file"),
        "{}",
        problem.fix
    );
    let report = Report::new(facts);
    assert_eq!(report.exit_code(), EXIT_PROBLEMS);
    let text = report.to_text();
    assert!(
        text.contains(
            "refused:        /opt/copy/libascendcl.so (from ASCENDCL_LIBRARY): truncated: segment 2"
        ),
        "{text}"
    );
}

#[test]
fn a_library_for_another_machine_points_at_the_package_for_this_architecture() {
    let mut facts = mock();
    facts.library = LibraryFacts::InvalidFile {
        file: "/opt/arm/libascendcl.so".into(),
        source: "ASCENDCL_LIBRARY".into(),
        problem: ascendcl_sys::ElfProblem::WrongMachine {
            file: 183,
            machine: 62,
        },
    };
    facts.runtime = None;
    let problem = only_problem(&facts, ProblemKind::LibraryInvalid);
    assert!(
        problem.details[0].contains("built for aarch64 (ELF machine 183); this machine is x86_64"),
        "{:?}",
        problem.details
    );
    assert!(
        problem.fix.contains("this machine's architecture"),
        "{}",
        problem.fix
    );
}
