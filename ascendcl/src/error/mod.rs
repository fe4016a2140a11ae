//! Errors: what failed, the runtime's code and name, and what to do about it.
//!
//! Every fallible function returns [`Result<T>`](Result). An [`Error`] is one of:
//!
//! * [`Error::Acl`]: the runtime returned a non-zero code. The [`AclError`]
//!   carries the code, its symbolic name, the C function, a [`Category`], and
//!   the text of `aclGetRecentErrMsg` read on the calling thread the moment the
//!   code came back (the runtime clears that text when it is read, so it is
//!   captured once, here).
//! * [`Error::InvalidArgument`]: rejected before any FFI call (zero length,
//!   size overflow, mismatched lengths, a device id out of range, a zero
//!   timeout, ...).
//! * [`Error::Library`] / [`Error::Symbol`]: no AscendCL library, or one too
//!   old to export a function.
//! * [`Error::InvalidState`]: an operation that the current state forbids (for
//!   example finalizing while objects are alive).
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! let device = ascendcl::Device::open(&rt, 0)?;
//! let ctx = device.default_context();
//! // 64 TiB does not fit on any card: a typed out-of-memory error comes back.
//! let err = ascendcl::DeviceBuffer::<u8>::alloc(&ctx, 64 << 40).unwrap_err();
//! assert!(err.is_out_of_memory());
//! assert_eq!(err.code(), Some(207001));
//! assert_eq!(err.code_name(), Some("ACL_ERROR_RT_MEMORY_ALLOCATION"));
//! # Ok::<(), ascendcl::Error>(())
//! ```

mod category;
mod hccl;
mod names;

use std::fmt;

pub use category::Category;
pub use hccl::{HcclError, hccl_code_name};
pub use names::code_name;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A non-zero code returned by an AscendCL function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AclError {
    code: i32,
    function: &'static str,
    message: Option<String>,
}

impl AclError {
    /// An error for `code` returned by `function`, with the runtime's message.
    pub fn new(code: i32, function: &'static str, message: Option<String>) -> AclError {
        AclError {
            code,
            function,
            message: message.filter(|m| !m.trim().is_empty()),
        }
    }

    /// The code the runtime returned.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The symbolic name of the code, if this version knows it.
    pub fn code_name(&self) -> Option<&'static str> {
        code_name(self.code)
    }

    /// The C function that returned the code.
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// The runtime's error text (`aclGetRecentErrMsg`), if it gave one.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// What kind of failure the code denotes.
    pub fn category(&self) -> Category {
        Category::of_code(self.code)
    }
}

impl fmt::Display for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} returned {}", self.function, self.code)?;
        if let Some(name) = self.code_name() {
            write!(f, " ({name})")?;
        }
        write!(f, ": {}", self.category().description())?;
        if let Some(message) = &self.message {
            write!(f, "\nruntime message: {}", message.trim_end())?;
        }
        let hint = function_hint(self.function, self.code, self.category())
            .or(code_hint(self.code))
            .or(self.category().hint());
        if let Some(hint) = hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

/// What to do, when the function that failed says more than the code: the
/// runtime reports pinned host memory running out with the device codes, and
/// an elapsed time asked of an event that was never recorded with a generic
/// internal error.
fn function_hint(function: &str, code: i32, category: Category) -> Option<&'static str> {
    match (function, category) {
        ("aclrtMallocHost", Category::OutOfMemory) => Some(
            "pinned host memory ran out (not device memory): drop HostBuffers you no longer \
             need, reuse staging buffers, or pin less at once",
        ),
        // The runtime answers 507000 when either event has no recording
        // (hicann/runtime v8.5.0 src/runtime/feature/src/event/event.cc:1121-1124,
        // as the mock's event.c notes): a usage error, not a device fault.
        ("aclrtEventElapsedTime", _) if code == ascendcl_sys::ACL_ERROR_RT_INTERNAL_ERROR => Some(
            "an event that was never recorded has no timestamp (this is a usage error, the \
             device is fine): record both events on a stream (start before the work, end \
             after it), synchronize the end event, then call elapsed",
        ),
        ("aclrtEventElapsedTime", _)
            if code == ascendcl_sys::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID =>
        {
            Some(
                "create both events with EventFlags::TIMELINE, and synchronize the end event \
             before asking for the elapsed time",
            )
        }
        _ => None,
    }
}

/// What to do about a code, when the code says more than its category.
fn code_hint(code: i32) -> Option<&'static str> {
    Some(match code {
        ascendcl_sys::ACLNN_ERR_PARAM_NULLPTR => {
            "a required tensor, scalar or array of the operator was null"
        }
        ascendcl_sys::ACLNN_ERR_PARAM_INVALID => {
            "the operator refused its arguments: check shapes, dtypes, broadcasting and attributes \
             against its documentation; the runtime message names the parameter"
        }
        ascendcl_sys::ACLDVPP_ERR_PARAM_INVALID => {
            "the DVPP operator refused its arguments: one image per call (N 1 or absent), 1 or 3 \
             channels, NCHW/NHWC, contiguous, uint8 or float, and the size ranges of its page; \
             the runtime message names the parameter"
        }
        ascendcl_sys::ACLDVPP_ERR_UNINITIALIZE => {
            "DVPP is not initialized: aclInit (Runtime) or acldvppInit must run before a DVPP operator"
        }
        ascendcl_sys::ACLDVPP_ERR_API_NOT_SUPPORT => {
            "this SoC or driver has no acldvppop operators (CANN 8.5: Atlas A2/A3 only); check that \
             the CANN version matches the driver"
        }
        ascendcl_sys::ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        | ascendcl_sys::ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND => {
            "the operator package has no kernel for these arguments on this SoC: check that the \
             CANN operator packages match the toolkit and the chip"
        }
        _ => return None,
    })
}

impl std::error::Error for AclError {}

/// Every error of this crate.
///
/// # Printing
///
/// `Display` (`{error}`) and `Debug` (`{error:?}`) both print the message a
/// person reads: what failed, the runtime's code, name and text, and what
/// to do (the hint). So a `fn main() -> ascendcl::Result<()>` that fails, an
/// `unwrap()` and a test returning `Result` all print it, not a dump of the
/// enum. The alternate `Debug` (`{error:#?}`) prints the structure, variant
/// by variant, for logs and bug reports:
///
/// ```
/// let error = ascendcl::Error::InvalidArgument("length 0".into());
/// assert_eq!(format!("{error:?}"), "invalid argument: length 0");
/// assert_eq!(format!("{error:#?}"), "InvalidArgument(\n    \"length 0\",\n)");
/// ```
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The runtime returned a non-zero code.
    #[error(transparent)]
    Acl(#[from] AclError),
    /// An argument was rejected before calling the runtime.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The operation is not allowed in the current state.
    #[error("invalid state: {0}")]
    InvalidState(String),
    /// The AscendCL library could not be loaded.
    #[error("{0}\n{LIBRARY_HINT}")]
    Library(#[from] ascendcl_sys::LoadError),
    /// The loaded library does not export a function.
    #[error(transparent)]
    Symbol(#[from] ascendcl_sys::SymbolError),
    /// A host callback panicked; the panic was caught at the FFI boundary.
    #[error("a host callback on the stream panicked: {0}")]
    CallbackPanicked(String),
    /// An error that happened in a destructor (`Drop` cannot return it), handed
    /// back by the next call that can.
    #[error("while dropping {during}: {source}")]
    Deferred {
        /// What was being dropped.
        during: &'static str,
        /// The error.
        source: Box<Error>,
    },
    /// A wait that could never end was refused: a host callback waited for
    /// its own stream (or device), which cannot pass the callback until it
    /// returns. See [`Stream::launch_host_fn`](crate::Stream::launch_host_fn).
    #[error("refused a wait that would deadlock: {0}")]
    WouldDeadlock(String),
    /// The physical memory is already mapped; one physical allocation may
    /// have at most one live mapping (see [`VirtualRange::map`](crate::vmm::VirtualRange::map)).
    #[error("physical memory already mapped: {0}")]
    AlreadyMapped(String),
    /// An HCCL function returned a non-zero status (see [`crate::hccl`]).
    #[error(transparent)]
    Hccl(#[from] HcclError),
    /// The HCCL library of this CANN does not export an optional function
    /// (for example `HcclBatchSendRecv` or `HcclGetCommAsyncError` on an
    /// older release), so the feature is not supported here.
    #[error("{} is not supported by this CANN: {source}", source.symbol)]
    NotSupported {
        /// The missing function.
        source: ascendcl_sys::SymbolError,
    },
    /// The caching allocator ran out of memory even after releasing its
    /// cache and retrying; carries a snapshot of its statistics.
    #[error(transparent)]
    OutOfMemory(Box<crate::alloc::OutOfMemory>),
}

/// What to do when no library loads: `doctor` says why on this machine.
const LIBRARY_HINT: &str = "hint: `ascendcl doctor` (cargo install ascendcl-cli) checks this \
     machine's CANN install, driver and devices and says what to fix";

/// The message (see [Printing](Error#printing)); `{:#?}` the structure.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        match self {
            Error::Acl(e) => f.debug_tuple("Acl").field(e).finish(),
            Error::InvalidArgument(s) => f.debug_tuple("InvalidArgument").field(s).finish(),
            Error::InvalidState(s) => f.debug_tuple("InvalidState").field(s).finish(),
            Error::Library(e) => f.debug_tuple("Library").field(e).finish(),
            Error::Symbol(e) => f.debug_tuple("Symbol").field(e).finish(),
            Error::CallbackPanicked(s) => f.debug_tuple("CallbackPanicked").field(s).finish(),
            Error::Deferred { during, source } => f
                .debug_struct("Deferred")
                .field("during", during)
                .field("source", source)
                .finish(),
            Error::WouldDeadlock(s) => f.debug_tuple("WouldDeadlock").field(s).finish(),
            Error::AlreadyMapped(s) => f.debug_tuple("AlreadyMapped").field(s).finish(),
            Error::Hccl(e) => f.debug_tuple("Hccl").field(e).finish(),
            Error::NotSupported { source } => f
                .debug_struct("NotSupported")
                .field("source", source)
                .finish(),
            Error::OutOfMemory(oom) => f.debug_tuple("OutOfMemory").field(oom).finish(),
        }
    }
}

impl Error {
    pub(crate) fn invalid(what: impl Into<String>) -> Error {
        Error::InvalidArgument(what.into())
    }

    /// What kind of failure this is.
    pub fn category(&self) -> Category {
        match self {
            Error::Acl(e) => e.category(),
            Error::InvalidArgument(_) => Category::InvalidArgument,
            Error::InvalidState(_) | Error::WouldDeadlock(_) | Error::AlreadyMapped(_) => {
                Category::InvalidArgument
            }
            Error::Library(_) | Error::Symbol(_) => Category::LibraryMissing,
            Error::CallbackPanicked(_) => Category::Internal,
            Error::Deferred { source, .. } => source.category(),
            Error::OutOfMemory(_) => Category::OutOfMemory,
            Error::Hccl(e) => e.category(),
            Error::NotSupported { .. } => Category::LibraryMissing,
        }
    }

    /// The runtime's code, if the runtime returned one.
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Acl(e) => Some(e.code),
            Error::Deferred { source, .. } => source.code(),
            Error::OutOfMemory(oom) => oom.code(),
            _ => None,
        }
    }

    /// The symbolic name of the runtime's code.
    pub fn code_name(&self) -> Option<&'static str> {
        match self {
            Error::Hccl(e) => e.code_name(),
            Error::Deferred { source, .. } => source.code_name(),
            _ => self.code().and_then(code_name),
        }
    }

    /// The runtime's error text, if any.
    pub fn message(&self) -> Option<&str> {
        match self {
            Error::Acl(e) => e.message(),
            Error::Hccl(e) => e.message(),
            Error::Deferred { source, .. } => source.message(),
            Error::OutOfMemory(oom) => oom.source.as_ref().and_then(AclError::message),
            _ => None,
        }
    }

    /// Whether the device (or the allocator) ran out of memory.
    pub fn is_out_of_memory(&self) -> bool {
        self.category() == Category::OutOfMemory
    }

    /// The HCCL status, if an HCCL function returned one.
    pub fn hccl_code(&self) -> Option<ascendcl_sys::HcclResult> {
        match self {
            Error::Hccl(e) => Some(e.code()),
            Error::Deferred { source, .. } => source.hccl_code(),
            _ => None,
        }
    }

    /// Whether the loaded CANN lacks the function (or the library says the
    /// operation is unsupported, `HCCL_E_NOT_SUPPORT`).
    pub fn is_not_supported(&self) -> bool {
        match self {
            Error::NotSupported { .. } => true,
            Error::Deferred { source, .. } => source.is_not_supported(),
            _ => self.hccl_code() == Some(ascendcl_sys::HcclResult::HCCL_E_NOT_SUPPORT),
        }
    }

    /// Whether a wait gave up after its timeout.
    pub fn is_timeout(&self) -> bool {
        self.category() == Category::Timeout
    }
}
