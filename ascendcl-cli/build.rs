//! Build script of `ascendcl-cli`: bundles the mock into the `ascendcl` binary.
//!
//! `cargo install` deletes its build directory once the binary is installed,
//! so the paths where ascendcl-mock built its libraries would dangle in an
//! installed `ascendcl`. The libraries are therefore embedded in the binary
//! (`include_bytes!` in `src/bundled.rs`) and written to a cache directory
//! the first time `--mock`, `trace replay` or `trace record` needs them.
//!
//! # Environment variables read
//! | variable | effect |
//! |---|---|
//! | `DEP_ASCENDCL_MOCK_LIBRARY` | the mock `libascendcl.so` (ascendcl-mock's `library` metadata) |
//! | `DEP_ASCENDCL_MOCK_NNOPBASE` | the mock `libnnopbase.so` |
//! | `DEP_ASCENDCL_MOCK_OPAPI` | the mock `libopapi.so` |
//! | `DEP_ASCENDCL_MOCK_RECORDER` | the recording shim `libascendcl_record.so` |
//!
//! # Published
//! * `rustc-env` `ASCENDCL_CLI_BUNDLED_<NAME>` for each variable above: the
//!   file to embed;
//! * `rustc-env` `ASCENDCL_CLI_BUNDLE_ID`: a hash of the four files, naming
//!   the cache directory so that two builds never share one.

use std::env;

/// (metadata variable, name of the `rustc-env` that carries the path).
const FILES: [(&str, &str); 4] = [
    ("DEP_ASCENDCL_MOCK_LIBRARY", "ASCENDCL_CLI_BUNDLED_LIBRARY"),
    (
        "DEP_ASCENDCL_MOCK_NNOPBASE",
        "ASCENDCL_CLI_BUNDLED_NNOPBASE",
    ),
    ("DEP_ASCENDCL_MOCK_OPAPI", "ASCENDCL_CLI_BUNDLED_OPAPI"),
    (
        "DEP_ASCENDCL_MOCK_RECORDER",
        "ASCENDCL_CLI_BUNDLED_RECORDER",
    ),
];

fn main() {
    // FNV-1a over every file: cheap, and only has to tell builds apart.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (metadata, rustc_env) in FILES {
        println!("cargo::rerun-if-env-changed={metadata}");
        let path = env::var(metadata).unwrap_or_else(|_| {
            panic!("ascendcl-mock publishes {metadata} (its `links` metadata)")
        });
        println!("cargo::rerun-if-changed={path}");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        for byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        println!("cargo::rustc-env={rustc_env}={path}");
    }
    println!("cargo::rustc-env=ASCENDCL_CLI_BUNDLE_ID={hash:016x}");
}
