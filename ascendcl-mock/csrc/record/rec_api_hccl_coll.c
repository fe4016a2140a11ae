/*
 * rec_api_hccl_coll.c: recording wrappers of the HCCL collectives and
 * point-to-point calls (libhccl.so), with the mock's journal keys
 * (csrc/hccl/coll_ops.c, coll_p2p.c): buffers as symbolic addresses (a null
 * buffer is left out, as the mock does), the element count under "count"
 * whatever the function calls it, the communicator as comm<N>.
 */
#include "rec.h"

#include <hccl/hccl.h>

/* The keys every collective shares (the mock's journal() of coll_ops.c). */
static void coll_args(rec_call *c, const void *send, const void *recv, uint64_t count, int32_t dtype,
                      HcclComm comm, aclrtStream stream)
{
    if (send) {
        ra_ptr(c, "sendBuf", send);
    }
    if (recv) {
        ra_ptr(c, "recvBuf", recv);
    }
    ra_u64(c, "count", count);
    ra_i64(c, "dataType", dtype);
    ra_comm(c, comm);
    ra_stream(c, "stream", stream);
}

REC_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                    HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclAllReduce);
    coll_args(&c, sendBuf, recvBuf, count, dataType, comm, stream);
    ra_i64(&c, "op", op);
    aclError rc;
    REC_INVOKE(rc, sendBuf, recvBuf, count, dataType, op, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                    aclrtStream stream)
{
    REC_BEGIN(HcclBroadcast);
    coll_args(&c, buf, NULL, count, dataType, comm, stream);
    ra_u64(&c, "root", root);
    aclError rc;
    REC_INVOKE(rc, buf, count, dataType, root, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                    HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclAllGather);
    coll_args(&c, sendBuf, recvBuf, sendCount, dataType, comm, stream);
    aclError rc;
    REC_INVOKE(rc, sendBuf, recvBuf, sendCount, dataType, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                        HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclReduceScatter);
    coll_args(&c, sendBuf, recvBuf, recvCount, dataType, comm, stream);
    ra_i64(&c, "op", op);
    aclError rc;
    REC_INVOKE(rc, sendBuf, recvBuf, recvCount, dataType, op, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                 HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclReduce);
    coll_args(&c, sendBuf, recvBuf, count, dataType, comm, stream);
    ra_i64(&c, "op", op);
    ra_u64(&c, "root", root);
    aclError rc;
    REC_INVOKE(rc, sendBuf, recvBuf, count, dataType, op, root, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                  uint32_t root, HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclScatter);
    coll_args(&c, sendBuf, recvBuf, recvCount, dataType, comm, stream);
    ra_u64(&c, "root", root);
    aclError rc;
    REC_INVOKE(rc, sendBuf, recvBuf, recvCount, dataType, root, comm, stream);
    return (HcclResult)REC_END(rc);
}

/* Send and Recv: the mock's p2p_journal() of coll_p2p.c. */
static void p2p_args(rec_call *c, const char *buf_key, const void *buf, uint64_t count, int32_t dtype,
                     const char *peer_key, uint32_t peer, HcclComm comm, aclrtStream stream)
{
    ra_ptr(c, buf_key, buf);
    ra_u64(c, "count", count);
    ra_i64(c, "dataType", dtype);
    ra_u64(c, peer_key, peer);
    ra_comm(c, comm);
    ra_stream(c, "stream", stream);
}

REC_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                               HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclSend);
    p2p_args(&c, "sendBuf", sendBuf, count, dataType, "destRank", destRank, comm, stream);
    aclError rc;
    REC_INVOKE(rc, sendBuf, count, dataType, destRank, comm, stream);
    rec_group_p2p(count, rc);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                               HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclRecv);
    p2p_args(&c, "recvBuf", recvBuf, count, dataType, "srcRank", srcRank, comm, stream);
    aclError rc;
    REC_INVOKE(rc, recvBuf, count, dataType, srcRank, comm, stream);
    rec_group_p2p(count, rc);
    return (HcclResult)REC_END(rc);
}
