/*
 * coll_ops.c: the collectives of libhccl.so with one count for every rank:
 * AllReduce, Broadcast, AllGather, ReduceScatter, Reduce, Scatter.
 *
 * Checks, in the order of hcomm op_base.cc HcclAllReduceInner: a zero count
 * succeeds at once without queuing anything; then a null comm, send buffer,
 * receive buffer or stream is HCCL_E_PTR; then the dtype (hccl
 * src/common/param_check.cc:101-108, HCCL_E_NOT_SUPPORT), the reduction op
 * (HCCL_E_PARA) and whether the dtype reduces (HCCL_E_NOT_SUPPORT). A root
 * out of range is HCCL_E_PARA (param_check.cc:134-141 is the same rule for
 * ranks). The other collectives are assumed to follow AllReduce's order
 * (their Inner functions live in hcomm, see docs/mock-conformance.md).
 */
#include "hccl_mock.h"

#include <stdio.h>

/* What every collective checks and records. `c` is entered on success. */
static HcclResult common(aclmock_call *call, uint64_t count, const void *a, const char *an, const void *b,
                         const char *bn, HcclComm comm, aclrtStream stream, int32_t dtype, hm_comm **c)
{
    (void)count;
    if (!comm) {
        aclmock_fail(HCCL_E_PTR, "comm is null");
        return HCCL_E_PTR;
    }
    if (an && !a) {
        aclmock_fail(HCCL_E_PTR, "%s is null", an);
        return HCCL_E_PTR;
    }
    if (bn && !b) {
        aclmock_fail(HCCL_E_PTR, "%s is null", bn);
        return HCCL_E_PTR;
    }
    if (!stream) {
        aclmock_fail(HCCL_E_PTR, "stream is null");
        return HCCL_E_PTR;
    }
    HcclResult rc;
    *c = hm_comm_enter(comm, &rc);
    if (!*c) {
        return rc;
    }
    rc = hm_check(call, *c, stream, dtype);
    if (rc != HCCL_SUCCESS) {
        hm_comm_leave(*c);
        *c = NULL;
    }
    return rc;
}

static HcclResult check_reduce(int32_t dtype, int32_t op)
{
    if (!hm_op_valid(op)) {
        aclmock_fail(HCCL_E_PARA, "reduction op %d is not SUM, PROD, MAX or MIN", op);
        return HCCL_E_PARA;
    }
    if (!hm_can_reduce(dtype)) {
        aclmock_fail(HCCL_E_NOT_SUPPORT, "%s does not reduce", hm_dtype_name(dtype));
        return HCCL_E_NOT_SUPPORT;
    }
    return HCCL_SUCCESS;
}

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

HM_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                   HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAllReduce);
    journal(&call_, sendBuf, recvBuf, count, dataType, comm, stream);
    aclmock_arg_i64(&call_, "op", op);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HcclResult rc = common(&call_, count, sendBuf, "sendBuf", recvBuf, "recvBuf", comm, stream, dataType, &c);
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS && (rc = check_reduce(dataType, op)) == HCCL_SUCCESS) {
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
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HcclResult rc = common(&call_, count, buf, "buf", NULL, NULL, comm, stream, dataType, &c);
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS && root >= c->nranks) {
        rc = HCCL_E_PARA;
        aclmock_fail(rc, "root %u is out of range for %u ranks", root, c->nranks);
    }
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
    if (sendCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HcclResult rc = common(&call_, sendCount, sendBuf, "sendBuf", recvBuf, "recvBuf", comm, stream, dataType, &c);
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
    if (recvCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HcclResult rc = common(&call_, recvCount, sendBuf, "sendBuf", recvBuf, "recvBuf", comm, stream, dataType, &c);
    uint64_t sb = 0, rb = 0;
    if (rc == HCCL_SUCCESS && (rc = check_reduce(dataType, op)) == HCCL_SUCCESS) {
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
    if (count == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HcclResult rc = common(&call_, count, sendBuf, "sendBuf", recvBuf, "recvBuf", comm, stream, dataType, &c);
    uint64_t b = 0;
    if (rc == HCCL_SUCCESS && root >= c->nranks) {
        rc = HCCL_E_PARA;
        aclmock_fail(rc, "root %u is out of range for %u ranks", root, c->nranks);
    }
    if (rc == HCCL_SUCCESS && (rc = check_reduce(dataType, op)) == HCCL_SUCCESS) {
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
    if (recvCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    /* the send buffer matters on the root only; others may pass null */
    HcclResult rc = common(&call_, recvCount, recvBuf, "recvBuf", NULL, NULL, comm, stream, dataType, &c);
    if (rc == HCCL_SUCCESS && root >= c->nranks) {
        rc = HCCL_E_PARA;
        aclmock_fail(rc, "root %u is out of range for %u ranks", root, c->nranks);
    }
    if (rc == HCCL_SUCCESS && c->rank == root && !sendBuf) {
        rc = HCCL_E_PTR;
        aclmock_fail(rc, "sendBuf is null on the root");
    }
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
