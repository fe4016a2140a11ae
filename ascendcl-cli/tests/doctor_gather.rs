//! `ascendcl doctor`'s gathering (`ascendcl_cli::doctor::gather` and
//! its parts): facts gathered from disk for the CANN roots and the driver,
//! and one real gathering on the mock.
//!
//! Only one AscendCL library is ever selected per process: every test that
//! touches the library selects the mock first, so the tests can run in
//! parallel in any order.

mod doctor_common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ascendcl_cli::doctor::{self, DriverDir, Facts, Origin, ProblemKind, Report};
use ascendcl_sys::cann::Layout;
use doctor_common::{assert_valid_json, healthy, only_problem};

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
