//! Build script of `ascendcl-sys`.
//!
//! Nothing is linked: the AscendCL library is opened at run time (see
//! `src/library.rs`), so this crate builds on machines with no CANN, no
//! libclang and on docs.rs. The build script only chooses the bindings.
//!
//! # Bindings
//! * default: the committed `src/bindings/{types,functions}.rs`, generated from
//!   our declaration header `include/acl/acl.h`;
//! * feature `bindgen`: regenerated into `OUT_DIR` with bindgen (needs
//!   libclang), from CANN's own headers when an install is found, else from
//!   `include/acl/acl.h`. On docs.rs the committed bindings are always used.
//!
//! # Environment variables read (each is registered with `rerun-if-env-changed`)
//! | variable | effect |
//! |---|---|
//! | `ASCEND_TOOLKIT_HOME` | CANN root (set by CANN's `set_env.sh`); first choice for headers |
//! | `ASCEND_HOME_PATH` | CANN root, second choice |
//! | `ASCEND_INSTALL_PATH` | CANN root, third choice |
//! | `HOME` | for `$HOME/Ascend/cann` and `$HOME/Ascend/ascend-toolkit/latest` |
//! | `DOCS_RS` | set on docs.rs: never run bindgen there |
//!
//! After the variables, `/usr/local/Ascend/cann` and
//! `/usr/local/Ascend/ascend-toolkit/latest` are looked at. Only the `bindgen`
//! feature uses the CANN headers; a plain build only reports what it found.
//!
//! # Metadata published to dependents (`links = "ascendcl"`)
//! | `DEP_ASCENDCL_*` | value |
//! |---|---|
//! | `INCLUDE` | include directory (parent of `acl/`) of the headers the bindings came from |
//! | `DECL_INCLUDE` | include directory of our own declaration header |
//! | `BINDINGS_SOURCE` | `committed`, `ours` (regenerated from our header) or `cann` |
//! | `CANN_ROOT` | the CANN root whose headers were found, if any |

use std::env;
use std::ffi::OsString;
use std::path::PathBuf;

#[allow(dead_code)]
#[path = "src/cann.rs"]
mod cann;

#[cfg(feature = "bindgen")]
#[allow(dead_code)]
#[path = "bindgen_config.rs"]
mod bindgen_config;

/// Reads an environment variable and asks Cargo to rerun when it changes.
fn tracked_env(name: &str) -> Option<OsString> {
    println!("cargo::rerun-if-env-changed={name}");
    env::var_os(name)
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-changed=bindgen_config.rs");
    println!("cargo::rerun-if-changed=src/cann.rs");
    println!("cargo::rustc-check-cfg=cfg(ascendcl_regenerated_bindings)");
    println!("cargo::rustc-check-cfg=cfg(ascendcl_libclang)");
    println!("cargo::rustc-check-cfg=cfg(ascendcl_cann_headers)");

    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let our_include = manifest_dir.join("include");
    let docs_rs = tracked_env("DOCS_RS").is_some();
    let cann = cann::find_headers(&tracked_env);

    println!("cargo::metadata=decl_include={}", our_include.display());
    if let Some((root, _)) = &cann {
        println!("cargo::metadata=cann_root={}", root.path.display());
        // The bindings drift tests that compare with CANN's headers can run.
        println!("cargo::rustc-cfg=ascendcl_cann_headers");
    }
    // The bindings drift tests need libclang: without it they are marked
    // ignored (and say why) instead of passing without checking anything.
    // CI sets ASCENDCL_REQUIRE_LIBCLANG so that they run, and fail, if it
    // cannot be loaded.
    if tracked_env("ASCENDCL_REQUIRE_LIBCLANG").is_some() || libclang_present() {
        println!("cargo::rustc-cfg=ascendcl_libclang");
    }

    let (include, source) = if cfg!(feature = "bindgen") && !docs_rs {
        let (include, source) = match &cann {
            Some((_, include)) => (include.clone(), "cann"),
            None => (our_include.clone(), "ours"),
        };
        regenerate(&include);
        println!("cargo::rustc-cfg=ascendcl_regenerated_bindings");
        (include, source)
    } else {
        (our_include.clone(), "committed")
    };
    println!("cargo::metadata=include={}", include.display());
    println!("cargo::metadata=bindings_source={source}");
}

/// Whether a libclang shared library is where bindgen's loader (clang-sys)
/// looks: `LIBCLANG_PATH`, then the usual system and LLVM directories.
fn libclang_present() -> bool {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(path) = tracked_env("LIBCLANG_PATH") {
        let path = PathBuf::from(path);
        if path.is_file() {
            return true;
        }
        dirs.push(path);
    }
    for dir in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
        "/usr/local/lib64",
    ] {
        dirs.push(PathBuf::from(dir));
    }
    for parent in ["/usr/lib", "/usr/local", "/opt"] {
        if let Ok(entries) = std::fs::read_dir(parent) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with("llvm") {
                    dirs.push(entry.path().join("lib"));
                }
            }
        }
    }
    dirs.iter().any(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                // libclang.so, libclang.so.14, libclang-14.so, libclang-14.so.1
                // — not libclang-cpp.
                let rest = name.strip_prefix("libclang").unwrap_or("");
                name.starts_with("libclang")
                    && name.contains(".so")
                    && (rest.starts_with(".so")
                        || rest
                            .strip_prefix('-')
                            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit())))
            })
        })
    })
}

#[cfg(feature = "bindgen")]
fn regenerate(include: &std::path::Path) {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let ours = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include");
    for pass in bindgen_config::Pass::ALL {
        // HCCL: CANN's headers (C++ only) when installed, else ours (C).
        let (include, cxx) = match pass.is_hccl() {
            true if include.join("hccl/hccl_types.h").is_file() => (include, true),
            true => (ours.as_path(), false),
            false => (include, false),
        };
        let cxx_args: &[&str] = if cxx { &bindgen_config::CXX_ARGS } else { &[] };
        let bindings = bindgen_config::builder(include, pass)
            .clang_args(cxx_args)
            .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
            .generate()
            .unwrap_or_else(|e| {
                panic!(
                    "bindgen failed on {}/acl/acl.h: {e}\n\
                     The `bindgen` feature needs libclang (Debian: apt-get install libclang-dev); \
                     build without it to use the committed bindings.",
                    include.display()
                )
            });
        let file = out_dir.join(pass.file_name());
        bindings
            .write_to_file(&file)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
}

#[cfg(not(feature = "bindgen"))]
fn regenerate(_include: &std::path::Path) {
    unreachable!("regenerate is only called with the bindgen feature");
}
