/*
 * op_activation.c (libopapi.so): aclnnRelu and aclnnThresholdBackward.
 * Parameter lists (ops-nn v8.5.0): activation/relu/op_api/aclnn_relu.h:49
 * (`out` declared const); activation/threshold_grad_v2_d/op_host/op_api/
 * aclnn_threshold_backward.h:52-54 (out = gradOutput where self > threshold,
 * else 0: aclnn-facts.md B.1.2). The real ThresholdBackward checks only
 * gradOutput and self for null (aclnn_threshold_backward.cpp:51-55); the mock
 * also answers 161001 for a null threshold or out, which the real op would
 * dereference.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

/* Relu and ThresholdBackward dtypes (aclnn-facts.md B.1.2) */
static const int32_t DT_RELU[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8, -1};

enum { IP_X, IP_OUT, IP_GRAD };
enum { P_THRESHOLD };

static void k_relu(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            if (mk_dtype_is_float(o->dtype)) {
                float v = mk_ldf(xb, x->dtype, ox[i]);
                mk_stf(ob, o->dtype, oo[i], v > 0.0f || isnan(v) ? v : 0.0f); /* nan propagates, as torch.relu */
            } else {
                int64_t v = mk_ldi(xb, x->dtype, ox[i]);
                mk_sti(ob, o->dtype, oo[i], v > 0 ? v : 0);
            }
        }
    }
    free(ox);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnReluGetWorkspaceSize), "aclnnRelu");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    /* out has self's dtype and shape (aclnn_relu.cpp:64, :71) */
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_RELU) &&
        check_same_dtype(&p, self, "self", out, "out") && check_shape(&p, out, "out", self->v.dims, self->v.ndim) &&
        make_exec(&p, k_relu, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Relu)

static void k_threshold_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *og = bcast_offsets(g, o->dims, o->ndim), *ox = bcast_offsets(x, o->dims, o->ndim);
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    if (og && ox && oo && ob) {
        double th = j->p[P_THRESHOLD];
        for (int64_t i = 0; i < n; i++) {
            double v = mk_ldd(xb, x->dtype, ox[i]);
            if (v > th) {
                mk_std(ob, o->dtype, oo[i], mk_ldd(gb, g->dtype, og[i]));
            } else {
                mk_std(ob, o->dtype, oo[i], 0.0);
            }
        }
    }
    free(og);
    free(ox);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                              const aclScalar *threshold, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnThresholdBackwardGetWorkspaceSize), "aclnnThresholdBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_scalar(&p, "threshold", threshold);
    ph1_arg_tensor(&p, "out", out);
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_scalar(&p, threshold, "threshold") && need_tensor(&p, out, "out") &&
        check_dtype(&p, gradOutput, "gradOutput", DT_RELU) && check_dtype(&p, self, "self", DT_RELU) &&
        /* gradOutput and out have self's dtype (aclnn_threshold_backward.cpp:76-77) */
        check_same_dtype(&p, gradOutput, "gradOutput", self, "self") &&
        check_same_dtype(&p, out, "out", self, "self")) {
        if (!bcast(&gradOutput->v, &self->v, dims, &nd)) {
            invalid(&p, "gradOutput and self do not broadcast");
        } else if (check_shape(&p, out, "out (the broadcast result)", dims, nd) &&
                   make_exec(&p, k_threshold_backward, 0)) {
            p.e->job.ip[IP_GRAD] = add_in(&p, gradOutput);
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.p[P_THRESHOLD] = scalar_f(threshold);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ThresholdBackward)
