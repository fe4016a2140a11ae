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
        "libascendcl_record.so",
        "the recording shim: LD_PRELOAD it in front of a real CANN to write a trace",
    ),
    (
        "libhccl_record.so",
        "the recording shim's HCCL face: name it libhccl.so beside libascendcl_record.so",
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
    let includes = [
        acl_include.clone(),
        manifest_dir.join("include"),
        manifest_dir.join("csrc"),
    ];

    let library = out_dir.join("libascendcl.so");
    let mut mock = compiler.to_command();
    common_flags(&mut mock, &includes)
        .arg("-shared")
        .arg("-Wl,-soname,libascendcl.so")
        .arg("-o")
        .arg(&library)
        .args(&sources)
        .arg("-lpthread")
        .arg("-lm")
        .arg("-ldl");
    run(mock, "the mock");

    let mut shim_sources: Vec<PathBuf> =
        std::fs::read_dir(manifest_dir.join("csrc").join("record"))
            .expect("csrc/record/ exists")
            .map(|e| e.expect("readable csrc/record entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
    shim_sources.sort();
    // Shared with the mock: the shim writes the same JSON text.
    shim_sources.push(manifest_dir.join("csrc").join("json_quote.c"));
    let recorder = out_dir.join("libascendcl_record.so");
    let mut shim = compiler.to_command();
    common_flags(&mut shim, &includes)
        .arg("-shared")
        // every exported function must be defined here (and nothing else missing)
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libascendcl_record.so")
        .arg("-o")
        .arg(&recorder)
        .args(&shim_sources)
        .arg("-lpthread")
        .arg("-ldl");
    run(shim, "the recording shim");

    // The HCCL face of the shim: no code of its own, it needs the shim (see
    // csrc/record_hccl/hccl_record.c), so a loader opening it as libhccl.so
    // resolves every Hccl symbol to the shim's wrapper.
    let hccl_recorder = out_dir.join("libhccl_record.so");
    let mut hccl_shim = compiler.to_command();
    common_flags(&mut hccl_shim, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libhccl_record.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-o")
        .arg(&hccl_recorder)
        .arg(
            manifest_dir
                .join("csrc")
                .join("record_hccl")
                .join("hccl_record.c"),
        )
        .arg("-Wl,--no-as-needed")
        .arg(&recorder);
    run(hccl_shim, "the recording shim's HCCL face");

    let ops_dir = manifest_dir.join("csrc").join("ops");
    let ops_sources = |prefix: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&ops_dir)
            .expect("csrc/ops/ exists")
            .map(|e| e.expect("readable csrc/ops entry").path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "c")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        v.sort();
        // element conversions are compiled into both libraries
        v.push(ops_dir.join("dtype.c"));
        v
    };
    let nnopbase = out_dir.join("libnnopbase.so");
    let mut nn = compiler.to_command();
    common_flags(&mut nn, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libnnopbase.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-o")
        .arg(&nnopbase)
        .args(ops_sources("nn_"))
        .arg("-L")
        .arg(&out_dir)
        .arg("-l:libascendcl.so")
        .arg("-lm");
    run(nn, "the mock's libnnopbase.so");
    let opapi = out_dir.join("libopapi.so");
    let mut op = compiler.to_command();
    common_flags(&mut op, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libopapi.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-o")
        .arg(&opapi)
        .args(ops_sources("op_"))
        .arg("-L")
        .arg(&out_dir)
        .arg("-l:libnnopbase.so")
        .arg("-l:libascendcl.so")
        .arg("-lm");
    run(op, "the mock's libopapi.so");

    // The HCCL libraries (csrc/hccl/): comm_*.c -> libhcomm.so, coll_*.c ->
    // libhccl.so, which links libhcomm.so (a dlsym on libhccl's handle also
    // finds the communicator symbols, as with CANN's split libraries).
    let hccl_dir = manifest_dir.join("csrc").join("hccl");
    let hccl_sources = |prefix: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&hccl_dir)
            .expect("csrc/hccl/ exists")
            .map(|e| e.expect("readable csrc/hccl entry").path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "c")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        v.sort();
        v
    };
    let hcomm = out_dir.join("libhcomm.so");
    let mut hc = compiler.to_command();
    common_flags(&mut hc, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libhcomm.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-o")
        .arg(&hcomm)
        .args(hccl_sources("comm_"))
        // f16/bf16 conversions for the reductions
        .arg(ops_dir.join("dtype.c"))
        .arg("-L")
        .arg(&out_dir)
        .arg("-l:libascendcl.so")
        .arg("-lpthread")
        .arg("-lm");
    run(hc, "the mock's libhcomm.so");
    let hccl = out_dir.join("libhccl.so");
    let mut hl = compiler.to_command();
    common_flags(&mut hl, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libhccl.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-Wl,--no-as-needed")
        .arg("-o")
        .arg(&hccl)
        .args(hccl_sources("coll_"))
        .arg("-L")
        .arg(&out_dir)
        .arg("-l:libhcomm.so")
        .arg("-l:libascendcl.so")
        .arg("-lpthread");
    run(hl, "the mock's libhccl.so");
    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_HCCL_PATH={}",
        hccl.display()
    );
    println!("cargo::metadata=hccl={}", hccl.display());
    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_HCOMM_PATH={}",
        hcomm.display()
    );
    println!("cargo::metadata=hcomm={}", hcomm.display());
    let profiler = out_dir.join("libmsprofiler.so");
    let mut prof_sources: Vec<PathBuf> = std::fs::read_dir(manifest_dir.join("csrc").join("prof"))
        .expect("csrc/prof/ exists")
        .map(|e| e.expect("readable csrc/prof entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    prof_sources.sort();
    let mut prof = compiler.to_command();
    common_flags(&mut prof, &includes)
        .arg("-shared")
        .arg("-Wl,-z,defs")
        .arg("-Wl,-soname,libmsprofiler.so")
        .arg("-Wl,-rpath,$ORIGIN")
        .arg("-o")
        .arg(&profiler)
        .args(&prof_sources)
        .arg("-L")
        .arg(&out_dir)
        .arg("-l:libascendcl.so");
    run(prof, "the mock's libmsprofiler.so");
    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_PROFILER_PATH={}",
        profiler.display()
    );
    println!("cargo::metadata=profiler={}", profiler.display());

    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_NNOPBASE_PATH={}",
        nnopbase.display()
    );
    println!("cargo::metadata=nnopbase={}", nnopbase.display());
    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_OPAPI_PATH={}",
        opapi.display()
    );
    println!("cargo::metadata=opapi={}", opapi.display());

    println!(
        "cargo::rustc-env=ASCENDCL_MOCK_LIBRARY_PATH={}",
        library.display()
    );
    println!("cargo::metadata=library={}", library.display());
    println!(
        "cargo::rustc-env=ASCENDCL_RECORDER_LIBRARY_PATH={}",
        recorder.display()
    );
    println!("cargo::metadata=recorder={}", recorder.display());
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

    // Programs written the way applications use AscendCL (not for the mock),
    // recorded and replayed by tests/foreign.rs: tests/c/foreign_<name>.c
    // becomes ASCENDCL_FOREIGN_<NAME>_PATH.
    let mut foreign: Vec<PathBuf> = std::fs::read_dir(manifest_dir.join("tests").join("c"))
        .expect("tests/c/ exists")
        .map(|e| e.expect("readable tests/c entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "c")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("foreign_"))
        })
        .collect();
    foreign.sort();
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
