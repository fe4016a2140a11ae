//! The HCCL functions, as methods of [`Hccl`].
//!
//! As for the runtime (`crate::api`) and aclnn: each method has the C
//! function's name and parameters and returns `Result<return value,
//! SymbolError>`; the symbol is resolved on first call (in `libhccl.so`,
//! then `libhcomm.so`) and cached. Every signature is checked at compile
//! time against the bindgen declarations of our header `include/hccl/hccl.h`.

use std::ffi::{c_char, c_void};
use std::sync::OnceLock;

use super::Hccl;
use crate::error::SymbolError;
use crate::types::*;

macro_rules! hccl_functions {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        /// Lazily resolved function pointers, one per function.
        #[allow(non_snake_case)]
        #[derive(Default)]
        pub(crate) struct HcclSymbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of every HCCL function this crate can call, in declaration order.
        pub const HCCL_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Hccl {
            $(
                $(#[doc = $doc])*
                ///
                /// Returns `Err` if neither library exports the function.
                ///
                /// # Safety
                /// This calls the C function directly: pointer arguments must
                /// be valid as the C function documents, communicators must be
                /// live ones of this library, and device memory a queued
                /// collective uses must stay valid until the stream has run it.
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

            /// Resolves the function named `name` (one of [`HCCL_FUNCTIONS`])
            /// without calling it: `Err` when this CANN does not export it.
            pub fn require_function(&self, name: &str) -> Result<(), SymbolError> {
                match name {
                    $(
                        stringify!($name) => {
                            let slot = self.symbols.$name.get_or_init(|| {
                                // SAFETY: as in the method of the same name.
                                unsafe { self.resolve(concat!(stringify!($name), "\0")) }
                            });
                            slot.as_ref()
                                .map(|_| ())
                                .map_err(|reason| self.missing(stringify!($name), reason))
                        }
                    )*
                    _ => Err(SymbolError {
                        symbol: "(unknown)",
                        library: self.dir.clone(),
                        reason: format!("{name} is not an HCCL function this crate declares"),
                    }),
                }
            }
        }

        /// Never instantiated, only type-checked: every loaded signature must
        /// equal the bindgen declaration of the same name.
        #[allow(dead_code, clippy::extra_unused_type_parameters)]
        fn signatures_match_declarations<T>() {
            $( let _: unsafe extern "C" fn($($ty),*) -> $ret = crate::bindings::functions::$name; )*
        }
    };
}

hccl_functions! {
    // ----------------------------------------------------------- communicators
    /// Writes the rendezvous blob (call on the root rank, its device set).
    fn HcclGetRootInfo(rootInfo: *mut HcclRootInfo) -> HcclResult;
    /// Joins `nRanks` ranks at `rootInfo` as `rank`; blocks until all joined.
    fn HcclCommInitRootInfo(nRanks: u32, rootInfo: *const HcclRootInfo, rank: u32, comm: *mut HcclComm) -> HcclResult;
    /// As `HcclCommInitRootInfo`, with per-communicator settings.
    fn HcclCommInitRootInfoConfig(nRanks: u32, rootInfo: *const HcclRootInfo, rank: u32, config: *const HcclCommConfig, comm: *mut HcclComm) -> HcclResult;
    /// Joins the ranks of a rank-table JSON file as `rank`.
    fn HcclCommInitClusterInfo(clusterInfo: *const c_char, rank: u32, comm: *mut HcclComm) -> HcclResult;
    /// As `HcclCommInitClusterInfo`, with per-communicator settings.
    fn HcclCommInitClusterInfoConfig(clusterInfo: *const c_char, rank: u32, config: *mut HcclCommConfig, comm: *mut HcclComm) -> HcclResult;
    /// A communicator over a subset of another's ranks.
    fn HcclCreateSubCommConfig(comm: *mut HcclComm, rankNum: u32, rankIds: *mut u32, subCommId: u64, subCommRankId: u32, config: *mut HcclCommConfig, subComm: *mut HcclComm) -> HcclResult;
    /// One communicator per device of `devices`, in one process.
    fn HcclCommInitAll(ndev: u32, devices: *mut i32, comms: *mut HcclComm) -> HcclResult;
    /// Destroys a communicator (`HCCL_E_AGAIN` while it is busy).
    fn HcclCommDestroy(comm: HcclComm) -> HcclResult;
    /// The number of ranks.
    fn HcclGetRankSize(comm: HcclComm, rankSize: *mut u32) -> HcclResult;
    /// This communicator's rank.
    fn HcclGetRankId(comm: HcclComm, rank: *mut u32) -> HcclResult;
    /// The communicator's name (`commName` holds `COMM_NAME_MAX_LENGTH` bytes).
    fn HcclGetCommName(comm: HcclComm, commName: *mut c_char) -> HcclResult;
    /// Queues a barrier of every rank on `stream`.
    fn HcclBarrier(comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// The first asynchronous error the communicator saw.
    fn HcclGetCommAsyncError(comm: HcclComm, asyncError: *mut HcclResult) -> HcclResult;
    /// A static description of `code`.
    fn HcclGetErrorString(code: HcclResult) -> *const c_char;
    /// A bit per `HcclCommConfig` field the library understands.
    fn HcclGetCommConfigCapability() -> u32;
    /// Sets a process-wide setting.
    fn HcclSetConfig(config: HcclConfig, configValue: HcclConfigValue) -> HcclResult;
    /// Reads a process-wide setting.
    fn HcclGetConfig(config: HcclConfig, configValue: *mut HcclConfigValue) -> HcclResult;
    /// Suspends a communicator.
    fn HcclCommSuspend(comm: HcclComm) -> HcclResult;
    /// Resumes a suspended communicator.
    fn HcclCommResume(comm: HcclComm) -> HcclResult;
    /// Gives the communicator a virtual address range.
    fn HcclCommSetMemoryRange(comm: HcclComm, baseVirPtr: *mut c_void, size: usize, alignment: usize, flags: u64) -> HcclResult;
    /// Takes back a range of `HcclCommSetMemoryRange`.
    fn HcclCommUnsetMemoryRange(comm: HcclComm, baseVirPtr: *mut c_void) -> HcclResult;
    /// Maps physical memory into the communicator's range.
    fn HcclCommActivateCommMemory(comm: HcclComm, virPtr: *mut c_void, size: usize, offset: usize, handle: aclrtDrvMemHandle, flags: u64) -> HcclResult;
    /// Unmaps memory of `HcclCommActivateCommMemory`.
    fn HcclCommDeactivateCommMemory(comm: HcclComm, virPtr: *mut c_void) -> HcclResult;
    /// Starts fusing the collectives that follow (experimental in CANN).
    fn HcclGroupStart() -> HcclResult;
    /// Ends `HcclGroupStart`.
    fn HcclGroupEnd() -> HcclResult;

    // -------------------------------------------------------------- collectives
    /// Queues `recvBuf = op over ranks of sendBuf` (`count` elements).
    fn HcclAllReduce(sendBuf: *mut c_void, recvBuf: *mut c_void, count: u64, dataType: HcclDataType, op: HcclReduceOp, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues the root's `buf` into every other rank's `buf`.
    fn HcclBroadcast(buf: *mut c_void, count: u64, dataType: HcclDataType, root: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues a reduction of `recvCount * rankSize` elements, each rank
    /// receiving its `recvCount` slice.
    fn HcclReduceScatter(sendBuf: *mut c_void, recvBuf: *mut c_void, recvCount: u64, dataType: HcclDataType, op: HcclReduceOp, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// `HcclReduceScatter` with per-rank counts and displacements.
    fn HcclReduceScatterV(sendBuf: *mut c_void, sendCounts: *const c_void, sendDispls: *const c_void, recvBuf: *mut c_void, recvCount: u64, dataType: HcclDataType, op: HcclReduceOp, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues the root's slices into every rank's `recvBuf`.
    fn HcclScatter(sendBuf: *mut c_void, recvBuf: *mut c_void, recvCount: u64, dataType: HcclDataType, root: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues the concatenation of every rank's `sendBuf` into `recvBuf`.
    fn HcclAllGather(sendBuf: *mut c_void, recvBuf: *mut c_void, sendCount: u64, dataType: HcclDataType, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// `HcclAllGather` with per-rank counts and displacements.
    fn HcclAllGatherV(sendBuf: *mut c_void, sendCount: u64, recvBuf: *mut c_void, recvCounts: *const c_void, recvDispls: *const c_void, dataType: HcclDataType, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues sending `count` elements to `destRank`.
    fn HcclSend(sendBuf: *mut c_void, count: u64, dataType: HcclDataType, destRank: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues receiving `count` elements from `srcRank`.
    fn HcclRecv(recvBuf: *mut c_void, count: u64, dataType: HcclDataType, srcRank: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// All-to-all with a rankSize x rankSize count matrix.
    fn HcclAlltoAllVC(sendBuf: *const c_void, sendCountMatrix: *const c_void, sendType: HcclDataType, recvBuf: *const c_void, recvType: HcclDataType, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// All-to-all with per-rank counts and displacements.
    fn HcclAlltoAllV(sendBuf: *const c_void, sendCounts: *const c_void, sdispls: *const c_void, sendType: HcclDataType, recvBuf: *const c_void, recvCounts: *const c_void, rdispls: *const c_void, recvType: HcclDataType, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// All-to-all of equal blocks.
    fn HcclAlltoAll(sendBuf: *const c_void, sendCount: u64, sendType: HcclDataType, recvBuf: *const c_void, recvCount: u64, recvType: HcclDataType, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues `recvBuf = op over ranks of sendBuf` on the root only.
    fn HcclReduce(sendBuf: *mut c_void, recvBuf: *mut c_void, count: u64, dataType: HcclDataType, op: HcclReduceOp, root: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
    /// Queues several sends and receives as one operation.
    fn HcclBatchSendRecv(sendRecvInfo: *mut HcclSendRecvItem, itemNum: u32, comm: HcclComm, stream: aclrtStream) -> HcclResult;
}
