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

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=csrc");
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-changed=tests/c");
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

    let probe = out_dir.join("record_probe");
    let mut probe_cmd = compiler.to_command();
    common_flags(&mut probe_cmd, &includes)
        .arg("-o")
        .arg(&probe)
        .arg(manifest_dir.join("tests").join("c").join("record_probe.c"))
        .arg("-L")
        .arg(&out_dir)
        .arg(format!("-Wl,-rpath,{}", out_dir.display()))
        .arg("-l:libascendcl.so");
    run(probe_cmd, "the record probe");

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
        common_flags(&mut cmd, &includes)
            .arg("-o")
            .arg(&exe)
            .arg(&source)
            .arg("-L")
            .arg(&out_dir)
            .arg(format!("-Wl,-rpath,{}", out_dir.display()))
            .arg("-l:libascendcl.so")
            .arg("-lpthread");
        run(cmd, &stem);
        let name = stem.trim_start_matches("foreign_").to_uppercase();
        println!(
            "cargo::rustc-env=ASCENDCL_FOREIGN_{name}_PATH={}",
            exe.display()
        );
    }

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
    println!(
        "cargo::rustc-env=ASCENDCL_RECORD_PROBE_PATH={}",
        probe.display()
    );
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
