//! Categories of error codes, and what to do about each.

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The caller passed something invalid (1xxxxx codes, or rejected before FFI).
    InvalidArgument,
    /// A runtime resource ran out or a feature is unsupported (2xxxxx, 3xxxxx).
    Resource,
    /// Device memory ran out (207001, 207018, 200000, 245000).
    OutOfMemory,
    /// A wait gave up (507046, 507047, 107019, 100036).
    Timeout,
    /// The device or the runtime failed (5xxxxx).
    DeviceFault,
    /// ACL was not initialised (100001).
    NotInitialized,
    /// The library or one of its functions is missing.
    LibraryMissing,
    /// A failure inside this crate's machinery (a panicking callback).
    Internal,
}

impl Category {
    /// The category of a runtime error code.
    pub fn of_code(code: i32) -> Category {
        match code {
            207001 | 207018 | 200000 | 245000 => Category::OutOfMemory,
            507046 | 507047 | 107019 | 100036 => Category::Timeout,
            100001 | 106101 => Category::NotInitialized,
            100_000..=199_999 => Category::InvalidArgument,
            200_000..=399_999 => Category::Resource,
            _ => Category::DeviceFault,
        }
    }

    /// A short description.
    pub fn description(self) -> &'static str {
        match self {
            Category::InvalidArgument => "invalid argument or state",
            Category::Resource => "runtime resource exhausted or unsupported",
            Category::OutOfMemory => "out of device memory",
            Category::Timeout => "timed out",
            Category::DeviceFault => "device or runtime failure",
            Category::NotInitialized => "ACL is not initialised",
            Category::LibraryMissing => "AscendCL library or function missing",
            Category::Internal => "internal failure",
        }
    }

    /// What the caller can do about it, when there is something to say.
    pub fn hint(self) -> Option<&'static str> {
        Some(match self {
            Category::OutOfMemory => {
                "free device memory (drop buffers, call empty_cache on a caching allocator), \
                 reduce the batch size, or use expandable segments to avoid fragmentation"
            }
            Category::Timeout => {
                "work is still queued; wait longer, synchronize without a timeout, \
                 or look for a stream waiting on an event that is never recorded"
            }
            Category::DeviceFault => {
                "the device reported a failure; check `npu-smi info` and the device logs \
                 (ASCEND_SLOG_PRINT_TO_STDOUT=1), then reset the device"
            }
            Category::NotInitialized => "create an ascendcl::Runtime first",
            Category::LibraryMissing => {
                "install CANN and source its set_env.sh, or set ASCENDCL_LIBRARY to libascendcl.so"
            }
            Category::Resource => "release streams, events or contexts that are no longer needed",
            Category::InvalidArgument | Category::Internal => return None,
        })
    }
}
