//! Opening the library: explicit paths, discovery order, missing symbols.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use ascendcl_sys::{LIBRARY_ENV_VAR, Library, LoadError, library};

/// The C library: loadable everywhere, exports no AscendCL symbol.
const NOT_ACL: &str = "libc.so.6";

#[test]
fn opening_a_nonexistent_path_fails_and_names_the_path() {
    let err = Library::open("/nonexistent/libascendcl.so").unwrap_err();
    let LoadError::NotFound { attempts } = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        attempts[0].candidate,
        Path::new("/nonexistent/libascendcl.so")
    );
    assert!(
        err.to_string().contains("/nonexistent/libascendcl.so"),
        "{err}"
    );
    assert!(
        err.to_string().contains("ASCENDCL_LIBRARY"),
        "the error says what to do: {err}"
    );
}

#[test]
fn a_library_the_dynamic_loader_refuses_reports_the_loaders_own_words() {
    // A valid shared object whose dependency is gone: it passes the ELF
    // check, and dlopen itself refuses it.
    let dir =
        std::env::temp_dir().join(format!("ascendcl-sys-loader-words-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let compile = |name: &str, source: &str, extra: &[&str]| {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, source).unwrap();
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.join(name))
            .arg(&c)
            .args(extra)
            .status()
            .expect("a C compiler");
        assert!(status.success(), "compiling {name}");
    };
    compile("libgone.so", "int gone(void) { return 1; }\n", &[]);
    let link_dir = format!("-L{}", dir.display());
    compile(
        "libneedsgone.so",
        "int gone(void);\nint uses(void) { return gone(); }\n",
        &[&link_dir, "-lgone"],
    );
    std::fs::remove_file(dir.join("libgone.so")).unwrap();
    let err = Library::open(dir.join("libneedsgone.so")).unwrap_err();
    let reason = &err.attempts()[0].reason;
    // The system loader's own words, not just "dlopen failed".
    assert!(
        reason.contains("libgone.so") && reason.contains("dlopen failed: "),
        "{reason}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_symbol_is_an_error_naming_the_symbol_not_a_panic() {
    let lib = Library::open(NOT_ACL).expect("libc loads");
    assert!(!lib.has_symbol("aclInit"));
    assert!(lib.has_symbol("malloc"));
    // SAFETY: a null config path is allowed; the symbol is absent anyway.
    let err = unsafe { lib.aclInit(std::ptr::null()) }.unwrap_err();
    assert_eq!(err.symbol, "aclInit");
    assert!(err.to_string().contains("aclInit"), "{err}");
    // The failure is cached and reported again, still without a panic.
    let mut count = 0u32;
    // SAFETY: `count` is a valid out-pointer.
    let again = unsafe { lib.aclrtGetDeviceCount(&mut count) }.unwrap_err();
    assert_eq!(again.symbol, "aclrtGetDeviceCount");
}

#[test]
fn opening_the_same_path_twice_returns_the_same_library() {
    let a = Library::open(ascendcl_mock::LIBRARY_PATH).unwrap();
    let b = Library::open(ascendcl_mock::LIBRARY_PATH).unwrap();
    assert!(std::ptr::eq(a, b));
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
    let pairs: Vec<(String, OsString)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

#[test]
fn ascendcl_library_is_the_only_candidate_when_set() {
    let env = env_of(&[
        (LIBRARY_ENV_VAR, "/opt/x/libascendcl.so"),
        ("ASCEND_TOOLKIT_HOME", "/usr"),
    ]);
    let list = ascendcl_sys::library::candidates(&env);
    assert_eq!(
        list,
        vec![(
            PathBuf::from("/opt/x/libascendcl.so"),
            LIBRARY_ENV_VAR.to_string()
        )]
    );
}

#[test]
fn cann_roots_come_in_documented_order_and_8_5_libraries_after_the_compat_one() {
    let dir = std::env::temp_dir().join(format!("ascendcl-sys-layout-{}", std::process::id()));
    let toolkit = dir.join("toolkit");
    let cann85 = dir.join("cann");
    std::fs::create_dir_all(toolkit.join("lib64")).unwrap();
    std::fs::create_dir_all(cann85.join("lib64")).unwrap();
    std::fs::write(toolkit.join("lib64/libascendcl.so"), b"").unwrap();
    std::fs::write(cann85.join("lib64/libascendcl.so"), b"").unwrap();
    std::fs::write(cann85.join("lib64/libacl_rt.so"), b"").unwrap();
    let env = env_of(&[
        ("ASCEND_HOME_PATH", cann85.to_str().unwrap()),
        ("ASCEND_TOOLKIT_HOME", toolkit.to_str().unwrap()),
        ("HOME", "/nonexistent-home"),
    ]);
    let roots = ascendcl_sys::cann::candidate_roots(&env);
    assert_eq!(roots[0].source, "ASCEND_TOOLKIT_HOME");
    assert_eq!(roots[1].source, "ASCEND_HOME_PATH");
    assert_eq!(roots[2].path, Path::new("/nonexistent-home/Ascend/cann"));
    assert_eq!(roots[0].layout(), ascendcl_sys::cann::Layout::Toolkit);
    assert_eq!(roots[1].layout(), ascendcl_sys::cann::Layout::Cann85);

    let list = ascendcl_sys::library::candidates(&env);
    let files: Vec<&Path> = list.iter().map(|(p, _)| p.as_path()).collect();
    assert_eq!(
        &files[..3],
        &[
            toolkit.join("lib64/libascendcl.so").as_path(),
            cann85.join("lib64/libascendcl.so").as_path(),
            cann85.join("lib64/libacl_rt.so").as_path()
        ]
    );
    assert_eq!(list.last().unwrap().1, "system loader");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs this test binary again, running only `child_reports_the_discovery_error`.
fn discovery_in_child(env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_reports_the_discovery_error",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("ASCENDCL_SYS_TEST_CHILD", "1")
    .env_remove(LIBRARY_ENV_VAR);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn child_reports_the_discovery_error() {
    if std::env::var_os("ASCENDCL_SYS_TEST_CHILD").is_none() {
        return;
    }
    match library() {
        Ok(lib) => println!("LOADED {}", lib.path().display()),
        Err(e) => println!("ERROR {e}"),
    }
}

#[test]
fn ascendcl_library_pointing_nowhere_fails_with_an_error_naming_that_path() {
    let out = discovery_in_child(&[(LIBRARY_ENV_VAR, "/nonexistent")]);
    assert!(
        out.contains("ERROR could not load the AscendCL runtime library"),
        "{out}"
    );
    assert!(
        out.contains("/nonexistent (from ASCENDCL_LIBRARY)"),
        "{out}"
    );
}

#[test]
fn ascendcl_library_selects_the_given_file() {
    let out = discovery_in_child(&[(LIBRARY_ENV_VAR, ascendcl_mock::LIBRARY_PATH)]);
    assert!(
        out.contains(&format!("LOADED {}", ascendcl_mock::LIBRARY_PATH)),
        "{out}"
    );
}

#[test]
fn the_system_loader_is_tried_last_and_the_chosen_file_is_reported() {
    let mock_dir = Path::new(ascendcl_mock::LIBRARY_PATH).parent().unwrap();
    let out = discovery_in_child(&[
        ("LD_LIBRARY_PATH", mock_dir.to_str().unwrap()),
        ("HOME", "/nonexistent-home"),
        ("ASCEND_TOOLKIT_HOME", ""),
        ("ASCEND_HOME_PATH", ""),
        ("ASCEND_INSTALL_PATH", ""),
    ]);
    if !Path::new("/usr/local/Ascend").exists() {
        // Found by bare name through LD_LIBRARY_PATH, reported as a full path.
        assert!(
            out.contains(&format!("LOADED {}", ascendcl_mock::LIBRARY_PATH)),
            "{out}"
        );
    }
}

#[test]
fn a_wrong_cann_root_is_listed_among_the_attempts() {
    let out = discovery_in_child(&[
        ("ASCEND_TOOLKIT_HOME", "/nonexistent-cann"),
        ("LD_LIBRARY_PATH", ""),
    ]);
    // On a machine with a real CANN the system loader may still succeed.
    if out.contains("ERROR") {
        assert!(
            out.contains("/nonexistent-cann (from ASCEND_TOOLKIT_HOME): directory does not exist"),
            "{out}"
        );
        assert!(out.contains("libascendcl.so (from system loader)"), "{out}");
    }
}

#[test]
fn the_not_found_error_lists_the_default_cann_roots_too() {
    let out = discovery_in_child(&[
        ("ASCEND_TOOLKIT_HOME", ""),
        ("ASCEND_HOME_PATH", ""),
        ("ASCEND_INSTALL_PATH", ""),
        ("HOME", "/nonexistent-home"),
        ("LD_LIBRARY_PATH", ""),
    ]);
    // On a machine with a real CANN a default root may hold the library.
    if out.contains("ERROR") {
        for root in [
            "/nonexistent-home/Ascend/cann (from $HOME/Ascend/cann)",
            "/nonexistent-home/Ascend/ascend-toolkit/latest (from $HOME/Ascend/ascend-toolkit/latest)",
            "/usr/local/Ascend/cann (from default location)",
            "/usr/local/Ascend/ascend-toolkit/latest (from default location)",
        ] {
            assert!(out.contains(root), "{root} missing in {out}");
        }
    }
}

#[test]
fn selecting_a_second_different_library_is_refused() {
    let out = {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            "child_selects_two_libraries",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ASCENDCL_SYS_TEST_CHILD", "1");
        cmd.output().unwrap()
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "SECOND cannot use libc.so.6: this process already uses the AscendCL library"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("SAME ok"), "{stdout}");
}

#[test]
fn child_selects_two_libraries() {
    if std::env::var_os("ASCENDCL_SYS_TEST_CHILD").is_none() {
        return;
    }
    ascendcl_sys::select_library(ascendcl_mock::LIBRARY_PATH).unwrap();
    match ascendcl_sys::select_library(NOT_ACL) {
        Ok(_) => println!("SECOND accepted"),
        Err(e) => println!("SECOND {e}"),
    }
    match ascendcl_sys::select_library(ascendcl_mock::LIBRARY_PATH) {
        Ok(_) => println!("SAME ok"),
        Err(e) => println!("SAME {e}"),
    }
}
