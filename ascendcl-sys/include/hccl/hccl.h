/*
 * ascendcl-sys: the HCCL collective communication API (CANN 8.5.0) that the
 * ascendcl crates support, in C.
 *
 * Our own declarations. Names, parameter types and orders, enum values and
 * struct layouts are those of CANN so that a program compiled against this
 * header calls CANN's libraries correctly; the text is written for this
 * project. Sources of the facts:
 *   collectives     hicann/hccl  include/hccl.h (tag v8.5.0)
 *   communicators   hicann/hcomm include/hccl/hccl_comm.h, hccl_types.h
 *                   (commit 2b912e7d2b105735579276a63a51364890c56788)
 * CANN's headers are C++ only (file-scope `const` array bounds, `nullptr`
 * in a static inline function); this header is C and C++.
 *
 * Libraries: the collectives live in libhccl.so. Newer CANN moves the
 * communicator functions (init, destroy, rank queries, barrier, errors,
 * group start/end) to libhcomm.so, which libhccl.so depends on; the loader
 * looks every symbol up in libhccl.so first, then in libhcomm.so.
 */
#ifndef ASCENDCL_SYS_HCCL_H
#define ASCENDCL_SYS_HCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- types */

/* Status of every HCCL call. An open set: libraries add codes. */
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,               /* an argument is invalid */
    HCCL_E_PTR = 2,                /* a required pointer is null */
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,            /* a peer did not arrive in time */
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,           /* a runtime (acl) call failed */
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,             /* busy: call again (destroy of a busy comm) */
    HCCL_E_REMOTE = 21,            /* an RDMA error completion */
    HCCL_E_SUSPENDING = 22,
    HCCL_E_OPRETRY_FAIL = 23,
    HCCL_E_OOM = 24,
    HCCL_E_IN_STATUS = 1041,
    HCCL_E_RESERVED                /* 1042 here; older libraries stop at 25 */
} HcclResult;

/* A communicator, owned by the library. */
typedef void *HcclComm;

typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

/* Element types; 13 is not assigned. */
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_HIF8 = 14,
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

/* Process-wide settings of HcclSetConfig / HcclGetConfig. */
typedef enum {
    HCCL_DETERMINISTIC = 0,        /* 0 off, 1 deterministic, 2 strict order */
    HCCL_CONFIG_RESERVED
} HcclConfig;

typedef union HcclConfigValue {
    int32_t value;
} HcclConfigValue;

/* Sizes of the fixed arrays below (plain constants in CANN's C++ header). */
#define HCCL_ROOT_INFO_BYTES 4108
#define COMM_NAME_MAX_LENGTH 128
#define BUFFER_NAME_MAX_LENGTH 128
#define UDI_MAX_LENGTH 128
#define HCCL_COMM_ALGO_MAX_LENGTH 1600
#define HCCL_COMM_RETRY_ENABLE_MAX_LENGTH 50
#define HCCL_COMM_RETRY_PARAMS_MAX_LENGTH 128

/* The rendezvous blob made by HcclGetRootInfo on the root rank; every rank
 * passes the same bytes to HcclCommInitRootInfo. Opaque. */
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/* Values HcclCommConfigInit (static inline in CANN, not exported) writes. */
#define HCCL_COMM_CONFIG_INFO_BYTES 24
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0
#define HCCL_COMM_CONFIG_VERSION 10
#define HCCL_COMM_DEFAULT_BUFFSIZE 200
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffff
#define HCCL_COMM_DEFAULT_DETERMINISTIC 0
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffff
#define HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffff
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffff
#define HCCL_COMM_QOS_CONFIG_NOT_SET 0xffffffff

/* Per-communicator settings. The first 24 bytes are a header the library
 * reads to learn the layout: the struct's size (size_t), the magic word,
 * the version (u32 each) and a zero u64. Fields set to a NOT_SET value keep
 * the library's default. */
typedef struct HcclCommConfigDef {
    char reserved[HCCL_COMM_CONFIG_INFO_BYTES];
    uint32_t hcclBufferSize;               /* MB */
    uint32_t hcclDeterministic;
    char hcclCommName[COMM_NAME_MAX_LENGTH];
    char hcclUdi[UDI_MAX_LENGTH];
    uint32_t hcclOpExpansionMode;
    uint32_t hcclRdmaTrafficClass;
    uint32_t hcclRdmaServiceLevel;
    uint32_t hcclWorldRankID;
    uint64_t hcclJobID;
    uint8_t aclGraphZeroCopyEnable;
    int32_t hcclExecTimeOut;               /* seconds */
    char hcclAlgo[HCCL_COMM_ALGO_MAX_LENGTH];
    char hcclRetryEnable[HCCL_COMM_RETRY_ENABLE_MAX_LENGTH];
    char hcclRetryParams[HCCL_COMM_RETRY_PARAMS_MAX_LENGTH];
    char hcclBufferName[BUFFER_NAME_MAX_LENGTH];
    uint32_t hcclQos;
    uint64_t hcclSymWinMaxMemSizePerRank;  /* GB of symmetric-window VA */
} HcclCommConfig;

typedef enum {
    HCCL_SEND = 0,
    HCCL_RECV = 1,
    HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

/* One point-to-point transfer of HcclBatchSendRecv. */
typedef struct HcclSendRecvItemDef {
    HcclSendRecvType sendRecvType;
    void *buf;
    uint64_t count;                /* elements */
    HcclDataType dataType;
    uint32_t remoteRank;
} HcclSendRecvItem;

/* ------------------------------------------- communicators (libhcomm.so) */

/* Writes the rendezvous blob; call on the root rank with its device set. */
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
/* Joins `nRanks` ranks at `rootInfo` as `rank`; blocks until all joined. */
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                HcclComm *comm);
HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                      uint32_t rank, const HcclCommConfig *config,
                                      HcclComm *comm);
/* Joins the ranks of a rank-table JSON file as `rank`. */
HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config, HcclComm *comm);
HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                   uint64_t subCommId, uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm);
/* One communicator per device of `devices` (ndev of them), in one process. */
HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
HcclResult HcclCommDestroy(HcclComm comm);
HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
/* `commName` must hold COMM_NAME_MAX_LENGTH bytes. */
HcclResult HcclGetCommName(HcclComm comm, char *commName);
HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
/* The first asynchronous error the communicator saw (HCCL_SUCCESS if none). */
HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
const char *HcclGetErrorString(HcclResult code);
/* A bit per HcclCommConfig field the library understands. */
uint32_t HcclGetCommConfigCapability(void);
HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);
HcclResult HcclCommSuspend(HcclComm comm);
HcclResult HcclCommResume(HcclComm comm);
HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
                                  uint64_t flags);
HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                      aclrtDrvMemHandle handle, uint64_t flags);
HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);
/* Experimental in CANN: collectives between the two are fused. */
HcclResult HcclGroupStart(void);
HcclResult HcclGroupEnd(void);

/* --------------------------------------------- collectives (libhccl.so) */
/* Every call queues its work on `stream` and returns; buffers are device
 * memory that must stay valid until the stream has run the work. Counts are
 * in elements. */

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* In place: `buf` of the root is sent, every other rank's is overwritten. */
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                         HcclComm comm, aclrtStream stream);
/* `sendBuf` holds recvCount * rankSize elements. */
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                             aclrtStream stream);
/* Counts and displacements are arrays of rankSize uint64_t. */
HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                              void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                              HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                       uint32_t root, HcclComm comm, aclrtStream stream);
/* `recvBuf` holds sendCount * rankSize elements, rank r's at r * sendCount. */
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                         HcclComm comm, aclrtStream stream);
HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                          const void *recvCounts, const void *recvDispls, HcclDataType dataType,
                          HcclComm comm, aclrtStream stream);
HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                    HcclComm comm, aclrtStream stream);
HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                    HcclComm comm, aclrtStream stream);
/* `sendCountMatrix` is rankSize x rankSize uint64_t: [i][j] elements i sends j. */
HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                          HcclDataType sendType, const void *recvBuf, HcclDataType recvType,
                          HcclComm comm, aclrtStream stream);
HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                         HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType, HcclComm comm,
                         aclrtStream stream);
HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                        const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream);
HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                      HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);
HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_HCCL_H */
