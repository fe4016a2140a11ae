/*
 * op_flash_attention.c (libopapi.so; on a card libopapi_transformer.so):
 * aclnnFlashAttentionScore (operators III, batch `attention`). Parameter
 * list: hicann/ops-transformer (commit c29bc106)
 * attention/flash_attention_score/op_host/op_api/aclnn_flash_attention_score.h:24-30.
 * File names in the citations: see op_flash_attention.h.
 *
 * What the kernel computes, per batch b, query head n (key/value head
 * n / (N1/N2): GQA) and query row i (doc:22, kernel
 * op_kernel/flash_attention_score_s1s2_bn2gs1.h:1299-1310, :1359-1365):
 *   s_ij = scale * (q_i . k_j)        scale as a float (op_api/flash_attention_score.cpp:131)
 *   s_ij = -FLT_MAX where masked      (SelectWithBytesMask with negativeFloatScalar, s1s2_bn2gs1.h:1830)
 *   max_i = max_j s_ij, sum_i = sum_j exp(s_ij - max_i)
 *   out_i = sum_j exp(s_ij - max_i) / sum_i * v_j
 * softmaxMax / softmaxSum hold max_i and sum_i (f32), each repeated over the
 * last axis of 8: [B, N1, S1, 8] (infershape.cpp:87-107). softmaxOut is "not
 * used now" (aclnn.cpp:822, :832): never written, may be null. A row whose
 * every score is masked has max -FLT_MAX, so every exp is 1 and its output
 * is the mean of v; in the invalid-line mode (innerPrecise 2, or a band that
 * leaves rows empty: tiling.cpp:624-635) its output is 0 and its sum
 * +FLT_MAX (AdjustSoftMaxRes in s1s2_bn2gs1.h:1879-1908).
 *
 * Computed in double per row; every result rounded once to its dtype.
 * keepProb < 1 (dropout with dropMaskOptional), realShiftOptional (pse),
 * paddingMaskOptional, prefixOptional, sparseMode 4-6 and the TND layout are
 * not emulated: refused with 161002 saying so.
 */
#include "op_flash_attention.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* query/key/value: FLOAT16, BFLOAT16, FLOAT32 (doc:95-117; op_host/flash_attention_score_def.cpp:26;
 * the tiling's dtype switch tiling.cpp:982-1004) */
static const int32_t DT_FA[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, -1};
/* attenMask: BOOL or UINT8 (tiling.cpp:1501-1504) */
static const int32_t DT_FA_MASK[] = {ACL_BOOL, ACL_UINT8, -1};

/* sparseMode values (docs/context/sparse_mode参数说明.md) */
enum { SM_DEFAULT = 0, SM_ALL = 1, SM_LEFT_UP = 2, SM_RIGHT_DOWN = 3, SM_BAND = 4, SM_PREFIX_COMPRESS = 6 };
#define COMPRESS_LIMIT 2048 /* tiling.cpp:62 */
#define HEAD_DIM_MAX 768    /* aclnn.cpp:38 */

double fa_masked_score(void) { return -(double)FLT_MAX; }

static bool layout_of(const char *s, int64_t *layout, uint32_t *nd)
{
    static const struct {
        const char *name;
        int64_t layout;
        uint32_t nd;
    } known[] = {{"BSH", FA_BSH, 3}, {"SBH", FA_SBH, 3}, {"BSND", FA_BSND, 4}, {"BNSD", FA_BNSD, 4}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(s, known[i].name) == 0) {
            *layout = known[i].layout;
            *nd = known[i].nd;
            return true;
        }
    }
    return false;
}

/* b, s, n-or-h dims of a q/k/v tensor in layout. */
static void axes_of(const aclTensor *t, int64_t layout, int64_t *b, int64_t *s, int64_t *nh, int64_t *d)
{
    const int64_t *x = t->v.dims;
    switch (layout) {
    case FA_BSH: *b = x[0], *s = x[1], *nh = x[2], *d = 0; break;
    case FA_SBH: *b = x[1], *s = x[0], *nh = x[2], *d = 0; break;
    case FA_BSND: *b = x[0], *s = x[1], *nh = x[2], *d = x[3]; break;
    default: *b = x[0], *nh = x[1], *s = x[2], *d = x[3]; break;
    }
}

/* pre/next band check of SparseBandModeCheck (tiling.cpp:700-764) for
 * sparseMode 0; sets the invalid-line rule (:624-635). */
static bool band_check(ph1 *p, fa_geom *g)
{
    int64_t pre = g->pre, next = g->next;
    /* every accepted band: rows may be empty when preTokens < S1 - S2 or nextTokens < 0 (:630) */
    g->invalid_line |= pre < g->s1 - g->s2 || next < 0;
    if (pre >= 0 && next >= 0) {
        return true;
    }
    if (pre < 0 && next < 0) {
        return invalid(p, "preTokens %lld and nextTokens %lld leave no score to compute", (long long)pre,
                       (long long)next);
    }
    if (pre < 0 && !(next >= -pre && -pre < g->s2)) {
        return invalid(p, "preTokens %lld and nextTokens %lld leave no score to compute with S2 %lld",
                       (long long)pre, (long long)next, (long long)g->s2);
    }
    if (next < 0 && !(-next <= pre && -next < g->s1)) {
        return invalid(p, "preTokens %lld and nextTokens %lld leave no score to compute with S1 %lld",
                       (long long)pre, (long long)next, (long long)g->s1);
    }
    return true;
}

/* attenMask's shape (tiling.cpp:1508-1570) and the sparse mode it is read with. */
static bool mask_setup(ph1 *p, const aclTensor *m, int64_t sparseMode, fa_geom *g)
{
    g->mask_kind = FA_MASK_NONE;
    g->mask_b = g->mask_n = 1;
    /* no mask (or a 0-d one): sparseMode, preTokens, nextTokens ignored, every score computed (doc:400,
     * tiling.cpp:1498, :799-801) */
    if (!m || m->v.ndim == 0) {
        return true;
    }
    if (!check_dtype(p, m, "attenMaskOptional", DT_FA_MASK)) {
        return false;
    }
    bool compress = sparseMode == SM_LEFT_UP || sparseMode == SM_RIGHT_DOWN || sparseMode == SM_BAND ||
                    sparseMode == 7 || sparseMode == 8; /* attenMaskCompressMode, tiling.cpp:1045-1057 */
    const int64_t *x = m->v.dims;
    if (m->v.ndim == 4) {
        if (x[0] == 1 && x[1] == 1 && x[2] == g->s1 && x[3] == g->s2) {
        } else if (x[0] == g->b && x[1] == 1 && x[2] == g->s1 && x[3] == g->s2) {
            g->mask_b = g->b;
        } else if (x[0] == g->b && x[1] == g->n1 && x[2] == g->s1 && x[3] == g->s2) {
            g->mask_b = g->b;
            g->mask_n = g->n1;
        } else {
            return invalid(p, "attenMaskOptional has the shape [%lld, %lld, %lld, %lld]; it can be [B, N, Sq, Skv], "
                           "[B, 1, Sq, Skv], [1, 1, Sq, Skv] or [Sq, Skv] = [%lld, %lld, %lld, %lld]",
                           (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3], (long long)g->b,
                           (long long)g->n1, (long long)g->s1, (long long)g->s2);
        }
    } else if (m->v.ndim == 2) {
        if (!(x[0] == g->s1 && x[1] == g->s2) && !compress) {
            return invalid(p, "attenMaskOptional has the shape [%lld, %lld]; it can be [Sq, Skv] = [%lld, %lld] "
                           "(or B/N-leading 4-d forms)",
                           (long long)x[0], (long long)x[1], (long long)g->s1, (long long)g->s2);
        }
    } else {
        return invalid(p, "attenMaskOptional has %u dims, it should have 2 or 4", m->v.ndim);
    }
    uint32_t nd = m->v.ndim;
    if (compress && (x[nd - 2] != COMPRESS_LIMIT || x[nd - 1] != COMPRESS_LIMIT)) {
        return invalid(p, "sparseMode %lld reads a compressed attenMaskOptional: set its shape to [2048, 2048]",
                       (long long)sparseMode);
    }
    if (sparseMode > SM_PREFIX_COMPRESS) {
        return invalid(p, "sparseMode %lld is not supported with this API (0 to 6)", (long long)sparseMode); /* :768-770 */
    }
    switch (sparseMode) {
    case SM_DEFAULT:
        g->mask_kind = FA_MASK_DENSE;
        /* causal (pre >= S1, next 0) or full (pre >= S1, next >= S2) need no check; else a band (:807-818) */
        if (g->pre >= g->s1 && (g->next == 0 || g->next >= g->s2)) {
            return true;
        }
        return band_check(p, g);
    case SM_ALL:
        g->mask_kind = FA_MASK_DENSE; /* preTokens/nextTokens reset to max int (:639-648) */
        g->pre = g->next = INT64_MAX;
        return true;
    case SM_LEFT_UP:
        g->mask_kind = FA_MASK_COMPRESS;
        g->diag = 0;
        return true;
    case SM_RIGHT_DOWN:
        g->mask_kind = FA_MASK_COMPRESS;
        g->diag = g->s2 - g->s1;
        /* unequal S: a band with nextTokens S2 - S1, rows empty when S1 > S2 (:661-686) */
        g->invalid_line |= g->s1 > g->s2;
        return true;
    default:
        return invalid(p, "sparseMode %lld (band, prefix) is not emulated by the mock: use 0 to 3",
                       (long long)sparseMode);
    }
}

bool fa_analyze(ph1 *p, const aclTensor *query, const aclTensor *key, const aclTensor *value,
                const aclTensor *attenMask, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
                int64_t headNum, const char *inputLayout, int64_t innerPrecise, int64_t sparseMode, fa_geom *g)
{
    memset(g, 0, sizeof(*g));
    uint32_t nd = 0;
    /* one dtype for query, key, value (aclnn.cpp:396-401), from the list */
    if (!check_dtype(p, query, "query", DT_FA) || !check_same_dtype(p, key, "key", query, "query") ||
        !check_same_dtype(p, value, "value", query, "query")) {
        return false;
    }
    if (headNum <= 0) {
        return invalid(p, "headNum must be > 0, got %lld", (long long)headNum); /* aclnn.cpp:434-437 */
    }
    /* inputLayout with as many dims (aclnn.cpp:184-207: compared as written, upper case) */
    if (!layout_of(inputLayout, &g->layout, &nd)) {
        return invalid(p, "inputLayout \"%s\" is not BSH, SBH, BSND or BNSD (TND is not emulated by the mock)",
                       inputLayout);
    }
    if (query->v.ndim != nd || key->v.ndim != nd || value->v.ndim != nd) {
        return invalid(p, "inputLayout %s needs %u-d query, key and value, got %u, %u, %u", inputLayout, nd,
                       query->v.ndim, key->v.ndim, value->v.ndim);
    }
    int64_t qb, qs, qnh, qd, kb, ks, knh, kd, vb, vs, vnh, vd;
    axes_of(query, g->layout, &qb, &qs, &qnh, &qd);
    axes_of(key, g->layout, &kb, &ks, &knh, &kd);
    axes_of(value, g->layout, &vb, &vs, &vnh, &vd);
    g->b = qb, g->s1 = qs, g->s2 = ks, g->n1 = headNum;
    if (nd == 3) {
        /* H = N * D: D = H1 / N1, N2 = H2 / D (aclnn.cpp:101-116); H1 a multiple of N1 (tiling.cpp:1253-1255) */
        if (qnh % headNum != 0 || qnh == 0) {
            return invalid(p, "query's H %lld is not a non-zero multiple of headNum %lld", (long long)qnh,
                           (long long)headNum);
        }
        g->d = qnh / headNum;
        g->n2 = knh / g->d;
        if (g->n2 == 0 || knh % g->d != 0) {
            return invalid(p, "key's H %lld is not a non-zero multiple of the head dim %lld", (long long)knh,
                           (long long)g->d);
        }
        kd = knh / g->n2;
        if (vnh % g->n2 != 0) {
            return invalid(p, "value's H %lld is not a multiple of N2 %lld", (long long)vnh, (long long)g->n2);
        }
        g->dv = vnh / g->n2;
    } else {
        /* headNum is query's N (tiling.cpp:1276-1279, :1294-1297) */
        if (qnh != headNum) {
            return invalid(p, "headNum is %lld but query's N is %lld", (long long)headNum, (long long)qnh);
        }
        g->d = qd, g->n2 = knh, g->dv = vd;
        if (vnh != knh) {
            return invalid(p, "key has N %lld but value %lld (doc:385)", (long long)knh, (long long)vnh);
        }
    }
    if (g->n2 == 0) {
        return invalid(p, "key's N is 0"); /* tiling.cpp:1275, :1293 */
    }
    /* qD == kD (aclnn.cpp:208-212), kD >= vD (:213-217), D <= 768 (:441-444) */
    if (g->d != kd) {
        return invalid(p, "qD and kD should be the same, got qD=%lld kD=%lld", (long long)g->d, (long long)kd);
    }
    if (g->d < g->dv) {
        return invalid(p, "only kD >= vD is supported, got kD=%lld vD=%lld", (long long)g->d, (long long)g->dv);
    }
    if (g->d > HEAD_DIM_MAX) {
        return invalid(p, "the head dim must be <= 768, got %lld", (long long)g->d);
    }
    /* N1 a multiple of N2: GQA/MQA (tiling.cpp:1098-1100; doc:386) */
    if (g->n1 % g->n2 != 0) {
        return invalid(p, "N1 %lld should be a multiple of N2 %lld", (long long)g->n1, (long long)g->n2);
    }
    /* one B for all; key and value share S (doc:381, :385) */
    if (kb != qb || vb != qb || vs != ks) {
        return invalid(p, "query, key and value need one B (got %lld, %lld, %lld) and key and value one S "
                       "(got %lld, %lld)",
                       (long long)qb, (long long)kb, (long long)vb, (long long)ks, (long long)vs);
    }
    if (g->b == 0 || g->s1 == 0 || g->s2 == 0 || g->d == 0 || g->dv == 0) {
        return invalid(p, "an empty B, S or D axis is not emulated by the mock (the outputs must all be empty)");
    }
    /* keepProb in (0, 1] (tiling.cpp:1030-1031); dropout is not emulated */
    if (!(keepProb > 0.0 && keepProb <= 1.0)) {
        return invalid(p, "keepProb must be in (0, 1], got %g", keepProb);
    }
    if (keepProb != 1.0) {
        return invalid(p, "keepProb %g < 1 (dropout) is not emulated by the mock: use 1", keepProb);
    }
    /* innerPrecise 2: the invalid-line mode (doc:393; tiling.cpp:1036-1038) */
    g->invalid_line = innerPrecise == 2;
    g->pre = preTokens;
    g->next = nextTokens;
    if (!mask_setup(p, attenMask, sparseMode, g)) {
        return false;
    }
    /* scaleValue reaches the kernel as a float attribute (op_api/flash_attention_score.cpp:131) */
    g->scale = (double)(float)scaleValue;
    return true;
}

bool fa_check_stat(ph1 *p, const aclTensor *t, const char *name, const fa_geom *g)
{
    static const int32_t F32[] = {ACL_FLOAT, -1};
    int64_t dims[4] = {g->b, g->n1, g->s1, 8};
    return check_dtype(p, t, name, F32) && check_shape(p, t, name, dims, 4);
}

void fa_out_shape(const aclTensor *query, const fa_geom *g, int64_t *dims)
{
    memcpy(dims, query->v.dims, sizeof(int64_t) * query->v.ndim);
    if (query->v.ndim == 4) {
        dims[3] = g->dv;
    } else {
        dims[2] = g->n1 * g->dv;
    }
}

void fa_put(mk_job *j, const fa_geom *g)
{
    const int64_t v[FA_GEOM_IP] = {g->layout, g->b,      g->n1,     g->n2,  g->s1,  g->s2,  g->d,          g->dv,
                                   g->mask_kind, g->mask_b, g->mask_n, g->pre, g->next, g->diag, g->invalid_line};
    memcpy(j->ip, v, sizeof(v));
    j->p[0] = g->scale;
}

void fa_get(const mk_job *j, fa_geom *g)
{
    const int64_t *v = j->ip;
    g->layout = v[0], g->b = v[1], g->n1 = v[2], g->n2 = v[3], g->s1 = v[4], g->s2 = v[5], g->d = v[6];
    g->dv = v[7], g->mask_kind = v[8], g->mask_b = v[9], g->mask_n = v[10], g->pre = v[11], g->next = v[12];
    g->diag = v[13], g->invalid_line = v[14];
    g->scale = j->p[0];
}

int64_t fa_off(const mk_view *v, int64_t layout, int64_t hd, int64_t b, int64_t n, int64_t s, int64_t d)
{
    const int64_t *st = v->strides;
    switch (layout) {
    case FA_BSH: return b * st[0] + s * st[1] + (n * hd + d) * st[2];
    case FA_SBH: return s * st[0] + b * st[1] + (n * hd + d) * st[2];
    case FA_BSND: return b * st[0] + s * st[1] + n * st[2] + d * st[3];
    default: return b * st[0] + n * st[1] + s * st[2] + d * st[3];
    }
}

static bool mask_at(const mk_view *m, const void *mb, int64_t b, int64_t n, int64_t r, int64_t c)
{
    int64_t e = r * m->strides[m->ndim - 2] + c * m->strides[m->ndim - 1];
    if (m->ndim == 4) {
        e += (m->dims[0] > 1 ? b : 0) * m->strides[0] + (m->dims[1] > 1 ? n : 0) * m->strides[1];
    }
    return mk_ldi(mb, m->dtype, e) != 0;
}

bool fa_masked(const fa_geom *g, const mk_view *mask, const void *mb, int64_t b, int64_t n, int64_t i, int64_t j)
{
    switch (g->mask_kind) {
    case FA_MASK_DENSE:
        /* 1 = not computed (doc:151); sparseMode 0 also computes only the band -pre <= j - i <= next */
        return mask_at(mask, mb, b, n, i, j) || (g->next != INT64_MAX && j - i > g->next) ||
               (g->pre != INT64_MAX && i - j > g->pre);
    case FA_MASK_COMPRESS: {
        /* the compressed mask is read along its diagonals: offset delta = j - i - diag; beyond the
         * 2048 x 2048 tile a block is wholly masked (above) or wholly computed (below) */
        int64_t delta = j - i - g->diag;
        if (delta >= COMPRESS_LIMIT) {
            return true;
        }
        if (delta <= -COMPRESS_LIMIT) {
            return false;
        }
        return delta >= 0 ? mask_at(mask, mb, 0, 0, 0, delta) : mask_at(mask, mb, 0, 0, -delta, 0);
    }
    default: return false;
    }
}

enum { IP_Q = FA_GEOM_IP, IP_K, IP_V, IP_MASK, IP_MAX, IP_SUM, IP_OUT };

static void k_flash_attention(const mk_job *j, void *const *bufs)
{
    fa_geom g;
    fa_get(j, &g);
    const mk_view *q = &j->slot[j->ip[IP_Q]], *k = &j->slot[j->ip[IP_K]], *v = &j->slot[j->ip[IP_V]];
    const mk_view *mx = &j->slot[j->ip[IP_MAX]], *sm = &j->slot[j->ip[IP_SUM]], *o = &j->slot[j->ip[IP_OUT]];
    const mk_view *m = j->ip[IP_MASK] >= 0 ? &j->slot[j->ip[IP_MASK]] : NULL;
    const void *qb = bufs[j->ip[IP_Q]], *kb = bufs[j->ip[IP_K]], *vb = bufs[j->ip[IP_V]];
    const void *mb = m ? bufs[j->ip[IP_MASK]] : NULL;
    double *s = malloc(sizeof(double) * (size_t)g.s2), *acc = malloc(sizeof(double) * (size_t)g.dv);
    int64_t group = g.n1 / g.n2;
    if (!s || !acc) {
        goto out;
    }
    for (int64_t b = 0; b < g.b; b++) {
        for (int64_t n = 0; n < g.n1; n++) {
            int64_t kn = n / group;
            for (int64_t i = 0; i < g.s1; i++) {
                double mxv = fa_masked_score();
                for (int64_t jj = 0; jj < g.s2; jj++) {
                    double dot = 0.0;
                    for (int64_t d = 0; d < g.d; d++) {
                        dot += mk_ldd(qb, q->dtype, fa_off(q, g.layout, g.d, b, n, i, d)) *
                               mk_ldd(kb, k->dtype, fa_off(k, g.layout, g.d, b, kn, jj, d));
                    }
                    s[jj] = fa_masked(&g, m, mb, b, n, i, jj) ? fa_masked_score() : g.scale * dot;
                    mxv = fmax(mxv, s[jj]);
                }
                double sum = 0.0;
                for (int64_t jj = 0; jj < g.s2; jj++) {
                    s[jj] = exp(s[jj] - mxv);
                    sum += s[jj];
                }
                bool empty = mxv == fa_masked_score() && g.invalid_line;
                for (int64_t d = 0; d < g.dv; d++) {
                    acc[d] = 0.0;
                }
                for (int64_t jj = 0; !empty && jj < g.s2; jj++) {
                    for (int64_t d = 0; d < g.dv; d++) {
                        acc[d] += s[jj] / sum * mk_ldd(vb, v->dtype, fa_off(v, g.layout, g.dv, b, kn, jj, d));
                    }
                }
                for (int64_t d = 0; d < g.dv; d++) {
                    mk_std(bufs[j->ip[IP_OUT]], o->dtype, fa_off(o, g.layout, g.dv, b, n, i, d), acc[d]);
                }
                for (int64_t e = 0; e < 8; e++) {
                    mk_std(bufs[j->ip[IP_MAX]], mx->dtype, off4(mx, b, n, i, e), mxv);
                    mk_std(bufs[j->ip[IP_SUM]], sm->dtype, off4(sm, b, n, i, e), empty ? (double)FLT_MAX : sum);
                }
            }
        }
    }
out:
    free(s);
    free(acc);
}

static void k_nothing(const mk_job *j, void *const *bufs)
{
    (void)j;
    (void)bufs;
}

OPS_EXPORT aclnnStatus aclnnFlashAttentionScoreGetWorkspaceSize(
    const aclTensor *query, const aclTensor *key, const aclTensor *value, const aclTensor *realShiftOptional,
    const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional, const aclTensor *attenMaskOptional,
    const aclIntArray *prefixOptional, double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens,
    int64_t headNum, char *inputLayout, int64_t innerPrecise, int64_t sparseMode, const aclTensor *softmaxMaxOut,
    const aclTensor *softmaxSumOut, const aclTensor *softmaxOutOut, const aclTensor *attentionOutOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnFlashAttentionScoreGetWorkspaceSize), "aclnnFlashAttentionScore");
    ph1_arg_tensor(&p, "query", query);
    ph1_arg_tensor(&p, "key", key);
    ph1_arg_tensor(&p, "value", value);
    /* every parameter, so a strict replay checks each (the recording shim
     * writes them all, csrc/record/rec_ops_table.h) */
    ph1_arg_tensor(&p, "realShiftOptional", realShiftOptional);
    ph1_arg_tensor(&p, "dropMaskOptional", dropMaskOptional);
    ph1_arg_tensor(&p, "paddingMaskOptional", paddingMaskOptional);
    ph1_arg_tensor(&p, "attenMaskOptional", attenMaskOptional);
    ph1_arg_ints(&p, "prefixOptional", prefixOptional);
    ph1_arg_f64(&p, "scaleValue", scaleValue);
    ph1_arg_f64(&p, "keepProb", keepProb);
    ph1_arg_i64(&p, "preTokens", preTokens);
    ph1_arg_i64(&p, "nextTokens", nextTokens);
    ph1_arg_i64(&p, "headNum", headNum);
    aclmock_arg_str(&p.c, "inputLayout", inputLayout);
    ph1_arg_i64(&p, "innerPrecise", innerPrecise);
    ph1_arg_i64(&p, "sparseMode", sparseMode);
    ph1_arg_tensor(&p, "softmaxMaxOut", softmaxMaxOut);
    ph1_arg_tensor(&p, "softmaxSumOut", softmaxSumOut);
    ph1_arg_tensor(&p, "softmaxOutOut", softmaxOutOut);
    ph1_arg_tensor(&p, "attentionOutOut", attentionOutOut);
    fa_geom g;
    /* not null: query, key, value, inputLayout, softmaxMaxOut, softmaxSumOut, attentionOutOut
     * (aclnn.cpp:697-707, all 161001 at :781-782) */
    if (need_tensor(&p, query, "query") && need_tensor(&p, key, "key") && need_tensor(&p, value, "value") &&
        need_ptr(&p, inputLayout, "inputLayout") && need_tensor(&p, softmaxMaxOut, "softmaxMaxOut") &&
        need_tensor(&p, softmaxSumOut, "softmaxSumOut") && need_tensor(&p, attentionOutOut, "attentionOutOut")) {
        /* all three outputs empty: nothing to do (aclnn.cpp:792-798) */
        if (numel(&softmaxMaxOut->v) == 0 && numel(&softmaxSumOut->v) == 0 && numel(&attentionOutOut->v) == 0) {
            make_exec(&p, k_nothing, 0);
            return ph1_end(&p, workspaceSize, executor);
        }
        if (realShiftOptional || dropMaskOptional || paddingMaskOptional || prefixOptional) {
            invalid(&p, "realShiftOptional, dropMaskOptional, paddingMaskOptional and prefixOptional are not "
                        "emulated by the mock: pass null");
        }
        int64_t od[4];
        if (!p.rc &&
            fa_analyze(&p, query, key, value, attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens,
                       headNum, inputLayout, innerPrecise, sparseMode, &g) &&
            fa_check_stat(&p, softmaxMaxOut, "softmaxMaxOut", &g) &&
            fa_check_stat(&p, softmaxSumOut, "softmaxSumOut", &g) &&
            /* attentionOut: query's dtype (infershape.cpp:188-191) and shape with value's D (:119-150) */
            check_same_dtype(&p, attentionOutOut, "attentionOutOut", query, "query") &&
            (fa_out_shape(query, &g, od), check_shape(&p, attentionOutOut, "attentionOutOut", od, query->v.ndim)) &&
            make_exec(&p, k_flash_attention, 0)) {
            mk_job *j = &p.e->job;
            fa_put(j, &g);
            j->ip[IP_Q] = add_in(&p, query);
            j->ip[IP_K] = add_in(&p, key);
            j->ip[IP_V] = add_in(&p, value);
            j->ip[IP_MASK] = g.mask_kind != FA_MASK_NONE ? add_in(&p, attenMaskOptional) : (int64_t)-1;
            j->ip[IP_MAX] = add_out(&p, softmaxMaxOut);
            j->ip[IP_SUM] = add_out(&p, softmaxSumOut);
            j->ip[IP_OUT] = add_out(&p, attentionOutOut);
        }
    }
    (void)softmaxOutOut; /* "not used now" (aclnn.cpp:822, :832) */
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(FlashAttentionScore)
