//! Errors of loading the library and resolving its symbols.

use std::fmt;
use std::path::PathBuf;

use crate::elf::ElfProblem;

/// One place the loader looked for the AscendCL library, and why it was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// A file path, or a bare file name handed to the system loader.
    pub candidate: PathBuf,
    /// Who suggested it: `ASCENDCL_LIBRARY`, a CANN root variable, a default
    /// location, or `system loader`.
    pub source: String,
    /// What went wrong: "no such file", what the ELF check found wrong with
    /// the file (see [`crate::elf`]), or the dynamic loader's message.
    pub reason: String,
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (from {}): {}",
            self.candidate.display(),
            self.source,
            self.reason
        )
    }
}

/// The AscendCL library could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// No candidate could be opened. Lists every candidate tried, in order.
    NotFound {
        /// Every place looked at, in order.
        attempts: Vec<Attempt>,
    },
    /// The aclnn operator libraries (`libnnopbase.so` and an op-API library)
    /// were found in none of the directories tried, listed in order.
    AclnnNotFound {
        /// Every library tried, in order.
        attempts: Vec<Attempt>,
    },
    /// The HCCL library (`libhccl.so`) was found in none of the directories
    /// tried, listed in order.
    HcclNotFound {
        /// Every library tried, in order.
        attempts: Vec<Attempt>,
    },
    /// The profiler library (`libmsprofiler.so`) was found in none of the
    /// directories tried, listed in order.
    ProfilerNotFound {
        /// Every library tried, in order.
        attempts: Vec<Attempt>,
    },
    /// The DVPP operator library (`libacl_dvpp_op.so`) was found in none of
    /// the places tried, listed in order.
    DvppNotFound {
        /// Every library tried, in order.
        attempts: Vec<Attempt>,
    },
    /// The file named for a library (by `ASCENDCL_LIBRARY`,
    /// `ASCENDCL_PROFILER_LIBRARY`, `ASCENDCL_DVPP_LIBRARY` or an explicit
    /// path) is there but is not a
    /// shared library this process can load: truncated, not ELF, or built for
    /// another machine. It was checked before the dynamic loader saw it (see
    /// [`crate::elf`]), because the loader crashes the process on a truncated
    /// file instead of returning an error.
    InvalidFile {
        /// The file.
        file: PathBuf,
        /// Who named it: a variable name or `explicit path`.
        source: String,
        /// What is wrong with it.
        problem: ElfProblem,
    },
    /// A different library was already selected for this process; a process
    /// talks to exactly one AscendCL runtime.
    AlreadySelected {
        /// The library in use.
        selected: PathBuf,
        /// The library that was asked for.
        requested: PathBuf,
    },
}

impl LoadError {
    /// The places tried, for [`LoadError::NotFound`] and the other
    /// `*NotFound` variants; empty otherwise.
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            LoadError::NotFound { attempts }
            | LoadError::AclnnNotFound { attempts }
            | LoadError::HcclNotFound { attempts }
            | LoadError::ProfilerNotFound { attempts }
            | LoadError::DvppNotFound { attempts } => attempts,
            LoadError::InvalidFile { .. } | LoadError::AlreadySelected { .. } => &[],
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound { attempts } => {
                write!(f, "could not load the AscendCL runtime library; tried:")?;
                for attempt in attempts {
                    write!(f, "\n  - {attempt}")?;
                }
                write!(
                    f,
                    "\nSet ASCENDCL_LIBRARY to the path of libascendcl.so (or libacl_rt.so on CANN 8.5+), \
                     or source CANN's set_env.sh so that ASCEND_TOOLKIT_HOME is set. \
                     Without a card: tests use the behavioural mock with Runtime::mock() (feature \
                     `mock` of the ascendcl crate); other programs run on it after \
                     `ascendcl-mock install --prefix DIR` with ASCENDCL_LIBRARY=DIR/lib/libascendcl.so."
                )
            }
            LoadError::AclnnNotFound { attempts } => {
                write!(f, "could not load the aclnn operator libraries; tried:")?;
                for attempt in attempts {
                    write!(f, "\n  - {attempt}")?;
                }
                write!(
                    f,
                    "\nSet ASCENDCL_ACLNN_DIR to the directory holding libnnopbase.so and \
                     libopapi.so (CANN's lib64), or install the CANN operator packages."
                )
            }
            LoadError::HcclNotFound { attempts } => {
                write!(f, "could not load the HCCL library; tried:")?;
                for attempt in attempts {
                    write!(f, "\n  - {attempt}")?;
                }
                write!(
                    f,
                    "\nSet ASCENDCL_HCCL_DIR to the directory holding libhccl.so (and libhcomm.so \
                     on CANN 8.5+; CANN's lib64), or install CANN's HCCL package."
                )
            }
            LoadError::ProfilerNotFound { attempts } => {
                write!(f, "could not load the profiler library; tried:")?;
                for attempt in attempts {
                    write!(f, "\n  - {attempt}")?;
                }
                write!(
                    f,
                    "\nSet ASCENDCL_PROFILER_LIBRARY to libmsprofiler.so (in CANN's lib64, \
                     next to the runtime library)."
                )
            }
            LoadError::DvppNotFound { attempts } => {
                write!(f, "could not load the DVPP operator library; tried:")?;
                for attempt in attempts {
                    write!(f, "\n  - {attempt}")?;
                }
                write!(
                    f,
                    "\nSet ASCENDCL_DVPP_LIBRARY to libacl_dvpp_op.so, or install CANN's DVPP \
                     operators (acldvppop; they put it in CANN's lib64, next to the runtime \
                     library). Without a card, the behavioural mock (ascendcl-mock) builds one \
                     next to its libascendcl.so."
                )
            }
            LoadError::InvalidFile {
                file,
                source,
                problem,
            } => write!(
                f,
                "{} (from {source}) is not a usable shared library: {problem}\n{}{}.",
                file.display(),
                capitalised(problem.fix()),
                match source.as_str() {
                    "explicit path" => String::new(),
                    variable => format!(", or set {variable} to another file"),
                }
            ),
            LoadError::AlreadySelected {
                selected,
                requested,
            } => write!(
                f,
                "cannot use {}: this process already uses the AscendCL library {}",
                requested.display(),
                selected.display()
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// `text` with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A function is not exported by the loaded library (an older CANN, or a
/// library that is not AscendCL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolError {
    /// The C function name.
    pub symbol: &'static str,
    /// The library that was searched.
    pub library: PathBuf,
    /// The dynamic loader's message.
    pub reason: String,
}

impl fmt::Display for SymbolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not exported by {} ({}); the installed CANN may be older than the API this program uses",
            self.symbol,
            self.library.display(),
            self.reason
        )
    }
}

impl std::error::Error for SymbolError {}
