/*
 * rec_api_hccl_v.c: recording wrappers of the HCCL collectives with
 * per-rank counts (AllGatherV, ReduceScatterV, AlltoAll, AlltoAllV,
 * AlltoAllVC), BatchSendRecv and the process-wide configuration, with the
 * mock's journal keys (csrc/hccl/coll_v.c, coll_p2p.c, comm_misc.c). The
 * count and displacement arrays are not recorded (nor are they journaled).
 */
#include "rec.h"

#include <hccl/hccl.h>

REC_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                     const void *recvDispls, HcclDataType dataType, HcclComm comm,
                                     aclrtStream stream)
{
    REC_BEGIN(HcclAllGatherV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_u64(&c, "sendCount", sendCount);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "dataType", dataType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCount, recvBuf, recvCounts, recvDispls, dataType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                         void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                         HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclReduceScatterV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_u64(&c, "recvCount", recvCount);
    ra_i64(&c, "dataType", dataType);
    ra_i64(&c, "op", op);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
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
    REC_BEGIN(HcclAlltoAllV);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "sendType", sendType);
    ra_i64(&c, "recvType", recvType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, recvType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                     const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclAlltoAllVC);
    ra_ptr(&c, "sendBuf", sendBuf);
    ra_ptr(&c, "recvBuf", recvBuf);
    ra_i64(&c, "dataType", sendType);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
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
