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

    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let our_include = manifest_dir.join("include");
    let docs_rs = tracked_env("DOCS_RS").is_some();
    let cann = cann::find_headers(&tracked_env);

    println!("cargo::metadata=decl_include={}", our_include.display());
    if let Some((root, _)) = &cann {
        println!("cargo::metadata=cann_root={}", root.path.display());
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
