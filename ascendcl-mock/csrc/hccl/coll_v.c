/*
 * coll_v.c: libhccl.so's collectives with a count per rank: AllGatherV and
 * ReduceScatterV. Counts and displacements are arrays of rankSize uint64_t
 * elements; every rank must pass the same counts (the hub checks, and that
 * rank i's own count is the i-th: comm_match_v.c).
 */
#include "hccl_mock.h"

#include <stdlib.h>

static HcclResult enter(aclmock_call *call, HcclComm comm, aclrtStream stream, int32_t dtype, hm_comm **c)
{
    HcclResult rc;
    if (!comm) {
        aclmock_fail(HCCL_E_PTR, "comm is null");
        return HCCL_E_PTR;
    }
    if (!stream) {
        aclmock_fail(HCCL_E_PTR, "stream is null");
        return HCCL_E_PTR;
    }
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

/* The end (elements) of the blocks counts[j] at displs[j], or false. */
static bool extent(const uint64_t *counts, const uint64_t *displs, uint32_t n, uint64_t es, uint64_t *end)
{
    *end = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (counts[j] > (UINT64_MAX / es) / 4 || displs[j] > (UINT64_MAX / es) / 4) {
            aclmock_fail(HCCL_E_PARA, "count or displacement %u is too large", j);
            return false;
        }
        if (counts[j] && displs[j] + counts[j] > *end) {
            *end = displs[j] + counts[j];
        }
    }
    return true;
}

HM_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                    const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAllGatherV);
    aclmock_arg_ptr(&call_, "sendBuf", sendBuf);
    aclmock_arg_u64(&call_, "sendCount", sendCount);
    aclmock_arg_ptr(&call_, "recvBuf", recvBuf);
    aclmock_arg_i64(&call_, "dataType", dataType);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!recvCounts || !recvDispls) {
        return HM_FAIL(HCCL_E_PTR, "%s is null", recvCounts ? "recvDispls" : "recvCounts");
    }
    hm_comm *c = NULL;
    HcclResult rc = enter(&call_, comm, stream, dataType, &c);
    if (rc != HCCL_SUCCESS) {
        return HM_END(rc);
    }
    const uint64_t *rcnt = recvCounts, *rdsp = recvDispls;
    uint32_t n = c->nranks;
    uint64_t es = hm_dtype_size(dataType), end = 0;
    if (!extent(rcnt, rdsp, n, es, &end) || sendCount > (UINT64_MAX / es) / 4) {
        rc = HCCL_E_PARA;
    } else if ((sendCount && !sendBuf) || (end && !recvBuf)) {
        rc = HCCL_E_PTR;
        aclmock_fail(rc, "%s is null", sendCount && !sendBuf ? "sendBuf" : "recvBuf");
    }
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS && !(x = hm_xfer_new(HK_ALLGATHERV, dataType, 0, 0, sendCount, 2 * n, 1, n))) {
        rc = HCCL_E_MEMORY;
        aclmock_fail(rc, "out of host memory");
    }
    if (x) {
        x->send[0][0] = 0;
        x->send[0][2] = sendCount * es;
        for (uint32_t j = 0; j < n; j++) {
            x->aux[j] = rcnt[j];
            x->aux[n + j] = rdsp[j];
            x->recv[j][0] = 1;
            x->recv[j][1] = rdsp[j] * es;
            x->recv[j][2] = rcnt[j] * es;
        }
        aclmock_span spans[2] = {{sendBuf, sendCount * es, ACLMOCK_SPAN_READ, "sendBuf"},
                                 {recvBuf, end * es, ACLMOCK_SPAN_WRITE, "recvBuf"}};
        rc = hm_enqueue(&call_, c, stream, spans, 2, x);
    }
    hm_comm_leave(c);
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                        uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                        aclrtStream stream)
{
    HM_BEGIN(HcclReduceScatterV);
    aclmock_arg_ptr(&call_, "sendBuf", sendBuf);
    aclmock_arg_ptr(&call_, "recvBuf", recvBuf);
    aclmock_arg_u64(&call_, "recvCount", recvCount);
    aclmock_arg_i64(&call_, "dataType", dataType);
    aclmock_arg_i64(&call_, "op", op);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!sendCounts || !sendDispls) {
        return HM_FAIL(HCCL_E_PTR, "%s is null", sendCounts ? "sendDispls" : "sendCounts");
    }
    hm_comm *c = NULL;
    HcclResult rc = enter(&call_, comm, stream, dataType, &c);
    if (rc != HCCL_SUCCESS) {
        return HM_END(rc);
    }
    if (!hm_op_valid(op)) {
        rc = HCCL_E_PARA;
        aclmock_fail(rc, "reduction op %d is not SUM, PROD, MAX or MIN", op);
    } else if (!hm_can_reduce(dataType)) {
        rc = HCCL_E_NOT_SUPPORT;
        aclmock_fail(rc, "%s does not reduce", hm_dtype_name(dataType));
    }
    const uint64_t *scnt = sendCounts, *sdsp = sendDispls;
    uint32_t n = c->nranks;
    uint64_t es = hm_dtype_size(dataType), end = 0;
    if (rc == HCCL_SUCCESS && (!extent(scnt, sdsp, n, es, &end) || recvCount > (UINT64_MAX / es) / 4)) {
        rc = HCCL_E_PARA;
    } else if (rc == HCCL_SUCCESS && ((end && !sendBuf) || (recvCount && !recvBuf))) {
        rc = HCCL_E_PTR;
        aclmock_fail(rc, "%s is null", end && !sendBuf ? "sendBuf" : "recvBuf");
    }
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS && !(x = hm_xfer_new(HK_REDUCE_SCATTERV, dataType, op, 0, recvCount, 2 * n, n, 1))) {
        rc = HCCL_E_MEMORY;
        aclmock_fail(rc, "out of host memory");
    }
    if (x) {
        for (uint32_t j = 0; j < n; j++) {
            x->aux[j] = scnt[j];
            x->aux[n + j] = sdsp[j];
            x->send[j][0] = 0;
            x->send[j][1] = sdsp[j] * es;
            x->send[j][2] = scnt[j] * es;
        }
        x->recv[0][0] = 1;
        x->recv[0][2] = recvCount * es;
        aclmock_span spans[2] = {{sendBuf, end * es, ACLMOCK_SPAN_READ, "sendBuf"},
                                 {recvBuf, recvCount * es, ACLMOCK_SPAN_WRITE, "recvBuf"}};
        rc = hm_enqueue(&call_, c, stream, spans, 2, x);
    }
    hm_comm_leave(c);
    return HM_END(rc);
}
