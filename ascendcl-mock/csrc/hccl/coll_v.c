/*
 * coll_v.c: libhccl.so's collectives with a count per rank: AllGatherV and
 * ReduceScatterV. Counts and displacements are arrays of rankSize uint64_t
 * elements. The call checks them as hcomm v8.5.0 does (cited below; the
 * rules in comm_check.c), this rank's own count included; that every rank
 * passes the same counts can only be seen by the hub (comm_match_v.c).
 */
#include "hccl_mock.h"

#include <stdlib.h>

/* The end (elements) of the blocks counts[j] at displs[j], or false (the
 * mock's bound: the sources do not check displacements). */
static bool extent(const uint64_t *counts, const uint64_t *displs, uint32_t n, uint64_t es, uint64_t *end)
{
    *end = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (displs[j] > (UINT64_MAX / es) / 4) {
            aclmock_fail(HCCL_E_PARA, "displacement %u is too large", j);
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
    hm_journal_counts(&call_, "recvCounts", recvCounts, comm, 1);
    hm_journal_counts(&call_, "recvDispls", recvDispls, comm, 1);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAllGatherVInner, op_base.cc:2033-2109: nothing to gather
     * succeeds after the count checks; this rank's own count must be
     * sendCount */
    HcclResult rc = hm_chk_ptr(recvCounts, "recvCounts");
    HM_CHK(rc, hm_chk_ptr(recvDispls, "recvDispls"));
    HM_CHK(rc, hm_chk_ptr(comm, "comm"));
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    if (rc == HCCL_SUCCESS && sendCount > 0) {
        rc = hm_chk_ptr(sendBuf, "sendBuf");
    }
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(sendCount, dataType, stream));
    const uint64_t *rcnt = recvCounts, *rdsp = recvDispls;
    uint64_t total = 0;
    HM_CHK(rc, hm_chk_counts(rcnt, c->nranks, "recvCounts", &total));
    if (rc == HCCL_SUCCESS && total == 0) {
        hm_comm_leave(c);
        return HM_END(HCCL_SUCCESS);
    }
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    if (rc == HCCL_SUCCESS && sendCount != rcnt[c->rank]) {
        rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "sendCount %llu is not recvCounts[%u] %llu",
                                      (unsigned long long)sendCount, c->rank, (unsigned long long)rcnt[c->rank]);
    }
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    uint32_t n = c ? c->nranks : 0;
    uint64_t es = hm_dtype_size(dataType), end = 0;
    if (rc == HCCL_SUCCESS && !extent(rcnt, rdsp, n, es, &end)) {
        rc = HCCL_E_PARA;
    }
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS && !(x = hm_xfer_new(HK_ALLGATHERV, dataType, 0, 0, sendCount, 2 * n, 1, n))) {
        rc = (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
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
    if (c) {
        hm_comm_leave(c);
    }
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
    hm_journal_counts(&call_, "sendCounts", sendCounts, comm, 1);
    hm_journal_counts(&call_, "sendDispls", sendDispls, comm, 1);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclReduceScatterVInner, op_base.cc:1709-1785: nothing to reduce
     * succeeds after the count checks; this rank's own count must be
     * recvCount; then ReduceScatterVOutPlace (hccl_comm.cc:674-675) */
    HcclResult rc = hm_chk_ptr(sendCounts, "sendCounts");
    HM_CHK(rc, hm_chk_ptr(sendDispls, "sendDispls"));
    HM_CHK(rc, hm_chk_ptr(comm, "comm"));
    if (rc == HCCL_SUCCESS && recvCount > 0) {
        rc = hm_chk_ptr(recvBuf, "recvBuf");
    }
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(recvCount, dataType, stream));
    HM_CHK(rc, hm_chk_reduction(dataType, op));
    const uint64_t *scnt = sendCounts, *sdsp = sendDispls;
    uint64_t total = 0;
    HM_CHK(rc, hm_chk_counts(scnt, c->nranks, "sendCounts", &total));
    if (rc == HCCL_SUCCESS && total == 0) {
        hm_comm_leave(c);
        return HM_END(HCCL_SUCCESS);
    }
    HM_CHK(rc, hm_chk_ptr(sendBuf, "sendBuf"));
    if (rc == HCCL_SUCCESS && recvCount != scnt[c->rank]) {
        rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "recvCount %llu is not sendCounts[%u] %llu",
                                      (unsigned long long)recvCount, c->rank, (unsigned long long)scnt[c->rank]);
    }
    HM_CHK(rc, hm_chk_reduce_dtype(dataType));
    HM_CHK(rc, hm_chk_mock_reduce(dataType));
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    uint32_t n = c ? c->nranks : 0;
    uint64_t es = hm_dtype_size(dataType), end = 0;
    if (rc == HCCL_SUCCESS && !extent(scnt, sdsp, n, es, &end)) {
        rc = HCCL_E_PARA;
    }
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS && !(x = hm_xfer_new(HK_REDUCE_SCATTERV, dataType, op, 0, recvCount, 2 * n, n, 1))) {
        rc = (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
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
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}
