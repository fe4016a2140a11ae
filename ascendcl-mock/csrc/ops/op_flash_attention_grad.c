/*
 * op_flash_attention_grad.c (libopapi.so; on a card libopapi_transformer.so):
 * aclnnFlashAttentionScoreGrad (operators III, batch `attention`). Parameter
 * list: hicann/ops-transformer (commit c29bc106)
 * attention/flash_attention_score_grad/op_host/op_api/aclnn_flash_attention_score_grad.h:24-32;
 * "grad.cpp" below is op_host/op_api/aclnn_flash_attention_score_grad.cpp,
 * "grad_def.cpp" op_host/flash_attention_score_grad_def.cpp, both under
 * attention/flash_attention_score_grad/.
 *
 * The backward of op_flash_attention.c's forward, from what the forward
 * saved: the probabilities are rebuilt from softmaxMax and softmaxSum
 * (P_ij = exp(s_ij - max_i) / sum_i, s_ij as in the forward, masked scores
 * -FLT_MAX), and attentionInOptional (the forward's output O) gives
 * D_i = dy_i . O_i. Then dV_j = sum_i P_ij dy_i, dS_ij = P_ij (dy_i . v_j - D_i),
 * dQ_i = scale sum_j dS_ij k_j, dK_j = scale sum_i dS_ij q_i; with GQA the
 * query heads of a group add into their key/value head. Sums in double,
 * each result rounded once. The masks, layouts and sparse modes are read by
 * the forward's rules (fa_analyze, op_flash_attention.c; the grad's own
 * tiling was not compared line by line). softmaxInOptional is not read (the
 * forward never writes it: aclnn_flash_attention_score.cpp:822).
 */
#include "op_flash_attention.h"

#include <math.h>
#include <stdlib.h>

/* query, key, value, dy, attention_in, dq, dk, dv: FLOAT16, BFLOAT16, FLOAT (grad_def.cpp:26-49, :103-105,
 * :185-199); softmax_max/softmax_sum FLOAT (:82-91) */
static const int32_t DT_FAG[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, -1};

enum { IP_Q = FA_GEOM_IP, IP_K, IP_V, IP_DY, IP_MASK, IP_MAX, IP_SUM, IP_O, IP_DQ, IP_DK, IP_DV };

static void k_nothing(const mk_job *j, void *const *bufs)
{
    (void)j;
    (void)bufs;
}

/* Loads a q/k/v-like slot as a dense [B, N, S, D] double array. */
static double *dense(const mk_job *j, void *const *bufs, int ip, const fa_geom *g, int64_t n, int64_t s, int64_t hd)
{
    const mk_view *v = &j->slot[j->ip[ip]];
    double *a = malloc(sizeof(double) * (size_t)(g->b * n * s * hd));
    for (int64_t b = 0; a && b < g->b; b++) {
        for (int64_t h = 0; h < n; h++) {
            for (int64_t i = 0; i < s; i++) {
                for (int64_t d = 0; d < hd; d++) {
                    a[((b * n + h) * s + i) * hd + d] = mk_ldd(bufs[j->ip[ip]], v->dtype, fa_off(v, g->layout, hd, b, h, i, d));
                }
            }
        }
    }
    return a;
}

static void store(const mk_job *j, void *const *bufs, int ip, const fa_geom *g, int64_t n, int64_t s, int64_t hd,
                  const double *a)
{
    const mk_view *v = &j->slot[j->ip[ip]];
    for (int64_t b = 0; b < g->b; b++) {
        for (int64_t h = 0; h < n; h++) {
            for (int64_t i = 0; i < s; i++) {
                for (int64_t d = 0; d < hd; d++) {
                    mk_std(bufs[j->ip[ip]], v->dtype, fa_off(v, g->layout, hd, b, h, i, d), a[((b * n + h) * s + i) * hd + d]);
                }
            }
        }
    }
}

static void k_flash_attention_grad(const mk_job *j, void *const *bufs)
{
    fa_geom g;
    fa_get(j, &g);
    const mk_view *m = j->ip[IP_MASK] >= 0 ? &j->slot[j->ip[IP_MASK]] : NULL;
    const void *mb = m ? bufs[j->ip[IP_MASK]] : NULL;
    const mk_view *mx = &j->slot[j->ip[IP_MAX]], *sm = &j->slot[j->ip[IP_SUM]];
    double *q = dense(j, bufs, IP_Q, &g, g.n1, g.s1, g.d), *k = dense(j, bufs, IP_K, &g, g.n2, g.s2, g.d);
    double *v = dense(j, bufs, IP_V, &g, g.n2, g.s2, g.dv), *dy = dense(j, bufs, IP_DY, &g, g.n1, g.s1, g.dv);
    double *o = dense(j, bufs, IP_O, &g, g.n1, g.s1, g.dv);
    double *dq = dzeros(g.b * g.n1 * g.s1 * g.d), *dk = dzeros(g.b * g.n2 * g.s2 * g.d);
    double *dv = dzeros(g.b * g.n2 * g.s2 * g.dv);
    int64_t group = g.n1 / g.n2;
    if (!q || !k || !v || !dy || !o || !dq || !dk || !dv) {
        goto out;
    }
    for (int64_t b = 0; b < g.b; b++) {
        for (int64_t n = 0; n < g.n1; n++) {
            int64_t kn = n / group;
            for (int64_t i = 0; i < g.s1; i++) {
                const double *qi = &q[((b * g.n1 + n) * g.s1 + i) * g.d];
                const double *dyi = &dy[((b * g.n1 + n) * g.s1 + i) * g.dv];
                const double *oi = &o[((b * g.n1 + n) * g.s1 + i) * g.dv];
                double *dqi = &dq[((b * g.n1 + n) * g.s1 + i) * g.d];
                double mxv = mk_ldd(bufs[j->ip[IP_MAX]], mx->dtype, off4(mx, b, n, i, 0));
                double sum = mk_ldd(bufs[j->ip[IP_SUM]], sm->dtype, off4(sm, b, n, i, 0));
                double di = 0.0;
                for (int64_t d = 0; d < g.dv; d++) {
                    di += dyi[d] * oi[d];
                }
                for (int64_t jj = 0; jj < g.s2; jj++) {
                    const double *kj = &k[((b * g.n2 + kn) * g.s2 + jj) * g.d];
                    const double *vj = &v[((b * g.n2 + kn) * g.s2 + jj) * g.dv];
                    double *dkj = &dk[((b * g.n2 + kn) * g.s2 + jj) * g.d];
                    double *dvj = &dv[((b * g.n2 + kn) * g.s2 + jj) * g.dv];
                    double s = fa_masked_score();
                    if (!fa_masked(&g, m, mb, b, n, i, jj)) {
                        double dot = 0.0;
                        for (int64_t d = 0; d < g.d; d++) {
                            dot += qi[d] * kj[d];
                        }
                        s = g.scale * dot;
                    }
                    double pij = exp(s - mxv) / sum;
                    double dp = 0.0;
                    for (int64_t d = 0; d < g.dv; d++) {
                        dp += dyi[d] * vj[d];
                        dvj[d] += pij * dyi[d];
                    }
                    double ds = pij * (dp - di) * g.scale;
                    for (int64_t d = 0; d < g.d; d++) {
                        dqi[d] += ds * kj[d];
                        dkj[d] += ds * qi[d];
                    }
                }
            }
        }
    }
    store(j, bufs, IP_DQ, &g, g.n1, g.s1, g.d, dq);
    store(j, bufs, IP_DK, &g, g.n2, g.s2, g.d, dk);
    store(j, bufs, IP_DV, &g, g.n2, g.s2, g.dv, dv);
out:
    free(q);
    free(k);
    free(v);
    free(dy);
    free(o);
    free(dq);
    free(dk);
    free(dv);
}

OPS_EXPORT aclnnStatus aclnnFlashAttentionScoreGradGetWorkspaceSize(
    const aclTensor *query, const aclTensor *keyIn, const aclTensor *value, const aclTensor *dy,
    const aclTensor *pseShiftOptional, const aclTensor *dropMaskOptional, const aclTensor *paddingMaskOptional,
    const aclTensor *attenMaskOptional, const aclTensor *softmaxMaxOptional, const aclTensor *softmaxSumOptional,
    const aclTensor *softmaxInOptional, const aclTensor *attentionInOptional, const aclIntArray *prefixOptional,
    double scaleValue, double keepProb, int64_t preTokens, int64_t nextTokens, int64_t headNum, char *inputLayout,
    int64_t innerPrecise, int64_t sparseMode, const aclTensor *dqOut, const aclTensor *dkOut, const aclTensor *dvOut,
    const aclTensor *dpseOut, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnFlashAttentionScoreGradGetWorkspaceSize), "aclnnFlashAttentionScoreGrad");
    ph1_arg_tensor(&p, "query", query);
    ph1_arg_tensor(&p, "keyIn", keyIn);
    ph1_arg_tensor(&p, "value", value);
    ph1_arg_tensor(&p, "dy", dy);
    /* every parameter, so a strict replay checks each (the recording shim
     * writes them all, csrc/record/rec_ops_table.h) */
    ph1_arg_tensor(&p, "pseShiftOptional", pseShiftOptional);
    ph1_arg_tensor(&p, "dropMaskOptional", dropMaskOptional);
    ph1_arg_tensor(&p, "paddingMaskOptional", paddingMaskOptional);
    ph1_arg_tensor(&p, "attenMaskOptional", attenMaskOptional);
    ph1_arg_tensor(&p, "softmaxMaxOptional", softmaxMaxOptional);
    ph1_arg_tensor(&p, "softmaxSumOptional", softmaxSumOptional);
    ph1_arg_tensor(&p, "softmaxInOptional", softmaxInOptional);
    ph1_arg_tensor(&p, "attentionInOptional", attentionInOptional);
    ph1_arg_ints(&p, "prefixOptional", prefixOptional);
    ph1_arg_f64(&p, "scaleValue", scaleValue);
    ph1_arg_f64(&p, "keepProb", keepProb);
    ph1_arg_i64(&p, "preTokens", preTokens);
    ph1_arg_i64(&p, "nextTokens", nextTokens);
    ph1_arg_i64(&p, "headNum", headNum);
    aclmock_arg_str(&p.c, "inputLayout", inputLayout);
    ph1_arg_i64(&p, "innerPrecise", innerPrecise);
    ph1_arg_i64(&p, "sparseMode", sparseMode);
    ph1_arg_tensor(&p, "dqOut", dqOut);
    ph1_arg_tensor(&p, "dkOut", dkOut);
    ph1_arg_tensor(&p, "dvOut", dvOut);
    ph1_arg_tensor(&p, "dpseOut", dpseOut);
    fa_geom g;
    /* not null: query, keyIn, value, dy, attentionInOptional, dqOut, dkOut, dvOut (grad.cpp:1199-1208) */
    if (need_tensor(&p, query, "query") && need_tensor(&p, keyIn, "keyIn") && need_tensor(&p, value, "value") &&
        need_tensor(&p, dy, "dy") && need_tensor(&p, attentionInOptional, "attentionInOptional") &&
        need_tensor(&p, dqOut, "dqOut") && need_tensor(&p, dkOut, "dkOut") && need_tensor(&p, dvOut, "dvOut") &&
        /* the real op does not check inputLayout (it reads it at grad.cpp:300); the mock does */
        need_ptr(&p, inputLayout, "inputLayout")) {
        /* every output empty (and no dpse): nothing to do (grad.cpp:1209-1217) */
        if (numel(&dqOut->v) == 0 && numel(&dkOut->v) == 0 && numel(&dvOut->v) == 0 &&
            (!dpseOut || numel(&dpseOut->v) == 0)) {
            make_exec(&p, k_nothing, 0);
            return ph1_end(&p, workspaceSize, executor);
        }
        /* headNum > 0 (grad.cpp:1219-1223); every tensor at least 3-d (:210-222) */
        if (headNum <= 0) {
            invalid(&p, "headNum must be > 0, got %lld", (long long)headNum);
        } else if (query->v.ndim < 3 || keyIn->v.ndim < 3 || value->v.ndim < 3 || dy->v.ndim < 3 ||
                   attentionInOptional->v.ndim < 3 || dqOut->v.ndim < 3 || dkOut->v.ndim < 3 || dvOut->v.ndim < 3) {
            invalid(&p, "the inputs and outputs need at least 3 dims");
        } else if (pseShiftOptional || dropMaskOptional || paddingMaskOptional || prefixOptional || dpseOut) {
            invalid(&p, "pseShiftOptional, dropMaskOptional, paddingMaskOptional, prefixOptional and dpseOut are "
                        "not emulated by the mock: pass null");
        } else if (!softmaxMaxOptional || !softmaxSumOptional) {
            /* the kernel rebuilds the probabilities from them */
            invalid(&p, "softmaxMaxOptional and softmaxSumOptional are needed: pass the forward's softmaxMaxOut "
                        "and softmaxSumOut");
        }
        int64_t od[4];
        if (!p.rc &&
            fa_analyze(&p, query, keyIn, value, attenMaskOptional, scaleValue, keepProb, preTokens, nextTokens,
                       headNum, inputLayout, innerPrecise, sparseMode, &g) &&
            fa_check_stat(&p, softmaxMaxOptional, "softmaxMaxOptional", &g) &&
            fa_check_stat(&p, softmaxSumOptional, "softmaxSumOptional", &g) && check_dtype(&p, dy, "dy", DT_FAG) &&
            check_same_dtype(&p, dy, "dy", query, "query") &&
            check_same_dtype(&p, attentionInOptional, "attentionInOptional", query, "query") &&
            (fa_out_shape(query, &g, od), check_shape(&p, dy, "dy", od, query->v.ndim)) &&
            check_shape(&p, attentionInOptional, "attentionInOptional", od, query->v.ndim) &&
            /* dq, dk, dv in query's dtype and shaped as query, key, value (grad_def.cpp:185-199; the
             * ViewCopy into them, grad.cpp:1078-1084) */
            check_same_dtype(&p, dqOut, "dqOut", query, "query") &&
            check_same_dtype(&p, dkOut, "dkOut", query, "query") &&
            check_same_dtype(&p, dvOut, "dvOut", query, "query") &&
            check_shape(&p, dqOut, "dqOut", query->v.dims, query->v.ndim) &&
            check_shape(&p, dkOut, "dkOut", keyIn->v.dims, keyIn->v.ndim) &&
            check_shape(&p, dvOut, "dvOut", value->v.dims, value->v.ndim) &&
            make_exec(&p, k_flash_attention_grad, 0)) {
            mk_job *j = &p.e->job;
            fa_put(j, &g);
            j->ip[IP_Q] = add_in(&p, query);
            j->ip[IP_K] = add_in(&p, keyIn);
            j->ip[IP_V] = add_in(&p, value);
            j->ip[IP_DY] = add_in(&p, dy);
            j->ip[IP_MASK] = g.mask_kind != FA_MASK_NONE ? add_in(&p, attenMaskOptional) : (int64_t)-1;
            j->ip[IP_MAX] = add_in(&p, softmaxMaxOptional);
            j->ip[IP_SUM] = add_in(&p, softmaxSumOptional);
            j->ip[IP_O] = add_in(&p, attentionInOptional);
            j->ip[IP_DQ] = add_out(&p, dqOut);
            j->ip[IP_DK] = add_out(&p, dkOut);
            j->ip[IP_DV] = add_out(&p, dvOut);
        }
    }
    (void)softmaxInOptional;
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(FlashAttentionScoreGrad)
