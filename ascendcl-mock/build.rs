//! Build script of `ascendcl-mock`: compiles `csrc/*.c` into a shared library
//! named `libascendcl.so` in `OUT_DIR`.
//!
//! The C sources include `<acl/acl.h>` from the include directory that
//! `ascendcl-sys` publishes (`DEP_ASCENDCL_INCLUDE`): our declaration header by
//! default, CANN's own headers when ascendcl-sys regenerates its bindings from
//! them, so a signature that differs from CANN's is a compile error here too.
//!
//! # Environment variables read
//! | variable | effect |
//! |---|---|
//! | `DEP_ASCENDCL_INCLUDE` | set by Cargo from ascendcl-sys's `include` metadata |
//! | `CC`, `CFLAGS` (and the target-prefixed forms) | read by the `cc` crate |
//!
//! # Published
//! * `rustc-env` `ASCENDCL_MOCK_LIBRARY_PATH`: the library, for this crate's code;
//! * metadata `library` (`DEP_ASCENDCL_MOCK_LIBRARY` for dependents): the same path.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=csrc");
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-env-changed=DEP_ASCENDCL_INCLUDE");

    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let acl_include = PathBuf::from(
        env::var_os("DEP_ASCENDCL_INCLUDE").expect("ascendcl-sys publishes its include directory"),
    );

    let mut sources: Vec<PathBuf> = std::fs::read_dir(manifest_dir.join("csrc"))
        .expect("csrc/ exists")
        .map(|e| e.expect("readable csrc entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();

    let compiler = cc::Build::new()
        .opt_level(2)
        .debug(true)
        .pic(true)
        .warnings(true)
        .extra_warnings(true)
        .get_compiler();
    let library = out_dir.join("libascendcl.so");
    let mut cmd = compiler.to_command();
    cmd.arg("-std=gnu11")
        .arg("-shared")
        .arg("-fvisibility=hidden")
        .arg("-pthread")
        .arg("-Werror=implicit-function-declaration")
        .arg("-Werror=incompatible-pointer-types")
        .arg("-Werror=int-conversion")
        .arg("-Wno-unused-parameter")
        .arg("-Wl,-soname,libascendcl.so")
        .arg("-I")
        .arg(&acl_include)
        .arg("-I")
        .arg(manifest_dir.join("include"))
        .arg("-I")
        .arg(manifest_dir.join("csrc"))
        .arg("-o")
        .arg(&library)
        .args(&sources)
        .arg("-lpthread")
        .arg("-lm");
    let status = Command::new(cmd.get_program())
        .args(cmd.get_args())
        .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {:?}: {e}", cmd.get_program()));
    assert!(status.success(), "compiling the mock failed: {cmd:?}");

    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_LIBRARY_PATH={}",
        library.display()
    );
    println!("cargo::metadata=library={}", library.display());
}
