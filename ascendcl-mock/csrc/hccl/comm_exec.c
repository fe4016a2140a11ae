/*
 * comm_exec.c: the rank side of an exchange. A collective call checks its
 * arguments and queues a task on the caller's stream (the mock's compute
 * task: its device buffers enter the happens-before model as reads of the
 * send buffers and writes of the receive buffers, like an operator's); the
 * stream worker, when it reaches the task, packs the send data, sends it to
 * the hub, waits for the result and unpacks it into the receive buffers.
 * A failed exchange writes nothing, records the communicator's async error
 * (HcclGetCommAsyncError) and fails the stream: its next synchronize
 * returns ACL_ERROR_RT_AICPU_EXCEPTION, or ACL_ERROR_RT_AICPU_TIMEOUT when
 * a peer never came (hccl_mock.h).
 */
#include "hccl_mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hm_job {
    hm_comm *c;
    hm_xfer *x;
} hm_job;

hm_xfer *hm_xfer_new(uint32_t kind, int32_t dtype, int32_t op, uint32_t root, uint64_t count, uint32_t naux,
                     uint32_t nsend, uint32_t nrecv)
{
    hm_xfer *x = calloc(1, sizeof(*x));
    if (!x) {
        return NULL;
    }
    x->aux = calloc(naux ? naux : 1, sizeof(uint64_t));
    x->send = calloc(nsend ? nsend : 1, sizeof(*x->send));
    x->recv = calloc(nrecv ? nrecv : 1, sizeof(*x->recv));
    if (!x->aux || !x->send || !x->recv) {
        hm_xfer_free(x);
        return NULL;
    }
    x->d.kind = kind;
    x->d.dtype = (uint32_t)dtype;
    x->d.op = (uint32_t)op;
    x->d.root = root;
    x->d.count = count;
    x->d.naux = naux;
    x->nsend = nsend;
    x->nrecv = nrecv;
    return x;
}

void hm_xfer_free(hm_xfer *x)
{
    if (x) {
        free(x->aux);
        free(x->send);
        free(x->recv);
        free(x);
    }
}

void hm_journal_comm(aclmock_call *call, HcclComm comm)
{
    char buf[40];
    uint64_t id = hm_comm_id_of(comm);
    if (id) {
        snprintf(buf, sizeof(buf), "comm%llu", (unsigned long long)id);
    } else {
        snprintf(buf, sizeof(buf), comm ? "unknown" : "null");
    }
    aclmock_arg_str(call, "comm", buf);
}

void hm_journal_counts(aclmock_call *call, const char *key, const void *arr, HcclComm comm, uint32_t per_rank)
{
    if (!arr) {
        aclmock_arg_str(call, key, NULL);
        return;
    }
    uint64_t n = (uint64_t)hm_comm_nranks_of(comm) * per_rank;
    char *text = n ? malloc(3 + (size_t)n * 21) : NULL;
    if (!text) {
        aclmock_arg_str(call, key, "?");
        return;
    }
    const uint64_t *v = arr;
    size_t k = (size_t)sprintf(text, "[");
    for (uint64_t i = 0; i < n; i++) {
        k += (size_t)sprintf(text + k, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
    }
    sprintf(text + k, "]");
    aclmock_arg_str(call, key, text);
    free(text);
}

static void job_release(void *p)
{
    hm_job *j = p;
    hm_comm_unref(j->c);
    hm_xfer_free(j->x);
    free(j);
}

static int32_t fail_job(hm_comm *c, int32_t hccl, int32_t acl, char *msg, size_t cap, const char *what)
{
    hm_comm_set_async(c, hccl);
    snprintf(msg, cap, "%s", what);
    return acl;
}

/* Sends the rank's part: the descriptor, the aux words, then every send
 * piece straight from the host copies of the buffers (no packing copy). */
static int send_part(hm_comm *c, hm_xfer *x, void *const *bufs)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < x->nsend; i++) {
        total += x->send[i][2];
    }
    x->d.data_len = total;
    if (hm_send_header(c->fd, HM_OP, sizeof(x->d) + (uint64_t)x->d.naux * 8 + total) ||
        hm_write_all(c->fd, &x->d, sizeof(x->d)) || hm_write_all(c->fd, x->aux, (size_t)x->d.naux * 8)) {
        return -1;
    }
    for (uint32_t i = 0; i < x->nsend; i++) {
        if (x->send[i][2] &&
            hm_write_all(c->fd, (const unsigned char *)bufs[x->send[i][0]] + x->send[i][1], x->send[i][2])) {
            return -1;
        }
    }
    return 0;
}

/* Receives the hub's answer, the data straight into the receive pieces:
 * 0 (res filled), -1 broken connection, -2 timeout, -3 unexpected size. */
static int recv_result(hm_comm *c, hm_xfer *x, void *const *bufs, hm_result *res)
{
    hm_hdr h;
    /* the hub enforces HCCL_EXEC_TIMEOUT; this bound only guards a hub that is gone */
    int r = hm_recv_header(c->fd, &h, hm_now_ns() + (c->exec_ms + 5000ULL) * 1000000ULL);
    if (r) {
        return r;
    }
    if (h.type != HM_RESULT || h.len < sizeof(*res) || hm_read_all(c->fd, res, sizeof(*res), 0)) {
        return -1;
    }
    res->msg[sizeof(res->msg) - 1] = '\0';
    uint64_t want = 0;
    for (uint32_t i = 0; i < x->nrecv; i++) {
        want += x->recv[i][2];
    }
    if (res->status != HCCL_SUCCESS) {
        return h.len == sizeof(*res) ? 0 : -1;
    }
    if (res->data_len != want || h.len != sizeof(*res) + want) {
        return -3; /* the connection is out of step now; the comm fails from here on */
    }
    for (uint32_t i = 0; i < x->nrecv; i++) {
        if (x->recv[i][2] &&
            hm_read_all(c->fd, (unsigned char *)bufs[x->recv[i][0]] + x->recv[i][1], x->recv[i][2], 0)) {
            return -1;
        }
    }
    return 0;
}

/* Stream worker, without the mock's lock. */
static int32_t job_run(void *p, void *const *bufs, char *msg, size_t cap)
{
    hm_job *j = p;
    hm_comm *c = j->c;
    hm_xfer *x = j->x;
    pthread_mutex_lock(&c->io);
    if (hm_comm_destroyed(c)) {
        pthread_mutex_unlock(&c->io);
        snprintf(msg, cap, "the communicator was destroyed before the %s ran", hm_kind_name(x->d.kind));
        return HM_STREAM_FAILED;
    }
    x->d.seq = ++c->seq;
    hm_result res;
    int rr = send_part(c, x, bufs) ? -1 : recv_result(c, x, bufs, &res);
    bool destroyed = hm_comm_destroyed(c);
    pthread_mutex_unlock(&c->io);
    if (destroyed) {
        snprintf(msg, cap, "the communicator was destroyed while the %s waited for its peers",
                 hm_kind_name(x->d.kind));
        return HM_STREAM_FAILED;
    }
    if (rr == -3) {
        return fail_job(c, HCCL_E_INTERNAL, HM_STREAM_FAILED, msg, cap, "the result has an unexpected size");
    }
    if (rr != 0) {
        return fail_job(c, rr == -2 ? HCCL_E_TIMEOUT : HCCL_E_TCP_TRANSFER,
                        rr == -2 ? HM_STREAM_TIMEOUT : HM_STREAM_FAILED, msg, cap,
                        rr == -2 ? "no answer from the rendezvous hub in time"
                                 : "lost the connection to the rendezvous hub (did the root rank's process end?)");
    }
    if (res.status != HCCL_SUCCESS) {
        hm_comm_set_async(c, res.status);
        snprintf(msg, cap, "HCCL error %d: %s", res.status, res.msg);
        return res.status == HCCL_E_TIMEOUT ? HM_STREAM_TIMEOUT : HM_STREAM_FAILED;
    }
    return 0;
}

HcclResult hm_enqueue(aclmock_call *call, hm_comm *c, aclrtStream stream, const aclmock_span *spans,
                      uint32_t nspans, hm_xfer *x)
{
    /* a collective inside a group: the kept Send/Recv go first (comm_group.c) */
    HcclResult rc = hm_group_flush(call);
    if (rc != HCCL_SUCCESS) {
        hm_xfer_free(x);
        return rc;
    }
    return hm_enqueue_now(call, c, stream, spans, nspans, x);
}

HcclResult hm_enqueue_now(aclmock_call *call, hm_comm *c, aclrtStream stream, const aclmock_span *spans,
                          uint32_t nspans, hm_xfer *x)
{
    hm_job *j = calloc(1, sizeof(*j));
    if (!j) {
        hm_xfer_free(x);
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
    }
    hm_comm_ref(c);
    j->c = c;
    j->x = x;
    /* releases the job in every case */
    int32_t rc = aclmock_compute_enqueue_status(call, stream, spans, nspans, job_run, job_release, j);
    if (rc != 0) {
        /* a buffer that is not device memory of the stream's device (the
         * mock's check; a card fails later, in the runtime) */
        return HCCL_E_PARA;
    }
    return HCCL_SUCCESS;
}
