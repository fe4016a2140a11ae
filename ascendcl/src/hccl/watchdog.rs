//! `Watchdog`: a thread polling a communicator for asynchronous errors.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::hccl::Communicator;

/// Polls [`Communicator::async_error`] every `interval` on a thread of its
/// own, as torch_npu's process group does, and reports the **first** error
/// to a callback, then stops. Dropping it (or [`Watchdog::stop`]) stops the
/// thread and joins it.
///
/// A CANN without `HcclGetCommAsyncError` is reported once as
/// [`Error::NotSupported`](crate::Error::NotSupported).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use std::sync::{Arc, mpsc};
/// use std::time::Duration;
/// use ascendcl::hccl::{Communicator, Watchdog};
/// let device = ascendcl::Device::open(&rt, 0)?;
/// let comm = Arc::new(Communicator::init_all(&[device])?.remove(0));
/// let (tx, errors) = mpsc::channel();
/// let watchdog = Watchdog::spawn(comm.clone(), Duration::from_millis(5), move |e| {
///     let _ = tx.send(e);
/// })?;
/// std::thread::sleep(Duration::from_millis(20));
/// watchdog.stop();
/// assert!(errors.try_recv().is_err()); // nothing went wrong
/// # Ok::<(), ascendcl::Error>(())
/// ```
pub struct Watchdog {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watchdog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watchdog")
            .field("running", &self.is_running())
            .finish()
    }
}

impl Watchdog {
    /// Starts polling `comm` every `interval`; `on_error` runs on the
    /// watchdog's thread with the first error found. Fails only if the
    /// thread cannot be started.
    pub fn spawn(
        comm: Arc<Communicator>,
        interval: Duration,
        on_error: impl FnOnce(Error) + Send + 'static,
    ) -> Result<Watchdog> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("hccl-watchdog-rank{}", comm.rank()))
            .spawn(move || {
                loop {
                    match stopped.recv_timeout(interval) {
                        Err(RecvTimeoutError::Timeout) => {}
                        // Stopped, or the handle is gone.
                        _ => return,
                    }
                    match comm.async_error() {
                        Ok(None) => {}
                        Ok(Some(error)) => return on_error(error.into()),
                        Err(error) => return on_error(error),
                    }
                }
            });
        let thread = thread.map_err(|error| {
            Error::InvalidState(format!("could not start the HCCL watchdog thread: {error}"))
        })?;
        Ok(Watchdog {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Whether the thread is still polling (it stops after reporting).
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops the thread and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // A panicking callback ends only its own thread.
            let _ = thread.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shutdown();
    }
}
