/*
 * comm_group.c: HcclGroupStart / HcclGroupEnd. CANN appends the operations
 * issued between them and launches them fused at the end (hcomm
 * HcclAllReduceInner: taskAppend while hcclGroupDepth > 0), which is what
 * lets two ranks both send before they receive. The mock keeps Send and
 * Recv of the calling thread and launches them at the outermost end as one
 * BatchSendRecv exchange per communicator and stream; they pair with the
 * peer's grouped Send/Recv or BatchSendRecv (comm_match_v.c). A collective
 * issued inside a group is not deferred: it first launches the kept
 * point-to-point operations, then itself, so a stream's work keeps the order
 * of the calls (docs/mock-conformance.md).
 */
#include "hccl_mock.h"

#include <stdlib.h>
#include <string.h>

typedef struct group_item {
    hm_comm *c;
    aclrtStream stream;
    HcclSendRecvItem it;
} group_item;

static __thread int depth;
static __thread group_item *items;
static __thread uint32_t nitems, capitems;

bool hm_group_active(void) { return depth > 0; }

HcclResult hm_group_add(hm_comm *c, aclrtStream stream, uint32_t kind, void *buf, uint64_t count, int32_t dtype,
                        uint32_t peer)
{
    if (nitems == capitems) {
        uint32_t nc = capitems ? capitems * 2 : 8;
        group_item *ni = realloc(items, nc * sizeof(*ni));
        if (!ni) {
            aclmock_fail(HCCL_E_MEMORY, "out of host memory");
            return HCCL_E_MEMORY;
        }
        items = ni;
        capitems = nc;
    }
    hm_comm_ref(c);
    group_item *g = &items[nitems++];
    g->c = c;
    g->stream = stream;
    g->it = (HcclSendRecvItem){kind == HK_SEND ? HCCL_SEND : HCCL_RECV, buf, count, (HcclDataType)dtype, peer};
    return HCCL_SUCCESS;
}

/* Launches the kept items of one (comm, stream) as a batch. */
static HcclResult launch(aclmock_call *call, hm_comm *c, aclrtStream stream, const HcclSendRecvItem *its, uint32_t n)
{
    uint32_t nsend = 0, nrecv = 0;
    for (uint32_t k = 0; k < n; k++) {
        nsend += its[k].sendRecvType == HCCL_SEND;
        nrecv += its[k].sendRecvType == HCCL_RECV;
    }
    hm_xfer *x = hm_xfer_new(HK_BATCH, HCCL_DATA_TYPE_FP32, 0, 0, 0, n * 4, nsend, nrecv);
    aclmock_span *spans = calloc(n ? n : 1, sizeof(*spans));
    if (!x || !spans) {
        hm_xfer_free(x);
        free(spans);
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
    }
    for (uint32_t k = 0, s = 0, r = 0; k < n; k++) {
        const HcclSendRecvItem *it = &its[k];
        uint64_t b = it->count * hm_dtype_size(it->dataType);
        bool snd = it->sendRecvType == HCCL_SEND;
        spans[k] = (aclmock_span){it->buf, b, snd ? ACLMOCK_SPAN_READ : ACLMOCK_SPAN_WRITE,
                                  snd ? "sendBuf (grouped)" : "recvBuf (grouped)"};
        uint64_t(*piece)[3] = snd ? &x->send[s++] : &x->recv[r++];
        (*piece)[0] = k;
        (*piece)[1] = 0;
        (*piece)[2] = b;
        x->aux[k * 4] = (uint64_t)it->sendRecvType;
        x->aux[k * 4 + 1] = (uint64_t)it->dataType;
        x->aux[k * 4 + 2] = it->remoteRank;
        x->aux[k * 4 + 3] = it->count;
    }
    HcclResult rc = hm_enqueue_now(call, c, stream, spans, n, x);
    free(spans);
    return rc;
}

HcclResult hm_group_flush(aclmock_call *call)
{
    HcclResult first = HCCL_SUCCESS;
    HcclSendRecvItem *its = nitems ? calloc(nitems, sizeof(*its)) : NULL;
    bool *done = nitems ? calloc(nitems, sizeof(bool)) : NULL;
    for (uint32_t i = 0; i < nitems; i++) {
        if (!its || !done) {
            first = HCCL_E_MEMORY;
            break;
        }
        if (done[i]) {
            continue;
        }
        uint32_t n = 0;
        for (uint32_t k = i; k < nitems; k++) {
            if (!done[k] && items[k].c == items[i].c && items[k].stream == items[i].stream) {
                its[n++] = items[k].it;
                done[k] = true;
            }
        }
        HcclResult rc = launch(call, items[i].c, items[i].stream, its, n);
        if (first == HCCL_SUCCESS) {
            first = rc;
        }
    }
    for (uint32_t i = 0; i < nitems; i++) {
        hm_comm_unref(items[i].c);
    }
    nitems = 0;
    free(its);
    free(done);
    return first;
}

HM_EXPORT HcclResult HcclGroupStart(void)
{
    HM_BEGIN(HcclGroupStart);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    depth++;
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGroupEnd(void)
{
    HM_BEGIN(HcclGroupEnd);
    aclmock_arg_u64(&call_, "kept", nitems);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (depth == 0) {
        return HM_FAIL(HCCL_E_PARA, "HcclGroupEnd without HcclGroupStart");
    }
    if (--depth > 0) {
        return HM_END(HCCL_SUCCESS);
    }
    return HM_END(hm_group_flush(&call_));
}
