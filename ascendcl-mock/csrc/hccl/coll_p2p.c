/*
 * coll_p2p.c: libhccl.so's point-to-point calls (Send, Recv,
 * BatchSendRecv) and the all-to-all family (AlltoAll, AlltoAllV,
 * AlltoAllVC).
 *
 * Send/Recv pair with the peer's matching call (same count and dtype) at the
 * hub (comm_match.c); a peer out of range is HCCL_E_PARA, and so, in the
 * mock, is the rank itself (no source found either way). The all-to-all
 * calls take one dtype in CANN's signatures twice (send and receive); the
 * mock requires them equal and, for AlltoAll, sendCount == recvCount, since
 * what rank i sends rank j is what j receives from i (HCCL_E_PARA otherwise,
 * docs/mock-conformance.md).
 */
#include "hccl_mock.h"

#include <stdlib.h>

/* Enters the comm after the pointer checks and the common checks. */
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

static HcclResult peer_ok(const hm_comm *c, uint32_t peer, const char *what)
{
    if (peer >= c->nranks || peer == c->rank) {
        aclmock_fail(HCCL_E_PARA, "%s %u is not another rank of the %u (this is rank %u)", what, peer, c->nranks,
                     c->rank);
        return HCCL_E_PARA;
    }
    return HCCL_SUCCESS;
}

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
    if (count == 0) {
        return HCCL_SUCCESS;
    }
    if (!buf) {
        aclmock_fail(HCCL_E_PTR, "%s is null", kind == HK_SEND ? "sendBuf" : "recvBuf");
        return HCCL_E_PTR;
    }
    hm_comm *c = NULL;
    HcclResult rc = enter(call, comm, stream, dtype, &c);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    uint64_t es = hm_dtype_size(dtype);
    if ((rc = peer_ok(c, peer, kind == HK_SEND ? "destRank" : "srcRank")) == HCCL_SUCCESS &&
        count > UINT64_MAX / es) {
        rc = HCCL_E_PARA;
        aclmock_fail(rc, "count %llu is too large", (unsigned long long)count);
    }
    hm_xfer *x = NULL;
    if (rc == HCCL_SUCCESS) {
        bool snd = kind == HK_SEND;
        x = hm_xfer_new(kind, dtype, 0, peer, count, 0, snd, !snd);
        if (!x) {
            rc = HCCL_E_MEMORY;
            aclmock_fail(rc, "out of host memory");
        }
    }
    if (x && hm_group_active()) {
        hm_xfer_free(x);
        rc = hm_group_add(c, stream, kind, buf, count, dtype, peer);
    } else if (x) {
        aclmock_span sp = {buf, count * es, kind == HK_SEND ? ACLMOCK_SPAN_READ : ACLMOCK_SPAN_WRITE,
                           kind == HK_SEND ? "sendBuf" : "recvBuf"};
        uint64_t(*piece)[3] = kind == HK_SEND ? x->send : x->recv;
        piece[0][0] = 0;
        piece[0][1] = 0;
        piece[0][2] = count * es;
        rc = hm_enqueue(call, c, stream, &sp, 1, x);
    }
    hm_comm_leave(c);
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
    if (!items) {
        return HM_FAIL(HCCL_E_PTR, "sendRecvInfo is null");
    }
    if (itemNum == 0) {
        return HM_FAIL(HCCL_E_PARA, "itemNum is 0");
    }
    hm_comm *c = NULL;
    HcclResult rc = enter(&call_, comm, stream, HCCL_DATA_TYPE_FP32, &c);
    if (rc != HCCL_SUCCESS) {
        return HM_END(rc);
    }
    uint32_t nsend = 0, nrecv = 0;
    for (uint32_t k = 0; k < itemNum && rc == HCCL_SUCCESS; k++) {
        const HcclSendRecvItem *it = &items[k];
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV) {
            rc = HCCL_E_PARA;
            aclmock_fail(rc, "item %u: type %d is neither HCCL_SEND nor HCCL_RECV", k, it->sendRecvType);
        } else if (!hm_dtype_valid(it->dataType)) {
            rc = HCCL_E_NOT_SUPPORT;
            aclmock_fail(rc, "item %u: data type %d is not supported", k, it->dataType);
        } else if (it->count && !it->buf) {
            rc = HCCL_E_PTR;
            aclmock_fail(rc, "item %u: buf is null", k);
        } else if ((rc = peer_ok(c, it->remoteRank, "remoteRank")) == HCCL_SUCCESS) {
            nsend += it->sendRecvType == HCCL_SEND;
            nrecv += it->sendRecvType == HCCL_RECV;
        }
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

/* AlltoAllV with explicit counts and displacements (elements). */
static HcclResult alltoallv(aclmock_call *call, const void *sendBuf, const uint64_t *sc, const uint64_t *sd,
                            int32_t dtype, const void *recvBuf, const uint64_t *rc_, const uint64_t *rd,
                            HcclComm comm, aclrtStream stream)
{
    hm_comm *c = NULL;
    HcclResult rc = enter(call, comm, stream, dtype, &c);
    if (rc != HCCL_SUCCESS) {
        return rc;
    }
    uint32_t n = c->nranks;
    uint64_t es = hm_dtype_size(dtype);
    uint64_t send_end = 0, recv_end = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (sc[j] > (UINT64_MAX / es) / 4 || sd[j] > (UINT64_MAX / es) / 4 || rc_[j] > (UINT64_MAX / es) / 4 ||
            rd[j] > (UINT64_MAX / es) / 4) {
            hm_comm_leave(c);
            aclmock_fail(HCCL_E_PARA, "count or displacement %u is too large", j);
            return HCCL_E_PARA;
        }
        if (sc[j] && sd[j] + sc[j] > send_end) {
            send_end = sd[j] + sc[j];
        }
        if (rc_[j] && rd[j] + rc_[j] > recv_end) {
            recv_end = rd[j] + rc_[j];
        }
    }
    if ((send_end && !sendBuf) || (recv_end && !recvBuf)) {
        hm_comm_leave(c);
        aclmock_fail(HCCL_E_PTR, "%s is null", send_end && !sendBuf ? "sendBuf" : "recvBuf");
        return HCCL_E_PTR;
    }
    hm_xfer *x = hm_xfer_new(HK_ALLTOALLV, dtype, 0, 0, 0, 4 * n, n, n);
    if (!x) {
        hm_comm_leave(c);
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
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
    rc = hm_enqueue(call, c, stream, spans, 2, x);
    hm_comm_leave(c);
    return rc;
}

static HcclResult same_types(int32_t s, int32_t r)
{
    if (s != r) {
        aclmock_fail(HCCL_E_PARA, "sendType %d and recvType %d differ (the mock moves bytes of one type)", s, r);
        return HCCL_E_PARA;
    }
    return HCCL_SUCCESS;
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
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!sendCounts || !sdispls || !recvCounts || !rdispls) {
        return HM_FAIL(HCCL_E_PTR, "a count or displacement array is null");
    }
    HcclResult rc = same_types(sendType, recvType);
    if (rc == HCCL_SUCCESS) {
        rc = alltoallv(&call_, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts, rdispls, comm, stream);
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
    HcclResult rc = same_types(sendType, recvType);
    if (rc == HCCL_SUCCESS && sendCount != recvCount) {
        return HM_FAIL(HCCL_E_PARA, "sendCount %llu and recvCount %llu differ", (unsigned long long)sendCount,
                       (unsigned long long)recvCount);
    }
    if (rc != HCCL_SUCCESS || sendCount == 0) {
        return HM_END(rc);
    }
    /* uniform counts as V arrays: block j of the send buffer goes to rank j */
    hm_comm *c = NULL;
    rc = enter(&call_, comm, stream, sendType, &c);
    if (rc != HCCL_SUCCESS) {
        return HM_END(rc);
    }
    uint32_t n = c->nranks;
    hm_comm_leave(c);
    uint64_t *arr = calloc(4 * (size_t)n, sizeof(uint64_t));
    if (!arr) {
        return HM_FAIL(HCCL_E_MEMORY, "out of host memory");
    }
    for (uint32_t j = 0; j < n; j++) {
        arr[j] = arr[2 * n + j] = sendCount;
        arr[n + j] = arr[3 * n + j] = (uint64_t)j * sendCount;
    }
    rc = alltoallv(&call_, sendBuf, arr, arr + n, sendType, recvBuf, arr + 2 * n, arr + 3 * n, comm, stream);
    free(arr);
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
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!sendCountMatrix) {
        return HM_FAIL(HCCL_E_PTR, "sendCountMatrix is null");
    }
    HcclResult rc = same_types(sendType, recvType);
    hm_comm *c = NULL;
    if (rc == HCCL_SUCCESS) {
        rc = enter(&call_, comm, stream, sendType, &c);
    }
    if (rc != HCCL_SUCCESS) {
        return HM_END(rc);
    }
    uint32_t n = c->nranks, me = c->rank;
    hm_comm_leave(c);
    /* matrix[i][j]: what rank i sends rank j; this rank sends row `me`,
     * receives column `me`, both packed in rank order */
    const uint64_t *m = sendCountMatrix;
    uint64_t *arr = calloc(4 * (size_t)n, sizeof(uint64_t));
    if (!arr) {
        return HM_FAIL(HCCL_E_MEMORY, "out of host memory");
    }
    uint64_t so = 0, ro = 0;
    for (uint32_t j = 0; j < n; j++) {
        arr[j] = m[(size_t)me * n + j];
        arr[n + j] = so;
        so += arr[j];
        arr[2 * n + j] = m[(size_t)j * n + me];
        arr[3 * n + j] = ro;
        ro += arr[2 * n + j];
    }
    rc = alltoallv(&call_, sendBuf, arr, arr + n, sendType, recvBuf, arr + 2 * n, arr + 3 * n, comm, stream);
    free(arr);
    return HM_END(rc);
}
