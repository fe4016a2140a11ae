/*
 * rec_api_hccl_v.c: recording wrappers of the HCCL collectives with
 * per-rank counts (AllGatherV, ReduceScatterV, AlltoAll, AlltoAllV,
 * AlltoAllVC), BatchSendRecv and the process-wide configuration, with the
 * mock's journal keys (csrc/hccl/coll_v.c, coll_p2p.c, comm_misc.c). The
 * count and displacement arrays are recorded by their values, rankSize of
 * them (rankSize * rankSize for AlltoAllVC's matrix), as the mock journals
 * them; the shim asks the real HCCL for the rank count first (not recorded).
 */
#include "rec.h"

#include <hccl/hccl.h>
#include <stdlib.h>

/* The rank count of comm from the real HCCL, not recorded; 0 when not
 * recording or unknown. Called before REC_BEGIN (not under the shim's lock). */
static uint64_t rank_size(HcclComm comm)
{
    if (!comm || !rec_recording()) {
        return 0;
    }
    HcclResult (*get)(HcclComm, uint32_t *) = (HcclResult (*)(HcclComm, uint32_t *))rec_target(RFN_HcclGetRankSize);
    uint32_t n = 0;
    void *saved = rec_quiet_enter(RFN_HcclGetRankSize);
    if (!get || get(comm, &n) != HCCL_SUCCESS) {
        n = 0;
    }
    rec_quiet_leave(saved);
    return n;
}

/* A uint64 array of n values (n from rank_size): "[1,2]", null, "?". */
static void ra_counts(rec_call *c, const char *key, const void *arr, uint64_t n)
{
    if (!c->on) {
        return;
    }
    if (!arr || !n) {
        ra_str(c, key, arr ? "?" : NULL);
        return;
    }
    jbuf b;
    jb_init(&b);
    const uint64_t *v = arr;
    jb_printf(&b, "[");
    for (uint64_t i = 0; i < n; i++) {
        jb_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
    }
    jb_printf(&b, "]");
    ra_str(c, key, jb_str(&b));
    jb_free(&b);
}

REC_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                     const void *recvDispls, HcclDataType dataType, HcclComm comm,
                                     aclrtStream stream)
{
    uint64_t n = rank_size(comm);
    REC_BEGIN(HcclAllGatherV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_u64(&c, "sendCount", sendCount);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "dataType", dataType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    if (c.on) {
        ra_counts(&c, "recvCounts", recvCounts, n);
        ra_counts(&c, "recvDispls", recvDispls, n);
    }
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCount, recvBuf, recvCounts, recvDispls, dataType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                         void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                         HcclComm comm, aclrtStream stream)
{
    uint64_t n = rank_size(comm);
    REC_BEGIN(HcclReduceScatterV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_u64(&c, "recvCount", recvCount);
    ra_i64(&c, "dataType", dataType);
    ra_i64(&c, "op", op);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    if (c.on) {
        ra_counts(&c, "sendCounts", sendCounts, n);
        ra_counts(&c, "sendDispls", sendDispls, n);
    }
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCounts, sendDispls, recvBuf, recvCount, dataType, op, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                   const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                   aclrtStream stream)
{
    REC_BEGIN(HcclAlltoAll);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_u64(&c, "sendCount", sendCount);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_u64(&c, "recvCount", recvCount);
    ra_i64(&c, "dataType", sendType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCount, sendType, recvBuf, recvCount, recvType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                    HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                    const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    uint64_t n = rank_size(comm);
    REC_BEGIN(HcclAlltoAllV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "sendType", sendType);
    ra_i64(&c, "recvType", recvType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    if (c.on) {
        ra_counts(&c, "sendCounts", sendCounts, n);
        ra_counts(&c, "sdispls", sdispls, n);
        ra_counts(&c, "recvCounts", recvCounts, n);
        ra_counts(&c, "rdispls", rdispls, n);
    }
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, recvType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                     const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    uint64_t n = rank_size(comm);
    REC_BEGIN(HcclAlltoAllVC);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "dataType", sendType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    if (c.on) {
        ra_counts(&c, "sendCountMatrix", sendCountMatrix, n * n);
    }
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCountMatrix, sendType, recvBuf, recvType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                        aclrtStream stream)
{
    REC_BEGIN(HcclBatchSendRecv);
    ra_u64(&c, "itemNum", itemNum);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, sendRecvInfo, itemNum, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    REC_BEGIN(HcclSetConfig);
    ra_i64(&c, "config", config);
    ra_i64(&c, "value", configValue.value);
    aclError rc;
    REC_INVOKE(rc, config, configValue);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    REC_BEGIN(HcclGetConfig);
    ra_i64(&c, "config", config);
    aclError rc;
    REC_INVOKE(rc, config, configValue);
    if (rc == HCCL_SUCCESS && configValue) {
        ro_u64(&c, "value", (uint64_t)configValue->value);
    }
    return (HcclResult)REC_END(rc);
}
