/*
 * comm_match.c: how the hub pairs the ranks' exchanges and computes their
 * results.
 *
 * Each rank has at most one exchange waiting (its stream runs them one at a
 * time). A collective runs when every rank's waiting exchange is a
 * collective and they agree: same kind, count, dtype, reduction op and root
 * (CANN requires it of every rank, hccl-facts.md §1.4); the first
 * disagreement fails the exchange on every rank and breaks the
 * communicator: every later exchange fails too (the ranks are out of step;
 * a card would hang or corrupt, the mock reports). A Send runs with its
 * peer's Recv (same count and dtype); a BatchSendRecv with the batches of
 * every rank it names, whose sends and receives must pair up in order. A
 * point-to-point exchange that meets a collective on its peer is a
 * disagreement too. What cannot run yet waits, at most HCCL_EXEC_TIMEOUT
 * (comm_hub.c).
 */
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_p2p(uint32_t k) { return k == HK_SEND || k == HK_RECV; }
static bool is_coll(uint32_t k) { return !is_p2p(k) && k != HK_BATCH; }
static bool reduces(uint32_t k)
{
    return k == HK_ALLREDUCE || k == HK_REDUCE || k == HK_REDUCE_SCATTER || k == HK_REDUCE_SCATTERV;
}
static bool rooted(uint32_t k) { return k == HK_BROADCAST || k == HK_REDUCE || k == HK_SCATTER; }
/* V kinds: the count is per rank, the first nranks aux words must agree */
static bool vkind(uint32_t k) { return k == HK_ALLGATHERV || k == HK_REDUCE_SCATTERV || k == HK_ALLTOALLV; }

/* Why two collectives disagree, or NULL. */
static const char *disagree(const hub *h, const hm_desc *a, const hub_op *ob)
{
    const hm_desc *b = &ob->d;
    if (a->kind != b->kind) {
        return "kind";
    }
    if (a->dtype != b->dtype) {
        return "dtype";
    }
    if (!vkind(a->kind) && a->count != b->count) {
        return "count";
    }
    if (reduces(a->kind) && a->op != b->op) {
        return "reduction op";
    }
    if (rooted(a->kind) && a->root != b->root) {
        return "root";
    }
    (void)h;
    return NULL;
}

static void finish_all(hub *h, unsigned char **res, const uint64_t *len)
{
    /* results may point into any rank's message: reply to all, then free */
    for (uint32_t r = 0; r < h->nranks; r++) {
        hub_reply(h, r, HCCL_SUCCESS, "", res ? res[r] : NULL, res ? len[r] : 0);
    }
    for (uint32_t r = 0; r < h->nranks; r++) {
        hub_op_free(h->head[r]);
        h->head[r] = NULL;
    }
}

/* Runs the agreed collective of every rank. */
static void run_collective(hub *h)
{
    uint32_t n = h->nranks;
    const hm_desc *d = &h->head[0]->d;
    size_t es = hm_dtype_size((int32_t)d->dtype);
    uint64_t c = d->count;
    unsigned char **res = calloc(n, sizeof(*res));
    uint64_t *len = calloc(n, sizeof(*len));
    const void **in = calloc(n, sizeof(*in));
    unsigned char *tmp = NULL;
    if (!res || !len || !in) {
        goto oom;
    }
    for (uint32_t r = 0; r < n; r++) {
        in[r] = h->head[r]->data;
    }
    /* every rank's data length is what its own arguments said; check the
     * lengths the computation below relies on */
    uint64_t need = d->kind == HK_ALLREDUCE || d->kind == HK_REDUCE || d->kind == HK_ALLGATHER ? c * es
                    : d->kind == HK_REDUCE_SCATTER || d->kind == HK_ALLTOALL                    ? c * es * n
                                                                                                : 0;
    for (uint32_t r = 0; need && r < n; r++) {
        if (h->head[r]->d.data_len != need) {
            hub_break(h, HCCL_E_INTERNAL, "rank %u sent %llu bytes for %s, %llu expected", r,
                      (unsigned long long)h->head[r]->d.data_len, hm_kind_name(d->kind), (unsigned long long)need);
            goto done;
        }
    }
    switch (d->kind) {
    case HK_BARRIER:
        break;
    case HK_ALLREDUCE:
    case HK_REDUCE: {
        /* in place, into rank 0's message (the hub owns it) */
        unsigned char *acc = (unsigned char *)h->head[0]->data;
        hm_reduce_n((int32_t)d->dtype, (int32_t)d->op, acc, in, n, c);
        for (uint32_t r = 0; r < n; r++) {
            if (d->kind == HK_ALLREDUCE || r == d->root) {
                res[r] = acc;
                len[r] = c * es;
            }
        }
        break;
    }
    case HK_BROADCAST:
        for (uint32_t r = 0; r < n; r++) {
            if (r != d->root) {
                res[r] = (unsigned char *)h->head[d->root]->data;
                len[r] = h->head[d->root]->d.data_len;
            }
        }
        break;
    case HK_SCATTER:
        for (uint32_t r = 0; r < n; r++) {
            res[r] = (unsigned char *)h->head[d->root]->data + (size_t)r * c * es;
            len[r] = h->head[d->root]->d.data_len >= (r + 1) * c * es ? c * es : 0;
        }
        break;
    case HK_ALLGATHER:
        tmp = malloc(n * c * es + 1);
        if (!tmp) {
            goto oom;
        }
        for (uint32_t r = 0; r < n; r++) {
            memcpy(tmp + (size_t)r * c * es, in[r], c * es);
        }
        for (uint32_t r = 0; r < n; r++) {
            res[r] = tmp;
            len[r] = n * c * es;
        }
        break;
    case HK_REDUCE_SCATTER: {
        unsigned char *acc = (unsigned char *)h->head[0]->data;
        hm_reduce_n((int32_t)d->dtype, (int32_t)d->op, acc, in, n, n * c);
        for (uint32_t r = 0; r < n; r++) {
            res[r] = acc + (size_t)r * c * es;
            len[r] = c * es;
        }
        break;
    }
    case HK_ALLTOALL:
        tmp = malloc(n * n * c * es + 1);
        if (!tmp) {
            goto oom;
        }
        for (uint32_t j = 0; j < n; j++) {
            for (uint32_t i = 0; i < n; i++) {
                memcpy(tmp + ((size_t)j * n + i) * c * es, (const unsigned char *)in[i] + (size_t)j * c * es, c * es);
            }
            res[j] = tmp + (size_t)j * n * c * es;
            len[j] = n * c * es;
        }
        break;
    default:
        if (!hm_run_vkind(h, d, res, len, &tmp)) {
            goto done; /* it broke the communicator with the reason */
        }
        break;
    }
    finish_all(h, res, len);
    goto done;
oom:
    hub_break(h, HCCL_E_MEMORY, "the hub ran out of host memory in %s", hm_kind_name(d->kind));
done:
    free(tmp);
    free(res);
    free(len);
    free(in);
}

/* A Send/Recv whose peer waits with the matching Recv/Send. */
static bool try_p2p(hub *h, uint32_t r)
{
    hub_op *a = h->head[r];
    uint32_t p = a->d.root;
    hub_op *b = p < h->nranks ? h->head[p] : NULL;
    if (!b) {
        return false;
    }
    if (!is_p2p(b->d.kind)) {
        hub_break(h, HCCL_E_PARA, "rank %u's %s with rank %u meets rank %u's %s", r, hm_kind_name(a->d.kind), p, p,
                  hm_kind_name(b->d.kind));
        return true;
    }
    if (b->d.root != r) {
        return false; /* the peer talks to another rank first */
    }
    if (a->d.kind == b->d.kind || a->d.count != b->d.count || a->d.dtype != b->d.dtype) {
        hub_break(h, HCCL_E_PARA, "rank %u's %s(count %llu, %s) does not match rank %u's %s(count %llu, %s)", r,
                  hm_kind_name(a->d.kind), (unsigned long long)a->d.count, hm_dtype_name((int32_t)a->d.dtype), p,
                  hm_kind_name(b->d.kind), (unsigned long long)b->d.count, hm_dtype_name((int32_t)b->d.dtype));
        return true;
    }
    hub_op *snd = a->d.kind == HK_SEND ? a : b;
    uint32_t to = a->d.kind == HK_SEND ? p : r;
    uint32_t from = a->d.kind == HK_SEND ? r : p;
    hub_reply(h, to, HCCL_SUCCESS, "", snd->data, snd->d.data_len);
    hub_reply(h, from, HCCL_SUCCESS, "", NULL, 0);
    hub_op_free(h->head[r]);
    hub_op_free(h->head[p]);
    h->head[r] = h->head[p] = NULL;
    return true;
}

void hub_progress(hub *h)
{
    for (bool changed = true; changed && !h->broken;) {
        changed = false;
        const hm_desc *first = NULL;
        uint32_t first_rank = 0;
        bool all = true;
        for (uint32_t r = 0; r < h->nranks; r++) {
            hub_op *op = h->head[r];
            if (!op) {
                all = false;
                continue;
            }
            if (!is_coll(op->d.kind)) {
                all = false;
                continue;
            }
            if (!first) {
                first = &op->d;
                first_rank = r;
                continue;
            }
            const char *why = disagree(h, first, op);
            if (why) {
                hub_break(h, HCCL_E_PARA,
                          "ranks disagree on the %s: rank %u issued %s(count %llu, %s, op %u, root %u), rank %u "
                          "issued %s(count %llu, %s, op %u, root %u)",
                          why, first_rank, hm_kind_name(first->kind), (unsigned long long)first->count,
                          hm_dtype_name((int32_t)first->dtype), first->op, first->root, r, hm_kind_name(op->d.kind),
                          (unsigned long long)op->d.count, hm_dtype_name((int32_t)op->d.dtype), op->d.op,
                          op->d.root);
                return;
            }
        }
        if (all && h->nranks) {
            run_collective(h);
            changed = true;
            continue;
        }
        for (uint32_t r = 0; r < h->nranks && !changed && !h->broken; r++) {
            hub_op *op = h->head[r];
            if (op && is_p2p(op->d.kind)) {
                changed = try_p2p(h, r);
            } else if (op && op->d.kind == HK_BATCH) {
                changed = hm_try_batch(h, r);
            }
        }
    }
}
