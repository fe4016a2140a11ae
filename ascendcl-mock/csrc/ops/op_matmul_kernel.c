/*
 * op_matmul_kernel.c (libopapi.so): the matmul core of op_matmul_kernel.h,
 * as the sequential reference loop (mm_ref) and spread over the host's cores
 * (mm_mt), bit-identical.
 *
 * Why the results are the same bits: both compute every output element as a
 * float accumulator starting at 0.0f to which the products a[i][q]*b[q][c]
 * (each operand read with mk_ldf, the product rounded to float) are added
 * for q ascending, then apply the same alpha/beta expressions and one
 * mk_stf. mm_mt first copies a (per distinct batch: rows, q contiguous) and
 * b (per distinct batch: panels of 8 columns, [q][8]) into float arrays,
 * which changes no value (mk_ldf returns the float that the reference
 * multiplies); then each unit of work (a batch and a block of 32 rows of
 * out) computes tiles of 4 rows x 8 columns, vectorized across the tile's 32
 * independent accumulators, never within one sum. Both functions are in
 * this file, compiled with contraction off, so neither fuses a multiply into
 * an add (x86-64's baseline has no fused multiply-add anyway).
 *
 * Aliasing: an output element's self value is read just before that element
 * is stored, by the unit that stores it, as in the reference; so an
 * in-place addmm (self is out, the same view) gives the same bits. a and b
 * are read before any output is written; an out that overlaps a or b is not
 * a case any of the ops allows (PyTorch refuses it too).
 */
#include "op_matmul_kernel.h"

#include "aclnn_mock.h"
#include "op_parallel.h"

#include <stdlib.h>
#include <string.h>

/* The tile loops run over independent accumulators: vectorizing them keeps
 * every sum's order (GCC reassociates a reduction only under -ffast-math). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off")
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

enum { MR = 4, NR = 8, MB = 32, SLOT_SEARCH = 64 };

static float epilogue(const mm_args *x, float acc, int64_t i, int64_t c)
{
    float r = acc;
    if (x->has_self) {
        r = x->alpha * acc;
        /* beta == 0 ignores self (nan and inf included), as PyTorch's addmm */
        if (x->beta != 0.0f && x->offs && x->self) {
            r += x->beta * mk_ldf(x->self, x->sdt, x->offs[i * x->n + c]);
        }
    }
    return r;
}

void mm_ref(const mm_args *x)
{
    for (int64_t bi = 0; bi < x->nb; bi++) {
        for (int64_t i = 0; i < x->m; i++) {
            for (int64_t c = 0; c < x->n; c++) {
                float acc = 0.0f;
                for (int64_t q = 0; q < x->k; q++) {
                    acc += mk_ldf(x->a, x->adt, x->offa[bi] + i * x->sam + q * x->sak) *
                           mk_ldf(x->b, x->bdt, x->offb[bi] + q * x->sbk + c * x->sbn);
                }
                mk_stf(x->out, x->odt, x->offo[bi] + i * x->som + c * x->son, epilogue(x, acc, i, c));
            }
        }
    }
}

typedef struct mm_plan {
    const mm_args *x;
    float *ap, *bp;            /* packed a: [slot][mp][k]; packed b: [slot][panels][k][NR] */
    int64_t *amap, *bmap;      /* batch -> slot */
    int64_t *afirst, *bfirst;  /* slot -> its batches' offset */
    int64_t sa, sb, mp, panels, mblocks;
} mm_plan;

/* Maps each batch to a copy: batches with the same offset (a broadcast
 * batch) share one when it is among the last SLOT_SEARCH copies made. */
static int64_t slots(const int64_t *off, int64_t nb, int64_t *map, int64_t *first)
{
    int64_t count = 0;
    for (int64_t bi = 0; bi < nb; bi++) {
        int64_t s = -1;
        for (int64_t t = count - 1; t >= 0 && t >= count - SLOT_SEARCH; t--) {
            if (first[t] == off[bi]) {
                s = t;
                break;
            }
        }
        if (s < 0) {
            first[count] = off[bi];
            s = count++;
        }
        map[bi] = s;
    }
    return count;
}

/* pack unit: a row of a copy of a, or a panel of a copy of b */
static void pack_unit(const void *ctx, int64_t u)
{
    const mm_plan *p = ctx;
    const mm_args *x = p->x;
    int64_t k = x->k;
    if (u < p->sa * p->mp) {
        int64_t s = u / p->mp, i = u % p->mp;
        float *row = p->ap + u * k;
        for (int64_t q = 0; q < k; q++) {
            row[q] = i < x->m ? mk_ldf(x->a, x->adt, p->afirst[s] + i * x->sam + q * x->sak) : 0.0f;
        }
        return;
    }
    u -= p->sa * p->mp;
    int64_t s = u / p->panels, c0 = (u % p->panels) * NR;
    float *panel = p->bp + u * k * NR;
    for (int64_t q = 0; q < k; q++) {
        for (int64_t j = 0; j < NR; j++) {
            int64_t c = c0 + j;
            panel[q * NR + j] = c < x->n ? mk_ldf(x->b, x->bdt, p->bfirst[s] + q * x->sbk + c * x->sbn) : 0.0f;
        }
    }
}

/* t[r][j] = sum over q ascending of a[r*k + q] * b[q*NR + j], from 0.0f. */
HOT static void tile(const float *restrict a, int64_t k, const float *restrict b, float t[MR][NR])
{
    float acc[MR][NR];
    memset(acc, 0, sizeof acc);
    for (int64_t q = 0; q < k; q++) {
        const float *restrict bq = b + q * NR;
        for (int r = 0; r < MR; r++) {
            float av = a[r * k + q];
            for (int j = 0; j < NR; j++) {
                acc[r][j] += av * bq[j];
            }
        }
    }
    memcpy(t, acc, sizeof acc);
}

/* compute unit: rows [blk*MB, blk*MB + MB) of batch bi, every column */
static void rows_unit(const void *ctx, int64_t u)
{
    const mm_plan *p = ctx;
    const mm_args *x = p->x;
    int64_t bi = u / p->mblocks, i0 = (u % p->mblocks) * MB, k = x->k;
    int64_t i1 = i0 + MB < x->m ? i0 + MB : x->m;
    const float *a = p->ap + p->amap[bi] * p->mp * k;
    const float *b = p->bp + p->bmap[bi] * p->panels * k * NR;
    float t[MR][NR];
    for (int64_t pn = 0; pn < p->panels; pn++) {
        for (int64_t r0 = i0; r0 < i1; r0 += MR) {
            tile(a + r0 * k, k, b + pn * k * NR, t);
            for (int64_t r = 0; r < MR && r0 + r < i1; r++) {
                int64_t i = r0 + r;
                for (int64_t j = 0; j < NR && pn * NR + j < x->n; j++) {
                    int64_t c = pn * NR + j;
                    mk_stf(x->out, x->odt, x->offo[bi] + i * x->som + c * x->son, epilogue(x, t[r][j], i, c));
                }
            }
        }
    }
}

bool mm_mt(const mm_args *x, int threads)
{
    if (x->nb <= 0 || x->m <= 0 || x->n <= 0) {
        return true;
    }
    mm_plan p = {.x = x};
    p.mp = (x->m + MR - 1) / MR * MR;
    p.panels = (x->n + NR - 1) / NR;
    p.mblocks = (x->m + MB - 1) / MB;
    int64_t *maps = malloc((size_t)x->nb * 4 * sizeof(int64_t));
    if (!maps) {
        return false;
    }
    p.amap = maps;
    p.bmap = maps + x->nb;
    p.afirst = maps + 2 * x->nb;
    p.bfirst = maps + 3 * x->nb;
    p.sa = slots(x->offa, x->nb, p.amap, p.afirst);
    p.sb = slots(x->offb, x->nb, p.bmap, p.bfirst);
    size_t na = (size_t)(p.sa * p.mp * x->k), nbp = (size_t)(p.sb * p.panels * x->k * NR);
    float *packed = malloc((na + nbp + 1) * sizeof(float));
    if (!packed) {
        free(maps);
        return false;
    }
    p.ap = packed;
    p.bp = packed + na;
    if (x->k > 0) {
        mk_run_units(p.sa * p.mp + p.sb * p.panels, threads, pack_unit, &p);
    }
    mk_run_units(x->nb * p.mblocks, threads, rows_unit, &p);
    free(packed);
    free(maps);
    return true;
}

void mm_run(const mm_args *x)
{
    int threads = mk_kernel_threads();
    if (!threads || !mm_mt(x, threads)) {
        mm_ref(x);
    }
}
