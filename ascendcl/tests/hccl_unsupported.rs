//! A CANN whose HCCL lacks a function: the safe layer answers with
//! `Error::NotSupported` naming it, never a panic. Uses a fake `libhccl.so`
//! (compiled here) that exports only `HcclGetRootInfo`, selected with
//! `ASCENDCL_HCCL_DIR` before HCCL is first used in this test binary.

mod common;

use std::process::Command;

use ascendcl::Error;
use ascendcl::hccl::{Communicator, RootInfo};

const FAKE_HCCL: &str = "\
int HcclGetRootInfo(char *info) { for (int i = 0; i < 4108; i++) info[i] = (char)(i % 7); return 0; }\n";

#[test]
fn functions_this_hccl_lacks_are_not_supported_errors_naming_them() {
    let dir = std::env::temp_dir().join(format!("ascendcl-fake-hccl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("fake_hccl.c");
    std::fs::write(&source, FAKE_HCCL).unwrap();
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libhccl.so"))
        .arg(&source)
        .status()
        .expect("a C compiler");
    assert!(status.success());
    // SAFETY: the only test of this binary sets it before starting threads
    // that read the environment.
    unsafe { std::env::set_var("ASCENDCL_HCCL_DIR", &dir) };

    common::check(|env| {
        let device = ascendcl::Device::open(&env.rt, 0)?;
        let root = RootInfo::new(&device)?;
        assert_eq!(root.as_bytes()[8], 1);
        let error = Communicator::init_root_info(&device, &root, 1, 0).expect_err("missing");
        assert!(error.is_not_supported(), "{error}");
        match &error {
            Error::NotSupported { source } => assert_eq!(source.symbol, "HcclCommInitRootInfo"),
            other => panic!("{other}"),
        }
        assert!(
            error.to_string().contains("not supported by this CANN"),
            "{error}"
        );
        let error = Communicator::init_all(&[device]).expect_err("missing");
        assert!(error.to_string().contains("HcclCommInitAll"), "{error}");
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
}
