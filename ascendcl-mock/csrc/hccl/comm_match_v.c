/*
 * comm_match_v.c: the hub's exchanges with per-rank counts (AllGatherV,
 * ReduceScatterV, AlltoAllV) and BatchSendRecv (comm_match.c has the rest).
 *
 * A rank sends its counts and displacements as aux words and its send data
 * packed per destination rank in rank order; the hub checks that what rank
 * i sends rank j is what rank j expects from rank i, and answers every rank
 * with its receive data packed per source rank in rank order, which the rank
 * unpacks at its own displacements (comm_exec.c).
 */
#include "hub.h"

#include <stdlib.h>
#include <string.h>

/* Offsets (bytes) of the per-destination blocks of every rank's packed data. */
static uint64_t *block_offsets(const hub *h, uint32_t counts_at, size_t es)
{
    uint32_t n = h->nranks;
    uint64_t *off = calloc((size_t)n * (n + 1), sizeof(uint64_t));
    if (!off) {
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < n; j++) {
            off[(size_t)i * (n + 1) + j + 1] = off[(size_t)i * (n + 1) + j] + h->head[i]->aux[counts_at + j] * es;
        }
    }
    return off;
}

bool hm_run_vkind(hub *h, const hm_desc *d, unsigned char **res, uint64_t *len, unsigned char **tmp)
{
    uint32_t n = h->nranks;
    size_t es = hm_dtype_size((int32_t)d->dtype);
    uint64_t *off = NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t want = d->kind == HK_ALLTOALLV ? 4 * n : 2 * n;
        if (h->head[i]->d.naux != want) {
            hub_break(h, HCCL_E_INTERNAL, "rank %u sent %u count words for %s", i, h->head[i]->d.naux,
                      hm_kind_name(d->kind));
            return false;
        }
    }
    if (d->kind == HK_ALLGATHERV || d->kind == HK_REDUCE_SCATTERV) {
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t j = 0; j < n; j++) {
                if (h->head[i]->aux[j] != h->head[0]->aux[j]) {
                    hub_break(h, HCCL_E_PARA, "%s: rank %u's count for rank %u is %llu, rank 0's is %llu",
                              hm_kind_name(d->kind), i, j, (unsigned long long)h->head[i]->aux[j],
                              (unsigned long long)h->head[0]->aux[j]);
                    return false;
                }
            }
            if (h->head[0]->aux[i] != h->head[i]->d.count) {
                hub_break(h, HCCL_E_PARA, "%s: the counts say rank %u has %llu elements, it says %llu",
                          hm_kind_name(d->kind), i, (unsigned long long)h->head[0]->aux[i],
                          (unsigned long long)h->head[i]->d.count);
                return false;
            }
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t j = 0; j < n; j++) {
                if (h->head[i]->aux[j] != h->head[j]->aux[2 * n + i]) {
                    hub_break(h, HCCL_E_PARA, "AlltoAllV: rank %u sends rank %u %llu elements, rank %u expects %llu",
                              i, j, (unsigned long long)h->head[i]->aux[j], j,
                              (unsigned long long)h->head[j]->aux[2 * n + i]);
                    return false;
                }
            }
        }
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += h->head[i]->d.data_len;
    }
    if (d->kind == HK_ALLGATHERV) {
        *tmp = malloc(total ? total : 1);
        if (!*tmp) {
            goto oom;
        }
        uint64_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            memcpy(*tmp + at, h->head[i]->data, h->head[i]->d.data_len);
            at += h->head[i]->d.data_len;
        }
        for (uint32_t j = 0; j < n; j++) {
            res[j] = *tmp;
            len[j] = total;
        }
        return true;
    }
    off = block_offsets(h, 0, es);
    for (uint32_t i = 0; off && i < n; i++) {
        if (off[(size_t)i * (n + 1) + n] != h->head[i]->d.data_len) {
            free(off);
            hub_break(h, HCCL_E_INTERNAL, "rank %u's data does not match its counts", i);
            return false;
        }
    }
    *tmp = malloc(total ? total : 1);
    if (!off || !*tmp) {
        goto oom;
    }
    uint64_t at = 0;
    for (uint32_t j = 0; j < n; j++) {
        res[j] = *tmp + at;
        if (d->kind == HK_ALLTOALLV) {
            for (uint32_t i = 0; i < n; i++) {
                uint64_t b = h->head[i]->aux[j] * es;
                memcpy(*tmp + at, h->head[i]->data + off[(size_t)i * (n + 1) + j], b);
                at += b;
                len[j] += b;
            }
        } else {
            const void **in = calloc(n, sizeof(*in));
            if (!in) {
                goto oom;
            }
            for (uint32_t i = 0; i < n; i++) {
                in[i] = h->head[i]->data + off[(size_t)i * (n + 1) + j];
            }
            hm_reduce_n((int32_t)d->dtype, (int32_t)d->op, *tmp + at, in, n, h->head[0]->aux[j]);
            free(in);
            len[j] = h->head[0]->aux[j] * es;
            at += len[j];
        }
    }
    free(off);
    return true;
oom:
    free(off);
    hub_break(h, HCCL_E_MEMORY, "the hub ran out of host memory in %s", hm_kind_name(d->kind));
    return false;
}

/* Batch items are aux words {type, dtype, peer, count}. */
#define IT(op, k, f) ((op)->aux[(size_t)(k) * 4 + (f)])

bool hm_try_batch(hub *h, uint32_t r)
{
    uint32_t n = h->nranks;
    bool *in = calloc(n, sizeof(bool));
    uint32_t *queue = calloc(n, sizeof(uint32_t));
    uint32_t qn = 0;
    bool ran = false;
    if (!in || !queue) {
        free(in);
        free(queue);
        return false;
    }
    in[r] = true;
    queue[qn++] = r;
    for (uint32_t qi = 0; qi < qn; qi++) {
        hub_op *op = h->head[queue[qi]];
        if (!op) {
            goto out; /* a member has not arrived */
        }
        if (op->d.kind != HK_BATCH) {
            hub_break(h, HCCL_E_PARA, "a BatchSendRecv of rank %u meets rank %u's %s", r, queue[qi],
                      hm_kind_name(op->d.kind));
            ran = true;
            goto out;
        }
        for (uint32_t k = 0; k < op->d.naux / 4; k++) {
            uint32_t p = (uint32_t)IT(op, k, 2);
            if (p < n && !in[p]) {
                in[p] = true;
                queue[qn++] = p;
            }
        }
    }
    /* every member waits with a batch: pair the items, in order per pair */
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t j = queue[qi];
        hub_op *rx = h->head[j];
        for (uint32_t qk = 0; qk < qn; qk++) {
            uint32_t i = queue[qk];
            hub_op *tx = h->head[i];
            uint32_t ks = 0, kr = 0;
            for (;;) {
                while (ks < tx->d.naux / 4 && !(IT(tx, ks, 0) == HCCL_SEND && IT(tx, ks, 2) == j)) {
                    ks++;
                }
                while (kr < rx->d.naux / 4 && !(IT(rx, kr, 0) == HCCL_RECV && IT(rx, kr, 2) == i)) {
                    kr++;
                }
                bool hs = ks < tx->d.naux / 4, hr = kr < rx->d.naux / 4;
                if (!hs && !hr) {
                    break;
                }
                if (hs != hr || IT(tx, ks, 1) != IT(rx, kr, 1) || IT(tx, ks, 3) != IT(rx, kr, 3)) {
                    hub_break(h, HCCL_E_PARA, "BatchSendRecv: the sends of rank %u to rank %u do not match the "
                              "receives of rank %u from rank %u (number, count or dtype)", i, j, j, i);
                    ran = true;
                    goto out;
                }
                ks++;
                kr++;
            }
        }
    }
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t j = queue[qi];
        hub_op *rx = h->head[j];
        uint64_t total = 0;
        for (uint32_t k = 0; k < rx->d.naux / 4; k++) {
            if (IT(rx, k, 0) == HCCL_RECV) {
                total += IT(rx, k, 3) * hm_dtype_size((int32_t)IT(rx, k, 1));
            }
        }
        unsigned char *out = malloc(total ? total : 1);
        if (!out) {
            hub_break(h, HCCL_E_MEMORY, "the hub ran out of host memory in BatchSendRecv");
            ran = true;
            goto out;
        }
        uint64_t at = 0;
        for (uint32_t k = 0; k < rx->d.naux / 4; k++) {
            if (IT(rx, k, 0) != HCCL_RECV) {
                continue;
            }
            uint32_t i = (uint32_t)IT(rx, k, 2);
            hub_op *tx = h->head[i];
            /* the m-th receive from i takes the m-th send of i to j */
            uint32_t m = 0;
            for (uint32_t q = 0; q < k; q++) {
                m += IT(rx, q, 0) == HCCL_RECV && IT(rx, q, 2) == i;
            }
            uint64_t src = 0;
            for (uint32_t q = 0; q < tx->d.naux / 4; q++) {
                if (IT(tx, q, 0) != HCCL_SEND) {
                    continue;
                }
                uint64_t b = IT(tx, q, 3) * hm_dtype_size((int32_t)IT(tx, q, 1));
                if (IT(tx, q, 2) == j && m-- == 0) {
                    memcpy(out + at, tx->data + src, b);
                    at += b;
                    break;
                }
                src += b;
            }
        }
        hub_reply(h, j, HCCL_SUCCESS, "", out, total);
        free(out);
    }
    for (uint32_t qi = 0; qi < qn; qi++) {
        hub_op_free(h->head[queue[qi]]);
        h->head[queue[qi]] = NULL;
    }
    ran = true;
out:
    free(in);
    free(queue);
    return ran;
}
