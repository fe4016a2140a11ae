//! Errors that happened in destructors.
//!
//! `Drop` cannot return an error and must not panic. When releasing a
//! resource fails (the runtime refuses `aclrtFree`, an event cannot be
//! synchronized, ...), the error is parked here. The next synchronizing call
//! (`Stream::synchronize*`, `Event::synchronize*`, `Device::synchronize*`,
//! `Pending::wait`) returns the oldest parked error as [`Error::Deferred`], and
//! [`take_deferred_errors`] drains them all. Freeing explicitly
//! (`DeviceBuffer::free`, `Stream::destroy`, ...) returns the error directly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::error::{Error, Result};

static PARKED: Mutex<Vec<Error>> = Mutex::new(Vec::new());
static ANY_PARKED: AtomicBool = AtomicBool::new(false);

/// Parks an error raised while dropping `during`.
pub(crate) fn park(during: &'static str, error: Error) {
    let mut parked = PARKED.lock().unwrap_or_else(PoisonError::into_inner);
    parked.push(Error::Deferred {
        during,
        source: Box::new(error),
    });
    ANY_PARKED.store(true, Ordering::Release);
}

/// Parks the error of `result`, if any.
pub(crate) fn park_result(during: &'static str, result: Result<()>) {
    if let Err(error) = result {
        park(during, error);
    }
}

/// Runs a release step from a destructor: tries twice (a failed release is
/// not done, so trying again is safe and often succeeds after a transient
/// failure), then parks the error.
pub(crate) fn release(during: &'static str, mut step: impl FnMut() -> Result<()>) {
    if step().is_err() {
        park_result(during, step());
    }
}

/// Returns the oldest parked error, if any (cheap when there is none).
#[inline]
pub(crate) fn check_parked() -> Result<()> {
    if ANY_PARKED.load(Ordering::Acquire) {
        take_parked()
    } else {
        Ok(())
    }
}

#[cold]
fn take_parked() -> Result<()> {
    let mut parked = PARKED.lock().unwrap_or_else(PoisonError::into_inner);
    let first = if parked.is_empty() {
        None
    } else {
        Some(parked.remove(0))
    };
    ANY_PARKED.store(!parked.is_empty(), Ordering::Release);
    first.map_or(Ok(()), Err)
}

/// Drains every parked error, oldest first.
pub fn take_deferred_errors() -> Vec<Error> {
    let mut parked = PARKED.lock().unwrap_or_else(PoisonError::into_inner);
    ANY_PARKED.store(false, Ordering::Release);
    std::mem::take(&mut *parked)
}
