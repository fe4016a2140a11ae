/*
 * op_layer_norm.c (libopapi.so): aclnnLayerNorm and aclnnLayerNormBackward
 * (operators III, norm_shape batch). Parameter lists (ops-nn v8.5.0):
 * norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.h:25-28 and
 * norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.h:25-29.
 *
 * The input [A1..Ai, R1..Rj] is normalized over its last j dims
 * (normalizedShape = [R1..Rj]): M = A1*..*Ai rows of N = R1*..*Rj elements.
 * mean and rstd = 1/sqrt(var + eps) (biased variance) have the shape
 * [A1..Ai, 1..1] (aclnnLayerNorm&aclnnLayerNormWithImplMode.md:162, :172),
 * which is what torch.native_layer_norm returns too. Rows are reduced in
 * double and every result is stored (rounded) once in its tensor's dtype.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

/* aclnn_layer_norm.cpp:56-57 (910B list, chosen for 910B..910E at :59-67);
 * the backward's list is the same (aclnn_layer_norm_backward.cpp:49-50) */
static const int32_t DT_LN[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16, -1};

enum { IP_X, IP_W, IP_B, IP_OUT, IP_MEAN, IP_RSTD, IP_GO, IP_GI, IP_GW, IP_GB, IP_M, IP_N };
enum { P_EPS };

/* Offsets of every element of an optional slot in row-major order (NULL when absent). */
static int64_t *opt_offsets(const mk_job *j, int ip)
{
    return j->ip[ip] >= 0 ? view_offsets(&j->slot[j->ip[ip]]) : NULL;
}

static double opt_ld(const mk_job *j, void *const *bufs, int ip, const int64_t *off, int64_t k, double dflt)
{
    if (j->ip[ip] < 0 || !off) {
        return dflt;
    }
    return mk_ldd(bufs[j->ip[ip]], j->slot[j->ip[ip]].dtype, off[k]);
}

static void opt_st(const mk_job *j, void *const *bufs, int ip, const int64_t *off, int64_t k, double v)
{
    if (j->ip[ip] >= 0 && off && bufs[j->ip[ip]]) {
        mk_std(bufs[j->ip[ip]], j->slot[j->ip[ip]].dtype, off[k], v);
    }
}

static void k_layer_norm(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]];
    const void *xb = bufs[j->ip[IP_X]];
    int64_t M = j->ip[IP_M], N = j->ip[IP_N];
    double eps = j->p[P_EPS];
    int64_t *ox = view_offsets(x), *oo = opt_offsets(j, IP_OUT), *ow = opt_offsets(j, IP_W),
            *ob = opt_offsets(j, IP_B), *om = opt_offsets(j, IP_MEAN), *orr = opt_offsets(j, IP_RSTD);
    if (N == 0) {
        /* an empty normalized axis: mean 0, rstd NaN (aclnn_layer_norm.cpp:317-330) */
        for (int64_t r = 0; r < M; r++) {
            opt_st(j, bufs, IP_MEAN, om, r, 0.0);
            opt_st(j, bufs, IP_RSTD, orr, r, NAN);
        }
        goto out;
    }
    if (!ox || !oo || (j->ip[IP_W] >= 0 && !ow) || (j->ip[IP_B] >= 0 && !ob) || (j->ip[IP_MEAN] >= 0 && !om) ||
        (j->ip[IP_RSTD] >= 0 && !orr)) {
        goto out; /* empty (M or N is 0: phase 1 handled it) or host OOM */
    }
    for (int64_t r = 0; r < M; r++) {
        double s = 0.0, q = 0.0;
        for (int64_t k = 0; k < N; k++) {
            s += mk_ldd(xb, x->dtype, ox[r * N + k]);
        }
        double mean = s / (double)N;
        for (int64_t k = 0; k < N; k++) {
            double d = mk_ldd(xb, x->dtype, ox[r * N + k]) - mean;
            q += d * d;
        }
        double rstd = 1.0 / sqrt(q / (double)N + eps);
        for (int64_t k = 0; k < N; k++) {
            double xh = (mk_ldd(xb, x->dtype, ox[r * N + k]) - mean) * rstd;
            opt_st(j, bufs, IP_OUT, oo, r * N + k, xh * opt_ld(j, bufs, IP_W, ow, k, 1.0) + opt_ld(j, bufs, IP_B, ob, k, 0.0));
        }
        opt_st(j, bufs, IP_MEAN, om, r, mean);
        opt_st(j, bufs, IP_RSTD, orr, r, rstd);
    }
out:
    free(ox);
    free(oo);
    free(ow);
    free(ob);
    free(om);
    free(orr);
}

/* M and N of input for normalizedShape (length checked by the caller). */
static void rows_cols(const aclTensor *input, const aclIntArray *ns, int64_t *M, int64_t *N)
{
    uint32_t begin = input->v.ndim - (uint32_t)ns->n;
    *M = 1;
    *N = 1;
    for (uint32_t d = 0; d < input->v.ndim; d++) {
        *(d < begin ? M : N) *= input->v.dims[d];
    }
}

/* weight or bias, when given: as many dims as normalizedShape, each equal
 * (aclnn_layer_norm.cpp:166-171, :188-210) */
static bool check_affine(ph1 *p, const aclTensor *t, const char *name, const aclIntArray *ns)
{
    if (!t || p->rc) {
        return !p->rc;
    }
    if (t->v.ndim != ns->n) {
        return invalid(p, "%s has %u dims, normalizedShape %llu", name, t->v.ndim, (unsigned long long)ns->n);
    }
    for (uint64_t i = 0; i < ns->n; i++) {
        if (t->v.dims[i] != ns->v[i]) {
            return invalid(p, "normalizedShape[%llu] = %lld but %s has %lld there", (unsigned long long)i,
                           (long long)ns->v[i], name, (long long)t->v.dims[i]);
        }
    }
    return true;
}

/* The shape of mean and rstd: input's with the normalized dims set to 1. */
static void stat_shape(const aclTensor *input, const aclIntArray *ns, int64_t *dims)
{
    uint32_t begin = input->v.ndim - (uint32_t)ns->n;
    for (uint32_t d = 0; d < input->v.ndim; d++) {
        dims[d] = d < begin ? input->v.dims[d] : 1;
    }
}

/* An optional tensor's dtype in the list. */
static bool opt_dtype(ph1 *p, const aclTensor *t, const char *name)
{
    return !t || check_dtype(p, t, name, DT_LN);
}

OPS_EXPORT aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
                                                      const aclTensor *weightOptional, const aclTensor *biasOptional,
                                                      double eps, aclTensor *out, aclTensor *meanOutOptional,
                                                      aclTensor *rstdOutOptional, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnLayerNormGetWorkspaceSize), "aclnnLayerNorm");
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_ints(&p, "normalizedShape", normalizedShape);
    ph1_arg_tensor(&p, "weightOptional", weightOptional);
    ph1_arg_tensor(&p, "biasOptional", biasOptional);
    ph1_arg_f64(&p, "eps", eps);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_tensor(&p, "meanOutOptional", meanOutOptional);
    ph1_arg_tensor(&p, "rstdOutOptional", rstdOutOptional);
    /* input, normalizedShape, out not null (aclnn_layer_norm.cpp:69-75, 161001 at :290) */
    if (need_tensor(&p, input, "input") && need_ints(&p, normalizedShape, "normalizedShape") &&
        need_tensor(&p, out, "out") &&
        /* dtypes (:77-110): weight/bias f32 or input's dtype, and the same as each other */
        check_dtype(&p, input, "input", DT_LN) && opt_dtype(&p, weightOptional, "weightOptional") &&
        (!weightOptional || weightOptional->v.dtype == ACL_FLOAT ||
         check_same_dtype(&p, weightOptional, "weightOptional", input, "input")) &&
        opt_dtype(&p, biasOptional, "biasOptional") &&
        (!biasOptional || biasOptional->v.dtype == ACL_FLOAT ||
         check_same_dtype(&p, biasOptional, "biasOptional", input, "input")) &&
        (!weightOptional || !biasOptional ||
         check_same_dtype(&p, weightOptional, "weightOptional", biasOptional, "biasOptional")) &&
        check_dtype(&p, out, "out", DT_LN) && opt_dtype(&p, meanOutOptional, "meanOutOptional") &&
        opt_dtype(&p, rstdOutOptional, "rstdOutOptional")) {
        /* normalizedShape: 1 to 8 entries (:112-122, :156-162), input has at
         * least as many dims (:164), its trailing dims equal them (:175-187) */
        if (normalizedShape->n > MK_MAX_DIMS || normalizedShape->n < 1) {
            invalid(&p, "normalizedShape has %llu entries, expected 1 to 8", (unsigned long long)normalizedShape->n);
        } else if (input->v.ndim < normalizedShape->n) {
            invalid(&p, "input has %u dims, fewer than normalizedShape's %llu", input->v.ndim,
                    (unsigned long long)normalizedShape->n);
        }
        for (uint64_t i = 0; !p.rc && i < normalizedShape->n; i++) {
            uint32_t d = input->v.ndim - (uint32_t)normalizedShape->n + (uint32_t)i;
            if (input->v.dims[d] != normalizedShape->v[i]) {
                invalid(&p, "normalizedShape[%llu] = %lld but input dim %u is %lld", (unsigned long long)i,
                        (long long)normalizedShape->v[i], d, (long long)input->v.dims[d]);
            }
        }
        int64_t sd[MK_MAX_DIMS];
        if (!p.rc) {
            stat_shape(input, normalizedShape, sd);
        }
        /* out has input's shape (:214). The real op does not check mean and
         * rstd in phase 1 (its ViewCopy of the [A.., 1..] result into them
         * would fail later); the mock does. */
        if (check_affine(&p, weightOptional, "weightOptional", normalizedShape) &&
            check_affine(&p, biasOptional, "biasOptional", normalizedShape) &&
            check_shape(&p, out, "out", input->v.dims, input->v.ndim) &&
            (!meanOutOptional || check_shape(&p, meanOutOptional, "meanOutOptional", sd, input->v.ndim)) &&
            (!rstdOutOptional || check_shape(&p, rstdOutOptional, "rstdOutOptional", sd, input->v.ndim)) &&
            make_exec(&p, k_layer_norm, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_X] = add_in(&p, input);
            j->ip[IP_W] = weightOptional ? add_in(&p, weightOptional) : (int64_t)-1;
            j->ip[IP_B] = biasOptional ? add_in(&p, biasOptional) : (int64_t)-1;
            j->ip[IP_OUT] = add_out(&p, out);
            j->ip[IP_MEAN] = meanOutOptional ? add_out(&p, meanOutOptional) : (int64_t)-1;
            j->ip[IP_RSTD] = rstdOutOptional ? add_out(&p, rstdOutOptional) : (int64_t)-1;
            rows_cols(input, normalizedShape, &j->ip[IP_M], &j->ip[IP_N]);
            j->p[P_EPS] = eps;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(LayerNorm)

static void k_layer_norm_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *go = &j->slot[j->ip[IP_GO]];
    const mk_view *mv = &j->slot[j->ip[IP_MEAN]], *rv = &j->slot[j->ip[IP_RSTD]];
    const void *xb = bufs[j->ip[IP_X]], *gob = bufs[j->ip[IP_GO]];
    int64_t M = j->ip[IP_M], N = j->ip[IP_N];
    int64_t *ox = view_offsets(x), *og = view_offsets(go), *om = view_offsets(mv), *orr = view_offsets(rv);
    int64_t *ow = opt_offsets(j, IP_W), *ogi = opt_offsets(j, IP_GI), *ogw = opt_offsets(j, IP_GW),
            *ogb = opt_offsets(j, IP_GB);
    double *dw = dzeros(N), *db = dzeros(N);
    if (!ox || !og || !om || !orr || !dw || !db || (j->ip[IP_W] >= 0 && !ow)) {
        goto out;
    }
    /* PyTorch's layer_norm backward: xhat = (x - mean) * rstd, dy = g * w,
     * dx = rstd * (dy - mean(dy) - xhat * mean(dy * xhat)),
     * dw = sum over rows of g * xhat, db = sum over rows of g */
    for (int64_t r = 0; r < M; r++) {
        double mean = mk_ldd(bufs[j->ip[IP_MEAN]], mv->dtype, om[r]);
        double rstd = mk_ldd(bufs[j->ip[IP_RSTD]], rv->dtype, orr[r]);
        double sdy = 0.0, sdyx = 0.0;
        for (int64_t k = 0; k < N; k++) {
            double g = mk_ldd(gob, go->dtype, og[r * N + k]);
            double xh = (mk_ldd(xb, x->dtype, ox[r * N + k]) - mean) * rstd;
            double dy = g * opt_ld(j, bufs, IP_W, ow, k, 1.0);
            sdy += dy;
            sdyx += dy * xh;
            dw[k] += g * xh;
            db[k] += g;
        }
        for (int64_t k = 0; ogi && k < N; k++) {
            double g = mk_ldd(gob, go->dtype, og[r * N + k]);
            double xh = (mk_ldd(xb, x->dtype, ox[r * N + k]) - mean) * rstd;
            double dy = g * opt_ld(j, bufs, IP_W, ow, k, 1.0);
            opt_st(j, bufs, IP_GI, ogi, r * N + k, rstd * (dy - sdy / (double)N - xh * sdyx / (double)N));
        }
    }
    for (int64_t k = 0; k < N; k++) {
        opt_st(j, bufs, IP_GW, ogw, k, dw[k]);
        opt_st(j, bufs, IP_GB, ogb, k, db[k]);
    }
out:
    free(ox);
    free(og);
    free(om);
    free(orr);
    free(ow);
    free(ogi);
    free(ogw);
    free(ogb);
    free(dw);
    free(db);
}

OPS_EXPORT aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *mean,
    const aclTensor *rstd, const aclTensor *weightOptional, const aclTensor *biasOptional,
    const aclBoolArray *outputMask, aclTensor *gradInputOut, aclTensor *gradWeightOut, aclTensor *gradBiasOut,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnLayerNormBackwardGetWorkspaceSize), "aclnnLayerNormBackward");
    ph1_arg_tensor(&p, "gradOut", gradOut);
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_ints(&p, "normalizedShape", normalizedShape);
    ph1_arg_tensor(&p, "mean", mean);
    ph1_arg_tensor(&p, "rstd", rstd);
    ph1_arg_tensor(&p, "weightOptional", weightOptional);
    ph1_arg_tensor(&p, "biasOptional", biasOptional);
    ph1_arg_bools(&p, "outputMask", outputMask);
    ph1_arg_tensor(&p, "gradInputOut", gradInputOut);
    ph1_arg_tensor(&p, "gradWeightOut", gradWeightOut);
    ph1_arg_tensor(&p, "gradBiasOut", gradBiasOut);
    bool m[3] = {false, false, false};
    /* not null: gradOut, input, normalizedShape, mean, rstd, outputMask
     * (aclnn_layer_norm_backward.cpp:52-64, :270); outputMask has exactly 3
     * entries (:272-277); a requested output is not null (:278-286) */
    if (need_tensor(&p, gradOut, "gradOut") && need_tensor(&p, input, "input") &&
        need_ints(&p, normalizedShape, "normalizedShape") && need_tensor(&p, mean, "mean") &&
        need_tensor(&p, rstd, "rstd") && need_bools(&p, outputMask, "outputMask")) {
        if (outputMask->n != 3) {
            invalid(&p, "outputMask has %llu entries, expected 3", (unsigned long long)outputMask->n);
        }
        for (uint64_t i = 0; !p.rc && i < 3; i++) {
            m[i] = outputMask->v[i];
        }
    }
    if ((!m[0] || need_tensor(&p, gradInputOut, "gradInputOut")) &&
        (!m[1] || need_tensor(&p, gradWeightOut, "gradWeightOut")) &&
        (!m[2] || need_tensor(&p, gradBiasOut, "gradBiasOut")) &&
        /* dtypes (:78-107): all in the list, gradOut as input, weight f32 or input's */
        check_dtype(&p, gradOut, "gradOut", DT_LN) && check_dtype(&p, input, "input", DT_LN) &&
        check_dtype(&p, mean, "mean", DT_LN) && check_dtype(&p, rstd, "rstd", DT_LN) &&
        check_same_dtype(&p, gradOut, "gradOut", input, "input") &&
        opt_dtype(&p, weightOptional, "weightOptional") &&
        (!weightOptional || weightOptional->v.dtype == ACL_FLOAT ||
         check_same_dtype(&p, weightOptional, "weightOptional", input, "input")) &&
        opt_dtype(&p, biasOptional, "biasOptional") &&
        (!m[0] || check_dtype(&p, gradInputOut, "gradInputOut", DT_LN)) &&
        (!m[1] || check_dtype(&p, gradWeightOut, "gradWeightOut", DT_LN)) &&
        (!m[2] || check_dtype(&p, gradBiasOut, "gradBiasOut", DT_LN))) {
        /* normalizedShape 1 to 8 entries, input at least that many dims (:140-166) */
        if (normalizedShape->n > MK_MAX_DIMS || normalizedShape->n < 1) {
            invalid(&p, "normalizedShape has %llu entries, expected 1 to 8", (unsigned long long)normalizedShape->n);
        } else if (input->v.ndim < normalizedShape->n) {
            invalid(&p, "input has %u dims, fewer than normalizedShape's %llu", input->v.ndim,
                    (unsigned long long)normalizedShape->n);
        }
        /* input against normalizedShape (:168): the real loop runs i from
         * len - normLen up to normLen and compares input dim i + (len -
         * normLen), so for an input with more dims than twice normalizedShape
         * nothing is compared; the mock compares as the loop does and the
         * kernel takes N from input's trailing dims */
        uint64_t axis = p.rc ? 0 : input->v.ndim - normalizedShape->n;
        for (uint64_t i = axis; !p.rc && i < normalizedShape->n; i++) {
            if (normalizedShape->v[i] != input->v.dims[i + axis]) {
                invalid(&p, "normalizedShape[%llu] = %lld but input dim %llu is %lld", (unsigned long long)i,
                        (long long)normalizedShape->v[i], (unsigned long long)(i + axis),
                        (long long)input->v.dims[i + axis]);
            }
        }
        int64_t M = 0, N = 0;
        if (!p.rc) {
            rows_cols(input, normalizedShape, &M, &N);
        }
        /* weight/bias as many dims as normalizedShape and equal to it
         * (:173-187; the loop of :115 starts at 0 for them) */
        if (check_affine(&p, weightOptional, "weightOptional", normalizedShape) &&
            check_affine(&p, biasOptional, "biasOptional", normalizedShape) &&
            /* gradOut as input; mean as rstd, M elements (:190-199) */
            check_shape(&p, gradOut, "gradOut", input->v.dims, input->v.ndim) &&
            check_shape(&p, rstd, "rstd", mean->v.dims, mean->v.ndim)) {
            if (numel(&mean->v) != M) {
                invalid(&p, "mean has %lld elements, expected %lld (one per row)", (long long)numel(&mean->v),
                        (long long)M);
            } else if (m[1] && numel(&gradWeightOut->v) != N) {
                /* gradWeightOut and gradBiasOut hold N elements (:204-217) */
                invalid(&p, "gradWeightOut has %lld elements, expected %lld", (long long)numel(&gradWeightOut->v),
                        (long long)N);
            } else if (m[2] && numel(&gradBiasOut->v) != N) {
                invalid(&p, "gradBiasOut has %lld elements, expected %lld", (long long)numel(&gradBiasOut->v),
                        (long long)N);
            }
            if ((!m[0] || check_shape(&p, gradInputOut, "gradInputOut", input->v.dims, input->v.ndim)) &&
                make_exec(&p, k_layer_norm_backward, 0)) {
                mk_job *j = &p.e->job;
                j->ip[IP_GO] = add_in(&p, gradOut);
                j->ip[IP_X] = add_in(&p, input);
                j->ip[IP_MEAN] = add_in(&p, mean);
                j->ip[IP_RSTD] = add_in(&p, rstd);
                j->ip[IP_W] = weightOptional ? add_in(&p, weightOptional) : (int64_t)-1;
                j->ip[IP_B] = -1; /* bias is only checked: the gradients do not depend on it */
                j->ip[IP_GI] = m[0] ? add_out(&p, gradInputOut) : (int64_t)-1;
                j->ip[IP_GW] = m[1] ? add_out(&p, gradWeightOut) : (int64_t)-1;
                j->ip[IP_GB] = m[2] ? add_out(&p, gradBiasOut) : (int64_t)-1;
                j->ip[IP_M] = M;
                j->ip[IP_N] = N;
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(LayerNormBackward)
