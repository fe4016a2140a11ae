//! `ascendcl::profiling::profile` on the mock's profiler (feature `mock`):
//! profiling is on exactly around the closure, and every path leaves it off.

use ascendcl::Runtime;
use ascendcl::mock::{Fault, MockRuntime};
use ascendcl::profiling::{ProfileConfig, profile};
use ascendcl::sys::ACL_ERROR_INVALID_PARAM;

fn dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ascendcl-profiling-{}-{name}", std::process::id()))
}

/// The number of calls of each aclprof function, in a fixed order.
fn counts(rt: &MockRuntime) -> [u64; 6] {
    let m = rt.mock();
    [
        "aclprofInit",
        "aclprofCreateConfig",
        "aclprofStart",
        "aclprofStop",
        "aclprofDestroyConfig",
        "aclprofFinalize",
    ]
    .map(|f| m.call_count(f))
}

#[test]
fn profile_runs_the_closure_between_start_and_stop_and_returns_its_value() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let out = dir("ok");
    let config = ProfileConfig::new(&out).devices(&[0]);
    let seen = profile(rt.runtime(), &config, || counts(&rt))?;
    assert_eq!(seen, [1, 1, 1, 0, 0, 0], "inside: started, not stopped");
    assert_eq!(
        counts(&rt),
        [1, 1, 1, 1, 1, 1],
        "after: stopped, destroyed, finalised"
    );
    assert!(out.is_dir(), "the output directory is created");
    // profiling is off again: a second session works
    profile(rt.runtime(), &config, || ())?;
    let _ = std::fs::remove_dir_all(out);
    rt.check_clean()
}

#[test]
fn a_refused_config_finalises_profiling_and_names_the_call() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let config = ProfileConfig::new(dir("bad")).devices(&[0, 0]);
    let error = profile(rt.runtime(), &config, || ()).unwrap_err();
    assert_eq!(error.code(), Some(ACL_ERROR_INVALID_PARAM), "{error}");
    assert!(error.to_string().contains("aclprofCreateConfig"), "{error}");
    assert_eq!(counts(&rt), [1, 1, 0, 0, 0, 1], "nothing left initialised");
    let _ = std::fs::remove_dir_all(dir("bad"));
    rt.check_clean()
}

#[test]
fn a_failed_start_destroys_the_config_and_finalises() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    rt.inject(Fault::nth("aclprofStart", 1, 100000))?;
    let error = profile(rt.runtime(), &ProfileConfig::new(dir("start")), || ()).unwrap_err();
    assert_eq!(error.code(), Some(100000), "{error}");
    assert_eq!(counts(&rt), [1, 1, 1, 0, 1, 1]);
    let _ = std::fs::remove_dir_all(dir("start"));
    rt.check_clean()
}

#[test]
fn a_path_with_a_nul_byte_is_an_invalid_argument_before_any_call() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let error = profile(rt.runtime(), &ProfileConfig::new("bad\0dir"), || ()).unwrap_err();
    assert!(
        matches!(error, ascendcl::Error::InvalidArgument(_)),
        "{error:?}"
    );
    assert_eq!(counts(&rt), [0; 6]);
    rt.check_clean()
}

#[test]
fn options_are_set_after_init_and_before_start_and_bad_ones_are_refused_before_any_call()
-> ascendcl::Result<()> {
    use ascendcl::sys::aclprofConfigType as K;
    let rt = Runtime::mock()?;
    let out = dir("options");
    let config = ProfileConfig::new(&out)
        .option(K::ACL_PROF_STORAGE_LIMIT, "200")
        .option(K::ACL_PROF_HOST_SYS, "cpu,mem");
    profile(rt.runtime(), &config, || ())?;
    let calls: Vec<String> = rt
        .mock()
        .journal()
        .iter()
        .map(|e| e.function().to_string())
        .filter(|f| f.starts_with("aclprof"))
        .collect();
    assert_eq!(
        &calls[..4],
        [
            "aclprofInit",
            "aclprofSetConfig",
            "aclprofSetConfig",
            "aclprofCreateConfig"
        ]
    );
    for bad in [
        ProfileConfig::new(&out).option(K::ACL_PROF_ARGS_MAX, "1"),
        ProfileConfig::new(&out).option(K::ACL_PROF_STORAGE_LIMIT, &"9".repeat(257)),
        ProfileConfig::new(&out).option(K::ACL_PROF_STORAGE_LIMIT, "2\u{0}00"),
    ] {
        let before = rt.mock().call_count("aclprofInit");
        let error = profile(rt.runtime(), &bad, || ()).unwrap_err();
        assert!(
            matches!(error, ascendcl::Error::InvalidArgument(_)),
            "{error}"
        );
        assert_eq!(rt.mock().call_count("aclprofInit"), before, "no call");
    }
    let _ = std::fs::remove_dir_all(out);
    rt.check_clean()
}
