//! Testing code that uses this crate without a card (feature `mock`).
//!
//! [`Runtime::mock`] gives a test the behavioural mock of `libascendcl`
//! (the `ascendcl-mock` crate): a C library with CANN's functions, error
//! codes and messages, asynchronous streams, a finite HBM per device, and
//! controls a card does not have: faults on demand, a journal of every call,
//! live resource counts and misuse detection.
//!
//! ```toml
//! [dependencies]
//! ascendcl = "0.1"
//!
//! [dev-dependencies]
//! ascendcl = { version = "0.1", features = ["mock"] }
//! ```
//!
//! Your code takes a `&Runtime` (programs get it from [`Runtime::init`]);
//! a test passes the mock's:
//!
//! ```
//! use ascendcl::mock::Fault;
//! use ascendcl::prelude::*;
//! use ascendcl::sys::ACL_ERROR_RT_MEMORY_ALLOCATION;
//!
//! /// Your code: uploads `data` and reads it back.
//! fn round_trip(rt: &Runtime, data: &[f32]) -> ascendcl::Result<Vec<f32>> {
//!     let device = Device::open(rt, 0)?;
//!     let ctx = device.default_context();
//!     let on_device = DeviceBuffer::from_host(&ctx, data)?;
//!     on_device.to_vec()
//! }
//!
//! # fn main() -> ascendcl::Result<()> {
//! // A test: the mock, a fault, and a check that nothing leaked.
//! let rt = Runtime::mock()?;
//! assert_eq!(round_trip(&rt, &[1.0, 2.0])?, [1.0, 2.0]);
//!
//! rt.inject(Fault::nth("aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION))?;
//! let error = round_trip(&rt, &[1.0, 2.0]).unwrap_err();
//! assert_eq!(error.code(), Some(ACL_ERROR_RT_MEMORY_ALLOCATION));
//!
//! rt.check_clean()?; // nothing alive, no misuse, no error parked by a destructor
//! # Ok(()) }
//! ```
//!
//! The mock is one per process and Rust runs tests in parallel threads, so
//! [`Runtime::mock`] takes a process-wide lock that the returned
//! [`MockRuntime`] holds until it is dropped: the tests of one binary that
//! use it run one after the other, each on a freshly reset mock. Code under
//! test that calls [`Runtime::init`] itself gets the same mock runtime.
//!
//! The [`Mock`] controls ([`MockRuntime::mock`]) reach everything else:
//! the journal ([`Mock::journal`], [`Mock::call_count`]), live counts
//! ([`Mock::live_counts`]), misuse ([`Mock::misuse_log`]), device count and
//! HBM size ([`Mock::set_device_count`], [`Mock::set_hbm_bytes`]: call them
//! before opening a device), slow streams ([`Mock::set_stream_delay`]) and
//! replaying a trace recorded on a card ([`Mock::replay`]). A control that
//! refuses its argument returns a [`ControlError`], which converts into
//! [`Error`], so `?` works in a test returning [`crate::Result`]:
//!
//! ```
//! # fn main() -> ascendcl::Result<()> {
//! use ascendcl::prelude::*;
//!
//! let rt = Runtime::mock()?;
//! rt.mock().set_device_count(2)?;
//! rt.mock().set_hbm_bytes(8 << 20)?; // an 8 MiB card
//! assert_eq!(rt.device_count()?, 2);
//! assert!(rt.mock().set_device_count(0).is_err()); // 1 to 64
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use crate::runtime::Runtime;

pub use ascendcl_mock::{
    ControlError, Fault, JournalEntry, LiveCounts, Misuse, Mock, ReplayMode, ReplayStatus, Resource,
};

/// A refused mock control is an [`Error::InvalidArgument`] carrying its
/// message (the control, the mock's code, what to do), so `?` works on
/// [`Mock::set_hbm_bytes`] and the other controls in a test that returns
/// [`crate::Result`].
impl From<ControlError> for Error {
    fn from(error: ControlError) -> Error {
        Error::InvalidArgument(error.to_string())
    }
}

/// A test's exclusive use of the mock, with the runtime on it.
///
/// Dereferences to [`Runtime`], so `&rt` is what your code takes. Dropping
/// it lets the next test take the mock. It holds the lock, so it stays on
/// the test's thread: share `&rt` with scoped threads, or move clones of
/// [`MockRuntime::runtime`] into spawned ones.
#[derive(Debug)]
pub struct MockRuntime {
    // Declared first so it drops before the session's lock is released.
    runtime: Runtime,
    session: ascendcl_mock::Session,
}

impl Runtime {
    /// The runtime on the behavioural mock, for tests (feature `mock`).
    ///
    /// Takes the mock for this test (waiting while another test of the
    /// process holds it), resets it to its pristine state (8 devices,
    /// 62423 MiB of HBM each, no faults, an empty journal; the
    /// `ASCENDCL_MOCK_*` environment variables override the defaults),
    /// discards errors parked by an earlier test's destructors, and
    /// initialises the runtime on it. See [the module](crate::mock).
    ///
    /// A test must not call it again while it holds the result, nor call
    /// `ascendcl_mock::session()` (the same lock): the second call would
    /// wait for the first to be dropped.
    ///
    /// Fails with [`Error::Library`] if this process already uses another
    /// AscendCL library (a test binary that called [`Runtime::init`] with a
    /// CANN install found before).
    ///
    /// ```
    /// # fn main() -> ascendcl::Result<()> {
    /// let rt = ascendcl::Runtime::mock()?;
    /// assert!(rt.is_mock());
    /// assert_eq!(rt.device_count()?, 8);
    /// # Ok(()) }
    /// ```
    pub fn mock() -> Result<MockRuntime> {
        let session = ascendcl_mock::try_session()?;
        let runtime = Runtime::with_library(session.library())?;
        // An earlier test's leftovers must not fail this test's first call.
        drop(crate::take_deferred_errors());
        // The test's journal starts here (not at the first test's aclInit).
        session.clear_journal();
        Ok(MockRuntime { runtime, session })
    }
}

impl MockRuntime {
    /// The runtime (also reachable through `Deref`).
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The mock's controls: faults, journal, live counts, misuse, devices,
    /// HBM, stream delay, replay.
    pub fn mock(&self) -> &'static Mock {
        self.session.mock()
    }

    /// Injects a fault: the call it names fails with its code and message.
    ///
    /// ```
    /// # fn main() -> ascendcl::Result<()> {
    /// use ascendcl::mock::Fault;
    /// let rt = ascendcl::Runtime::mock()?;
    /// rt.inject(Fault::always("aclrtGetDeviceCount", ascendcl::sys::ACL_ERROR_RT_NO_DEVICE))?;
    /// assert!(rt.device_count().is_err());
    /// # Ok(()) }
    /// ```
    ///
    /// Fails with [`Error::InvalidArgument`] for a function the mock does
    /// not implement (a misspelt name would otherwise never fire).
    pub fn inject(&self, fault: Fault) -> Result<()> {
        Ok(self.mock().inject(&fault)?)
    }

    /// Checks that the test left nothing behind: no resource alive (drop
    /// your devices, streams and buffers first), no misuse detected, and no
    /// error parked by a destructor.
    ///
    /// Fails with [`Error::InvalidState`] describing what is left, by the
    /// objects of this crate that hold it: "1 Device open (a Device, or a
    /// Context, Stream, Event, buffer, allocator or communicator, which keep
    /// their device open)", "2 DeviceBuffer", ..., each with the mock's own
    /// count name in brackets.
    pub fn check_clean(&self) -> Result<()> {
        let mock = self.mock();
        let mut problems = Vec::new();
        let live = mock.live_counts();
        let alive: Vec<String> = Resource::ALL
            .iter()
            .filter(|&&kind| live.get(kind) > 0)
            .map(|&kind| still_alive(kind, live.get(kind)))
            .collect();
        if !alive.is_empty() {
            problems.push(format!(
                "still alive: {}; drop these objects (or end their scope) before check_clean()",
                alive.join(", ")
            ));
        }
        if mock.misuse_total() > 0 {
            problems.push(format!("misuse detected:\n{}", mock.misuse_log()));
        }
        let parked = crate::take_deferred_errors();
        if !parked.is_empty() {
            let parked: Vec<String> = parked.iter().map(ToString::to_string).collect();
            problems.push(format!(
                "errors parked by destructors: {}",
                parked.join("; ")
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidState(format!(
                "the test did not leave the mock clean: {}",
                problems.join("; ")
            )))
        }
    }
}

/// What of this crate holds `n` live mock resources of `kind`, for
/// [`MockRuntime::check_clean`].
fn still_alive(kind: Resource, n: u64) -> String {
    let (what, held_by) = match kind {
        Resource::DeviceRef => (
            "Device open",
            "a Device, or a Context, Stream, Event, buffer, allocator or communicator, \
             which keep their device open",
        ),
        Resource::Context => ("Context", "made with Context::new"),
        Resource::Stream => ("Stream", "a Stream, or a clone of one"),
        Resource::Event => (
            "Event",
            "an Event, or one a buffer or stream keeps to order its queued uses",
        ),
        Resource::DeviceBuffer => (
            "DeviceBuffer",
            "a DeviceBuffer, or a CachingAllocator's cached segments (drop it, or empty_cache)",
        ),
        Resource::HostBuffer => ("HostBuffer", "pinned host memory: a HostBuffer"),
        Resource::Reservation => (
            "VirtualRange",
            "a vmm::VirtualRange, or an expandable allocator",
        ),
        Resource::Physical => (
            "PhysicalMemory",
            "a vmm::PhysicalMemory, or an expandable allocator",
        ),
        Resource::Mapping => ("Mapping", "a vmm::Mapping, or an expandable allocator"),
        Resource::AclnnTensor
        | Resource::AclnnScalar
        | Resource::AclnnArray
        | Resource::AclnnTensorList => (
            "operator descriptor",
            "an ops::Prepared or ops::Repeatable, which own their descriptors",
        ),
        Resource::AclnnExecutor => (
            "operator executor",
            "an ops::Prepared not launched, or an ops::Repeatable",
        ),
        Resource::HcclComm => ("Communicator", "an hccl::Communicator"),
        Resource::Notify => (
            "Notify",
            "a Notify, kept alive until the record and wait tasks queued on it have run",
        ),
    };
    format!("{n} {what} ({held_by}; the mock's {kind:?}: {n})")
}

impl std::ops::Deref for MockRuntime {
    type Target = Runtime;

    fn deref(&self) -> &Runtime {
        &self.runtime
    }
}

impl AsRef<Runtime> for MockRuntime {
    fn as_ref(&self) -> &Runtime {
        &self.runtime
    }
}
