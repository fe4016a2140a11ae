/*
 * op_dropout.c (libopapi.so), operators III batch ops3b: aclnnDropoutDoMask
 * (out = self * mask / (1 - prob)) and aclnnDropoutBackward (out =
 * gradOutput * mask * scale), the bit mask of aclnnDropoutGenMask (bit i%8
 * of byte i/8 for element i, op_dropout_gen_mask.c). Parameter lists:
 * ops-math v8.5.0 random/drop_out_do_mask/op_api/aclnn_dropout_do_mask.h:25-27
 * and aclnn_dropout_backward.h:25-27.
 *
 * DoMask (aclnn_dropout_do_mask.cpp, v8.5.0): self, mask, out null 161001
 * (:49-55); self castable to out (:77), self f32, f16 or bf16 on 910B
 * (:44-45, :81), mask UINT8 (:47, :84); prob in [0, 1] (:93-100); self at
 * most 8 dims, out of self's shape (:104-105), mask at least
 * align(numel, 128) / 8 elements (:107-113); all 161002. An empty self
 * writes nothing (:170-174). prob 0 copies self, prob 1 gives zeros
 * (:145-148); otherwise keep = 1 - prob converted to self's dtype (:150-152)
 * and the kernel computes in f32 select(bit, x * (1 / keep), 0), rounded
 * once (drop_out_do_mask.h:225, :116-143); the result is cast to out's
 * dtype (:186-191).
 * Backward (aclnn_dropout_backward.cpp, v8.5.0): the same with gradOutput,
 * p = scale == 0 ? 1 : 1 - 1 / scale (:89-92) in [0, 1] (:94-106, so
 * scale is 0 or at least 1), and mask of exactly align(numel, 128) / 8
 * elements (:113-119).
 * The mask is read in its view order (it is made contiguous first, :179).
 */
#include "op_dropout.h"
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

/* aclnn_dropout_do_mask.cpp:44-45 = aclnn_dropout_backward.cpp:40-41 (910B) */
static const int32_t DT_DO_MASK_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};
static const int32_t DT_U8[] = {ACL_UINT8, -1};

enum { IP_X, IP_MASK, IP_OUT, IP_MODE, IP_NOTHING };
enum { MODE_COPY, MODE_ZERO, MODE_MASK };
enum { P_RECIP };

static void k_do_mask(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    const mk_view *x = &j->slot[j->ip[IP_X]], *m = &j->slot[j->ip[IP_MASK]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]], *mb = bufs[j->ip[IP_MASK]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *xo = view_offsets(x), *mo = view_offsets(m), *oo = view_offsets(o);
    int64_t n = numel(x);
    int mode = (int)j->ip[IP_MODE];
    float recip = (float)j->p[P_RECIP];
    if (xb && mb && ob && xo && mo && oo) {
        for (int64_t i = 0; i < n; i++) {
            float v = mk_ldf(xb, x->dtype, xo[i]);
            if (mode == MODE_ZERO) {
                v = 0.0f;
            } else if (mode == MODE_MASK) {
                bool keep = (mk_ldi(mb, ACL_UINT8, mo[i / 8]) >> (i % 8)) & 1;
                v = keep ? v * recip : 0.0f;
            }
            /* the kernel's result is in self's dtype, then cast to out's */
            uint64_t tmp = 0;
            mk_stf(&tmp, x->dtype, 0, v);
            mk_std(ob, o->dtype, oo[i], mk_ldd(&tmp, x->dtype, 0));
        }
    }
    free(xo);
    free(mo);
    free(oo);
}

/* Both ops: x is self or gradOutput; p the drop probability; exact_mask the
 * Backward's "mask of exactly the size" (else at least). */
static void do_mask(ph1 *p, const aclTensor *x, const char *xname, const aclTensor *mask, double prob,
                    bool exact_mask, aclTensor *out)
{
    if (!need_tensor(p, x, xname) || !need_tensor(p, mask, "mask") || !need_tensor(p, out, "out") ||
        !ew_check_cast(p, x->v.dtype, out, "out") || !check_dtype(p, x, xname, DT_DO_MASK_910B) ||
        !check_dtype(p, mask, "mask", DT_U8)) {
        return;
    }
    if (prob > 1 || prob < 0 || isnan(prob)) {
        invalid(p, exact_mask ? "scale gives p = %g, which must be in [0, 1] (scale 0 or at least 1)"
                              : "prob %g must be in [0, 1]",
                prob);
        return;
    }
    if (!check_ndim(p, x, xname, 0, 8) || !check_shape(p, out, "out", x->v.dims, x->v.ndim)) {
        return;
    }
    int64_t need = dropout_mask_bytes(numel(&x->v)), have = numel(&mask->v);
    if (exact_mask ? have != need : have < need) {
        invalid(p, "mask must have %s%lld elements (one bit per element, rounded up to 128) but has %lld",
                exact_mask ? "" : "at least ", (long long)need, (long long)have);
        return;
    }
    bool empty = numel(&x->v) == 0;
    if (!make_exec(p, k_do_mask, 0)) {
        return;
    }
    p->e->job.ip[IP_NOTHING] = empty;
    if (!empty) {
        p->e->job.ip[IP_X] = add_in(p, x);
        p->e->job.ip[IP_MASK] = add_in(p, mask);
        p->e->job.ip[IP_OUT] = add_out(p, out);
        p->e->job.ip[IP_MODE] = dropout_prob_is(prob, 0) ? MODE_COPY : dropout_prob_is(prob, 1) ? MODE_ZERO : MODE_MASK;
        /* keep = 1 - p in x's dtype (:150-152), 1/keep in f32 (drop_out_do_mask.h:225) */
        uint64_t tmp = 0;
        mk_stf(&tmp, x->v.dtype, 0, (float)(1 - prob));
        p->e->job.p[P_RECIP] = 1.0f / mk_ldf(&tmp, x->v.dtype, 0);
    }
}

OPS_EXPORT aclnnStatus aclnnDropoutDoMaskGetWorkspaceSize(const aclTensor *self, const aclTensor *mask, double prob,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnDropoutDoMaskGetWorkspaceSize), "aclnnDropoutDoMask");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "mask", mask);
    ph1_arg_f64(&p, "prob", prob);
    ph1_arg_tensor(&p, "out", out);
    do_mask(&p, self, "self", mask, prob, false, out);
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(DropoutDoMask)

OPS_EXPORT aclnnStatus aclnnDropoutBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *mask,
                                                            double scale, aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnDropoutBackwardGetWorkspaceSize), "aclnnDropoutBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "mask", mask);
    ph1_arg_f64(&p, "scale", scale);
    ph1_arg_tensor(&p, "out", out);
    /* aclnn_dropout_backward.cpp:89-92 */
    double prob = dropout_prob_is(scale, 0) ? 1 : 1 - 1 / scale;
    do_mask(&p, gradOutput, "gradOutput", mask, prob, true, out);
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(DropoutBackward)
