//! Build script of `ascendcl-sys`.
//!
//! Nothing is linked: the AscendCL library is opened at run time (see
//! `src/library.rs`), so this crate builds on machines with no CANN, no
//! libclang and on docs.rs. The build script only chooses the bindings.
//!
//! # Bindings
//! * default: the committed `src/bindings/*.rs`, generated from our
//!   declaration headers in `include/`;
//! * feature `bindgen`: regenerated into `OUT_DIR` with bindgen (needs
//!   libclang), per library (runtime, profiler, aclnn, hccl, dvpp): from CANN's own
//!   headers when the install found has every one that library's passes read
//!   (`bindgen_headers.rs`), else from ours; also from ours, with a warning,
//!   when bindgen fails on CANN's. A `cargo::warning` says which headers each
//!   library came from. If neither works (no libclang, or our headers fail)
//!   the build stops with an error that says why; it does not panic.
//!   On docs.rs the committed bindings are always used.
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
//! | `INCLUDE` | include directory (parent of `acl/`) of the headers the runtime bindings came from |
//! | `DECL_INCLUDE` | include directory of our own declaration header |
//! | `BINDINGS_SOURCE` | `committed`, or per library `ours` / `cann`: `runtime=cann,profiler=cann,aclnn=ours,hccl=ours,dvpp=ours` |
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

#[cfg(feature = "bindgen")]
#[allow(dead_code)]
#[path = "bindgen_headers.rs"]
mod bindgen_headers;

/// Reads an environment variable and asks Cargo to rerun when it changes.
fn tracked_env(name: &str) -> Option<OsString> {
    println!("cargo::rerun-if-env-changed={name}");
    env::var_os(name)
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-changed=bindgen_config.rs");
    println!("cargo::rerun-if-changed=bindgen_headers.rs");
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

    let sources = if !docs_rs {
        let cann_include = cann.as_ref().map(|(_, include)| include.as_path());
        match regenerate(cann_include, &our_include) {
            Ok(sources) => sources,
            Err(message) => {
                // A build error that says what to do, not a panic.
                eprintln!("error: {message}");
                std::process::exit(1);
            }
        }
    } else {
        Vec::new()
    };
    // The runtime's include directory: the mock compiles against it.
    let include = sources
        .iter()
        .find(|regenerated| regenerated.library == "runtime")
        .map_or(our_include.clone(), |regenerated| {
            regenerated.include.clone()
        });
    println!("cargo::metadata=include={}", include.display());
    let summary = if sources.is_empty() {
        "committed".to_string()
    } else {
        println!("cargo::rustc-cfg=ascendcl_regenerated_bindings");
        sources
            .iter()
            .map(|regenerated| format!("{}={}", regenerated.library, regenerated.source))
            .collect::<Vec<_>>()
            .join(",")
    };
    println!("cargo::metadata=bindings_source={summary}");
}

/// One library's regenerated bindings.
#[derive(Debug)]
struct Regenerated {
    /// `runtime`, `profiler`, `aclnn`, `hccl` or `dvpp`.
    library: &'static str,
    /// `ours` or `cann`.
    source: &'static str,
    /// The include directory of the headers read.
    include: PathBuf,
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

/// Regenerates every library's bindings into `OUT_DIR`, each from CANN's
/// headers when `cann_include` has them all and ours otherwise (and from ours
/// when bindgen fails on CANN's), and says which in the build output.
/// Returns what each library was generated from, or the error to stop the
/// build with.
#[cfg(feature = "bindgen")]
fn regenerate(
    cann_include: Option<&std::path::Path>,
    our_include: &std::path::Path,
) -> Result<Vec<Regenerated>, String> {
    use bindgen_headers::{Choice, Headers, Library};

    libclang_loads()?;
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let scratch = out_dir.join("cann-aclnn-wrapper");
    if let Some(include) = cann_include {
        // A header installed or removed later changes the choice (Cargo
        // looks at every file under a directory named here).
        println!("cargo::rerun-if-changed={}", include.display());
    }
    let mut sources = Vec::new();
    for library in Library::ALL {
        let mut attempts = Vec::new();
        let mut why_not_cann = None;
        match bindgen_headers::choose(library, cann_include) {
            Choice::Cann(include) => attempts.push(Headers::Cann(include)),
            Choice::Ours { why } => why_not_cann = Some(why),
        }
        attempts.push(Headers::Ours(our_include.to_path_buf()));
        let mut failures = Vec::new();
        let mut generated = None;
        for headers in attempts {
            match generate(library, &headers, &scratch) {
                Ok(files) => {
                    generated = Some((headers, files));
                    break;
                }
                Err(e) => {
                    let failure = format!("bindgen failed on {}: {e}", headers.describe(library));
                    // One warning line per line of clang's diagnostics, the
                    // first few (the full text is in the error if ours fail too).
                    const SHOWN: usize = 4;
                    let lines: Vec<&str> =
                        failure.lines().filter(|l| !l.trim().is_empty()).collect();
                    for line in lines.iter().take(SHOWN) {
                        println!("cargo::warning={} bindings: {line}", library.name());
                    }
                    if lines.len() > SHOWN {
                        println!(
                            "cargo::warning={} bindings: ... ({} more lines)",
                            library.name(),
                            lines.len() - SHOWN
                        );
                    }
                    failures.push(failure);
                }
            }
        }
        let Some((headers, files)) = generated else {
            return Err(format!(
                "ascendcl-sys cannot regenerate its {} bindings (feature `bindgen`):\n  {}\n\
                 Build without the `bindgen` feature to use the committed bindings.",
                library.name(),
                failures.join("\n  ")
            ));
        };
        for (name, text) in files {
            let file = out_dir.join(name);
            std::fs::write(&file, text)
                .map_err(|e| format!("ascendcl-sys: cannot write {}: {e}", file.display()))?;
        }
        let because = match (&headers, &why_not_cann, failures.is_empty()) {
            (Headers::Ours(_), Some(why), _) => format!(" ({why})"),
            (Headers::Ours(_), None, false) => " (bindgen failed on CANN's, see above)".to_string(),
            _ => String::new(),
        };
        println!(
            "cargo::warning={} bindings generated from {}{because}",
            library.name(),
            headers.describe(library)
        );
        sources.push(Regenerated {
            library: library.name(),
            source: headers.source(),
            include: headers.include_dir().to_path_buf(),
        });
    }
    Ok(sources)
}

/// Both passes of `library` over `headers`: each output file's name and text
/// (nothing is written unless both passes succeed, so a library's two files
/// always come from the same headers).
#[cfg(feature = "bindgen")]
fn generate(
    library: bindgen_headers::Library,
    headers: &bindgen_headers::Headers,
    scratch: &std::path::Path,
) -> Result<Vec<(&'static str, String)>, String> {
    let mut files = Vec::new();
    for pass in library.passes() {
        let builder = bindgen_headers::builder(headers, pass, scratch).map_err(|e| {
            format!(
                "cannot write a wrapper header into {}: {e}",
                scratch.display()
            )
        })?;
        let bindings = builder
            .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
            .generate()
            .map_err(|e| e.to_string())?;
        files.push((pass.file_name(), bindings.to_string()));
    }
    Ok(files)
}

/// Whether bindgen can load libclang; bindgen itself panics when it cannot.
#[cfg(feature = "bindgen")]
fn libclang_loads() -> Result<(), String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let loaded = std::panic::catch_unwind(bindgen::clang_version);
    std::panic::set_hook(hook);
    loaded.map(drop).map_err(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        format!(
            "the `bindgen` feature of ascendcl-sys needs libclang, which cannot be loaded ({reason}).\n\
             Install it (Debian: apt-get install libclang-dev) or point LIBCLANG_PATH at it, \
             or build without the `bindgen` feature to use the committed bindings."
        )
    })
}

/// Without the `bindgen` feature the committed bindings are used: nothing is
/// regenerated.
#[cfg(not(feature = "bindgen"))]
fn regenerate(
    _cann_include: Option<&std::path::Path>,
    _our_include: &std::path::Path,
) -> Result<Vec<Regenerated>, String> {
    Ok(Vec::new())
}
