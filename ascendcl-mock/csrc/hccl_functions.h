/*
 * hccl_functions.h: the functions of the mock's HCCL libraries (libhcomm.so:
 * communicators; libhccl.so: collectives; csrc/hccl/), as an X-macro. Like
 * the operator libraries' (ops_functions.h) they are journaled, counted and
 * fault-injected by the mock (libascendcl.so) through the aclmock_* entry
 * points, so their names extend the mock's function list (mock.h,
 * journal.c). The recording shim records those of them it wraps
 * (record/rec_api_hccl_*.c) under the same names and keys.
 */
#ifndef ACLMOCK_HCCL_FUNCTIONS_H
#define ACLMOCK_HCCL_FUNCTIONS_H

#define MOCK_HCCL_FUNCTIONS(X)                                                                                \
    X(HcclGetRootInfo) X(HcclCommInitRootInfo) X(HcclCommInitRootInfoConfig) X(HcclCommInitClusterInfo)      \
    X(HcclCommInitClusterInfoConfig) X(HcclCreateSubCommConfig) X(HcclCommInitAll) X(HcclCommDestroy)       \
    X(HcclGetRankSize) X(HcclGetRankId) X(HcclGetCommName) X(HcclBarrier) X(HcclGetCommAsyncError)          \
    X(HcclGetErrorString) X(HcclGetCommConfigCapability) X(HcclSetConfig) X(HcclGetConfig)                  \
    X(HcclCommSuspend) X(HcclCommResume) X(HcclGroupStart) X(HcclGroupEnd) X(HcclAllReduce)                 \
    X(HcclBroadcast) X(HcclReduceScatter) X(HcclReduceScatterV) X(HcclScatter) X(HcclAllGather)             \
    X(HcclAllGatherV) X(HcclSend) X(HcclRecv) X(HcclAlltoAllVC) X(HcclAlltoAllV) X(HcclAlltoAll)            \
    X(HcclReduce) X(HcclBatchSendRecv)

#endif /* ACLMOCK_HCCL_FUNCTIONS_H */
