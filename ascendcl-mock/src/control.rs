//! Rust side of the mock's control API (`include/aclmock.h`).

use std::ffi::{CString, c_char};
use std::sync::OnceLock;
use std::time::Duration;

use crate::control_error::{ControlError, check};
use crate::journal::JournalEntry;

/// Kinds of resources the mock counts while alive (`aclmockResource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Resource {
    /// `aclrtMalloc*` allocations.
    DeviceBuffer = 0,
    /// `aclrtMallocHost` allocations.
    HostBuffer = 1,
    /// Streams created by the user.
    Stream = 2,
    /// Events.
    Event = 3,
    /// Contexts created with `aclrtCreateContext`.
    Context = 4,
    /// Reserved virtual address ranges.
    Reservation = 5,
    /// Physical memory handles (until really freed).
    Physical = 6,
    /// Mappings of physical memory into a range.
    Mapping = 7,
    /// Sum of the `aclrtSetDevice` reference counts.
    DeviceRef = 8,
    /// `aclCreateTensor` descriptors (the mock's `libnnopbase.so`).
    AclnnTensor = 9,
    /// `aclCreateScalar` descriptors.
    AclnnScalar = 10,
    /// Int, float and bool array descriptors.
    AclnnArray = 11,
    /// `aclCreateTensorList` lists.
    AclnnTensorList = 12,
    /// Op executors not yet freed (by a single-use launch or `aclDestroyAclOpExecutor`).
    AclnnExecutor = 13,
    /// HCCL communicators not yet destroyed (the mock's `libhcomm.so`).
    HcclComm = 14,
    /// Notifies not yet destroyed (`aclrtCreateNotify`).
    Notify = 15,
}

impl Resource {
    /// Every kind, in declaration order.
    pub const ALL: [Resource; 16] = [
        Resource::DeviceBuffer,
        Resource::HostBuffer,
        Resource::Stream,
        Resource::Event,
        Resource::Context,
        Resource::Reservation,
        Resource::Physical,
        Resource::Mapping,
        Resource::DeviceRef,
        Resource::AclnnTensor,
        Resource::AclnnScalar,
        Resource::AclnnArray,
        Resource::AclnnTensorList,
        Resource::AclnnExecutor,
        Resource::HcclComm,
        Resource::Notify,
    ];
}

/// Kinds of misuse the mock detects (`aclmockMisuse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Misuse {
    /// A pointer or handle freed twice.
    DoubleFree = 0,
    /// A pointer that no allocation owns.
    UnknownPointer = 1,
    /// A stream, event or context used after it was destroyed.
    DestroyedHandle = 2,
    /// A copy or memset past the end of an allocation, or an operator index
    /// read from device data (an `nll_loss` target, a max-pool-backward
    /// index) with which a card's kernel would read or write out of bounds.
    /// An access past the size asked for but inside the padding a card adds
    /// to every `aclrtMalloc` (size rounded up to 32 bytes, plus 32) is
    /// counted too, and then goes ahead, as on a card.
    OutOfBounds = 3,
    /// `aclrtUnmapMem` of an address that is not mapped.
    UnmapUnmapped = 4,
    /// Releasing a range that still has mappings.
    ReleaseMapped = 5,
    /// Queued work touching memory freed before it ran.
    UseAfterFree = 6,
    /// Destroying a stream from a context other than its own.
    WrongContext = 7,
    /// Host code dereferenced a device address.
    HostDeref = 8,
    /// Two accesses to one range, at least one a write, by queued work of
    /// streams (or a synchronous copy or fill, or `aclrtFree` / the release of
    /// physical memory) that no event record/wait chain or host synchronize
    /// orders. Judged by the order of the calls, whatever the timing.
    UnorderedAccess = 9,
    /// The host read, wrote or freed pinned memory (`aclrtMemcpy` from or to
    /// it, `aclrtFreeHost`) while queued work not known to have finished uses it.
    PinnedHostAccess = 10,
    /// `aclrtFreePhysical` of a handle that still has mappings.
    FreeMappedPhysical = 11,
}

impl Misuse {
    /// Every kind, in declaration order.
    pub const ALL: [Misuse; 12] = [
        Misuse::DoubleFree,
        Misuse::UnknownPointer,
        Misuse::DestroyedHandle,
        Misuse::OutOfBounds,
        Misuse::UnmapUnmapped,
        Misuse::ReleaseMapped,
        Misuse::UseAfterFree,
        Misuse::WrongContext,
        Misuse::HostDeref,
        Misuse::UnorderedAccess,
        Misuse::PinnedHostAccess,
        Misuse::FreeMappedPhysical,
    ];

    /// The name the misuse log, the abort message and the journal use,
    /// e.g. `"UNORDERED_ACCESS"`.
    pub fn name(self) -> &'static str {
        match self {
            Misuse::DoubleFree => "DOUBLE_FREE",
            Misuse::UnknownPointer => "UNKNOWN_POINTER",
            Misuse::DestroyedHandle => "DESTROYED_HANDLE",
            Misuse::OutOfBounds => "OUT_OF_BOUNDS",
            Misuse::UnmapUnmapped => "UNMAP_UNMAPPED",
            Misuse::ReleaseMapped => "RELEASE_MAPPED",
            Misuse::UseAfterFree => "USE_AFTER_FREE",
            Misuse::WrongContext => "WRONG_CONTEXT",
            Misuse::HostDeref => "HOST_DEREF",
            Misuse::UnorderedAccess => "UNORDERED_ACCESS",
            Misuse::PinnedHostAccess => "PINNED_HOST_ACCESS",
            Misuse::FreeMappedPhysical => "FREE_MAPPED_PHYSICAL",
        }
    }

    /// The kind with this [`name`](Misuse::name).
    pub fn from_name(name: &str) -> Option<Misuse> {
        Misuse::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// A snapshot of every live-resource count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveCounts(pub [u64; 16]);

impl LiveCounts {
    /// The count of one kind.
    pub fn get(&self, kind: Resource) -> u64 {
        self.0[kind as usize]
    }

    /// Whether nothing at all is alive.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&c| c == 0)
    }
}

/// A fault to inject: the `nth` call of `function` from now (or every call,
/// with `nth == None`) fails with `code` and `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// C function name, e.g. `aclrtMalloc`.
    pub function: String,
    /// 1-based call number counted from injection; `None` for every call.
    pub nth: Option<u64>,
    /// The error code the call returns.
    pub code: i32,
    /// The text `aclGetRecentErrMsg` returns afterwards.
    pub message: Option<String>,
}

impl Fault {
    /// The `nth` call of `function` fails with `code`.
    pub fn nth(function: &str, nth: u64, code: i32) -> Fault {
        Fault {
            function: function.to_string(),
            nth: Some(nth),
            code,
            message: None,
        }
    }

    /// Every call of `function` fails with `code`.
    pub fn always(function: &str, code: i32) -> Fault {
        Fault {
            function: function.to_string(),
            nth: None,
            code,
            message: None,
        }
    }

    /// Sets the error message.
    pub fn with_message(mut self, message: &str) -> Fault {
        self.message = Some(message.to_string());
        self
    }
}

type ReadBuf = unsafe extern "C" fn(*mut c_char, usize) -> usize;

/// The control API of the loaded mock.
pub struct Mock {
    reset: unsafe extern "C" fn(),
    set_device_count: unsafe extern "C" fn(u32) -> i32,
    set_hbm_bytes: unsafe extern "C" fn(u64) -> i32,
    set_soc_name: unsafe extern "C" fn(*const c_char) -> i32,
    set_stream_delay_us: unsafe extern "C" fn(u64),
    set_hccl_timeouts: unsafe extern "C" fn(u64, u64),
    live_count: unsafe extern "C" fn(u32) -> u64,
    misuse_count: unsafe extern "C" fn(u32) -> u64,
    misuse_log: ReadBuf,
    journal_len: unsafe extern "C" fn() -> u64,
    journal_read: unsafe extern "C" fn(u64, *mut c_char, usize) -> usize,
    journal_clear: unsafe extern "C" fn(),
    call_count: unsafe extern "C" fn(*const c_char) -> u64,
    inject_fault: unsafe extern "C" fn(*const c_char, u64, i32, *const c_char) -> i32,
    clear_faults: unsafe extern "C" fn(),
    backed_bytes: unsafe extern "C" fn() -> u64,
    pub(crate) replay_load: unsafe extern "C" fn(*const c_char, i32) -> i32,
    pub(crate) replay_status: ReadBuf,
}

impl std::fmt::Debug for Mock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mock")
            .field("library", &crate::LIBRARY_PATH)
            .finish_non_exhaustive()
    }
}

impl Mock {
    /// The control API of the mock at [`crate::LIBRARY_PATH`].
    ///
    /// # Panics
    /// If the mock library cannot be opened or lacks a control function: the
    /// build of this crate is broken.
    pub fn get() -> &'static Mock {
        static MOCK: OnceLock<Mock> = OnceLock::new();
        MOCK.get_or_init(|| Mock::load().unwrap_or_else(|e| panic!("{e}")))
    }

    fn load() -> Result<Mock, String> {
        // SAFETY: the mock has no initialisers with preconditions; the same
        // file is what ascendcl-sys opens, so this is the same instance.
        let lib = unsafe { libloading::Library::new(crate::LIBRARY_PATH) }
            .map_err(|e| format!("cannot open the mock at {}: {e}", crate::LIBRARY_PATH))?;
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the declared type is the one in include/aclmock.h.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("the mock lacks {}: {e}", $name))?
            };
        }
        Ok(Mock {
            reset: sym!("aclmockReset"),
            set_device_count: sym!("aclmockSetDeviceCount"),
            set_hbm_bytes: sym!("aclmockSetHbmBytes"),
            set_soc_name: sym!("aclmockSetSocName"),
            set_stream_delay_us: sym!("aclmockSetStreamDelayUs"),
            set_hccl_timeouts: sym!("aclmockSetHcclTimeouts"),
            live_count: sym!("aclmockLiveCount"),
            misuse_count: sym!("aclmockMisuseCount"),
            misuse_log: sym!("aclmockMisuseLog"),
            journal_len: sym!("aclmockJournalLen"),
            journal_read: sym!("aclmockJournalRead"),
            journal_clear: sym!("aclmockJournalClear"),
            call_count: sym!("aclmockCallCount"),
            inject_fault: sym!("aclmockInjectFault"),
            clear_faults: sym!("aclmockClearFaults"),
            backed_bytes: sym!("aclmockBackedBytes"),
            replay_load: sym!("aclmockReplayLoad"),
            replay_status: sym!("aclmockReplayStatus"),
        })
    }

    /// Back to the pristine state (see `aclmockReset`). No other thread may be
    /// inside an ACL call.
    pub fn reset(&self) {
        // SAFETY: no arguments; documented as callable at any quiescent point.
        unsafe { (self.reset)() }
    }

    /// Number of devices, for devices not touched since the last reset
    /// (default 8): 1 to 64, else a [`ControlError`] with code 100000
    /// (`ACL_ERROR_INVALID_PARAM`).
    pub fn set_device_count(&self, count: u32) -> Result<(), ControlError> {
        // SAFETY: plain integer argument.
        let code = unsafe { (self.set_device_count)(count) };
        check("set_device_count", code, || {
            format!(
                "{count} devices: the mock has 1 to 64, and the count can only change before \
                 any device is used (call it right after taking the mock)"
            )
        })
    }

    /// Usable HBM per device, for devices not touched since the last reset:
    /// a small card makes out-of-memory paths easy to reach. From 2 MiB to
    /// 16 TiB (rounded down to a whole page), else a [`ControlError`] with
    /// code 100000 (`ACL_ERROR_INVALID_PARAM`).
    ///
    /// ```
    /// use ascendcl_sys::{ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMemMallocPolicy};
    ///
    /// let mock = ascendcl_mock::session();
    /// mock.set_hbm_bytes(4 << 20).unwrap(); // 4 MiB
    /// let lib = mock.library();
    /// let mut ptr = std::ptr::null_mut();
    /// let policy = aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST;
    /// // SAFETY: a valid out-pointer; nothing is allocated, so nothing to free.
    /// unsafe {
    ///     lib.aclrtSetDevice(0).unwrap();
    ///     assert_eq!(lib.aclrtMalloc(&mut ptr, 8 << 20, policy).unwrap(), ACL_ERROR_RT_MEMORY_ALLOCATION);
    ///     lib.aclrtResetDevice(0).unwrap();
    /// }
    /// ```
    pub fn set_hbm_bytes(&self, bytes: u64) -> Result<(), ControlError> {
        // SAFETY: plain integer argument.
        let code = unsafe { (self.set_hbm_bytes)(bytes) };
        check("set_hbm_bytes", code, || {
            format!(
                "{bytes} bytes of HBM: the mock takes 2 MiB to 16 TiB per device, and the size \
                 can only change before any device is used (call it right after taking the mock)"
            )
        })
    }

    /// The SoC name `aclrtGetSocName` reports: not empty, no NUL byte.
    pub fn set_soc_name(&self, name: &str) -> Result<(), ControlError> {
        let refused = |code| {
            ControlError::new(
                "set_soc_name",
                code,
                format!(
                    "SoC name {name:?}: give a non-empty name without NUL bytes, e.g. \"Ascend910B1\""
                ),
            )
        };
        let c_name =
            CString::new(name).map_err(|_| refused(ascendcl_sys::ACL_ERROR_INVALID_PARAM))?;
        // SAFETY: `c_name` is a valid NUL-terminated string for the call.
        let code = unsafe { (self.set_soc_name)(c_name.as_ptr()) };
        if code == 0 {
            Ok(())
        } else {
            Err(refused(code))
        }
    }

    /// How long every stream task waits before it runs.
    pub fn set_stream_delay(&self, delay: Duration) {
        let micros = u64::try_from(delay.as_micros()).unwrap_or(u64::MAX);
        // SAFETY: plain integer argument.
        unsafe { (self.set_stream_delay_us)(micros) }
    }

    /// The HCCL timeouts of the mock's `libhcomm.so` for communicators
    /// created from now on: how long init waits for every rank
    /// (`HCCL_CONNECT_TIMEOUT`) and how long a collective waits for its peers
    /// (`HCCL_EXEC_TIMEOUT`) before failing with `HCCL_E_TIMEOUT`. CANN counts
    /// them in seconds (defaults 120 s and 1836 s); tests scale them down. A
    /// zero duration keeps the current value; values below 1 ms become 1 ms.
    /// [`reset`](Mock::reset) re-reads them from the environment
    /// (`ASCENDCL_MOCK_HCCL_TIMEOUT_MS` overrides both).
    ///
    /// ```
    /// use std::time::Duration;
    /// let mock = ascendcl_mock::select().unwrap();
    /// mock.set_hccl_timeouts(Duration::from_millis(500), Duration::from_millis(300));
    /// # mock.reset();
    /// ```
    pub fn set_hccl_timeouts(&self, connect: Duration, exec: Duration) {
        let ms = |d: Duration| {
            if d.is_zero() {
                0
            } else {
                u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
            }
        };
        // SAFETY: plain integer arguments.
        unsafe { (self.set_hccl_timeouts)(ms(connect), ms(exec)) }
    }

    /// Live count of one kind of resource.
    pub fn live(&self, kind: Resource) -> u64 {
        // SAFETY: `kind` is a valid aclmockResource value.
        unsafe { (self.live_count)(kind as u32) }
    }

    /// Every live count at once.
    pub fn live_counts(&self) -> LiveCounts {
        let mut counts = LiveCounts::default();
        for kind in Resource::ALL {
            counts.0[kind as usize] = self.live(kind);
        }
        counts
    }

    /// Count of one kind of misuse.
    pub fn misuse(&self, kind: Misuse) -> u64 {
        // SAFETY: `kind` is a valid aclmockMisuse value.
        unsafe { (self.misuse_count)(kind as u32) }
    }

    /// Total misuse of every kind.
    pub fn misuse_total(&self) -> u64 {
        // SAFETY: ACLMOCK_MISUSE_COUNT (one past the last kind) asks for the total.
        unsafe { (self.misuse_count)(Misuse::ALL.len() as u32) }
    }

    /// The misuse log, one line per event.
    pub fn misuse_log(&self) -> String {
        read_string(|buf, cap| {
            // SAFETY: `buf` is writable for `cap` bytes (or null with cap 0).
            unsafe { (self.misuse_log)(buf, cap) }
        })
    }

    /// Number of journal entries held.
    pub fn journal_len(&self) -> u64 {
        // SAFETY: no arguments.
        unsafe { (self.journal_len)() }
    }

    /// Journal entries with sequence number `>= from_seq`.
    pub fn journal_since(&self, from_seq: u64) -> Vec<JournalEntry> {
        let text = read_string(|buf, cap| {
            // SAFETY: `buf` is writable for `cap` bytes (or null with cap 0).
            unsafe { (self.journal_read)(from_seq, buf, cap) }
        });
        text.lines()
            .filter(|l| !l.is_empty())
            .map(JournalEntry::new)
            .collect()
    }

    /// Every journal entry held: every call made since the last reset (or
    /// [`Mock::clear_journal`]), in order, with its return code.
    ///
    /// ```
    /// let mock = ascendcl_mock::session();
    /// let mut count = 0u32;
    /// // SAFETY: a valid out-pointer.
    /// unsafe { mock.library().aclrtGetDeviceCount(&mut count) }.unwrap();
    /// let calls: Vec<(String, i32)> =
    ///     mock.journal().iter().map(|e| (e.function().to_string(), e.ret())).collect();
    /// assert_eq!(calls, [("aclrtGetDeviceCount".to_string(), 0)]);
    /// ```
    pub fn journal(&self) -> Vec<JournalEntry> {
        self.journal_since(0)
    }

    /// Drops every journal entry.
    pub fn clear_journal(&self) {
        // SAFETY: no arguments.
        unsafe { (self.journal_clear)() }
    }

    /// Calls of `function` since the last reset.
    pub fn call_count(&self, function: &str) -> u64 {
        let Ok(name) = CString::new(function) else {
            return 0;
        };
        // SAFETY: `name` is a valid NUL-terminated string for the call.
        unsafe { (self.call_count)(name.as_ptr()) }
    }

    /// Injects a fault. Fails for a function the mock does not implement.
    ///
    /// The call returns the fault's code, and `aclGetRecentErrMsg` its
    /// message, as a failing card would:
    ///
    /// ```
    /// use ascendcl_mock::Fault;
    /// use ascendcl_sys::ACL_ERROR_RT_NO_DEVICE;
    ///
    /// let mock = ascendcl_mock::session();
    /// mock.inject(&Fault::always("aclrtSetDevice", ACL_ERROR_RT_NO_DEVICE).with_message("no card here"))
    ///     .expect("the mock implements aclrtSetDevice");
    /// let lib = mock.library();
    /// // SAFETY: plain integer argument; the message is read right after the call.
    /// unsafe {
    ///     assert_eq!(lib.aclrtSetDevice(0).unwrap(), ACL_ERROR_RT_NO_DEVICE);
    ///     let message = std::ffi::CStr::from_ptr(lib.aclGetRecentErrMsg().unwrap());
    ///     assert!(message.to_string_lossy().contains("no card here"));
    /// }
    /// assert!(mock.inject(&Fault::always("cudaMalloc", 1)).is_err());
    /// ```
    pub fn inject(&self, fault: &Fault) -> Result<(), ControlError> {
        let refused = |code, why: &str| ControlError::new("inject", code, why.to_owned());
        let nul = || {
            refused(
                ascendcl_sys::ACL_ERROR_INVALID_PARAM,
                "a NUL byte in the function name or message",
            )
        };
        let name = CString::new(fault.function.as_str()).map_err(|_| nul())?;
        let message = match &fault.message {
            Some(m) => Some(CString::new(m.as_str()).map_err(|_| nul())?),
            None => None,
        };
        let message_ptr = message.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
        // SAFETY: both strings are NUL-terminated and live across the call.
        let code = unsafe {
            (self.inject_fault)(
                name.as_ptr(),
                fault.nth.unwrap_or(0),
                fault.code,
                message_ptr,
            )
        };
        check("inject", code, || {
            format!(
                "a fault on {:?}: the mock injects faults only into the AscendCL, aclnn and HCCL \
                 functions it implements, by their C names (e.g. \"aclrtMalloc\"); see the \
                 journal for the names your code calls",
                fault.function
            )
        })
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        // SAFETY: no arguments.
        unsafe { (self.clear_faults)() }
    }

    /// Bytes of host memory currently backing device memory.
    pub fn backed_bytes(&self) -> u64 {
        // SAFETY: no arguments.
        unsafe { (self.backed_bytes)() }
    }
}

/// Calls a "fill buf, return full length" C function until the text fits.
pub(crate) fn read_string(mut read: impl FnMut(*mut c_char, usize) -> usize) -> String {
    let mut cap = 4096;
    loop {
        let mut buf = vec![0u8; cap];
        let needed = read(buf.as_mut_ptr().cast(), cap);
        if needed < cap {
            buf.truncate(needed);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        cap = needed + 1;
    }
}
