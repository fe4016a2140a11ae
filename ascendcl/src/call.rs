//! Turning raw return codes into [`Result`]s.

use std::ffi::CStr;

use ascendcl_sys::{Library, SymbolError, aclError};

use crate::error::{AclError, Result};

/// `Ok(())` for `ACL_SUCCESS`; otherwise the error, with the thread's recent
/// runtime message captured now (the runtime clears it on read).
#[inline]
pub(crate) fn check(
    lib: &Library,
    function: &'static str,
    result: Result<aclError, SymbolError>,
) -> Result<()> {
    match result {
        Ok(0) => Ok(()),
        Ok(code) => Err(AclError::new(code, function, recent_message(lib)).into()),
        Err(missing) => Err(missing.into()),
    }
}

/// The calling thread's recent error text, read (and so cleared) once.
pub(crate) fn recent_message(lib: &Library) -> Option<String> {
    // SAFETY: no arguments; the returned pointer is checked for null below.
    let ptr = unsafe { lib.aclGetRecentErrMsg() }.ok()?;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: a non-null result is a NUL-terminated string valid until the
    // next ACL call on this thread; it is copied before any other call.
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// A C string returned by the runtime, copied; `None` for null.
pub(crate) fn owned_c_string(ptr: *const std::ffi::c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the runtime returns NUL-terminated strings; copied immediately.
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}
