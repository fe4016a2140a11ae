//! The AscendCL functions, as methods of [`Library`].
//!
//! Each method has the C function's name and parameters and returns
//! `Result<C return value, SymbolError>`: the symbol is resolved on the first
//! call (and cached), and a symbol the library does not export is an
//! [`SymbolError`], never a panic or a call through a null pointer.
//!
//! The signatures below are checked at compile time against the bindgen
//! declarations (`bindings/functions.rs`, or CANN's own headers with the
//! `bindgen` feature): a mismatch in any parameter or return type does not
//! compile.

use std::ffi::{c_char, c_void};
use std::sync::OnceLock;

use crate::error::SymbolError;
use crate::library::Library;
use crate::types::*;

macro_rules! acl_functions {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        /// Lazily resolved function pointers, one per function.
        #[allow(non_snake_case)]
        #[derive(Default)]
        pub(crate) struct Symbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of every function this crate can call, in declaration order.
        pub const FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Library {
            $(
                $(#[doc = $doc])*
                ///
                /// Returns `Err` if the library does not export the function.
                ///
                /// # Safety
                /// This calls the C function directly:
                /// 1. every pointer argument must be valid for the reads and
                ///    writes the C function documents (out-pointers writable,
                ///    buffers at least as long as the sizes passed);
                /// 2. handles must be live handles of this library;
                /// 3. memory handed to asynchronous operations must stay valid
                ///    until the stream or an event after the operation has been
                ///    synchronized.
                #[allow(non_snake_case, clippy::too_many_arguments)]
                #[inline]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<$ret, SymbolError> {
                    let slot = self.symbols.$name.get_or_init(|| {
                        // SAFETY: the pointer type is the one declared for
                        // this C function (checked against bindgen below).
                        unsafe { self.resolve(concat!(stringify!($name), "\0")) }
                    });
                    match slot {
                        // SAFETY: the caller upholds the C contract (see # Safety).
                        Ok(f) => Ok(unsafe { f($($arg),*) }),
                        Err(reason) => Err(self.missing(stringify!($name), reason)),
                    }
                }
            )*
        }

        /// Never instantiated, only type-checked: every loaded signature must
        /// equal the bindgen declaration of the same name. The unused type
        /// parameter is what keeps it from being compiled into a reference to
        /// the (never linked) C symbols.
        #[allow(dead_code, clippy::extra_unused_type_parameters)]
        fn signatures_match_declarations<T>() {
            $( let _: unsafe extern "C" fn($($ty),*) -> $ret = crate::bindings::functions::$name; )*
        }
    };
}

acl_functions! {
    // ------------------------------------------------------------ init, errors
    /// Initialises ACL (`configPath` may be null). A second call returns
    /// `ACL_ERROR_REPEAT_INITIALIZE` and only counts a reference.
    fn aclInit(configPath: *const c_char) -> aclError;
    /// Tears ACL down whatever the init count; a second call returns
    /// `ACL_ERROR_REPEAT_FINALIZE`.
    fn aclFinalize() -> aclError;
    /// Drops one init reference; tears down at zero (CANN 8.5+).
    fn aclFinalizeReference(refCount: *mut u64) -> aclError;
    /// The calling thread's accumulated error text, or null; reading clears it.
    /// The pointer is valid until the next ACL call on this thread.
    fn aclGetRecentErrMsg() -> *const c_char;
    /// The ACL interface version (1.16.0 for CANN 8.5.0), not the CANN version.
    fn aclrtGetVersion(majorVersion: *mut i32, minorVersion: *mut i32, patchVersion: *mut i32) -> aclError;
    /// Whether this process runs on the card's control CPU or on a host.
    fn aclrtGetRunMode(runMode: *mut aclrtRunMode) -> aclError;
    /// The thread's last runtime error, without clearing it.
    fn aclrtPeekAtLastError(level: aclrtLastErrLevel) -> aclError;
    /// The thread's last runtime error, clearing it.
    fn aclrtGetLastError(level: aclrtLastErrLevel) -> aclError;
    /// Version of an installed CANN package (deprecated in 8.5 for the Str/Num pair).
    fn aclsysGetCANNVersion(name: aclCANNPackageName, version: *mut aclCANNPackageVersion) -> aclError;
    /// Version string of the package named `pkgName`.
    fn aclsysGetVersionStr(pkgName: *mut c_char, versionStr: *mut c_char) -> aclError;
    /// Version number of the package named `pkgName`.
    fn aclsysGetVersionNum(pkgName: *mut c_char, versionNum: *mut i32) -> aclError;
    /// SoC name of device 0 (e.g. `Ascend910B1`), or null.
    fn aclrtGetSocName() -> *const c_char;
    /// Creates a descriptor of `(data, size)`; null if out of host memory.
    fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut aclDataBuffer;
    /// Destroys a descriptor (not the memory it describes).
    fn aclDestroyDataBuffer(dataBuffer: *const aclDataBuffer) -> aclError;
    /// Re-points a descriptor at other memory.
    fn aclUpdateDataBuffer(dataBuffer: *mut aclDataBuffer, data: *mut c_void, size: usize) -> aclError;
    /// The descriptor's address (null for a null descriptor).
    fn aclGetDataBufferAddr(dataBuffer: *const aclDataBuffer) -> *mut c_void;
    /// The descriptor's size in bytes (0 for a null descriptor).
    fn aclGetDataBufferSizeV2(dataBuffer: *const aclDataBuffer) -> usize;
    /// The optional features available here, as a runtime-owned array.
    fn aclGetCannAttributeList(cannAttrList: *mut *const aclCannAttr, num: *mut usize) -> aclError;
    /// Whether one optional feature is available (1) or not (0).
    fn aclGetCannAttribute(cannAttr: aclCannAttr, value: *mut i32) -> aclError;

    // ----------------------------------------------------------------- devices
    /// Binds the calling thread to a device (counted per device) and creates
    /// the device's shared default context on first use.
    fn aclrtSetDevice(deviceId: i32) -> aclError;
    /// Drops one device reference; releases the default context at zero.
    fn aclrtResetDevice(deviceId: i32) -> aclError;
    /// Releases the device whatever its reference count.
    fn aclrtResetDeviceForce(deviceId: i32) -> aclError;
    /// The calling thread's device (`ACL_ERROR_RT_CONTEXT_NULL` if none).
    fn aclrtGetDevice(deviceId: *mut i32) -> aclError;
    /// Number of visible devices.
    fn aclrtGetDeviceCount(count: *mut u32) -> aclError;
    /// Waits for all work on the current device.
    fn aclrtSynchronizeDevice() -> aclError;
    /// Waits for all work on the current device, at most `timeout` ms (-1: forever).
    fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError;
    /// Whether a device is healthy (`ACL_RT_DEVICE_STATUS_NORMAL`) or not.
    fn aclrtQueryDeviceStatus(deviceId: i32, deviceStatus: *mut aclrtDeviceStatus) -> aclError;
    /// The least (numerically largest) and greatest stream priority; either pointer may be null.
    fn aclrtDeviceGetStreamPriorityRange(leastPriority: *mut i32, greatestPriority: *mut i32) -> aclError;
    /// How many cores of a kind this process may use on a device it has set.
    fn aclrtGetDeviceResLimit(deviceId: i32, type_: aclrtDevResLimitType, value: *mut u32) -> aclError;
    /// Limits this process to `value` cores of a kind (at most the device's total).
    fn aclrtSetDeviceResLimit(deviceId: i32, type_: aclrtDevResLimitType, value: u32) -> aclError;
    /// Restores the device's totals as this process's core limits.
    fn aclrtResetDeviceResLimit(deviceId: i32) -> aclError;
    /// One numeric fact about a device (cores, memory, topology).
    fn aclrtGetDeviceInfo(deviceId: u32, attr: aclrtDevAttr, value: *mut i64) -> aclError;
    /// Whether a device supports a feature (1) or not (0).
    fn aclrtGetDeviceCapability(deviceId: i32, devFeatureType: aclrtDevFeatureType, value: *mut i32) -> aclError;
    /// Busy percentages of a device's engines (`utilizationExtend` must be null).
    fn aclrtGetDeviceUtilizationRate(deviceId: i32, utilizationInfo: *mut aclrtUtilizationInfo) -> aclError;
    /// Sets the current device's floating-point overflow mode.
    fn aclrtSetDeviceSatMode(mode: aclrtFloatOverflowMode) -> aclError;
    /// The current device's floating-point overflow mode.
    fn aclrtGetDeviceSatMode(mode: *mut aclrtFloatOverflowMode) -> aclError;
    /// Whether `deviceId` can access `peerDeviceId`'s memory; output first.
    fn aclrtDeviceCanAccessPeer(canAccessPeer: *mut i32, deviceId: i32, peerDeviceId: i32) -> aclError;
    /// Lets the current device access `peerDeviceId`'s memory (`flags` must be 0).
    fn aclrtDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> aclError;
    /// Undoes `aclrtDeviceEnablePeerAccess`.
    fn aclrtDeviceDisablePeerAccess(peerDeviceId: i32) -> aclError;
    /// Whether `deviceId` has enabled access to `peerDeviceId` (1) or not (0).
    fn aclrtDevicePeerAccessStatus(deviceId: i32, peerDeviceId: i32, status: *mut i32) -> aclError;
    /// Process-wide timeout of operator event waits, in seconds.
    fn aclrtSetOpWaitTimeout(timeout: u32) -> aclError;
    /// Process-wide timeout of operator execution, in seconds.
    fn aclrtSetOpExecuteTimeOut(timeout: u32) -> aclError;
    /// Registers the callback called with the details of failed device tasks.
    fn aclrtSetExceptionInfoCallback(callback: aclrtExceptionInfoCallback) -> aclError;
    /// Task id of an exception (0xFFFFFFFF for null).
    fn aclrtGetTaskIdFromExceptionInfo(info: *const aclrtExceptionInfo) -> u32;
    /// Stream id of an exception (0xFFFFFFFF for null).
    fn aclrtGetStreamIdFromExceptionInfo(info: *const aclrtExceptionInfo) -> u32;
    /// Thread id of an exception (0xFFFFFFFF for null).
    fn aclrtGetThreadIdFromExceptionInfo(info: *const aclrtExceptionInfo) -> u32;
    /// Device id of an exception (0xFFFFFFFF for null).
    fn aclrtGetDeviceIdFromExceptionInfo(info: *const aclrtExceptionInfo) -> u32;
    /// Error code of an exception (0xFFFFFFFF for null).
    fn aclrtGetErrorCodeFromExceptionInfo(info: *const aclrtExceptionInfo) -> u32;

    // ---------------------------------------------------------------- contexts
    /// Creates a context on a device and makes it current for this thread.
    fn aclrtCreateContext(context: *mut aclrtContext, deviceId: i32) -> aclError;
    /// Destroys an explicitly created context.
    fn aclrtDestroyContext(context: aclrtContext) -> aclError;
    /// Makes `context` current for the calling thread.
    fn aclrtSetCurrentContext(context: aclrtContext) -> aclError;
    /// The calling thread's current context (`ACL_ERROR_RT_CONTEXT_NULL` if none).
    fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError;
    /// The current context's default stream, as a handle.
    fn aclrtCtxGetCurrentDefaultStream(stream: *mut aclrtStream) -> aclError;
    /// Sets a per-context option.
    fn aclrtCtxSetSysParamOpt(opt: aclSysParamOpt, value: i64) -> aclError;
    /// A per-context option (`ACL_ERROR_RT_SYSPARAMOPT_NOT_SET` if never set).
    fn aclrtCtxGetSysParamOpt(opt: aclSysParamOpt, value: *mut i64) -> aclError;

    // ----------------------------------------------------------------- streams
    /// Creates a stream in the current context.
    fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError;
    /// Creates a stream with a priority and `ACL_STREAM_*` flags.
    fn aclrtCreateStreamWithConfig(stream: *mut aclrtStream, priority: u32, flag: u32) -> aclError;
    /// Destroys a stream; its context must be current.
    fn aclrtDestroyStream(stream: aclrtStream) -> aclError;
    /// Destroys a stream, discarding queued work.
    fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError;
    /// Waits until all work queued on `stream` (null: default stream) is done.
    fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError;
    /// As `aclrtSynchronizeStream`, giving up after `timeout` ms with
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT`; -1 waits forever, 0 and < -1 are invalid.
    fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError;
    /// Whether all queued work is done, without waiting.
    fn aclrtStreamQuery(stream: aclrtStream, status: *mut aclrtStreamStatus) -> aclError;
    /// Makes later work on `stream` wait for the event's last recording.
    fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError;
    /// As `aclrtStreamWaitEvent`, with a timeout in ms.
    fn aclrtStreamWaitEventWithTimeout(stream: aclrtStream, event: aclrtEvent, timeout: i32) -> aclError;
    /// `ACL_CONTINUE_ON_FAILURE` or `ACL_STOP_ON_FAILURE` for a created stream.
    fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError;
    /// Turns a stream's overflow detection on (1) or off (0).
    fn aclrtSetStreamOverflowSwitch(stream: aclrtStream, flag: u32) -> aclError;
    /// A stream's overflow detection switch.
    fn aclrtGetStreamOverflowSwitch(stream: aclrtStream, flag: *mut u32) -> aclError;

    // ------------------------------------------------------------------ events
    /// Creates an event.
    fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError;
    /// Creates an event with `ACL_EVENT_*` flags (`ACL_EVENT_TIME_LINE` for timing).
    fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError;
    /// Creates a reusable event with `ACL_EVENT_*` flags.
    fn aclrtCreateEventExWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError;
    /// Destroys an event.
    fn aclrtDestroyEvent(event: aclrtEvent) -> aclError;
    /// Records the event at the current end of `stream`.
    fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError;
    /// Resets the event in stream order.
    fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError;
    /// Deprecated status query (COMPLETE = 0 here).
    fn aclrtQueryEvent(event: aclrtEvent, status: *mut aclrtEventStatus) -> aclError;
    /// Whether the last recording has completed (COMPLETE = 1 here).
    fn aclrtQueryEventStatus(event: aclrtEvent, status: *mut aclrtEventRecordedStatus) -> aclError;
    /// Whether waits on the event have completed.
    fn aclrtQueryEventWaitStatus(event: aclrtEvent, status: *mut aclrtEventWaitStatus) -> aclError;
    /// Waits until the event's last recording has completed.
    fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError;
    /// As `aclrtSynchronizeEvent`, giving up after `timeout` ms
    /// (`ACL_ERROR_RT_EVENT_SYNC_TIMEOUT`).
    fn aclrtSynchronizeEventWithTimeout(event: aclrtEvent, timeout: i32) -> aclError;
    /// Milliseconds between two completed timeline events; output first.
    fn aclrtEventElapsedTime(ms: *mut f32, startEvent: aclrtEvent, endEvent: aclrtEvent) -> aclError;
    /// Device time of the event's completed recording, in microseconds.
    fn aclrtEventGetTimestamp(event: aclrtEvent, timestamp: *mut u64) -> aclError;

    // ---------------------------------------------------------------- notifies
    /// Creates a notify (`ACL_NOTIFY_DEFAULT` or `ACL_NOTIFY_DEVICE_USE_ONLY`).
    fn aclrtCreateNotify(notify: *mut aclrtNotify, flag: u64) -> aclError;
    /// Destroys a notify.
    fn aclrtDestroyNotify(notify: aclrtNotify) -> aclError;
    /// Sets the notify when `stream` reaches this point.
    fn aclrtRecordNotify(notify: aclrtNotify, stream: aclrtStream) -> aclError;
    /// Holds `stream` until the notify is set, then clears it; `timeout` in seconds (0: forever).
    fn aclrtWaitAndResetNotify(notify: aclrtNotify, stream: aclrtStream, timeout: u32) -> aclError;
    /// Writes a key naming the notify for other processes into `key` (`len` bytes); flags 0 or 2 (any pid).
    fn aclrtNotifyGetExportKey(notify: aclrtNotify, key: *mut c_char, len: usize, flags: u64) -> aclError;
    /// Opens a notify another process exported under `key`.
    fn aclrtNotifyImportByKey(notify: *mut aclrtNotify, key: *const c_char, flags: u64) -> aclError;
    /// Lets the `num` processes of `pid` import the exported notify.
    fn aclrtNotifySetImportPid(notify: aclrtNotify, pid: *mut i32, num: usize) -> aclError;

    // ------------------------------------------------------------------ memory
    /// Allocates device memory (64-byte aligned; rounded up to 32 plus 32 bytes).
    fn aclrtMalloc(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
    /// Allocates device memory rounded up to 32 bytes, without the extra 32.
    fn aclrtMallocAlign32(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
    /// Allocates cacheable device memory.
    fn aclrtMallocCached(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
    /// Allocates device memory with extra attributes (`cfg` may be null).
    fn aclrtMallocWithCfg(
        devPtr: *mut *mut c_void,
        size: usize,
        policy: aclrtMemMallocPolicy,
        cfg: *mut aclrtMallocConfig,
    ) -> aclError;
    /// Frees device memory immediately (no implicit synchronization).
    fn aclrtFree(devPtr: *mut c_void) -> aclError;
    /// Allocates pinned (page-locked) host memory.
    fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError;
    /// Frees pinned host memory.
    fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError;
    /// Allocates pinned host memory with extra attributes (`cfg` may be null).
    fn aclrtMallocHostWithCfg(ptr: *mut *mut c_void, size: u64, cfg: *mut aclrtMallocConfig) -> aclError;
    /// Pins existing host memory and gives the address the device uses for it.
    fn aclrtHostRegister(ptr: *mut c_void, size: u64, type_: aclrtHostRegisterType, devPtr: *mut *mut c_void) -> aclError;
    /// Undoes `aclrtHostRegister`.
    fn aclrtHostUnregister(ptr: *mut c_void) -> aclError;
    /// Where the memory at `ptr` lives.
    fn aclrtPointerGetAttributes(ptr: *const c_void, attributes: *mut aclrtPtrAttributes) -> aclError;
    /// Copies `count` bytes synchronously; `destMax` is the destination's capacity.
    fn aclrtMemcpy(dst: *mut c_void, destMax: usize, src: *const c_void, count: usize, kind: aclrtMemcpyKind) -> aclError;
    /// Queues a copy on `stream`; asynchronous only for pinned host memory.
    fn aclrtMemcpyAsync(
        dst: *mut c_void,
        destMax: usize,
        src: *const c_void,
        count: usize,
        kind: aclrtMemcpyKind,
        stream: aclrtStream,
    ) -> aclError;
    /// Copies `height` rows of `width` bytes between pitched layouts (H2D or D2H).
    fn aclrtMemcpy2d(
        dst: *mut c_void,
        dpitch: usize,
        src: *const c_void,
        spitch: usize,
        width: usize,
        height: usize,
        kind: aclrtMemcpyKind,
    ) -> aclError;
    /// Queues a 2-D copy on `stream` (null is refused: no default stream here).
    fn aclrtMemcpy2dAsync(
        dst: *mut c_void,
        dpitch: usize,
        src: *const c_void,
        spitch: usize,
        width: usize,
        height: usize,
        kind: aclrtMemcpyKind,
        stream: aclrtStream,
    ) -> aclError;
    /// Fills `count` bytes of device memory with the low byte of `value`.
    fn aclrtMemset(devPtr: *mut c_void, maxCount: usize, value: i32, count: usize) -> aclError;
    /// Queues a fill on `stream`.
    fn aclrtMemsetAsync(devPtr: *mut c_void, maxCount: usize, value: i32, count: usize, stream: aclrtStream) -> aclError;
    /// Free and total bytes of a kind of memory of the current device.
    fn aclrtGetMemInfo(attr: aclrtMemAttr, free: *mut usize, total: *mut usize) -> aclError;
    /// Queues storing `value` into the 64-bit device word at `devAddr` (`flag` must be 0).
    fn aclrtValueWrite(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError;
    /// Queues holding the stream until the device word meets condition `flag` (`ACL_STREAM_WAIT_VALUE_*`).
    fn aclrtValueWait(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError;
    /// Writes a key naming `[devPtr, devPtr + size)` for other processes into `key` (`len` bytes).
    fn aclrtIpcMemGetExportKey(devPtr: *mut c_void, size: usize, key: *mut c_char, len: usize, flags: u64) -> aclError;
    /// Closes a key: an importer unmaps the memory, the exporter destroys the key.
    fn aclrtIpcMemClose(key: *const c_char) -> aclError;
    /// Maps memory another process exported under `key`; its device address into `devPtr`.
    fn aclrtIpcMemImportByKey(devPtr: *mut *mut c_void, key: *const c_char, flags: u64) -> aclError;
    /// Lets the `num` processes of `pid` import the exported memory.
    fn aclrtIpcMemSetImportPid(key: *const c_char, pid: *mut i32, num: usize) -> aclError;
    /// The pid of this process as the device driver knows it.
    fn aclrtDeviceGetBareTgid(pid: *mut i32) -> aclError;

    // ---------------------------------------------------------- virtual memory
    /// The page size physical allocations and mappings must be multiples of.
    fn aclrtMemGetAllocationGranularity(
        prop: *mut aclrtPhysicalMemProp,
        option: aclrtMemGranularityOptions,
        granularity: *mut usize,
    ) -> aclError;
    /// Reserves a device virtual address range (no memory behind it).
    fn aclrtReserveMemAddress(
        virPtr: *mut *mut c_void,
        size: usize,
        alignment: usize,
        expectPtr: *mut c_void,
        flags: u64,
    ) -> aclError;
    /// Releases a reserved range; it must have no mappings left.
    fn aclrtReleaseMemAddress(virPtr: *mut c_void) -> aclError;
    /// Allocates physical device memory, not yet addressable.
    fn aclrtMallocPhysical(
        handle: *mut aclrtDrvMemHandle,
        size: usize,
        prop: *const aclrtPhysicalMemProp,
        flags: u64,
    ) -> aclError;
    /// Frees physical memory (deferred until its last mapping is unmapped).
    fn aclrtFreePhysical(handle: aclrtDrvMemHandle) -> aclError;
    /// Maps a whole physical allocation at `virPtr` inside a reserved range.
    fn aclrtMapMem(virPtr: *mut c_void, size: usize, offset: usize, handle: aclrtDrvMemHandle, flags: u64) -> aclError;
    /// Unmaps the mapping that starts at `virPtr`.
    fn aclrtUnmapMem(virPtr: *mut c_void) -> aclError;
    /// Sets access rights of a mapped range for the listed locations.
    fn aclrtMemSetAccess(virPtr: *mut c_void, size: usize, desc: *mut aclrtMemAccessDesc, count: usize) -> aclError;
    /// Access rights of a mapped address for a location.
    fn aclrtMemGetAccess(virPtr: *mut c_void, location: *mut aclrtMemLocation, flag: *mut u64) -> aclError;
    /// The physical handle mapped at `virPtr`.
    fn aclrtMemRetainAllocationHandle(virPtr: *mut c_void, handle: *mut aclrtDrvMemHandle) -> aclError;
    /// The properties a physical handle was allocated with.
    fn aclrtMemGetAllocationPropertiesFromHandle(handle: aclrtDrvMemHandle, prop: *mut aclrtPhysicalMemProp) -> aclError;
    /// A 64-bit handle another process can import the physical allocation by (`handleType` NONE).
    fn aclrtMemExportToShareableHandle(handle: aclrtDrvMemHandle, handleType: aclrtMemHandleType, flags: u64, shareableHandle: *mut u64) -> aclError;
    /// A physical handle of `deviceId` for an allocation another process exported.
    fn aclrtMemImportFromShareableHandle(shareableHandle: u64, deviceId: i32, handle: *mut aclrtDrvMemHandle) -> aclError;
    /// Lets the `pidNum` processes of `pid` import the shareable handle.
    fn aclrtMemSetPidToShareableHandle(shareableHandle: u64, pid: *mut i32, pidNum: usize) -> aclError;

    // --------------------------------------------------------------- callbacks
    /// Queues `fn(args)` to run on a runtime thread in stream order.
    fn aclrtLaunchHostFunc(stream: aclrtStream, fn_: aclrtHostFunc, args: *mut c_void) -> aclError;
    /// Binds a thread (by `pthread_self` id) to process a stream's callbacks.
    fn aclrtSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError;
    /// Queues a callback for the subscribed thread, blocking the stream or not.
    fn aclrtLaunchCallback(
        fn_: aclrtCallback,
        userData: *mut c_void,
        blockType: aclrtCallbackBlockType,
        stream: aclrtStream,
    ) -> aclError;
    /// Runs callbacks queued for the calling thread, waiting at most `timeout` ms.
    fn aclrtProcessReport(timeout: i32) -> aclError;
    /// Unbinds a thread from a stream.
    fn aclrtUnSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError;

    // ---------------------------------------------------------- stream capture
    /// Starts capturing `stream` (a created stream, not the default one):
    /// work queued on it is recorded into a model instead of run.
    fn aclmdlRICaptureBegin(stream: aclrtStream, mode: aclmdlRICaptureMode) -> aclError;
    /// Whether `stream` is being captured, and into which model (null when not).
    fn aclmdlRICaptureGetInfo(stream: aclrtStream, status: *mut aclmdlRICaptureStatus, modelRI: *mut aclmdlRI) -> aclError;
    /// Ends the capture of `stream` and hands out its model; fails, with no
    /// model, when the capture was invalidated or a joined stream never rejoined.
    fn aclmdlRICaptureEnd(stream: aclrtStream, modelRI: *mut aclmdlRI) -> aclError;
    /// Writes a description of a captured model to the JSON file `path`
    /// (`flags` reserved, 0).
    fn aclmdlRIDebugJsonPrint(modelRI: aclmdlRI, path: *const c_char, flags: u32) -> aclError;
    /// Swaps the calling thread's capture mode with `*mode` (the old one is
    /// written back).
    fn aclmdlRICaptureThreadExchangeMode(mode: *mut aclmdlRICaptureMode) -> aclError;
    /// Queues every task of a captured model, in captured order, on `stream`.
    fn aclmdlRIExecuteAsync(modelRI: aclmdlRI, stream: aclrtStream) -> aclError;
    /// Destroys a captured model (not validated by the runtime afterwards:
    /// never use the handle again).
    fn aclmdlRIDestroy(modelRI: aclmdlRI) -> aclError;

    // acl/acl_dump.h (the dump library, a dependency of the runtime library)
    /// Sends the data dump to `messageCallback` instead of files (`flag` 0;
    /// one callback at a time: a second registration is ignored).
    fn acldumpRegCallback(
        messageCallback: Option<unsafe extern "C" fn(*const acldumpChunk, i32) -> i32>,
        flag: i32,
    ) -> aclError;
    /// Removes the dump callback.
    fn acldumpUnregCallback() -> ();
    /// Records the arguments of the operators launched from now on under the
    /// directory `path` (`dumpType`: `ACL_OP_DUMP_OP_AICORE_ARGS`).
    fn aclopStartDumpArgs(dumpType: u32, path: *const c_char) -> aclError;
    /// Stops recording operator arguments.
    fn aclopStopDumpArgs(dumpType: u32) -> aclError;
}
