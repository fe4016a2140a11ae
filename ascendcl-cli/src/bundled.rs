//! The mock and the recording shim, bundled into the `ascendcl` binary.
//!
//! ascendcl-mock builds `libascendcl.so` (the behavioural mock), its operator
//! libraries `libnnopbase.so` and `libopapi.so`, and the recording shim
//! `libascendcl_record.so`. `cargo install` deletes the directory they were
//! built in, so the binary carries their bytes (see `build.rs`) and writes
//! them, on first use, to a cache directory of its own:
//!
//! * `$XDG_CACHE_HOME/ascendcl/bundle-<version>-<hash>/`, else
//! * `$HOME/.cache/ascendcl/bundle-<version>-<hash>/`, else
//! * `<temp dir>/ascendcl-bundle-<version>-<hash>/`.
//!
//! The hash is that of the four files, so two builds never share a
//! directory. Before a file is used its content is compared with the bundled
//! bytes; a file that differs (an interrupted write, an edit) is written
//! again, atomically (a temporary file renamed over it). The directory must
//! belong to the user running the binary and is made private (mode 0700), so
//! nobody else can swap a library between that check and its loading: a
//! directory another user created (in a shared temporary directory, say) is
//! an error, not a library to load. The three mock
//! libraries sit in one directory because `libopapi.so` finds the other two
//! through its `$ORIGIN` run path.
//!
//! Nothing here is used unless asked for: `--mock`, `trace replay` (which
//! always runs on the mock) and `trace record --mock`.
//!
//! ```no_run
//! let mock = ascendcl_cli::bundled::mock_library()?;
//! assert!(mock.ends_with("libascendcl.so"));
//! # Ok::<(), ascendcl_cli::bundled::BundleError>(())
//! ```

use std::path::{Path, PathBuf};

/// One bundled file: its name on disk and its bytes.
struct File {
    name: &'static str,
    bytes: &'static [u8],
}

const MOCK: File = File {
    name: "libascendcl.so",
    bytes: include_bytes!(env!("ASCENDCL_CLI_BUNDLED_LIBRARY")),
};
const NNOPBASE: File = File {
    name: "libnnopbase.so",
    bytes: include_bytes!(env!("ASCENDCL_CLI_BUNDLED_NNOPBASE")),
};
const OPAPI: File = File {
    name: "libopapi.so",
    bytes: include_bytes!(env!("ASCENDCL_CLI_BUNDLED_OPAPI")),
};
const RECORDER: File = File {
    name: "libascendcl_record.so",
    bytes: include_bytes!(env!("ASCENDCL_CLI_BUNDLED_RECORDER")),
};

/// Names the cache directory: the crate version and a hash of the files.
const BUNDLE: &str = concat!(
    "bundle-",
    env!("CARGO_PKG_VERSION"),
    "-",
    env!("ASCENDCL_CLI_BUNDLE_ID")
);

/// The bundled files could not be written where they are needed.
#[derive(Debug)]
pub struct BundleError {
    /// The file that could not be written or read.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// How the text of every [`BundleError`] starts.
pub const BUNDLE_ERROR_PREFIX: &str = "cannot write the bundled mock to ";

impl std::fmt::Display for BundleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{BUNDLE_ERROR_PREFIX}{}: {} (set XDG_CACHE_HOME to a writable directory)",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for BundleError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The cache directory of this build's bundle, as described in the module
/// docs, read from `env` (without creating it).
pub fn cache_dir(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(cache) = set("XDG_CACHE_HOME") {
        cache.join("ascendcl").join(BUNDLE)
    } else if let Some(home) = set("HOME") {
        home.join(".cache").join("ascendcl").join(BUNDLE)
    } else {
        std::env::temp_dir().join(format!("ascendcl-{BUNDLE}"))
    }
}

/// Writes `file` into `dir` (private, see [`make_private`]) unless it is
/// already there with the same bytes.
fn install(dir: &Path, file: &File) -> Result<PathBuf, BundleError> {
    let path = dir.join(file.name);
    let error = |path: &Path, source| BundleError {
        path: path.to_path_buf(),
        source,
    };
    if std::fs::read(&path).is_ok_and(|on_disk| on_disk == file.bytes) {
        return Ok(path);
    }
    // Another process may install the same file at the same time: each
    // writes its own temporary file and renames it, and both contents are
    // the same.
    let temp = dir.join(format!(".{}.{}.tmp", file.name, std::process::id()));
    std::fs::write(&temp, file.bytes).map_err(|e| error(&temp, e))?;
    std::fs::rename(&temp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        error(&path, e)
    })?;
    Ok(path)
}

/// Checks that `dir` belongs to this process's user and makes it private.
fn make_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // The owner of /proc/self is this process's (effective) user.
    let me = std::fs::metadata("/proc/self")?.uid();
    let meta = std::fs::metadata(dir)?;
    if meta.uid() != me {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "the directory belongs to user {}, not to this user ({me})",
                meta.uid()
            ),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

fn installed(file: &File, with_ops: bool) -> Result<PathBuf, BundleError> {
    let dir = cache_dir(&|name| std::env::var_os(name));
    std::fs::create_dir_all(&dir)
        .and_then(|()| make_private(&dir))
        .map_err(|source| BundleError {
            path: dir.clone(),
            source,
        })?;
    if with_ops {
        for ops in [&NNOPBASE, &OPAPI] {
            install(&dir, ops)?;
        }
    }
    install(&dir, file)
}

/// The bundled mock `libascendcl.so`, with its operator libraries beside it
/// (so `ascendcl-sys` finds them in the runtime library's directory).
///
/// # Errors
/// [`BundleError`] when the cache directory cannot be written.
pub fn mock_library() -> Result<PathBuf, BundleError> {
    installed(&MOCK, true)
}

/// The bundled recording shim `libascendcl_record.so`.
///
/// # Errors
/// [`BundleError`] when the cache directory cannot be written.
pub fn recorder() -> Result<PathBuf, BundleError> {
    installed(&RECORDER, false)
}
