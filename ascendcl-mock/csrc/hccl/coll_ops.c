/*
 * coll_ops.c: the collectives of libhccl.so with one count for every rank:
 * AllReduce, Broadcast, AllGather, ReduceScatter, Reduce, Scatter.
 *
 * hccl v8.5.0 forwards each to hcomm's HcclXInner
 * (src/ops/interface/hccl_collective_op.cc:14-86); the checks below follow
 * those entry points of hcomm v8.5.0 in their order (the lines are cited at
 * each call; the rules themselves in comm_check.c), then the mock's own
 * (stream of the comm's device, int128, device memory at enqueue). Nothing
 * is queued before the last check passed.
 */
#include "hccl_mock.h"

#include <stdio.h>

/* Element count * size * factor in bytes, or false if it overflows. */
static bool bytes_of(uint64_t count, int32_t dtype, uint64_t factor, uint64_t *out)
{
    uint64_t es = hm_dtype_size(dtype);
    if (factor && count > UINT64_MAX / es / factor) {
        aclmock_fail(HCCL_E_PARA, "count %llu is too large", (unsigned long long)count);
        return false;
    }
    *out = count * es * factor;
    return true;
}

static void journal(aclmock_call *call, const void *send, const void *recv, uint64_t count, int32_t dtype,
                    HcclComm comm, aclrtStream stream)
{
    if (send) {
        aclmock_arg_ptr(call, "sendBuf", send);
    }
    if (recv) {
        aclmock_arg_ptr(call, "recvBuf", recv);
    }
    aclmock_arg_u64(call, "count", count);
    aclmock_arg_i64(call, "dataType", dtype);
    hm_journal_comm(call, comm);
    aclmock_arg_stream(call, "stream", stream);
}

/* Queues a one-send-span, one-receive-span exchange. */
static HcclResult queue2(aclmock_call *call, hm_comm *c, aclrtStream stream, uint32_t kind, int32_t dtype,
                         int32_t op, uint32_t root, uint64_t count, const void *send, uint64_t sbytes,
                         const void *recv, uint64_t rbytes)
{
    hm_xfer *x = hm_xfer_new(kind, dtype, op, root, count, 0, sbytes ? 1 : 0, rbytes ? 1 : 0);
    if (!x) {
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
    }
    aclmock_span spans[2] = {{send, sbytes, ACLMOCK_SPAN_READ, "sendBuf"},
                             {recv, rbytes, ACLMOCK_SPAN_WRITE, "recvBuf"}};
    /* in place (same buffer, same size): one span, read and written, so the
     * worker keeps one host copy of it */
    bool in_place = sbytes && send == recv && sbytes == rbytes;
    if (sbytes) {
        x->send[0][0] = 0;
        x->send[0][2] = sbytes;
    }
    if (rbytes) {
        x->recv[0][0] = in_place ? 0 : 1;
        x->recv[0][2] = rbytes;
    }
    if (in_place) {
        spans[0].use = ACLMOCK_SPAN_WRITE;
        spans[0].role = "sendBuf/recvBuf (in place)";
    }
    return hm_enqueue(call, c, stream, spans, in_place ? 1 : 2, x);
}

/* The checks every reduction ends with: hcomm's HcomCheckReductionOp and
 * HcomCheckReduceDataType at the entry point, then hcclComm's
 * CheckDataType(needReduce) in the OutPlace call. */
static HcclResult check_reduce(int32_t dtype, int32_t op)
{
    HcclResult rc = hm_chk_reduction(dtype, op);
    HM_CHK(rc, hm_chk_reduce_dtype(dtype));
    return rc;
}

/* The checks after the entry point's: the mock's. */
static HcclResult check_mock(const hm_comm *c, aclrtStream stream, int32_t dtype, bool reduces)
{
    HcclResult rc = reduces ? hm_chk_mock_reduce(dtype) : HCCL_SUCCESS;
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    return rc;
}

HM_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                   HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAllReduce);
    journal(&call_, sendBuf, recvBuf, count, dataType, comm, stream);
    aclmock_arg_i64(&call_, "op", op);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAllReduceInner, op_base_host.cc:85-110, then
     * AllReduceOutPlace (hccl_comm_host.cc:65-66) */
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(sendBuf, "sendBuf"));
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(count, dataType, stream));
    HM_CHK(rc, check_reduce(dataType, op));
    HM_CHK(rc, check_mock(c, stream, dataType, true));
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS) {
        rc = bytes_of(count, dataType, 1, &b)
                 ? queue2(&call_, c, stream, HK_ALLREDUCE, dataType, op, 0, count, sendBuf, b, recvBuf, b)
                 : HCCL_E_PARA;
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                   aclrtStream stream)
{
    HM_BEGIN(HcclBroadcast);
    journal(&call_, buf, NULL, count, dataType, comm, stream);
    aclmock_arg_u64(&call_, "root", root);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclBroadcastInner, op_base.cc:1516-1541 */
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(buf, "buf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(count, dataType, stream));
    HM_CHK(rc, hm_chk_rank(c, root, "root"));
    HM_CHK(rc, check_mock(c, stream, dataType, false));
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS) {
        if (!bytes_of(count, dataType, 1, &b)) {
            rc = HCCL_E_PARA;
        } else if (c->rank == root) {
            rc = queue2(&call_, c, stream, HK_BROADCAST, dataType, 0, root, count, buf, b, NULL, 0);
        } else {
            rc = queue2(&call_, c, stream, HK_BROADCAST, dataType, 0, root, count, NULL, 0, buf, b);
        }
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                   HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAllGather);
    journal(&call_, sendBuf, recvBuf, sendCount, dataType, comm, stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAllGatherInner, op_base.cc:1949-1968 */
    if (sendCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(sendBuf, "sendBuf"));
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(sendCount, dataType, stream));
    HM_CHK(rc, check_mock(c, stream, dataType, false));
    uint64_t sb = 0, rb = 0;
    if (rc == HCCL_SUCCESS) {
        rc = bytes_of(sendCount, dataType, 1, &sb) && bytes_of(sendCount, dataType, c->nranks, &rb)
                 ? queue2(&call_, c, stream, HK_ALLGATHER, dataType, 0, 0, sendCount, sendBuf, sb, recvBuf, rb)
                 : HCCL_E_PARA;
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                       HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclReduceScatter);
    journal(&call_, sendBuf, recvBuf, recvCount, dataType, comm, stream);
    aclmock_arg_i64(&call_, "op", op);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclReduceScatterInner, op_base.cc:1615-1640, then
     * ReduceScatterOutPlace (hccl_comm.cc:611-612) */
    if (recvCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(sendBuf, "sendBuf"));
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(recvCount, dataType, stream));
    HM_CHK(rc, check_reduce(dataType, op));
    HM_CHK(rc, check_mock(c, stream, dataType, true));
    uint64_t sb = 0, rb = 0;
    if (rc == HCCL_SUCCESS) {
        rc = bytes_of(recvCount, dataType, c->nranks, &sb) && bytes_of(recvCount, dataType, 1, &rb)
                 ? queue2(&call_, c, stream, HK_REDUCE_SCATTER, dataType, op, 0, recvCount, sendBuf, sb, recvBuf, rb)
                 : HCCL_E_PARA;
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclReduce);
    journal(&call_, sendBuf, recvBuf, count, dataType, comm, stream);
    aclmock_arg_i64(&call_, "op", op);
    aclmock_arg_u64(&call_, "root", root);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclReduceInner, op_base.cc:2855-2882 (the root after the
     * reduction checks), then ReduceOutPlace (hccl_comm.cc:728-730) */
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(sendBuf, "sendBuf"));
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(count, dataType, stream));
    HM_CHK(rc, hm_chk_reduction(dataType, op));
    HM_CHK(rc, hm_chk_rank(c, root, "root"));
    HM_CHK(rc, hm_chk_reduce_dtype(dataType));
    HM_CHK(rc, check_mock(c, stream, dataType, true));
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS) {
        /* only the root's receive buffer is written */
        rc = bytes_of(count, dataType, 1, &b) ? queue2(&call_, c, stream, HK_REDUCE, dataType, op, root, count,
                                                       sendBuf, b, recvBuf, c->rank == root ? b : 0)
                                              : HCCL_E_PARA;
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                 uint32_t root, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclScatter);
    journal(&call_, sendBuf, recvBuf, recvCount, dataType, comm, stream);
    aclmock_arg_u64(&call_, "root", root);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* On an Ascend 910B without HCCL_OP_EXPANSION_MODE=HOST_TS, hccl's
     * HcclScatter (src/ops/scatter/scatter_op.cc:55-56, with
     * src/common/alg_env_config.cc:761-763) runs hcomm's HcclScatterInner,
     * op_base.cc:1847-1873: the send buffer is needed on the root only, and
     * is checked before the root's range. */
    if (recvCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    if (rc == HCCL_SUCCESS && c->rank == root) {
        rc = hm_chk_ptr(sendBuf, "sendBuf (on the root)");
    }
    HM_CHK(rc, hm_chk_op_param(recvCount, dataType, stream));
    HM_CHK(rc, hm_chk_rank(c, root, "root"));
    HM_CHK(rc, check_mock(c, stream, dataType, false));
    uint64_t sb = 0, rb = 0;
    if (rc == HCCL_SUCCESS) {
        rc = bytes_of(recvCount, dataType, c->nranks, &sb) && bytes_of(recvCount, dataType, 1, &rb)
                 ? queue2(&call_, c, stream, HK_SCATTER, dataType, 0, root, recvCount, sendBuf,
                          c->rank == root ? sb : 0, recvBuf, rb)
                 : HCCL_E_PARA;
    }
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}
