/*
 * coll_p2p.c: libhccl.so's point-to-point calls (Send, Recv,
 * BatchSendRecv) and the all-to-all family (AlltoAll, AlltoAllV,
 * AlltoAllVC).
 *
 * The checks follow hcomm v8.5.0's entry points in their order (cited at
 * each call; the rules in comm_check.c), then the mock's own. Send/Recv pair
 * with the peer's matching call (same count and dtype) at the hub
 * (comm_match.c). The mock adds: a rank is not its own peer, and AlltoAllV
 * and AlltoAllVC move bytes of one type, so sendType and recvType must be
 * equal (HCCL_E_PARA; AlltoAll's own entry point already requires it),
 * docs/mock-conformance.md.
 */
#include "hccl_mock.h"

#include <stdlib.h>

static void p2p_journal(aclmock_call *call, uint32_t kind, void *buf, uint64_t count, int32_t dtype, uint32_t peer,
                        HcclComm comm, aclrtStream stream)
{
    aclmock_arg_ptr(call, kind == HK_SEND ? "sendBuf" : "recvBuf", buf);
    aclmock_arg_u64(call, "count", count);
    aclmock_arg_i64(call, "dataType", dtype);
    aclmock_arg_u64(call, kind == HK_SEND ? "destRank" : "srcRank", peer);
    hm_journal_comm(call, comm);
    aclmock_arg_stream(call, "stream", stream);
}

static HcclResult p2p(aclmock_call *call, uint32_t kind, void *buf, uint64_t count, int32_t dtype, uint32_t peer,
                      HcclComm comm, aclrtStream stream)
{
    bool snd = kind == HK_SEND;
    /* hcomm HcclSendInner op_base.cc:2152-2160 and HcclRecvInner
     * :2229-2237, then SendOutPlace / ReceiveOutPlace (hccl_comm.cc:788-789,
     * 807-808): the peer's range */
    if (count == 0) {
        return HCCL_SUCCESS;
    }
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(buf, snd ? "sendBuf" : "recvBuf"));
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    HM_CHK(rc, hm_chk_count(count, "count"));
    HM_CHK(rc, hm_chk_dtype(dtype));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_rank(c, peer, snd ? "destRank" : "srcRank"));
    HM_CHK(rc, hm_chk_mock_peer(c, peer, snd ? "destRank" : "srcRank"));
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    uint64_t es = hm_dtype_size(dtype);
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS) {
        x = hm_xfer_new(kind, dtype, 0, peer, count, 0, snd, !snd);
        if (!x) {
            rc = (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        }
    }
    if (x && hm_group_active()) {
        hm_xfer_free(x);
        rc = hm_group_add(c, stream, kind, buf, count, dtype, peer);
    } else if (x) {
        aclmock_span sp = {buf, count * es, snd ? ACLMOCK_SPAN_READ : ACLMOCK_SPAN_WRITE, snd ? "sendBuf" : "recvBuf"};
        uint64_t(*piece)[3] = snd ? x->send : x->recv;
        piece[0][0] = 0;
        piece[0][1] = 0;
        piece[0][2] = count * es;
        rc = hm_enqueue(call, c, stream, &sp, 1, x);
    }
    if (c) {
        hm_comm_leave(c);
    }
    return rc;
}

HM_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                              aclrtStream stream)
{
    HM_BEGIN(HcclSend);
    p2p_journal(&call_, HK_SEND, sendBuf, count, dataType, destRank, comm, stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    return HM_END(p2p(&call_, HK_SEND, sendBuf, count, dataType, destRank, comm, stream));
}

HM_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                              aclrtStream stream)
{
    HM_BEGIN(HcclRecv);
    p2p_journal(&call_, HK_RECV, recvBuf, count, dataType, srcRank, comm, stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    return HM_END(p2p(&call_, HK_RECV, recvBuf, count, dataType, srcRank, comm, stream));
}

HM_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *items, uint32_t itemNum, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclBatchSendRecv);
    aclmock_arg_u64(&call_, "itemNum", itemNum);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclBatchSendRecvInner, op_base.cc:3444-3481: every item's
     * buffer (even of count 0), dtype, count and remote rank; the mock's
     * rules on the items (a type of SEND or RECV, not this rank) after all
     * of them */
    HcclResult rc = hm_chk_ptr(comm, "comm");
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    HM_CHK(rc, hm_chk_ptr(items, "sendRecvInfo"));
    if (rc == HCCL_SUCCESS && itemNum == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    for (uint32_t k = 0; k < itemNum && rc == HCCL_SUCCESS; k++) {
        const HcclSendRecvItem *it = &items[k];
        rc = hm_chk_ptr(it->buf, "an item's buf");
        HM_CHK(rc, hm_chk_dtype(it->dataType));
        HM_CHK(rc, hm_chk_count(it->count, "an item's count"));
        HM_CHK(rc, hm_chk_rank(c, it->remoteRank, "an item's remoteRank"));
    }
    uint32_t nsend = 0, nrecv = 0;
    for (uint32_t k = 0; k < itemNum && rc == HCCL_SUCCESS; k++) {
        const HcclSendRecvItem *it = &items[k];
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV) {
            rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "item %u: type %d is neither HCCL_SEND nor HCCL_RECV", k,
                                          it->sendRecvType);
        }
        HM_CHK(rc, hm_chk_mock_peer(c, it->remoteRank, "an item's remoteRank"));
        nsend += it->sendRecvType == HCCL_SEND;
        nrecv += it->sendRecvType == HCCL_RECV;
    }
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    if (rc != HCCL_SUCCESS) {
        if (c) {
            hm_comm_leave(c);
        }
        return HM_END(rc);
    }
    hm_xfer *x = NULL;
    aclmock_span *spans = NULL;
    if (rc == HCCL_SUCCESS) {
        x = hm_xfer_new(HK_BATCH, HCCL_DATA_TYPE_FP32, 0, 0, 0, itemNum * 4, nsend, nrecv);
        spans = calloc(itemNum, sizeof(*spans));
        if (!x || !spans) {
            rc = HCCL_E_MEMORY;
            aclmock_fail(rc, "out of host memory");
        }
    }
    for (uint32_t k = 0, s = 0, r = 0; rc == HCCL_SUCCESS && k < itemNum; k++) {
        const HcclSendRecvItem *it = &items[k];
        uint64_t b = it->count * hm_dtype_size(it->dataType);
        bool snd = it->sendRecvType == HCCL_SEND;
        spans[k] = (aclmock_span){it->buf, b, snd ? ACLMOCK_SPAN_READ : ACLMOCK_SPAN_WRITE, snd ? "send item" : "recv item"};
        uint64_t(*piece)[3] = snd ? &x->send[s++] : &x->recv[r++];
        (*piece)[0] = k;
        (*piece)[1] = 0;
        (*piece)[2] = b;
        x->aux[k * 4] = (uint64_t)it->sendRecvType;
        x->aux[k * 4 + 1] = (uint64_t)it->dataType;
        x->aux[k * 4 + 2] = it->remoteRank;
        x->aux[k * 4 + 3] = it->count;
    }
    if (rc == HCCL_SUCCESS) {
        rc = hm_enqueue(&call_, c, stream, spans, itemNum, x);
        x = NULL;
    }
    hm_xfer_free(x);
    free(spans);
    hm_comm_leave(c);
    return HM_END(rc);
}

/* Queues an AlltoAllV with explicit counts and displacements (elements) on
 * the entered comm `c`, after every check but the mock's displacement
 * bound. */
static HcclResult alltoallv(aclmock_call *call, hm_comm *c, const void *sendBuf, const uint64_t *sc,
                            const uint64_t *sd, int32_t dtype, const void *recvBuf, const uint64_t *rc_,
                            const uint64_t *rd, aclrtStream stream)
{
    uint32_t n = c->nranks;
    uint64_t es = hm_dtype_size(dtype);
    uint64_t send_end = 0, recv_end = 0;
    for (uint32_t j = 0; j < n; j++) {
        /* the mock's bound (the sources do not check displacements) */
        if (sd[j] > (UINT64_MAX / es) / 4 || rd[j] > (UINT64_MAX / es) / 4) {
            return (HcclResult)aclmock_fail(HCCL_E_PARA, "displacement %u is too large", j);
        }
        if (sc[j] && sd[j] + sc[j] > send_end) {
            send_end = sd[j] + sc[j];
        }
        if (rc_[j] && rd[j] + rc_[j] > recv_end) {
            recv_end = rd[j] + rc_[j];
        }
    }
    hm_xfer *x = hm_xfer_new(HK_ALLTOALLV, dtype, 0, 0, 0, 4 * n, n, n);
    if (!x) {
        return (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
    }
    for (uint32_t j = 0; j < n; j++) {
        x->aux[j] = sc[j];
        x->aux[n + j] = sd[j];
        x->aux[2 * n + j] = rc_[j];
        x->aux[3 * n + j] = rd[j];
        x->send[j][0] = 0;
        x->send[j][1] = sd[j] * es;
        x->send[j][2] = sc[j] * es;
        x->recv[j][0] = 1;
        x->recv[j][1] = rd[j] * es;
        x->recv[j][2] = rc_[j] * es;
    }
    aclmock_span spans[2] = {{sendBuf, send_end * es, ACLMOCK_SPAN_READ, "sendBuf"},
                             {recvBuf, recv_end * es, ACLMOCK_SPAN_WRITE, "recvBuf"}};
    return hm_enqueue(call, c, stream, spans, 2, x);
}

/* The mock's rule for AlltoAllV and AlltoAllVC: one type (it moves bytes). */
static HcclResult same_types(int32_t s, int32_t r)
{
    if (s != r) {
        return (HcclResult)aclmock_fail(
            HCCL_E_PARA, "sendType %d and recvType %d differ (the mock moves bytes of one type)", s, r);
    }
    return HCCL_SUCCESS;
}

/* The buffer checks of HcomCheckAlltoAllVExternalMem (hcomm
 * param_check.cc:164-222) and of its VC twin (:224-261) after their count
 * checks: not one buffer for both, then a buffer where something moves. */
static HcclResult external_mem(const void *sendBuf, bool has_send, const void *recvBuf, bool has_recv)
{
    if (sendBuf && recvBuf && sendBuf == recvBuf) {
        return (HcclResult)aclmock_fail(HCCL_E_PARA, "sendBuf and recvBuf cannot be the same buffer");
    }
    HcclResult rc = has_send ? hm_chk_ptr(sendBuf, "sendBuf") : HCCL_SUCCESS;
    if (rc == HCCL_SUCCESS && has_recv) {
        rc = hm_chk_ptr(recvBuf, "recvBuf");
    }
    return rc;
}

HM_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                   HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                   const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAlltoAllV);
    aclmock_arg_ptr(&call_, "sendBuf", sendBuf);
    aclmock_arg_ptr(&call_, "recvBuf", recvBuf);
    aclmock_arg_i64(&call_, "sendType", sendType);
    aclmock_arg_i64(&call_, "recvType", recvType);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    hm_journal_counts(&call_, "sendCounts", sendCounts, comm, 1);
    hm_journal_counts(&call_, "sdispls", sdispls, comm, 1);
    hm_journal_counts(&call_, "recvCounts", recvCounts, comm, 1);
    hm_journal_counts(&call_, "rdispls", rdispls, comm, 1);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAlltoAllVInner, op_base.cc:2661-2688, with
     * HcomCheckAlltoAllVExternalMem (param_check.cc:164-222: the buffers
     * first, then the send counts, then the receive counts) */
    HcclResult rc = hm_chk_ptr(sendCounts, "sendCounts");
    HM_CHK(rc, hm_chk_ptr(sdispls, "sdispls"));
    HM_CHK(rc, hm_chk_ptr(recvCounts, "recvCounts"));
    HM_CHK(rc, hm_chk_ptr(rdispls, "rdispls"));
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    HM_CHK(rc, hm_chk_ptr(comm, "comm"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    if (rc == HCCL_SUCCESS && sendBuf && recvBuf && sendBuf == recvBuf) {
        rc = external_mem(sendBuf, false, recvBuf, false);
    }
    uint64_t send_total = 0, recv_total = 0;
    HM_CHK(rc, hm_chk_counts(sendCounts, c->nranks, "sendCounts", &send_total));
    HM_CHK(rc, hm_chk_counts(recvCounts, c->nranks, "recvCounts", &recv_total));
    HM_CHK(rc, external_mem(sendBuf, send_total > 0, recvBuf, recv_total > 0));
    HM_CHK(rc, hm_chk_op_param(0, sendType, stream));
    HM_CHK(rc, hm_chk_dtype(recvType));
    HM_CHK(rc, same_types(sendType, recvType));
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    HM_CHK(rc, alltoallv(&call_, c, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, stream));
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                  const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                  aclrtStream stream)
{
    HM_BEGIN(HcclAlltoAll);
    aclmock_arg_ptr(&call_, "sendBuf", sendBuf);
    aclmock_arg_u64(&call_, "sendCount", sendCount);
    aclmock_arg_ptr(&call_, "recvBuf", recvBuf);
    aclmock_arg_u64(&call_, "recvCount", recvCount);
    aclmock_arg_i64(&call_, "dataType", sendType);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAlltoAllInner, op_base.cc:2569-2601 */
    if (sendCount == 0 && recvCount == 0) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc = hm_chk_ptr(sendBuf, "sendBuf");
    HM_CHK(rc, hm_chk_ptr(recvBuf, "recvBuf"));
    if (rc == HCCL_SUCCESS && sendCount != recvCount) {
        rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "sendCount %llu and recvCount %llu differ",
                                      (unsigned long long)sendCount, (unsigned long long)recvCount);
    }
    if (rc == HCCL_SUCCESS && sendType != recvType) {
        rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "sendType %d and recvType %d differ", sendType, recvType);
    }
    HM_CHK(rc, hm_chk_ptr(stream, "stream"));
    HM_CHK(rc, hm_chk_ptr(comm, "comm"));
    HM_CHK(rc, external_mem(sendBuf, false, recvBuf, false));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    HM_CHK(rc, hm_chk_op_param(0, sendType, stream));
    HM_CHK(rc, hm_chk_dtype(recvType));
    /* the mock's bound on the counts (the sources check none here) */
    if (rc == HCCL_SUCCESS && sendCount > UINT64_MAX / 16 / c->nranks) {
        rc = (HcclResult)aclmock_fail(HCCL_E_PARA, "sendCount %llu is too large", (unsigned long long)sendCount);
    }
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    /* uniform counts as V arrays: block j of the send buffer goes to rank j */
    uint64_t *arr = NULL;
    if (rc == HCCL_SUCCESS && !(arr = calloc(4 * (size_t)c->nranks, sizeof(uint64_t)))) {
        rc = (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
    }
    if (rc == HCCL_SUCCESS) {
        uint32_t n = c->nranks;
        for (uint32_t j = 0; j < n; j++) {
            arr[j] = arr[2 * n + j] = sendCount;
            arr[n + j] = arr[3 * n + j] = (uint64_t)j * sendCount;
        }
        rc = alltoallv(&call_, c, sendBuf, arr, arr + n, sendType, recvBuf, arr + 2 * n, arr + 3 * n, stream);
    }
    free(arr);
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}

HM_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                    const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    HM_BEGIN(HcclAlltoAllVC);
    aclmock_arg_ptr(&call_, "sendBuf", sendBuf);
    aclmock_arg_ptr(&call_, "recvBuf", recvBuf);
    aclmock_arg_i64(&call_, "dataType", sendType);
    hm_journal_comm(&call_, comm);
    aclmock_arg_stream(&call_, "stream", stream);
    /* rank i sends sendCountMatrix[i * n + j] elements to rank j */
    hm_journal_counts(&call_, "sendCountMatrix", sendCountMatrix, comm, hm_comm_nranks_of(comm));
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm HcclAlltoAllVCInner, op_base.cc:2764-2782, with
     * HcomCheckAlltoAllVCExternalMem (param_check.cc:224-261): this rank's
     * row of counts; the stream only in HcomCheckOpParam */
    HcclResult rc = hm_chk_ptr(sendCountMatrix, "sendCountMatrix");
    HM_CHK(rc, hm_chk_ptr(comm, "comm"));
    hm_comm *c = NULL;
    HM_CHK(rc, hm_chk_enter(comm, &c));
    if (rc == HCCL_SUCCESS && sendBuf && recvBuf && sendBuf == recvBuf) {
        rc = external_mem(sendBuf, false, recvBuf, false);
    }
    const uint64_t *m = sendCountMatrix;
    uint32_t n = c ? c->nranks : 0, me = c ? c->rank : 0;
    bool has_send = false, has_recv = false;
    for (uint32_t j = 0; j < n && rc == HCCL_SUCCESS; j++) {
        rc = hm_chk_count(m[(size_t)me * n + j], "sendCountMatrix[rank][j]");
        has_send = has_send || m[(size_t)me * n + j] != 0;
        has_recv = has_recv || m[(size_t)j * n + me] != 0;
    }
    HM_CHK(rc, external_mem(sendBuf, has_send, recvBuf, has_recv));
    HM_CHK(rc, hm_chk_op_param(0, sendType, stream));
    HM_CHK(rc, hm_chk_dtype(recvType));
    HM_CHK(rc, same_types(sendType, recvType));
    /* the mock's bound on the column it receives (the sources check only
     * this rank's row) */
    for (uint32_t j = 0; j < n && rc == HCCL_SUCCESS; j++) {
        rc = hm_chk_count(m[(size_t)j * n + me], "sendCountMatrix[j][rank]");
    }
    HM_CHK(rc, hm_chk_mock_stream(c, stream));
    /* matrix[i][j]: what rank i sends rank j; this rank sends row `me`,
     * receives column `me`, both packed in rank order */
    uint64_t *arr = NULL;
    if (rc == HCCL_SUCCESS && !(arr = calloc(4 * (size_t)n, sizeof(uint64_t)))) {
        rc = (HcclResult)aclmock_fail(HCCL_E_MEMORY, "out of host memory");
    }
    if (rc == HCCL_SUCCESS) {
        uint64_t so = 0, ro = 0;
        for (uint32_t j = 0; j < n; j++) {
            arr[j] = m[(size_t)me * n + j];
            arr[n + j] = so;
            so += arr[j];
            arr[2 * n + j] = m[(size_t)j * n + me];
            arr[3 * n + j] = ro;
            ro += arr[2 * n + j];
        }
        rc = alltoallv(&call_, c, sendBuf, arr, arr + n, sendType, recvBuf, arr + 2 * n, arr + 3 * n, stream);
    }
    free(arr);
    if (c) {
        hm_comm_leave(c);
    }
    return HM_END(rc);
}
