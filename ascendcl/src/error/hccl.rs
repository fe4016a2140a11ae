//! `HcclError`: a non-zero `HcclResult`, with its name and what to do.
//!
//! HCCL's status codes are a small enum of their own (0–24, 1041), unrelated
//! to the runtime's six-digit codes, so they get their own error type rather
//! than sharing [`AclError`](super::AclError)'s code space.

use std::fmt;

use ascendcl_sys::HcclResult;

use super::Category;

/// A non-zero status returned by an HCCL function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HcclError {
    code: u32,
    function: &'static str,
    message: Option<String>,
}

impl HcclError {
    /// An error for `code` returned by `function`, with the library's text
    /// for it (`HcclGetErrorString`), if any.
    pub fn new(code: HcclResult, function: &'static str, message: Option<String>) -> HcclError {
        HcclError {
            code: code.0,
            function,
            message: message.filter(|m| !m.trim().is_empty()),
        }
    }

    /// The status the library returned.
    pub fn code(&self) -> HcclResult {
        HcclResult(self.code)
    }

    /// The symbolic name of the status (`HCCL_E_TIMEOUT`), if known.
    pub fn code_name(&self) -> Option<&'static str> {
        hccl_code_name(self.code())
    }

    /// The HCCL function that returned it.
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// The library's description of the status, if it gave one.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// What kind of failure the status denotes.
    pub fn category(&self) -> Category {
        match self.code() {
            HcclResult::HCCL_E_PARA | HcclResult::HCCL_E_PTR => Category::InvalidArgument,
            HcclResult::HCCL_E_MEMORY | HcclResult::HCCL_E_OOM => Category::OutOfMemory,
            HcclResult::HCCL_E_TIMEOUT => Category::Timeout,
            HcclResult::HCCL_E_NOT_SUPPORT
            | HcclResult::HCCL_E_UNAVAIL
            | HcclResult::HCCL_E_AGAIN
            | HcclResult::HCCL_E_NOT_FOUND => Category::Resource,
            HcclResult::HCCL_E_INTERNAL => Category::Internal,
            _ => Category::DeviceFault,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        hccl_hint(self.code())
    }
}

/// The name of an HCCL status, if this version knows it.
pub fn hccl_code_name(code: HcclResult) -> Option<&'static str> {
    macro_rules! names {
        ($($name:ident),* $(,)?) => {
            match code {
                $(HcclResult::$name => Some(stringify!($name)),)*
                _ => None,
            }
        };
    }
    names!(
        HCCL_SUCCESS,
        HCCL_E_PARA,
        HCCL_E_PTR,
        HCCL_E_MEMORY,
        HCCL_E_INTERNAL,
        HCCL_E_NOT_SUPPORT,
        HCCL_E_NOT_FOUND,
        HCCL_E_UNAVAIL,
        HCCL_E_SYSCALL,
        HCCL_E_TIMEOUT,
        HCCL_E_OPEN_FILE_FAILURE,
        HCCL_E_TCP_CONNECT,
        HCCL_E_ROCE_CONNECT,
        HCCL_E_TCP_TRANSFER,
        HCCL_E_ROCE_TRANSFER,
        HCCL_E_RUNTIME,
        HCCL_E_DRV,
        HCCL_E_PROFILING,
        HCCL_E_CCE,
        HCCL_E_NETWORK,
        HCCL_E_AGAIN,
        HCCL_E_REMOTE,
        HCCL_E_SUSPENDING,
        HCCL_E_OPRETRY_FAIL,
        HCCL_E_OOM,
        HCCL_E_IN_STATUS,
    )
}

fn hccl_hint(code: HcclResult) -> &'static str {
    match code {
        HcclResult::HCCL_E_PARA | HcclResult::HCCL_E_PTR => {
            "HCCL refused an argument: every rank must pass the same count, dtype, op and root, \
             with buffers on the communicator's device; the library log names the parameter"
        }
        HcclResult::HCCL_E_TIMEOUT => {
            "a peer rank did not arrive in time: check that every rank issues the same collectives \
             in the same order, and raise HCCL_CONNECT_TIMEOUT (init) or HCCL_EXEC_TIMEOUT (collectives)"
        }
        HcclResult::HCCL_E_MEMORY | HcclResult::HCCL_E_OOM => {
            "device memory ran out: free buffers, or lower HCCL_BUFFSIZE (MB per communicator)"
        }
        HcclResult::HCCL_E_NOT_SUPPORT => {
            "this CANN, chip or dtype does not support the operation (PROD of int16/bf16, for \
             example); check the dtype support table of the collective"
        }
        HcclResult::HCCL_E_AGAIN => {
            "the communicator is busy: wait for its collectives and try again"
        }
        HcclResult::HCCL_E_TCP_CONNECT
        | HcclResult::HCCL_E_ROCE_CONNECT
        | HcclResult::HCCL_E_NETWORK => {
            "ranks could not connect: check HCCL_IF_IP / HCCL_SOCKET_IFNAME, firewalls and that \
             every rank got the same root info"
        }
        HcclResult::HCCL_E_TCP_TRANSFER
        | HcclResult::HCCL_E_ROCE_TRANSFER
        | HcclResult::HCCL_E_REMOTE => {
            "a transfer between ranks failed: a peer may have died; destroy the communicator and \
             create a new one"
        }
        HcclResult::HCCL_E_SUSPENDING => "the communicator is suspended: resume it first",
        HcclResult::HCCL_E_RUNTIME | HcclResult::HCCL_E_DRV => {
            "a runtime or driver call inside HCCL failed: check `npu-smi info` and the device logs"
        }
        _ => "see the HCCL logs (ASCEND_SLOG_PRINT_TO_STDOUT=1) for the cause",
    }
}

impl fmt::Display for HcclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} returned {}", self.function, self.code)?;
        if let Some(name) = self.code_name() {
            write!(f, " ({name})")?;
        }
        write!(f, ": {}", self.category().description())?;
        if let Some(message) = &self.message {
            write!(f, "\nHCCL: {}", message.trim_end())?;
        }
        write!(f, "\nhint: {}", self.hint())
    }
}

impl std::error::Error for HcclError {}
