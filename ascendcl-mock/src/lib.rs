//! The behavioural mock of `libascendcl`, and its control API.
//!
//! `csrc/` holds a C implementation of the AscendCL runtime subset declared by
//! `ascendcl-sys` (see that crate's `include/acl/`). The build script compiles it
//! into a shared library named `libascendcl.so`; [`LIBRARY_PATH`] is where it is.
//! It behaves like CANN 8.5.0 where our tests can observe it: asynchronous
//! streams run by worker threads, a finite HBM arena per device, the VMM rules,
//! per-thread contexts, error codes and messages. On top it records every call
//! in a journal, counts live resources and misuse, and injects faults.
//!
//! Misuse includes what a card would only show by chance: a happens-before
//! model (`csrc/order.h`) gives every stream a vector clock that event
//! record/wait and host synchronizes join, and flags two accesses to one
//! range (one a write) that nothing orders ([`Misuse::UnorderedAccess`]),
//! host copies into, out of, or frees of pinned memory that queued copies
//! still use ([`Misuse::PinnedHostAccess`]), judged by the order of the calls
//! whatever the timing.
//!
//! The crate also builds the recording shim ([`RECORDER_PATH`]): a library
//! with the same functions that forwards every call to a real AscendCL
//! library and writes a [`trace`] of them. The mock replays such traces
//! ([`Mock::replay`], strict or lenient), so what a card did becomes a test
//! here (`docs/recording-on-a-card.md`).
//!
//! Next to it the crate builds the mock's operator libraries, with CANN's
//! file and symbol names: `libnnopbase.so` ([`NNOPBASE_PATH`]: aclnn tensor,
//! scalar and array descriptors, executors) and `libopapi.so`
//! ([`OPAPI_PATH`]: the two-phase `aclnnXxxGetWorkspaceSize` / `aclnnXxx`
//! operators of an MLP). They share the mock's state: their calls are
//! journaled, counted and fault-injectable by name like the runtime's, their
//! descriptors and executors appear in the live counts ([`Resource`]), and a
//! launched op runs a CPU reference kernel on the stream's worker thread, so
//! its results are visible only after a synchronize, as on a card.
//!
//! The crate also builds the mock's HCCL libraries: `libhcomm.so`
//! ([`HCOMM_PATH`]: communicators from a root info or for several devices
//! of one process, rank queries, barrier, async errors) and `libhccl.so`
//! ([`HCCL_PATH`]: AllReduce, Broadcast, AllGather(V), ReduceScatter(V),
//! Reduce, Scatter, Send/Recv, BatchSendRecv, AlltoAll(V/VC)), which links
//! `libhcomm.so` as CANN's does. Ranks meet at a hub on a Unix socket named
//! in the root info, so they can be threads of one process or processes; a
//! collective runs on the stream's worker (results visible after a
//! synchronize), reduces in rank order (the same bits on every rank), and
//! ranks that disagree or never arrive fail every rank's stream instead of
//! hanging ([`Mock::set_hccl_timeouts`] scales the timeouts down).
//! Communicators are counted ([`Resource::HcclComm`]), journaled and
//! fault-injectable by name; `docs/mock-conformance.md` ("HCCL") lists what
//! the mock decides where CANN's sources do not.
//!
//! Nothing selects the mock behind a program's back: a test chooses it (with
//! [`session`], [`select`] or [`library`]), and the `ascendcl` crate's
//! `Runtime::init()` then finds it because it is the library already selected.
//!
//! # Testing your own crate on the mock
//!
//! Code built on the safe `ascendcl` crate: enable its `mock` feature in
//! your dev-dependencies and start each test with `Runtime::mock()`, which
//! takes the mock for the test and hands out these controls:
//!
//! ```toml
//! [dev-dependencies]
//! ascendcl = { version = "0.1", features = ["mock"] }
//! ```
//!
//! Code built on `ascendcl-sys` alone: add this crate as a dev-dependency and
//! start each test with [`session`] (below). What a test can do with [`Mock`]:
//!
//! | to | call |
//! |---|---|
//! | make a call fail (once, the nth time, always; with CANN's code and message) | [`Mock::inject`] with a [`Fault`], [`Mock::clear_faults`] |
//! | see what the code called, in order, with arguments and results | [`Mock::journal`], [`Mock::call_count`], [`JournalEntry`] |
//! | check nothing leaked | [`Mock::live_counts`], [`LiveCounts::is_empty`], [`Mock::live`] |
//! | check nothing was misused (double free, unordered accesses, ...) | [`Mock::misuse_total`], [`Mock::misuse_log`], [`Misuse`] |
//! | run with fewer devices or less HBM (out-of-memory paths) | [`Mock::set_device_count`], [`Mock::set_hbm_bytes`] |
//! | make races show (slow stream workers) | [`Mock::set_stream_delay`] |
//! | replay what a real card did | [`Mock::replay`], [`Mock::replay_status`], [`Mock::save_trace`] |
//! | start again from a fresh mock | [`Mock::reset`] ([`session`] does it) |
//!
//! ```
//! use ascendcl_mock::{Fault, Resource};
//! use ascendcl_sys::{ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_SUCCESS};
//!
//! let mock = ascendcl_mock::session(); // exclusive and reset, until dropped
//! mock.set_hbm_bytes(64 << 20).unwrap(); // a 64 MiB card
//! mock.inject(&Fault::nth("aclrtMalloc", 2, ACL_ERROR_RT_MEMORY_ALLOCATION)).unwrap();
//!
//! let lib = mock.library();
//! let policy = ascendcl_sys::aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST;
//! let (mut first, mut second) = (std::ptr::null_mut(), std::ptr::null_mut());
//! // SAFETY: valid out-pointers; device 0 exists on the mock.
//! unsafe {
//!     assert_eq!(lib.aclrtSetDevice(0).unwrap(), ACL_SUCCESS);
//!     assert_eq!(lib.aclrtMalloc(&mut first, 1024, policy).unwrap(), ACL_SUCCESS);
//!     // the injected fault: the second allocation fails as a card out of HBM would
//!     assert_eq!(lib.aclrtMalloc(&mut second, 1024, policy).unwrap(), ACL_ERROR_RT_MEMORY_ALLOCATION);
//! }
//! assert_eq!(mock.live(Resource::DeviceBuffer), 1);
//! assert_eq!(mock.call_count("aclrtMalloc"), 2);
//! // SAFETY: `first` came from aclrtMalloc and is freed once.
//! unsafe {
//!     assert_eq!(lib.aclrtFree(first).unwrap(), ACL_SUCCESS);
//!     assert_eq!(lib.aclrtResetDevice(0).unwrap(), ACL_SUCCESS);
//! }
//! assert!(mock.live_counts().is_empty(), "nothing leaked");
//! assert_eq!(mock.misuse_total(), 0, "{}", mock.misuse_log());
//! ```
//!
//! # C, C++ and Python programs
//!
//! [`install`] (or the `ascendcl-mock` binary of this crate, feature `cli`:
//! `ascendcl-mock install --prefix DIR`) writes every library of
//! [`LIBRARIES`] to `DIR/lib` and the C headers to `DIR/include`, a path that
//! does not change between builds:
//!
//! ```sh
//! cargo install ascendcl-mock --features cli
//! ascendcl-mock install --prefix "$HOME/.local/ascendcl-mock"
//! cc app.c -I"$HOME/.local/ascendcl-mock/include" -L"$HOME/.local/ascendcl-mock/lib" -lascendcl
//! LD_LIBRARY_PATH="$HOME/.local/ascendcl-mock/lib" ./a.out
//! ```
//!
//! ```
//! let mock = ascendcl_mock::select().expect("the mock library is built");
//! let lib = ascendcl_sys::selected_library().unwrap();
//! let mut count = 0u32;
//! // SAFETY: `count` is a valid out-pointer.
//! let code = unsafe { lib.aclrtGetDeviceCount(&mut count) }.unwrap();
//! assert_eq!(code, ascendcl_sys::ACL_SUCCESS);
//! assert!(count >= 1);
//! assert!(mock.call_count("aclrtGetDeviceCount") >= 1);
//! ```

mod control;
mod control_error;
mod install;
mod journal;
mod json;
mod record;
mod replay;
pub mod summary;
pub mod summary_ops;
pub mod trace;

use std::sync::{Mutex, MutexGuard, PoisonError};

pub use control::{Fault, LiveCounts, Misuse, Mock, Resource};
pub use control_error::ControlError;
pub use install::{
    InstallError, Installation, LIBRARIES, MockLibrary, find_library, install, library_dir,
};
pub use journal::JournalEntry;
pub use record::Recorder;
pub use replay::{
    Call, Divergence, REPLAY_DIVERGED, REPLAY_FAILED_EXIT, ReplayMode, ReplayState, ReplayStatus,
};

/// Path of the mock `libascendcl.so` built by this crate.
pub const LIBRARY_PATH: &str = env!("ASCENDCL_MOCK_LIBRARY_PATH");

/// Path of the mock's `libnnopbase.so` (aclnn descriptors and executors),
/// next to [`LIBRARY_PATH`] and sharing the mock's state.
pub const NNOPBASE_PATH: &str = env!("ASCENDCL_MOCK_NNOPBASE_PATH");

/// Path of the mock's `libopapi.so` (the aclnn operators), next to
/// [`LIBRARY_PATH`]; it needs [`NNOPBASE_PATH`] and the mock itself, found by
/// soname through its `$ORIGIN` rpath.
pub const OPAPI_PATH: &str = env!("ASCENDCL_MOCK_OPAPI_PATH");

/// Path of the mock's `libhccl.so` (the HCCL collectives), next to
/// [`LIBRARY_PATH`]. It links [`HCOMM_PATH`], so symbols of the communicator
/// API are found through its handle too, as with CANN's split libraries.
/// Collectives run on the mock's stream workers, between the mock's devices
/// in one process and between processes through a rendezvous socket named in
/// the root info (`csrc/hccl/hccl_mock.h`).
pub const HCCL_PATH: &str = env!("ASCENDCL_MOCK_HCCL_PATH");

/// Path of the mock's `libhcomm.so` (HCCL communicators: root info, init,
/// destroy, rank queries, barrier, errors, group start/end).
pub const HCOMM_PATH: &str = env!("ASCENDCL_MOCK_HCOMM_PATH");

/// Path of the mock's `libhccl.so` ([`HCCL_PATH`]).
pub fn hccl_path() -> &'static std::path::Path {
    std::path::Path::new(HCCL_PATH)
}

/// Path of the mock's `libhcomm.so` ([`HCOMM_PATH`]).
pub fn hcomm_path() -> &'static std::path::Path {
    std::path::Path::new(HCOMM_PATH)
}
/// Path of the mock's `libmsprofiler.so` (the `aclprof*` functions of
/// `acl/acl_prof.h`: argument and state checks, journaled, nothing
/// collected), next to [`LIBRARY_PATH`] where `ascendcl_sys::prof` finds it.
pub const PROFILER_PATH: &str = env!("ASCENDCL_MOCK_PROFILER_PATH");

/// Path of the mock's `libacl_dvpp_op.so` (the acldvppop operators: JPEG
/// decode with a baseline decoder of our own, crop-and-resize, resize,
/// horizontal flip, normalize; checks from CANN 8.5's pages), next to
/// [`LIBRARY_PATH`] where `ascendcl_sys::dvpp` finds it.
pub const DVPP_PATH: &str = env!("ASCENDCL_MOCK_DVPP_PATH");

/// Path of the mock's `libnnopbase.so` ([`NNOPBASE_PATH`]).
pub fn nnopbase_path() -> &'static std::path::Path {
    std::path::Path::new(NNOPBASE_PATH)
}

/// Path of the mock's `libopapi.so` ([`OPAPI_PATH`]).
pub fn opapi_path() -> &'static std::path::Path {
    std::path::Path::new(OPAPI_PATH)
}

/// Path of the recording shim `libascendcl_record.so` built by this crate.
///
/// It exports every function of the AscendCL header, forwards each call to
/// the library named by `ASCENDCL_RECORD_TARGET` (or, unset, the next
/// definition: `LD_PRELOAD`) and appends it to the trace named by
/// `ASCENDCL_RECORD_TRACE`. Use it as `ASCENDCL_LIBRARY` for programs built
/// on ascendcl-sys, or as `LD_PRELOAD` for C/C++/Python programs.
pub const RECORDER_PATH: &str = env!("ASCENDCL_RECORDER_LIBRARY_PATH");

/// Environment variables the recording shim reads at its first call.
pub const RECORDER_ENV_VARS: &[(&str, &str)] = &[
    (
        "ASCENDCL_RECORD_TRACE",
        "the trace file to write (`%p` = process id); unset: forward only",
    ),
    (
        "ASCENDCL_RECORD_TARGET",
        "the real library; unset: the next definition (LD_PRELOAD), else libascendcl.so / libacl_rt.so",
    ),
];

/// Environment variables the mock reads at load and at every reset.
pub const ENV_VARS: &[(&str, &str)] = &[
    (
        "ASCENDCL_MOCK_DEVICE_COUNT",
        "number of devices (default 8)",
    ),
    (
        "ASCENDCL_MOCK_HBM_BYTES",
        "usable HBM per device in bytes, or with a KiB/MiB/GiB suffix (default 62423 MiB ≈ 60.96 GiB, a 64 GB card)",
    ),
    ("ASCENDCL_MOCK_SOC_NAME", "SoC name (default Ascend910B1)"),
    (
        "ASCENDCL_MOCK_STREAM_DELAY_US",
        "delay before each stream task, in µs, 0 to 1000000 (default 0; other values are ignored)",
    ),
    (
        "ASCENDCL_MOCK_FAULTS",
        "faults to inject: `fn@nth=code[:message]` separated by `;`, nth `*` for every call",
    ),
    (
        "ASCENDCL_MOCK_TRACE",
        "file to append every journal entry to, as JSON lines",
    ),
    (
        "ASCENDCL_MOCK_JOURNAL_CAPACITY",
        "entries kept in memory (default 65536; oldest dropped)",
    ),
    (
        "ASCENDCL_MOCK_ABORT_ON_MISUSE",
        "abort with the message on the first detected misuse (debugging)",
    ),
    (
        "ASCENDCL_MOCK_HCCL_TIMEOUT_MS",
        "both HCCL timeouts of the mock's libhcomm.so in ms, overriding HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT (seconds; defaults 120 and 1836)",
    ),
    (
        "ASCENDCL_MOCK_REPLAY",
        "a trace to replay (see Mock::replay); also configures device count, HBM and SoC from it. A failed replay (unloadable trace, divergence, strict calls not made) ends the process with exit status 86",
    ),
    (
        "ASCENDCL_MOCK_REPLAY_MODE",
        "`strict` (default: the calls must match the trace) or `lenient` (recorded facts only)",
    ),
    (
        "ASCENDCL_MOCK_REPLAY_REPORT",
        "file that receives the replay status (JSON) when the process exits",
    ),
    (
        "ASCENDCL_MOCK_REPLAY_ORDER_TIMEOUT_MS",
        "longest a replayed call waits for another thread's call that preceded it in the trace, ms (1 to 600000, default 20000); the wait fails sooner once that call cannot come (its thread exited, or never came while every thread waits)",
    ),
];

/// Makes the mock the library of this process and returns its control API.
///
/// Fails if another AscendCL library is already in use by this process.
pub fn select() -> Result<&'static Mock, ascendcl_sys::LoadError> {
    ascendcl_sys::select_library(LIBRARY_PATH)?;
    Ok(Mock::get())
}

/// The mock as an [`ascendcl_sys::Library`], selected for this process.
pub fn library() -> Result<&'static ascendcl_sys::Library, ascendcl_sys::LoadError> {
    ascendcl_sys::select_library(LIBRARY_PATH)
}

/// Exclusive use of the mock by one test.
///
/// The mock's state is process-wide and Rust tests run in parallel threads, so
/// a test that asserts on counters, the journal or faults takes this guard
/// first. Taking it selects the mock and resets it to the pristine state.
#[derive(Debug)]
pub struct Session {
    _guard: MutexGuard<'static, ()>,
    mock: &'static Mock,
}

impl Session {
    /// The control API.
    pub fn mock(&self) -> &'static Mock {
        self.mock
    }

    /// The mock as the raw library.
    pub fn library(&self) -> &'static ascendcl_sys::Library {
        ascendcl_sys::selected_library().expect("the mock was selected when the session began")
    }
}

impl std::ops::Deref for Session {
    type Target = Mock;
    fn deref(&self) -> &Mock {
        self.mock
    }
}

/// Takes the process-wide test lock, selects the mock and resets it.
///
/// The lock is held until the [`Session`] is dropped: tests of one binary
/// that take it run one after the other, and a test must not take it twice.
///
/// # Panics
/// If another library is already selected for this process (a test setup
/// error, reported loudly on purpose). [`try_session`] returns it instead.
pub fn session() -> Session {
    try_session().unwrap_or_else(|e| panic!("cannot use the mock: {e}"))
}

/// As [`session`], with an error instead of a panic when another AscendCL
/// library is already in use by this process (or the mock cannot be loaded).
pub fn try_session() -> Result<Session, ascendcl_sys::LoadError> {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    let mock = select()?;
    mock.reset();
    Ok(Session {
        _guard: guard,
        mock,
    })
}
