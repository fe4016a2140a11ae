/*
 * op_softmax_probs.c (libopapi.so): aclnnSoftmax and aclnnSoftmaxBackward
 * along one dim (operators III, batch "activations"). Parameter lists
 * (hicann/ops-nn v8.5.0): activation/softmax_v2/op_api/aclnn_softmax.h:23-24
 * and activation/softmax_grad/op_host/op_api/aclnn_softmax_backward.h:25-27
 * (the backward's `output` is the forward's probabilities). Each row is
 * reduced in double and the result rounded once into the out dtype.
 *
 * Checks, in the real ops' order:
 * - Softmax: self, out not null (aclnn_softmax.cpp:32-35); an empty self
 *   succeeds before any other check (:92-94); self and out in the 910B list
 *   f32, f16, f64, bf16 (:40-41, chosen for 910B..910E at :45-50, checked at
 *   :55-57); dim in [-n, n) with a 0-d tensor counting as 1-d (:60-70); at
 *   most 8 dims and out of self's shape (:72-76). Out may have another float
 *   dtype: the result is cast into it (:121).
 * - SoftmaxBackward: gradOutput, output, out not null
 *   (aclnn_softmax_backward.cpp:32-37); empty gradOutput or output succeeds
 *   (:93-95); gradOutput and output in f32, f16, bf16 and of one dtype
 *   (:40-41, :49-63); dim as above (:65-77); at most 8 dims, output and out
 *   of gradOutput's shape (:79-87). out's dtype is not checked there (the
 *   result is cast into it, :139); the mock takes the float dtypes.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_SOFTMAX_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, -1};
static const int32_t DT_SOFTMAX_GRAD[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};
static const int32_t DT_SOFTMAX_GRAD_OUT[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, -1};

enum { IP_X, IP_OUT, IP_GRAD, IP_DIM };

static void k_softmax(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    uint32_t dim = (uint32_t)j->ip[IP_DIM];
    int64_t outer, len, inner;
    split_axis(x, dim, &outer, &len, &inner);
    if (!ob) {
        return;
    }
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t i = 0; i < inner; i++) {
            double mx = -INFINITY;
            for (int64_t k = 0; k < len; k++) {
                double v = mk_ldd(xb, x->dtype, axis_offset(x, dim, a, k, i));
                mx = v > mx || isnan(v) ? v : mx;
            }
            double sum = 0.0;
            for (int64_t k = 0; k < len; k++) {
                sum += exp(mk_ldd(xb, x->dtype, axis_offset(x, dim, a, k, i)) - mx);
            }
            for (int64_t k = 0; k < len; k++) {
                double v = mk_ldd(xb, x->dtype, axis_offset(x, dim, a, k, i));
                /* a row of -inf gives nan (0/0), as torch.softmax does */
                mk_std(ob, o->dtype, axis_offset(o, dim, a, k, i), exp(v - mx) / sum);
            }
        }
    }
}

static void k_softmax_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *y = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *yb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    uint32_t dim = (uint32_t)j->ip[IP_DIM];
    int64_t outer, len, inner;
    split_axis(y, dim, &outer, &len, &inner);
    if (!ob) {
        return;
    }
    /* grad_input = output * (grad - sum(grad * output)) along dim (PyTorch's _softmax_backward_data) */
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t i = 0; i < inner; i++) {
            double dot = 0.0;
            for (int64_t k = 0; k < len; k++) {
                dot += mk_ldd(gb, g->dtype, axis_offset(g, dim, a, k, i)) *
                       mk_ldd(yb, y->dtype, axis_offset(y, dim, a, k, i));
            }
            for (int64_t k = 0; k < len; k++) {
                double gv = mk_ldd(gb, g->dtype, axis_offset(g, dim, a, k, i));
                double yv = mk_ldd(yb, y->dtype, axis_offset(y, dim, a, k, i));
                mk_std(ob, o->dtype, axis_offset(o, dim, a, k, i), yv * (gv - dot));
            }
        }
    }
}

static bool check_softmax_dim(ph1 *p, int64_t dim, const aclTensor *t, uint32_t *out)
{
    if (!p->rc && !norm_dim(dim, t->v.ndim, out)) {
        return invalid(p, "dim %lld is out of range for a %u-dimensional tensor (dim must be in [-n, n))",
                       (long long)dim, t->v.ndim);
    }
    return !p->rc;
}

static bool is_empty(const aclTensor *t) { return numel(&t->v) == 0; }

OPS_EXPORT aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSoftmaxGetWorkspaceSize), "aclnnSoftmax");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_tensor(&p, "out", out);
    uint32_t d = 0;
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out")) {
        if (is_empty(self)) {
            make_exec(&p, k_softmax, 0); /* nothing to do (aclnn_softmax.cpp:92-94) */
            if (!p.rc) {
                p.e->job.ip[IP_X] = add_in(&p, self);
                p.e->job.ip[IP_OUT] = add_out(&p, out);
            }
        } else if (check_dtype(&p, self, "self", DT_SOFTMAX_910B) && check_dtype(&p, out, "out", DT_SOFTMAX_910B) &&
                   check_softmax_dim(&p, dim, self, &d) && check_ndim(&p, self, "self", 0, 8) &&
                   check_shape(&p, out, "out", self->v.dims, self->v.ndim) && make_exec(&p, k_softmax, 0)) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_DIM] = d;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Softmax)

OPS_EXPORT aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output,
                                                            int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSoftmaxBackwardGetWorkspaceSize), "aclnnSoftmaxBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_tensor(&p, "out", out);
    uint32_t d = 0;
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, output, "output") &&
        need_tensor(&p, out, "out")) {
        if (is_empty(gradOutput) || is_empty(output)) {
            make_exec(&p, k_softmax_backward, 0); /* (aclnn_softmax_backward.cpp:93-95) */
            if (!p.rc) {
                p.e->job.ip[IP_GRAD] = add_in(&p, gradOutput);
                p.e->job.ip[IP_X] = add_in(&p, output);
                p.e->job.ip[IP_OUT] = add_out(&p, out);
            }
        } else if (check_dtype(&p, gradOutput, "gradOutput", DT_SOFTMAX_GRAD) &&
                   check_dtype(&p, output, "output", DT_SOFTMAX_GRAD) &&
                   check_same_dtype(&p, output, "output", gradOutput, "gradOutput") &&
                   check_dtype(&p, out, "out", DT_SOFTMAX_GRAD_OUT) && check_softmax_dim(&p, dim, gradOutput, &d) &&
                   check_ndim(&p, gradOutput, "gradOutput", 0, 8) &&
                   check_shape(&p, output, "output", gradOutput->v.dims, gradOutput->v.ndim) &&
                   check_shape(&p, out, "out", gradOutput->v.dims, gradOutput->v.ndim) &&
                   make_exec(&p, k_softmax_backward, 0)) {
            p.e->job.ip[IP_GRAD] = add_in(&p, gradOutput);
            p.e->job.ip[IP_X] = add_in(&p, output);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_DIM] = d;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SoftmaxBackward)
