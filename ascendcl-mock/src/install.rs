//! The mock's shared libraries and C headers, and installing them to a
//! stable directory for programs that are not built by Cargo.
//!
//! The build script puts the libraries in Cargo's `OUT_DIR`, whose name
//! carries a hash that changes between builds. C, C++ and Python programs
//! need a path that does not: [`install`] writes every library of
//! [`LIBRARIES`] to `PREFIX/lib` and our C headers to `PREFIX/include`, from
//! copies embedded in this crate, so it works even after the build
//! directory is gone (a `cargo install`ed `ascendcl-mock` binary).
//!
//! ```no_run
//! let installed = ascendcl_mock::install("/opt/ascendcl-mock")?;
//! // ASCENDCL_LIBRARY=/opt/ascendcl-mock/lib/libascendcl.so
//! // LD_LIBRARY_PATH=/opt/ascendcl-mock/lib
//! print!("{}", installed.shell_exports());
//! # Ok::<(), ascendcl_mock::InstallError>(())
//! ```

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// One shared library built by this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MockLibrary {
    /// File name, e.g. `libascendcl.so`.
    pub name: &'static str,
    /// What it is, one line.
    pub what: &'static str,
    /// Where the build put it (Cargo's `OUT_DIR`: changes between builds).
    pub path: &'static str,
}

/// Every shared library the build script produces, `libascendcl.so` first.
/// The list lives in one place, `SHARED_LIBRARIES` in `build.rs`, and the
/// build fails if a library is built but not listed.
pub const LIBRARIES: &[MockLibrary] = include!(concat!(env!("OUT_DIR"), "/mock_libraries.rs"));

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/mock_embedded.rs"));
}

impl MockLibrary {
    /// The library's contents, embedded in this crate at build time (so a
    /// program built on this crate can write it out after `cargo install`
    /// deleted the build directory).
    pub fn bytes(&self) -> &'static [u8] {
        embedded::LIBRARY_BYTES
            .iter()
            .find(|(name, _)| *name == self.name)
            .map(|(_, bytes)| *bytes)
            .expect("LIBRARY_BYTES and LIBRARIES are generated from one list")
    }
}

/// The directory the build put the libraries in (all of [`LIBRARIES`] are
/// there). Its name changes between builds: for a stable one use [`install`].
pub fn library_dir() -> &'static Path {
    Path::new(crate::LIBRARY_PATH)
        .parent()
        .expect("the library path is absolute")
}

/// The library of [`LIBRARIES`] called `name` (e.g. `libopapi.so`).
pub fn find_library(name: &str) -> Option<&'static MockLibrary> {
    LIBRARIES.iter().find(|l| l.name == name)
}

/// What [`install`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// `PREFIX/lib`: every library of [`LIBRARIES`].
    pub lib_dir: PathBuf,
    /// `PREFIX/include`: `acl/`, `aclnn/`, `hccl/` (ascendcl-sys's declarations, what
    /// the mock implements), `aclmock.h` (its control API), `aclrecord.h`.
    pub include_dir: PathBuf,
    /// Every file written, libraries first.
    pub files: Vec<PathBuf>,
}

impl Installation {
    /// `PREFIX/lib/libascendcl.so`: the value for `ASCENDCL_LIBRARY`.
    pub fn library(&self) -> PathBuf {
        self.lib_dir.join("libascendcl.so")
    }

    /// Shell lines that make programs use the installed mock:
    /// `ASCENDCL_LIBRARY` (programs built on ascendcl-sys) and
    /// `LD_LIBRARY_PATH` (C, C++ and Python programs that load
    /// `libascendcl.so` by name).
    pub fn shell_exports(&self) -> String {
        let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
        format!(
            "export ASCENDCL_LIBRARY={}\nexport LD_LIBRARY_PATH={}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n",
            quote(&self.library()),
            quote(&self.lib_dir),
        )
    }
}

/// An [`install`] that failed: which file, and why.
#[derive(Debug)]
pub struct InstallError {
    /// The file or directory that could not be written.
    pub path: PathBuf,
    /// The error of the file system.
    pub source: io::Error,
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write {}: {} (choose a --prefix you can write to, e.g. $HOME/.local/ascendcl-mock)",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for InstallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Writes every mock library to `prefix/lib` and the C headers to
/// `prefix/include`, creating the directories.
///
/// Each file is written beside its target and renamed over it, so a program
/// still running on a previous install keeps its mapped copy intact.
/// `libnnopbase.so` and `libopapi.so` find `libascendcl.so` beside them
/// (rpath `$ORIGIN`), so the directory may be moved as a whole.
pub fn install(prefix: impl AsRef<Path>) -> Result<Installation, InstallError> {
    let prefix = prefix.as_ref();
    let lib_dir = prefix.join("lib");
    let include_dir = prefix.join("include");
    let mut files = Vec::new();
    for (name, bytes) in embedded::LIBRARY_BYTES {
        files.push(write_file(&lib_dir.join(name), bytes, 0o755)?);
    }
    for (relative, bytes) in embedded::HEADER_BYTES {
        files.push(write_file(&include_dir.join(relative), bytes, 0o644)?);
    }
    Ok(Installation {
        lib_dir,
        include_dir,
        files,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
fn write_file(path: &Path, bytes: &[u8], mode: u32) -> Result<PathBuf, InstallError> {
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |source| InstallError { path, source }
    };
    let dir = path.parent().expect("a file under the prefix");
    std::fs::create_dir_all(dir).map_err(fail(dir))?;
    let name = path.file_name().expect("a file name").to_string_lossy();
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        set_mode(&temporary, mode)?;
        std::fs::rename(&temporary, path)
    })();
    if let Err(source) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(InstallError {
            path: path.to_path_buf(),
            source,
        });
    }
    Ok(path.to_path_buf())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}
