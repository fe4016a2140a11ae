//! `ascendcl::profiling::{mark, step}` on the mock's profiler (feature
//! `mock`): msproftx markers and steps inside a profiling session, their C
//! handles always given back.

use ascendcl::mock::MockRuntime;
use ascendcl::profiling::{MARK_MESSAGE_MAX, ProfileConfig, mark, profile, step};
use ascendcl::sys::{ACL_PROF_ACL_API, ACL_PROF_MSPROFTX, ACL_PROF_TASK_TIME};
use ascendcl::{Device, Runtime, Stream};

fn dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "ascendcl-profiling-tx-{}-{name}",
        std::process::id()
    ))
}

fn tx_config(name: &str) -> ProfileConfig {
    let types = u64::from(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
    ProfileConfig::new(dir(name)).data_types(types)
}

fn stream(rt: &MockRuntime) -> ascendcl::Result<Stream> {
    let device = Device::open(rt.runtime(), 0)?;
    Stream::new(&device.default_context())
}

fn count(rt: &MockRuntime, f: &str) -> u64 {
    rt.mock().call_count(f)
}

/// CANN's example/profiling/1_msproftx/main.cpp through the safe API: a step
/// around two marks; every stamp and the step record are given back.
#[test]
fn marks_in_a_step_of_a_msproftx_session_are_journaled_and_their_handles_given_back()
-> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let s = stream(&rt)?;
    let config = tx_config("ok");
    profile(rt.runtime(), &config, || {
        step(rt.runtime(), &s, || -> ascendcl::Result<()> {
            mark(rt.runtime(), "model_load_mark")?;
            mark(rt.runtime(), "model_exec_mark")
        })?
    })??;
    let marks: Vec<String> = rt
        .mock()
        .journal()
        .iter()
        .filter(|e| e.function() == "aclprofMark" && e.ret() == 0)
        .map(|e| e.raw_field("args").unwrap_or("").to_string())
        .collect();
    assert_eq!(marks.len(), 2);
    assert!(marks[0].contains("model_load_mark"), "{}", marks[0]);
    assert!(marks[1].contains("model_exec_mark"), "{}", marks[1]);
    assert_eq!(count(&rt, "aclprofCreateStamp"), 2);
    assert_eq!(count(&rt, "aclprofDestroyStamp"), 2);
    assert_eq!(count(&rt, "aclprofGetStepTimestamp"), 2);
    assert_eq!(count(&rt, "aclprofDestroyStepInfo"), 1);
    let _ = std::fs::remove_dir_all(dir("ok"));
    drop(s);
    rt.check_clean()
}

/// Without a started config that has ACL_PROF_MSPROFTX the collector gives
/// no stamp (CANN 8.5.0 msprof_tx_manager.cpp:91-99): an AclError of
/// aclprofCreateStamp, code -1, and nothing to give back.
#[test]
fn a_mark_outside_a_msproftx_session_is_refused_by_aclprof_create_stamp() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let error = mark(rt.runtime(), "early").unwrap_err();
    assert_eq!(error.code(), Some(-1), "{error}");
    assert!(error.to_string().contains("aclprofCreateStamp"), "{error}");
    let plain = ProfileConfig::new(dir("plain"));
    let inside = profile(rt.runtime(), &plain, || mark(rt.runtime(), "no tx"))?;
    assert_eq!(inside.unwrap_err().code(), Some(-1));
    assert_eq!(count(&rt, "aclprofCreateStamp"), 2);
    assert_eq!(count(&rt, "aclprofDestroyStamp"), 0);
    let _ = std::fs::remove_dir_all(dir("plain"));
    rt.check_clean()
}

/// A message must fit CANN's 127-byte copy with its NUL
/// (msprof_tx_manager.cpp:175-188) and hold no NUL byte: refused first.
#[test]
fn a_long_or_nul_holding_message_is_an_invalid_argument_before_any_call() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let config = tx_config("bad");
    let longest = "m".repeat(MARK_MESSAGE_MAX);
    let (a, b, c) = profile(rt.runtime(), &config, || {
        (
            mark(rt.runtime(), &"m".repeat(MARK_MESSAGE_MAX + 1)),
            mark(rt.runtime(), "a\0b"),
            mark(rt.runtime(), &longest),
        )
    })?;
    for e in [a.unwrap_err(), b.unwrap_err()] {
        assert!(matches!(e, ascendcl::Error::InvalidArgument(_)), "{e}");
    }
    c?;
    assert_eq!(count(&rt, "aclprofCreateStamp"), 1, "only the valid one");
    let _ = std::fs::remove_dir_all(dir("bad"));
    rt.check_clean()
}

/// A panic in the step still takes its end and destroys its record.
#[test]
fn a_panicking_step_takes_its_end_and_destroys_its_record() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let s = stream(&rt)?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = step(rt.runtime(), &s, || panic!("in the step"));
    }));
    assert!(caught.is_err());
    assert_eq!(count(&rt, "aclprofGetStepTimestamp"), 2);
    assert_eq!(count(&rt, "aclprofDestroyStepInfo"), 1);
    let ends = rt
        .mock()
        .journal()
        .iter()
        .filter(|e| e.function() == "aclprofGetStepTimestamp" && e.ret() == 0)
        .count();
    assert_eq!(ends, 2, "start and end both taken");
    drop(s);
    rt.check_clean()
}
