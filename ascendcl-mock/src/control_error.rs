//! [`ControlError`]: a mock control (device count, HBM size, SoC name, a
//! fault, a replay, a recording) that the mock refused, with its code and
//! what to do instead.

use std::fmt;

/// A control of the mock refused its argument.
///
/// With the `mock` feature, `ascendcl::Error` converts from it, so `?` works
/// in a test that returns `ascendcl::Result`:
///
/// ```
/// let mock = ascendcl_mock::session();
/// let err = mock.set_device_count(0).unwrap_err();
/// assert_eq!(err.code(), ascendcl_sys::ACL_ERROR_INVALID_PARAM);
/// assert_eq!(err.control(), "set_device_count");
/// assert!(err.to_string().contains("1 to 64"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlError {
    control: &'static str,
    code: i32,
    reason: String,
}

impl ControlError {
    pub(crate) fn new(control: &'static str, code: i32, reason: impl Into<String>) -> ControlError {
        ControlError {
            control,
            code,
            reason: reason.into(),
        }
    }

    /// The control that refused (`set_hbm_bytes`, `inject`, `replay`, ...).
    pub fn control(&self) -> &'static str {
        self.control
    }

    /// The mock's code (an AscendCL code: 100000 for a bad argument, 100003
    /// for a file that cannot be opened, 100006 for a file that is not a trace).
    pub fn code(&self) -> i32 {
        self.code
    }

    /// What was wrong and what to do.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the mock refused {} (code {}): {}",
            self.control, self.code, self.reason
        )
    }
}

impl std::error::Error for ControlError {}

/// `Ok` for 0, else the control's error with `reason`.
pub(crate) fn check(
    control: &'static str,
    code: i32,
    reason: impl FnOnce() -> String,
) -> Result<(), ControlError> {
    if code == 0 {
        Ok(())
    } else {
        Err(ControlError::new(control, code, reason()))
    }
}
