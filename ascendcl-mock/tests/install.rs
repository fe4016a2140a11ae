//! `install`: every library the build produced, and the C headers, at a
//! stable path, usable by a C program.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ascendcl-mock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn install_writes_every_listed_library_byte_identical_to_the_build() {
    let prefix = TempDir::new("identical");
    let installed = ascendcl_mock::install(&prefix.0).expect("install");
    assert_eq!(installed.library(), prefix.0.join("lib/libascendcl.so"));
    for library in ascendcl_mock::LIBRARIES {
        let copy = std::fs::read(prefix.0.join("lib").join(library.name)).expect("installed");
        let built = std::fs::read(library.path).expect("built");
        assert!(copy == built, "{} differs from the build", library.name);
        assert!(
            installed
                .files
                .contains(&installed.lib_dir.join(library.name))
        );
    }
    for header in [
        "acl/acl.h",
        "acl/acl_rt.h",
        "aclnn/aclnn.h",
        "hccl/hccl.h",
        "aclmock.h",
        "aclrecord.h",
    ] {
        assert!(
            installed.include_dir.join(header).is_file(),
            "{header} missing"
        );
    }
}

#[test]
fn libraries_lists_every_shared_library_the_build_produced() {
    let names: Vec<&str> = ascendcl_mock::LIBRARIES.iter().map(|l| l.name).collect();
    assert_eq!(names[0], "libascendcl.so");
    for required in [
        "libnnopbase.so",
        "libopapi.so",
        "libhcomm.so",
        "libhccl.so",
        "libmsprofiler.so",
        "libascendcl_record.so",
    ] {
        assert!(names.contains(&required), "{required} is not listed");
    }
    for entry in std::fs::read_dir(ascendcl_mock::library_dir()).expect("build dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("UTF-8");
        if name.ends_with(".so") {
            assert!(
                names.contains(&name.as_str()),
                "{name} was built but is not listed"
            );
        }
    }
    assert_eq!(
        ascendcl_mock::find_library("libopapi.so").map(|l| l.path),
        Some(ascendcl_mock::OPAPI_PATH)
    );
    assert!(ascendcl_mock::find_library("libcuda.so").is_none());
}

#[test]
fn install_again_replaces_the_files_and_leaves_no_temporary_files() {
    let prefix = TempDir::new("again");
    ascendcl_mock::install(&prefix.0).expect("first install");
    let library = prefix.0.join("lib/libascendcl.so");
    std::fs::write(&library, b"stale").expect("overwrite");
    ascendcl_mock::install(&prefix.0).expect("second install");
    let bytes = std::fs::read(&library).expect("installed");
    assert_eq!(
        bytes,
        std::fs::read(ascendcl_mock::LIBRARY_PATH).expect("built")
    );
    let leftovers: Vec<_> = std::fs::read_dir(prefix.0.join("lib"))
        .expect("lib dir")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn install_under_a_file_fails_naming_the_path_with_a_hint() {
    let dir = TempDir::new("file");
    let file = dir.0.join("not-a-directory");
    std::fs::write(&file, b"").expect("file");
    let error = ascendcl_mock::install(&file).unwrap_err();
    assert!(error.path.starts_with(&file), "{}", error.path.display());
    let text = error.to_string();
    assert!(
        text.contains("not-a-directory") && text.contains("--prefix"),
        "{text}"
    );
}

#[test]
fn shell_exports_point_ascendcl_library_and_ld_library_path_at_the_install() {
    let installed = ascendcl_mock::Installation {
        lib_dir: PathBuf::from("/opt/it's/lib"),
        include_dir: PathBuf::from("/opt/it's/include"),
        files: Vec::new(),
    };
    assert_eq!(
        installed.shell_exports(),
        "export ASCENDCL_LIBRARY='/opt/it'\\''s/lib/libascendcl.so'\n\
         export LD_LIBRARY_PATH='/opt/it'\\''s/lib'${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n"
    );
}

/// The C compiler the build used (`CC`), else `cc`.
fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

#[test]
fn a_c_program_builds_and_runs_on_the_installed_mock_including_a_fault() {
    let prefix = TempDir::new("c-program");
    let installed = ascendcl_mock::install(&prefix.0).expect("install");
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/c-and-python/mock_roundtrip.c");
    let exe = prefix.0.join("mock_roundtrip");
    let status = Command::new(c_compiler())
        .arg("-Wall")
        .arg("-Werror")
        .arg(&source)
        .arg("-I")
        .arg(&installed.include_dir)
        .arg("-L")
        .arg(&installed.lib_dir)
        .arg("-lascendcl")
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("a C compiler (the build used one)");
    assert!(status.success(), "compiling {} failed", source.display());
    let output = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &installed.lib_dir)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("mock_roundtrip: ok"), "{stdout}");
}
