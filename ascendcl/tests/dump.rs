//! `ascendcl::dump` on the mock (feature `mock`): the dump callback's guard
//! and the args dump's, each undoing its registration when dropped.

use ascendcl::Runtime;
use ascendcl::dump::{ArgsDump, DumpCallback};

fn dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ascendcl-dump-{}-{name}", std::process::id()))
}

/// One test for the callback: its guard is process-wide (CANN keeps one
/// callback per process), so no other test here registers one.
#[test]
fn one_dump_callback_at_a_time_unregistered_when_its_guard_drops() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let m = rt.mock();
    let first = DumpCallback::register(rt.runtime(), |_| true)?;
    let second = DumpCallback::register(rt.runtime(), |_| true).unwrap_err();
    assert!(
        matches!(second, ascendcl::Error::InvalidState(_)),
        "{second}"
    );
    assert_eq!(
        m.call_count("acldumpRegCallback"),
        1,
        "refused before any call"
    );
    drop(first);
    assert_eq!(m.call_count("acldumpUnregCallback"), 1);
    let again = DumpCallback::register(rt.runtime(), |c| c.is_last())?;
    drop(again);
    assert_eq!(m.call_count("acldumpRegCallback"), 2);
    assert_eq!(m.call_count("acldumpUnregCallback"), 2);
    rt.check_clean()
}

/// aclopStartDumpArgs creates the directory; a second start is refused
/// (CANN 8.5.0 dump_manager.cpp:458-462: 500001); dropping the guard stops.
#[test]
fn the_args_dump_runs_while_its_guard_lives() -> ascendcl::Result<()> {
    let rt = Runtime::mock()?;
    let out = dir("args");
    let args = ArgsDump::start(rt.runtime(), &out)?;
    assert!(out.is_dir());
    let error = ArgsDump::start(rt.runtime(), &out).unwrap_err();
    assert_eq!(error.code(), Some(500001), "{error}");
    drop(args);
    assert_eq!(rt.mock().call_count("aclopStopDumpArgs"), 1);
    let args = ArgsDump::start(rt.runtime(), &out)?;
    args.stop()?;
    assert_eq!(rt.mock().call_count("aclopStopDumpArgs"), 2);
    for bad in ["", "a\0b"] {
        let error = ArgsDump::start(rt.runtime(), bad).unwrap_err();
        assert!(
            matches!(error, ascendcl::Error::InvalidArgument(_)),
            "{error}"
        );
    }
    assert_eq!(
        rt.mock().call_count("aclopStartDumpArgs"),
        3,
        "none for the bad paths"
    );
    let _ = std::fs::remove_dir_all(out);
    rt.check_clean()
}
