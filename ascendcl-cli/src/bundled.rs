//! The mock and the recording shim, bundled into the `ascendcl` binary.
//!
//! ascendcl-mock builds `libascendcl.so` (the behavioural mock), its
//! operator, HCCL and profiler libraries, and the recording shim
//! `libascendcl_record.so` ([`ascendcl_mock::LIBRARIES`]), and embeds their
//! bytes. `cargo install` deletes the directory they were built in, so the
//! binary writes those bytes, on first use, to a cache directory of its own:
//!
//! * `$XDG_CACHE_HOME/ascendcl/bundle-<version>-<hash>/`, else
//! * `$HOME/.cache/ascendcl/bundle-<version>-<hash>/`, else
//! * `<temp dir>/ascendcl-bundle-<version>-<hash>/`.
//!
//! The hash is that of every library, so two builds never share a
//! directory. Before a file is used its content is compared with the bundled
//! bytes; a file that differs (an interrupted write, an edit) is written
//! again, atomically (a temporary file renamed over it). The directory must
//! belong to the user running the binary and is made private (mode 0700), so
//! nobody else can swap a library between that check and its loading: a
//! directory another user created (in a shared temporary directory, say) is
//! an error, not a library to load. The mock
//! libraries sit in one directory because the operator and HCCL libraries
//! find `libascendcl.so` through their `$ORIGIN` run path, and ascendcl-sys
//! finds them beside the runtime library. For the same reason the recording
//! shim has a directory of its own, `record/` in there, with its HCCL face
//! (`libhccl_record.so`) as `libhccl.so` and its aclnn faces
//! (`libnnopbase_record.so`, `libopapi_record.so`) as `libnnopbase.so` and
//! `libopapi.so` beside it: a program loading HCCL or the operator libraries
//! beside the runtime library (or from `ASCENDCL_ACLNN_DIR`) gets the shim's
//! wrappers, not the mock's libraries.
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
use std::sync::OnceLock;

use ascendcl_mock::MockLibrary;

/// The recording shim's file name.
const RECORDER: &str = "libascendcl_record.so";
/// The shim's HCCL face, installed as `libhccl.so` beside the shim.
const HCCL_FACE: &str = "libhccl_record.so";
/// The shim's aclnn faces, installed as `libnnopbase.so` and `libopapi.so`.
const NNOPBASE_FACE: &str = "libnnopbase_record.so";
const OPAPI_FACE: &str = "libopapi_record.so";

/// Whether a bundled library belongs to the shim's directory, not the mock's.
fn is_shim_file(name: &str) -> bool {
    [RECORDER, HCCL_FACE, NNOPBASE_FACE, OPAPI_FACE].contains(&name)
}

/// Names the cache directory: the crate version and a hash of every
/// bundled library, so two builds never share one.
fn bundle() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        // FNV-1a over every library: cheap, and only has to tell builds apart.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for library in ascendcl_mock::LIBRARIES {
            for &byte in library.name.as_bytes().iter().chain(library.bytes()) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        format!("bundle-{}-{hash:016x}", env!("CARGO_PKG_VERSION"))
    })
}

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
        cache.join("ascendcl").join(bundle())
    } else if let Some(home) = set("HOME") {
        home.join(".cache").join("ascendcl").join(bundle())
    } else {
        std::env::temp_dir().join(format!("ascendcl-{}", bundle()))
    }
}

/// Writes `file` into `dir` (private, see [`make_private`]) as `name`
/// unless it is already there with the same bytes.
fn install(dir: &Path, file: &MockLibrary, name: &str) -> Result<PathBuf, BundleError> {
    let path = dir.join(name);
    let error = |path: &Path, source| BundleError {
        path: path.to_path_buf(),
        source,
    };
    if std::fs::read(&path).is_ok_and(|on_disk| on_disk == file.bytes()) {
        return Ok(path);
    }
    // Another process may install the same file at the same time: each
    // writes its own temporary file and renames it, and both contents are
    // the same.
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, file.bytes()).map_err(|e| error(&temp, e))?;
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

/// Writes the libraries `wanted` names (`Some(file name)`) into `sub` of
/// the cache directory (made private first) and returns the path of `name`.
fn installed(
    sub: &str,
    name: &str,
    wanted: impl Fn(&MockLibrary) -> Option<&'static str>,
) -> Result<PathBuf, BundleError> {
    let base = cache_dir(&|name| std::env::var_os(name));
    let dir = if sub.is_empty() {
        base.clone()
    } else {
        base.join(sub)
    };
    std::fs::create_dir_all(&dir)
        .and_then(|()| make_private(&base))
        .and_then(|()| make_private(&dir))
        .map_err(|source| BundleError {
            path: dir.clone(),
            source,
        })?;
    for library in ascendcl_mock::LIBRARIES {
        if let Some(file) = wanted(library) {
            install(&dir, library, file)?;
        }
    }
    Ok(dir.join(name))
}

/// The bundled mock `libascendcl.so`, with every other mock library beside
/// it (operators, HCCL, profiler), where `ascendcl-sys` looks for them: the
/// runtime library's directory.
///
/// # Errors
/// [`BundleError`] when the cache directory cannot be written.
pub fn mock_library() -> Result<PathBuf, BundleError> {
    installed("", "libascendcl.so", |l| {
        (!is_shim_file(l.name)).then_some(l.name)
    })
}

/// The bundled recording shim `libascendcl_record.so`, in a directory of
/// its own with its HCCL face as `libhccl.so` and its aclnn faces as
/// `libnnopbase.so` and `libopapi.so` (see the module docs).
///
/// # Errors
/// [`BundleError`] when the cache directory cannot be written.
pub fn recorder() -> Result<PathBuf, BundleError> {
    installed("record", RECORDER, |l| match l.name {
        RECORDER => Some(RECORDER),
        HCCL_FACE => Some("libhccl.so"),
        NNOPBASE_FACE => Some("libnnopbase.so"),
        OPAPI_FACE => Some("libopapi.so"),
        _ => None,
    })
}
