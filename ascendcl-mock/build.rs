//! Build script of `ascendcl-mock`: compiles `csrc/*.c` into a shared library
//! named `libascendcl.so` in `OUT_DIR`, the recording shim `csrc/record/*.c`
//! into `libascendcl_record.so`, and `tests/c/record_probe.c` (a C program
//! linked against the mock, for the shim's `LD_PRELOAD` test), and every
//! `tests/c/foreign_*.c` (programs recorded and replayed by `tests/foreign.rs`).
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
//! | `DEP_ASCENDCL_DECL_INCLUDE` | ascendcl-sys's own declaration headers (installed with the mock) |
//! | `CC`, `CFLAGS` (and the target-prefixed forms) | read by the `cc` crate |
//!
//! # Published
//! * `rustc-env` `ASCENDCL_MOCK_LIBRARY_PATH`: the library, for this crate's code;
//! * metadata `library` (`DEP_ASCENDCL_MOCK_LIBRARY` for dependents): the same path;
//! * `rustc-env` `ASCENDCL_RECORDER_LIBRARY_PATH` and metadata `recorder`: the shim;
//! * `rustc-env` `ASCENDCL_RECORD_PROBE_PATH`: the probe program;
//! * `rustc-env` `ASCENDCL_FOREIGN_<NAME>_PATH`: `tests/c/foreign_<name>.c` built;
//! * `rustc-env` `ASCENDCL_MOCK_NNOPBASE_PATH` and metadata `nnopbase`: the
//!   mock's `libnnopbase.so` (`csrc/ops/nn_*.c`: aclnn descriptors, executors);
//! * `rustc-env` `ASCENDCL_MOCK_OPAPI_PATH` and metadata `opapi`: the mock's
//!   `libopapi.so` (`csrc/ops/op_*.c`: the aclnn operators). Both sit next to
//!   `libascendcl.so`, link it by its soname with rpath `$ORIGIN`, and share
//!   its device state through its `aclmock_*` entry points (`csrc/ext_ops.c`).
//! * `rustc-env` `ASCENDCL_MOCK_HCOMM_PATH` and metadata `hcomm`: the mock's
//!   `libhcomm.so` (`csrc/hccl/comm_*.c`: HCCL communicators, the rendezvous
//!   hub); `ASCENDCL_MOCK_HCCL_PATH` and metadata `hccl`: its `libhccl.so`
//!   (`csrc/hccl/coll_*.c`: the collectives), which links `libhcomm.so`. Both
//!   sit next to `libascendcl.so` and share its state (`csrc/ext_hccl.c`).
//! * `rustc-env` `ASCENDCL_MOCK_PROFILER_PATH` and metadata `profiler`: the
//!   mock's `libmsprofiler.so` (`csrc/prof/*.c`: the `aclprof*` functions of
//!   `acl/acl_prof.h`), beside `libascendcl.so` like CANN's, journaled
//!   through the same entry points.
//! * `rustc-env` `ASCENDCL_MOCK_DVPP_PATH` and metadata `dvpp`: the mock's
//!   `libacl_dvpp_op.so` (`csrc/dvpp/*.c`: the acldvppop operators, with a
//!   baseline JPEG decoder of our own), beside `libascendcl.so`, built on the
//!   aclnn operator helpers of `csrc/ops/op_common.c`.
//! * `OUT_DIR/mock_libraries.rs`: [`SHARED_LIBRARIES`] with their built paths
//!   (the crate's `LIBRARIES`), and `OUT_DIR/mock_embedded.rs`: their bytes and
//!   the C headers (ours and `ascendcl-sys`'s), which the `ascendcl-mock`
//!   binary writes out with `install`.
//!
//! # Packaged builds
//! `tests/c/` (the record probe and the foreign programs) is for this
//! repository's tests only and is not in the published package: when it is
//! absent those programs are not built, and nothing else needs them.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Every shared library this script builds into `OUT_DIR`, with what it is:
/// the one list that the crate's `LIBRARIES`, `ascendcl-mock install` and
/// `ascendcl-mock path` follow. A library built below and missing here fails
/// the build (see [`write_library_lists`]).
const SHARED_LIBRARIES: &[(&str, &str)] = &[
    (
        "libascendcl.so",
        "the mock AscendCL runtime: point ASCENDCL_LIBRARY at it, or link -lascendcl",
    ),
    (
        "libnnopbase.so",
        "the mock's aclnn descriptors and executors (beside libascendcl.so)",
    ),
    (
        "libopapi.so",
        "the mock's aclnn operators (beside libascendcl.so)",
    ),
    (
        "libhcomm.so",
        "the mock's HCCL communicators (beside libascendcl.so)",
    ),
    (
        "libhccl.so",
        "the mock's HCCL collectives (beside libhcomm.so and libascendcl.so)",
    ),
    (
        "libmsprofiler.so",
        "the mock's profiling API, acl/acl_prof.h (beside libascendcl.so)",
    ),
    (
        "libacl_dvpp_op.so",
        "the mock's DVPP operators, acldvppop (beside libascendcl.so)",
    ),
    (
        "libascendcl_record.so",
        "the recording shim: LD_PRELOAD it in front of a real CANN to write a trace",
    ),
    (
        "libhccl_record.so",
        "the recording shim's HCCL face: name it libhccl.so beside libascendcl_record.so",
    ),
    (
        "libnnopbase_record.so",
        "the recording shim's aclnn descriptor face: name it libnnopbase.so beside libascendcl_record.so",
    ),
    (
        "libopapi_record.so",
        "the recording shim's aclnn operator face: name it libopapi.so beside libascendcl_record.so",
    ),
];

fn main() {
    let started = SystemTime::now();
    println!("cargo::rerun-if-changed=csrc");
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-env-changed=DEP_ASCENDCL_INCLUDE");
    println!("cargo::rerun-if-env-changed=DEP_ASCENDCL_DECL_INCLUDE");

    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let acl_include = PathBuf::from(
        env::var_os("DEP_ASCENDCL_INCLUDE").expect("ascendcl-sys publishes its include directory"),
    );

    let compiler = cc::Build::new()
        .opt_level(2)
        .debug(true)
        .pic(true)
        .warnings(true)
        .extra_warnings(true)
        .get_compiler();
    let includes = [
        acl_include.clone(),
        manifest_dir.join("include"),
        manifest_dir.join("csrc"),
    ];
    let csrc = manifest_dir.join("csrc");
    let build = Libraries {
        compiler: &compiler,
        includes: &includes,
        out_dir: &out_dir,
    };

    let library = build.shared(
        "libascendcl.so",
        &c_sources(&csrc, ""),
        &["-lpthread", "-lm", "-ldl"],
    );
    publish("ASCENDCL_MOCK_LIBRARY_PATH", "library", &library);

    // Shared with the mock: the shim writes the same JSON text.
    let mut shim_sources = c_sources(&csrc.join("record"), "");
    shim_sources.push(csrc.join("json_quote.c"));
    shim_sources.push(csrc.join("launch_key.c"));
    let recorder = build.shared(
        "libascendcl_record.so",
        &shim_sources,
        &["-lpthread", "-ldl"],
    );
    publish("ASCENDCL_RECORDER_LIBRARY_PATH", "recorder", &recorder);
    // The HCCL face of the shim: no code of its own, it needs the shim (see
    // csrc/record_hccl/hccl_record.c), so a loader opening it as libhccl.so
    // resolves every Hccl symbol to the shim's wrapper.
    build.shared(
        "libhccl_record.so",
        &[csrc.join("record_hccl").join("hccl_record.c")],
        &["-Wl,--no-as-needed", "-l:libascendcl_record.so"],
    );
    // Its aclnn faces, the same way: a loader opening libnnopbase.so and
    // libopapi.so from ASCENDCL_ACLNN_DIR reaches the shim's wrappers.
    for face in ["libnnopbase_record.so", "libopapi_record.so"] {
        build.shared(
            face,
            &[csrc.join("record_aclnn").join("aclnn_record.c")],
            &["-Wl,--no-as-needed", "-l:libascendcl_record.so"],
        );
    }

    // The aclnn libraries (csrc/ops/): nn_*.c -> libnnopbase.so, op_*.c ->
    // libopapi.so; element conversions are compiled into both.
    let ops_dir = csrc.join("ops");
    let dtype = ops_dir.join("dtype.c");
    let with_dtype = |mut v: Vec<PathBuf>| {
        v.push(dtype.clone());
        v
    };
    let nnopbase = build.shared(
        "libnnopbase.so",
        &with_dtype(c_sources(&ops_dir, "nn_")),
        &["-l:libascendcl.so", "-lm"],
    );
    publish("ASCENDCL_MOCK_NNOPBASE_PATH", "nnopbase", &nnopbase);
    let opapi = build.shared(
        "libopapi.so",
        &with_dtype(c_sources(&ops_dir, "op_")),
        &["-l:libnnopbase.so", "-l:libascendcl.so", "-lm"],
    );
    publish("ASCENDCL_MOCK_OPAPI_PATH", "opapi", &opapi);

    // The HCCL libraries (csrc/hccl/): comm_*.c -> libhcomm.so (with the
    // f16/bf16 conversions of its reductions), coll_*.c -> libhccl.so, which
    // links libhcomm.so (a dlsym on libhccl's handle also finds the
    // communicator symbols, as with CANN's split libraries).
    let hccl_dir = csrc.join("hccl");
    let hcomm = build.shared(
        "libhcomm.so",
        &with_dtype(c_sources(&hccl_dir, "comm_")),
        &["-l:libascendcl.so", "-lpthread", "-lm"],
    );
    publish("ASCENDCL_MOCK_HCOMM_PATH", "hcomm", &hcomm);
    let hccl = build.shared(
        "libhccl.so",
        &c_sources(&hccl_dir, "coll_"),
        &[
            "-Wl,--no-as-needed",
            "-l:libhcomm.so",
            "-l:libascendcl.so",
            "-lpthread",
        ],
    );
    publish("ASCENDCL_MOCK_HCCL_PATH", "hccl", &hccl);

    let profiler = build.shared(
        "libmsprofiler.so",
        &c_sources(&csrc.join("prof"), ""),
        &["-l:libascendcl.so"],
    );
    publish("ASCENDCL_MOCK_PROFILER_PATH", "profiler", &profiler);

    // The DVPP operators (csrc/dvpp/), on the aclnn operator helpers, which
    // are compiled in again (hidden symbols, as libopapi.so's are).
    let mut dvpp_sources = c_sources(&csrc.join("dvpp"), "");
    dvpp_sources.extend([
        ops_dir.join("op_common.c"),
        ops_dir.join("op_iter.c"),
        dtype.clone(),
    ]);
    let dvpp = build.shared(
        "libacl_dvpp_op.so",
        &dvpp_sources,
        &["-l:libnnopbase.so", "-l:libascendcl.so", "-lm"],
    );
    publish("ASCENDCL_MOCK_DVPP_PATH", "dvpp", &dvpp);

    // Test-only C programs, present in the repository, not in the package.
    let test_programs = manifest_dir.join("tests").join("c");
    if test_programs.is_dir() {
        println!("cargo::rerun-if-changed=tests/c");
        build_test_programs(&compiler, &includes, &manifest_dir, &out_dir);
    }

    // Our declaration headers (never CANN's, which the bindgen build may use).
    let decl_include = PathBuf::from(
        env::var_os("DEP_ASCENDCL_DECL_INCLUDE")
            .expect("ascendcl-sys publishes its declaration include directory"),
    );
    write_library_lists(
        &out_dir,
        started,
        &[decl_include, manifest_dir.join("include")],
    );
}

/// The record probe (`tests/c/record_probe.c`, linked against the mock, for
/// the shim's `LD_PRELOAD` test) and every `tests/c/foreign_*.c`.
fn build_test_programs(
    compiler: &cc::Tool,
    includes: &[PathBuf],
    manifest_dir: &Path,
    out_dir: &Path,
) {
    let probe = out_dir.join("record_probe");
    let mut probe_cmd = compiler.to_command();
    common_flags(&mut probe_cmd, includes)
        .arg("-o")
        .arg(&probe)
        .arg(manifest_dir.join("tests").join("c").join("record_probe.c"))
        .arg("-L")
        .arg(out_dir)
        .arg(format!("-Wl,-rpath,{}", out_dir.display()))
        .arg("-l:libascendcl.so");
    run(probe_cmd, "the record probe");
    println!(
        "cargo::rustc-env=ASCENDCL_RECORD_PROBE_PATH={}",
        probe.display()
    );
    // Every operator of the shim's table called once (tests/record_ops.rs).
    let ops_probe = out_dir.join("record_ops_probe");
    let mut ops_cmd = compiler.to_command();
    common_flags(&mut ops_cmd, includes)
        .arg("-o")
        .arg(&ops_probe)
        .arg(
            manifest_dir
                .join("tests")
                .join("c")
                .join("record_ops_probe.c"),
        )
        .arg("-L")
        .arg(out_dir)
        .arg(format!("-Wl,-rpath,{}", out_dir.display()))
        .args(["-l:libopapi.so", "-l:libnnopbase.so", "-l:libascendcl.so"]);
    run(ops_cmd, "the record ops probe");
    println!(
        "cargo::rustc-env=ASCENDCL_RECORD_OPS_PROBE_PATH={}",
        ops_probe.display()
    );

    // Programs written the way applications use AscendCL (not for the mock),
    // recorded and replayed by tests/foreign.rs: tests/c/foreign_<name>.c
    // becomes ASCENDCL_FOREIGN_<NAME>_PATH.
    let foreign = c_sources(&manifest_dir.join("tests").join("c"), "foreign_");
    for source in foreign {
        let stem = source
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        let exe = out_dir.join(&stem);
        let mut cmd = compiler.to_command();
        common_flags(&mut cmd, includes)
            .arg("-o")
            .arg(&exe)
            .arg(&source)
            .arg("-L")
            .arg(out_dir)
            .arg(format!("-Wl,-rpath,{}", out_dir.display()))
            .arg("-l:libascendcl.so")
            .arg("-lpthread");
        if stem.starts_with("foreign_hccl") {
            // a program linked against HCCL, as C++ trainers are
            cmd.arg("-l:libhccl.so").arg("-l:libhcomm.so");
        }
        if stem.starts_with("foreign_ops") {
            // a program linked against the aclnn libraries
            cmd.arg("-l:libopapi.so").arg("-l:libnnopbase.so");
        }
        run(cmd, &stem);
        let name = stem.trim_start_matches("foreign_").to_uppercase();
        println!(
            "cargo::rustc-env=ASCENDCL_FOREIGN_{name}_PATH={}",
            exe.display()
        );
    }
}

/// Writes `mock_libraries.rs` (name, what, built path of every entry of
/// [`SHARED_LIBRARIES`]) and `mock_embedded.rs` (their bytes, and every
/// header under `header_dirs`, for the installer) into `out_dir`.
///
/// Fails the build when a listed library was not built, or when this run
/// built a `*.so` that the list lacks: the installer must copy them all.
fn write_library_lists(out_dir: &Path, started: SystemTime, header_dirs: &[PathBuf]) {
    for (name, _) in SHARED_LIBRARIES {
        assert!(
            out_dir.join(name).is_file(),
            "{name} is listed in SHARED_LIBRARIES (build.rs) but was not built"
        );
    }
    for entry in std::fs::read_dir(out_dir).expect("OUT_DIR is readable") {
        let path = entry.expect("readable OUT_DIR entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let built_now = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= started);
        if name.ends_with(".so") && built_now {
            assert!(
                SHARED_LIBRARIES.iter().any(|(n, _)| *n == name),
                "build.rs built {name} but SHARED_LIBRARIES does not list it: add it there, \
                 so `ascendcl-mock install` copies it"
            );
        }
    }
    let mut list = String::from("&[\n");
    let mut embedded = String::from("/// Every mock library: file name and contents.\n");
    embedded.push_str("pub(crate) const LIBRARY_BYTES: &[(&str, &[u8])] = &[\n");
    for (name, what) in SHARED_LIBRARIES {
        let path = out_dir.join(name);
        let path = path.to_str().expect("OUT_DIR is UTF-8");
        writeln!(
            list,
            "    MockLibrary {{ name: {name:?}, what: {what:?}, path: {path:?} }},"
        )
        .unwrap();
        writeln!(embedded, "    ({name:?}, include_bytes!({path:?})),").unwrap();
    }
    list.push(']');
    embedded.push_str("];\n");
    embedded.push_str(
        "/// Every C header of the mock and of ascendcl-sys: path under include/ and contents.\n",
    );
    embedded.push_str("pub(crate) const HEADER_BYTES: &[(&str, &[u8])] = &[\n");
    for dir in header_dirs {
        println!("cargo::rerun-if-changed={}", dir.display());
        let mut headers = Vec::new();
        collect_headers(dir, dir, &mut headers);
        headers.sort();
        for (relative, path) in headers {
            let path = path.to_str().expect("header paths are UTF-8");
            writeln!(embedded, "    ({relative:?}, include_bytes!({path:?})),").unwrap();
        }
    }
    embedded.push_str("];\n");
    std::fs::write(out_dir.join("mock_libraries.rs"), list).expect("OUT_DIR is writable");
    std::fs::write(out_dir.join("mock_embedded.rs"), embedded).expect("OUT_DIR is writable");
}

/// Every `*.h` under `dir`, as (path relative to `root` with `/`, full path).
fn collect_headers(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read the header directory {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable include entry").path();
        if path.is_dir() {
            collect_headers(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "h") {
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .components()
                .map(|c| c.as_os_str().to_str().expect("UTF-8 header path"))
                .collect::<Vec<_>>()
                .join("/");
            out.push((relative, path));
        }
    }
}

/// Where the shared libraries are built, and with what.
struct Libraries<'a> {
    compiler: &'a cc::Tool,
    includes: &'a [PathBuf],
    out_dir: &'a Path,
}

impl Libraries<'_> {
    /// Builds `OUT_DIR/name` from `sources`, linked with `libs` (`-l:` names
    /// resolve in `OUT_DIR`). Every symbol must be defined (`-z defs`), and
    /// the library finds the mock's other libraries beside it (`$ORIGIN`).
    fn shared(&self, name: &str, sources: &[PathBuf], libs: &[&str]) -> PathBuf {
        let path = self.out_dir.join(name);
        let mut cmd = self.compiler.to_command();
        common_flags(&mut cmd, self.includes)
            .arg("-shared")
            .arg("-Wl,-z,defs")
            .arg(format!("-Wl,-soname,{name}"))
            .arg("-Wl,-rpath,$ORIGIN")
            .arg("-o")
            .arg(&path)
            .args(sources)
            .arg("-L")
            .arg(self.out_dir)
            .args(libs);
        run(cmd, name);
        path
    }
}

/// The sorted `*.c` files of `dir` whose names start with `prefix`.
fn c_sources(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("readable source directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "c")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    sources.sort();
    sources
}

/// Tells this crate's code (`rustc-env`) and dependents (`links` metadata)
/// where a built library is.
fn publish(env_name: &str, metadata: &str, path: &Path) {
    println!("cargo::rustc-env={env_name}={}", path.display());
    println!("cargo::metadata={metadata}={}", path.display());
}

/// The flags every C file here is compiled with.
fn common_flags<'a>(cmd: &'a mut Command, includes: &[PathBuf]) -> &'a mut Command {
    cmd.arg("-std=gnu11")
        .arg("-fvisibility=hidden")
        .arg("-pthread")
        .arg("-Werror=implicit-function-declaration")
        .arg("-Werror=incompatible-pointer-types")
        .arg("-Werror=int-conversion")
        .arg("-Wno-unused-parameter");
    for dir in includes {
        cmd.arg("-I").arg(dir);
    }
    cmd
}

fn run(cmd: Command, what: &str) {
    let mut cmd = cmd;
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {:?}: {e}", cmd.get_program()));
    assert!(status.success(), "compiling {what} failed: {cmd:?}");
}
