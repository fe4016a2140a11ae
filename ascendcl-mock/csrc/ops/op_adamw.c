/*
 * op_adamw.c (libopapi.so): aclnnApplyAdamWV2 of operators III (batch
 * `ops-a`), one fused AdamW step updating varRef, mRef, vRef (and, with
 * amsgrad, maxGradNormOptionalRef) in place. Parameter list (hicann/ops-nn
 * v8.5.0): optim/apply_adam_w_v2/op_host/op_api/aclnn_apply_adam_w_v2.h:25-28.
 *
 * The step, as the kernel computes it (optim/apply_adam_w_v2/op_kernel/apply_adam_w_v2_fp.h),
 * which is torch.optim.AdamW's single-tensor step:
 *   t = step + 1 (:96, :114: `step` holds the steps taken so far, PyTorch's
 *     state["step"] before its increment; the tensor is not written back);
 *   g = maximize ? -grad : grad (:200-203);
 *   var *= 1 - lr * weightDecay (:121, :205-206);
 *   m += (g - m) (1 - beta1) (:208-214);  v = v beta2 + g^2 (1 - beta2) (:216-224);
 *   amsgrad: maxGradNorm = max(maxGradNorm, v) and the denominator uses it
 *     (:227-236, written back only then: :269-271);
 *   denom = sqrt(v or maxGradNorm) / sqrt(1 - beta2^t) + eps (:116, :119, :238-244);
 *   var -= lr / (1 - beta1^t) * m / denom (:115, :118, :247-253).
 * A card computes in f32 (the f16/bf16 tensors cast to f32 and back,
 * aclnn_apply_adam_w_v2.cpp:196-226, or the b16 kernel); the mock computes
 * in double and rounds each result once into its tensor's dtype.
 *
 * Checks, in the real op's order (aclnn_apply_adam_w_v2.cpp:91-119):
 * varRef, mRef, vRef, maxGradNormOptionalRef (only when amsgrad), grad, step
 * not null (:41-54); varRef, mRef, vRef, maxGradNormOptionalRef (when given),
 * grad each f32, f16 or bf16 (:35-36, :101-111; mixed dtypes are taken and
 * cast, :121-135); step f32 or int64 (:38-39, :113); mRef, vRef,
 * maxGradNormOptionalRef (when given) and grad of varRef's shape (:78-83);
 * step of one element (:84-87). The floats are not checked. An empty varRef
 * leaves everything unwritten (:168-173).
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_ADAMW[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};
static const int32_t DT_ADAMW_STEP[] = {ACL_FLOAT, ACL_INT64, -1};

/* job->ip layout */
enum { IP_VAR, IP_M, IP_V, IP_MAX, IP_GRAD, IP_STEP, IP_AMSGRAD, IP_MAXIMIZE };
/* job->p layout */
enum { P_LR, P_BETA1, P_BETA2, P_WD, P_EPS };

static void k_adamw(const mk_job *j, void *const *bufs)
{
    const mk_view *var = &j->slot[j->ip[IP_VAR]], *m = &j->slot[j->ip[IP_M]], *v = &j->slot[j->ip[IP_V]];
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *st = &j->slot[j->ip[IP_STEP]];
    bool amsgrad = j->ip[IP_AMSGRAD] != 0, maximize = j->ip[IP_MAXIMIZE] != 0;
    const mk_view *mx = amsgrad ? &j->slot[j->ip[IP_MAX]] : NULL;
    void *vb = bufs[j->ip[IP_VAR]], *mb = bufs[j->ip[IP_M]], *sb = bufs[j->ip[IP_V]];
    void *xb = amsgrad ? bufs[j->ip[IP_MAX]] : NULL;
    const void *gb = bufs[j->ip[IP_GRAD]], *tb = bufs[j->ip[IP_STEP]];
    double lr = j->p[P_LR], b1 = j->p[P_BETA1], b2 = j->p[P_BETA2], wd = j->p[P_WD], eps = j->p[P_EPS];
    int64_t *ov = view_offsets(var), *om = view_offsets(m), *os = view_offsets(v), *og = view_offsets(g);
    int64_t *ox = mx ? view_offsets(mx) : NULL, *ot = view_offsets(st);
    int64_t n = numel(var);
    if (ov && om && os && og && ot && vb && mb && sb && (!amsgrad || (ox && xb))) {
        double t = (st->dtype == ACL_INT64 ? (double)mk_ldi(tb, st->dtype, ot[0]) : mk_ldd(tb, st->dtype, ot[0])) + 1.0;
        double step_size = lr / (1.0 - pow(b1, t)), bc2_sqrt = sqrt(1.0 - pow(b2, t));
        for (int64_t i = 0; i < n; i++) {
            double grad = mk_ldd(gb, g->dtype, og[i]);
            if (maximize) {
                grad = -grad;
            }
            double p = mk_ldd(vb, var->dtype, ov[i]) * (1.0 - lr * wd);
            double avg = mk_ldd(mb, m->dtype, om[i]);
            avg += (grad - avg) * (1.0 - b1);
            double sq = mk_ldd(sb, v->dtype, os[i]) * b2 + grad * grad * (1.0 - b2);
            double used = sq;
            if (amsgrad) {
                double old = mk_ldd(xb, mx->dtype, ox[i]);
                used = old > sq ? old : sq;
                mk_std(xb, mx->dtype, ox[i], used);
            }
            double denom = sqrt(used) / bc2_sqrt + eps;
            mk_std(vb, var->dtype, ov[i], p - step_size * avg / denom);
            mk_std(mb, m->dtype, om[i], avg);
            mk_std(sb, v->dtype, os[i], sq);
        }
    }
    free(ov);
    free(om);
    free(os);
    free(og);
    free(ox);
    free(ot);
}

OPS_EXPORT aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef,
                                                         aclTensor *maxGradNormOptionalRef, const aclTensor *grad,
                                                         const aclTensor *step, float lr, float beta1, float beta2,
                                                         float weightDecay, float eps, bool amsgrad, bool maximize,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnApplyAdamWV2GetWorkspaceSize), "aclnnApplyAdamWV2");
    ph1_arg_tensor(&p, "varRef", varRef);
    ph1_arg_tensor(&p, "mRef", mRef);
    ph1_arg_tensor(&p, "vRef", vRef);
    ph1_arg_tensor(&p, "maxGradNormOptionalRef", maxGradNormOptionalRef);
    ph1_arg_tensor(&p, "grad", grad);
    ph1_arg_tensor(&p, "step", step);
    ph1_arg_f64(&p, "lr", lr);
    ph1_arg_f64(&p, "beta1", beta1);
    ph1_arg_f64(&p, "beta2", beta2);
    ph1_arg_f64(&p, "weightDecay", weightDecay);
    ph1_arg_f64(&p, "eps", eps);
    ph1_arg_i64(&p, "amsgrad", amsgrad ? 1 : 0);
    ph1_arg_i64(&p, "maximize", maximize ? 1 : 0);
    const aclTensor *mx = maxGradNormOptionalRef;
    if (need_tensor(&p, varRef, "varRef") && need_tensor(&p, mRef, "mRef") && need_tensor(&p, vRef, "vRef") &&
        (amsgrad ? need_tensor(&p, mx, "maxGradNormOptionalRef (amsgrad is true)")
                 : opt_tensor(&p, mx, "maxGradNormOptionalRef")) &&
        need_tensor(&p, grad, "grad") && need_tensor(&p, step, "step") &&
        check_dtype(&p, varRef, "varRef", DT_ADAMW) && check_dtype(&p, mRef, "mRef", DT_ADAMW) &&
        check_dtype(&p, vRef, "vRef", DT_ADAMW) && (!mx || check_dtype(&p, mx, "maxGradNormOptionalRef", DT_ADAMW)) &&
        check_dtype(&p, grad, "grad", DT_ADAMW) && check_dtype(&p, step, "step", DT_ADAMW_STEP) &&
        check_shape(&p, mRef, "mRef (varRef's shape)", varRef->v.dims, varRef->v.ndim) &&
        check_shape(&p, vRef, "vRef (varRef's shape)", varRef->v.dims, varRef->v.ndim) &&
        (!mx || check_shape(&p, mx, "maxGradNormOptionalRef (varRef's shape)", varRef->v.dims, varRef->v.ndim)) &&
        check_shape(&p, grad, "grad (varRef's shape)", varRef->v.dims, varRef->v.ndim)) {
        if (numel(&step->v) != 1) {
            invalid(&p, "step has %lld elements; it must have one", (long long)numel(&step->v));
        } else if (make_exec(&p, k_adamw, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_VAR] = add_inout(&p, varRef);
            j->ip[IP_M] = add_inout(&p, mRef);
            j->ip[IP_V] = add_inout(&p, vRef);
            /* a given maxGradNorm is copied back in any case (aclnn_apply_adam_w_v2.cpp:238-246), but
             * the kernel reads and changes it only with amsgrad (apply_adam_w_v2_fp.h:110-112, :269-271) */
            j->ip[IP_MAX] = mx ? add_inout(&p, mx) : (int64_t)-1;
            j->ip[IP_GRAD] = add_in(&p, grad);
            j->ip[IP_STEP] = add_in(&p, step);
            j->ip[IP_AMSGRAD] = amsgrad;
            j->ip[IP_MAXIMIZE] = maximize;
            j->p[P_LR] = lr;
            j->p[P_BETA1] = beta1;
            j->p[P_BETA2] = beta2;
            j->p[P_WD] = weightDecay;
            j->p[P_EPS] = eps;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ApplyAdamWV2)
