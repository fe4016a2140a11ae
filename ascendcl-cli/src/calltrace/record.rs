//! `ascendcl trace record [-o TRACE] [-t LIBRARY | --mock] -- CMD [ARG…]`:
//! runs CMD with the recording shim in front of the AscendCL library, as
//! `scripts/record-on-card.sh` does (guide: `docs/recording-on-a-card.md`).
//!
//! The shim ([`ascendcl_mock::RECORDER_PATH`], bundled into this binary) is
//! put in front of the real library twice over, so that every kind of
//! program is recorded:
//!
//! * `LD_PRELOAD`: C, C++ and Python programs (pyACL, torch_npu) that link
//!   or `dlopen` `libascendcl.so`;
//! * `ASCENDCL_LIBRARY`: programs built on ascendcl-sys.
//!
//! The shim forwards every call to the library named by
//! `ASCENDCL_RECORD_TARGET` and appends it to `ASCENDCL_RECORD_TRACE`. The
//! target is, in order: `--target`; with `--mock`, the bundled mock; an
//! `ASCENDCL_RECORD_TARGET` already set; an `ASCENDCL_LIBRARY` already set;
//! the first `libascendcl.so`/`libacl_rt.so` under the CANN roots (found as
//! ascendcl-sys finds them). Without any, the command is refused with exit
//! status 3 and a message saying to add `--mock` or install CANN.
//!
//! HCCL calls are recorded into the same trace: the shim exports the `Hccl*`
//! functions (for `LD_PRELOAD`), and its directory holds its HCCL face as
//! `libhccl.so` ([`crate::bundled::recorder`]), where ascendcl-sys looks for
//! HCCL. The operator libraries are recorded the same way: `ASCENDCL_ACLNN_DIR`
//! names the shim's directory, whose `libnnopbase.so` and `libopapi.so` are its
//! aclnn faces, and `ASCENDCL_RECORD_ACLNN_DIR` the real libraries' (an
//! `ASCENDCL_ACLNN_DIR` already set, else the target's directory), where the
//! shim forwards.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

const EXIT_HELP: &str = "\
A trace holds function names, sizes, symbolic ids, return codes and error texts, never the
data copied. Before sharing it, read its first line (library path, program name) and the
\"msg\" texts for anything private.

Exit status:
  the command's own status (128 + N if signal N ended it)
  2    usage error
  3    no library to record: no CANN install found and neither --mock nor --target
       given; or the bundled recording shim could not be written to its cache directory
  126  the command could not be executed; 127 it was not found";

/// Run a command with every AscendCL call it makes recorded into a trace.
///
/// Runs CMD with the recording shim in front of the AscendCL library (through
/// LD_PRELOAD for C, C++ and Python programs, through ASCENDCL_LIBRARY for
/// programs built on ascendcl-sys). Every call is written to TRACE as JSON
/// lines: function, arguments (handles as symbolic ids), out-values, return
/// code, error text, timings. Record built binaries, not `cargo run` (the
/// shim would sit in front of cargo and the compiler too).
#[derive(Debug, Clone, Args)]
#[command(after_help = EXIT_HELP)]
pub struct RecordArgs {
    /// The trace file; "%p" in the name becomes the process id, for commands
    /// that start several processes.
    #[arg(
        short,
        long,
        value_name = "TRACE",
        default_value = "ascendcl-trace.jsonl"
    )]
    pub output: PathBuf,
    /// The real AscendCL library to forward to (default: ASCENDCL_RECORD_TARGET,
    /// ASCENDCL_LIBRARY, else the CANN install's libascendcl.so or libacl_rt.so).
    #[arg(short, long, value_name = "LIBRARY", conflicts_with = "mock")]
    pub target: Option<PathBuf>,
    /// Record calls made to the mock bundled into this binary (no card needed).
    #[arg(long)]
    pub mock: bool,
    /// The command to run, and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// The library the shim forwards to (see the module docs), and where that
/// choice came from; `None` when nothing was found. `env` reads variables.
pub fn target(
    args: &RecordArgs,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<(PathBuf, String)>, crate::bundled::BundleError> {
    if let Some(target) = &args.target {
        return Ok(Some((target.clone(), "--target".into())));
    }
    if args.mock {
        return Ok(Some((crate::bundled::mock_library()?, "--mock".into())));
    }
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    for var in ["ASCENDCL_RECORD_TARGET", ascendcl_sys::LIBRARY_ENV_VAR] {
        if let Some(path) = set(var) {
            return Ok(Some((path, var.into())));
        }
    }
    Ok(ascendcl_sys::cann::candidate_roots(env)
        .into_iter()
        .find_map(|root| {
            let file = root.library_files().into_iter().next()?;
            Some((file, format!("{} = {}", root.source, root.path.display())))
        }))
}

/// Runs `ascendcl trace record`; returns the exit status.
pub fn run(args: &RecordArgs) -> u8 {
    let env = |name: &str| std::env::var_os(name);
    let (shim, target) = match crate::bundled::recorder().and_then(|shim| {
        let target = target(args, &env)?;
        Ok((shim, target))
    }) {
        Ok(found) => found,
        Err(error) => {
            eprintln!("trace record: {error}");
            return crate::EXIT_FAILED;
        }
    };
    let Some(program) = args.command.first() else {
        eprintln!("trace record: no command to run");
        return crate::EXIT_USAGE;
    };
    let trace = absolute(&args.output);
    let pattern = trace.to_string_lossy().into_owned();
    if !pattern.contains("%p") {
        // A fresh trace, not calls appended to an old one.
        let _ = std::fs::remove_file(&trace);
    }
    let mut command = Command::new(program);
    command.args(&args.command[1..]);
    match &target {
        Some((path, source)) => {
            if same_file(path, &shim) {
                eprintln!(
                    "trace record: the target {} ({source}) is the recording shim itself: \
                     name the real library with --target",
                    path.display()
                );
                return crate::EXIT_USAGE;
            }
            eprintln!("trace record: forwarding to {} ({source})", path.display());
            command.env("ASCENDCL_RECORD_TARGET", path);
            // ascendcl-sys opens the operator libraries from ASCENDCL_ACLNN_DIR
            // (else beside the runtime library, which is now the shim): the
            // shim's directory, whose libnnopbase.so and libopapi.so are its
            // aclnn faces; the shim forwards to the real ones.
            let aclnn = ascendcl_sys::aclnn::ACLNN_DIR_ENV_VAR;
            let real = env(aclnn)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| path.parent().map(Path::to_path_buf));
            if let Some(real) = real {
                command.env("ASCENDCL_RECORD_ACLNN_DIR", real);
            }
            if let Some(shim_dir) = shim.parent() {
                command.env(aclnn, shim_dir);
            }
        }
        None => {
            // Nothing to forward to: the program would run into "not exported"
            // errors from the shim. Refuse before running it.
            eprintln!(
                "trace record: no CANN install found and no library to record: add --mock to \
                 record calls made to the bundled mock, install CANN (or set ASCEND_HOME_PATH), \
                 or name the real library with --target"
            );
            return crate::EXIT_FAILED;
        }
    }
    let preload = match env("LD_PRELOAD").filter(|v| !v.is_empty()) {
        Some(existing) => {
            let mut value = shim.clone().into_os_string();
            value.push(":");
            value.push(existing);
            value
        }
        None => shim.clone().into_os_string(),
    };
    command
        .env("ASCENDCL_RECORD_TRACE", &trace)
        .env(ascendcl_sys::LIBRARY_ENV_VAR, &shim)
        .env("LD_PRELOAD", preload);
    match super::child::run("trace record", command, program) {
        Ok(status) => {
            report_written(&trace);
            status
        }
        Err(status) => status,
    }
}

/// `path` relative to the current directory made absolute, so a command
/// that changes directory still writes where it was asked to.
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The trace files a recording to `trace` wrote: `trace` itself (with `%p`
/// matching any process id) and `NAME.<pid>.jsonl` of further processes.
pub fn written_files(trace: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (trace.parent(), trace.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let (prefix, suffix) = match name.split_once("%p") {
        Some((prefix, suffix)) => (prefix.to_string(), suffix.to_string()),
        None => (name.to_string(), String::new()),
    };
    let stem = name
        .strip_suffix(".jsonl")
        .unwrap_or(&name)
        .replace("%p", "");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let file = e.file_name();
            let file = file.to_string_lossy();
            let is_pid = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            let exact = if name.contains("%p") {
                file.len() >= prefix.len() + suffix.len()
                    && file.starts_with(&prefix)
                    && file.ends_with(&suffix)
                    && is_pid(&file[prefix.len()..file.len() - suffix.len()])
            } else {
                *file == *name
            };
            let other_process = file
                .strip_prefix(&format!("{stem}."))
                .and_then(|rest| rest.strip_suffix(".jsonl"))
                .is_some_and(is_pid);
            exact || other_process
        })
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// Says on stderr which traces were written and what to do with them.
fn report_written(trace: &Path) {
    let files = written_files(trace);
    if files.is_empty() {
        eprintln!(
            "trace record: no trace was written: the command made no AscendCL call through the shim"
        );
        return;
    }
    for file in &files {
        let calls = std::fs::read(file)
            .map(|bytes| {
                bytes
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    .saturating_sub(1)
            })
            .unwrap_or(0);
        eprintln!("trace record: {}: {calls} calls", file.display());
    }
    eprintln!(
        "trace record: a trace holds function names, sizes, symbolic ids, return codes and error \
         texts, never the data copied; before sharing it, read its first line (library path, \
         program name) and the \"msg\" texts. Summary: ascendcl trace summary {}",
        files[0].display()
    );
}
