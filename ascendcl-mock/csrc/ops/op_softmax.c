/*
 * op_softmax.c (libopapi.so): aclnnLogSoftmax and aclnnLogSoftmaxBackward
 * along one dim. Parameter lists (ops-nn v8.5.0): activation/logsoftmax_v2/
 * op_host/op_api/aclnn_logsoftmax.h:34-35 and activation/logsoftmax_grad/
 * op_host/op_api/aclnn_logsoftmax_backward.h:25-27 (the backward's `output`
 * is the forward's log-probabilities: aclnn-facts.md B.1.2). Each row is reduced in
 * double and the result stored in the out dtype.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_SOFTMAX[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, -1};

enum { IP_X, IP_OUT, IP_GRAD, IP_DIM };

static void k_log_softmax(const mk_job *j, void *const *bufs)
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
            double lse = mx + log(sum);
            if (isinf(mx)) {
                lse = mx; /* every entry -inf (or +inf): no nan from inf - inf */
            }
            for (int64_t k = 0; k < len; k++) {
                double v = mk_ldd(xb, x->dtype, axis_offset(x, dim, a, k, i));
                mk_std(ob, o->dtype, axis_offset(o, dim, a, k, i), v - lse);
            }
        }
    }
}

static void k_log_softmax_backward(const mk_job *j, void *const *bufs)
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
    /* grad_input = grad - exp(output) * sum(grad) along dim (PyTorch's _log_softmax_backward_data) */
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t i = 0; i < inner; i++) {
            double sum = 0.0;
            for (int64_t k = 0; k < len; k++) {
                sum += mk_ldd(gb, g->dtype, axis_offset(g, dim, a, k, i));
            }
            for (int64_t k = 0; k < len; k++) {
                double gv = mk_ldd(gb, g->dtype, axis_offset(g, dim, a, k, i));
                double yv = mk_ldd(yb, y->dtype, axis_offset(y, dim, a, k, i));
                mk_std(ob, o->dtype, axis_offset(o, dim, a, k, i), gv - exp(yv) * sum);
            }
        }
    }
}

static bool check_dim(ph1 *p, int64_t dim, const aclTensor *t, uint32_t *out)
{
    if (!p->rc && !norm_dim(dim, t->v.ndim, out)) {
        return invalid(p, "dim %lld is out of range for a %u-dimensional tensor", (long long)dim, t->v.ndim);
    }
    return !p->rc;
}

OPS_EXPORT aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnLogSoftmaxGetWorkspaceSize), "aclnnLogSoftmax");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_tensor(&p, "out", out);
    uint32_t d = 0;
    /* self and out in the supported list, shapes equal (aclnn_logsoftmax.cpp:55-57, :92) */
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_SOFTMAX) &&
        check_dtype(&p, out, "out", DT_SOFTMAX) && check_shape(&p, out, "out", self->v.dims, self->v.ndim) &&
        check_dim(&p, dim, self, &d) && make_exec(&p, k_log_softmax, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_DIM] = d;
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(LogSoftmax)

OPS_EXPORT aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output,
                                                               int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                                                               aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnLogSoftmaxBackwardGetWorkspaceSize), "aclnnLogSoftmaxBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_tensor(&p, "out", out);
    uint32_t d = 0;
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, output, "output") &&
        need_tensor(&p, out, "out") && check_dtype(&p, gradOutput, "gradOutput", DT_FLOATS) &&
        /* gradOutput and output share a dtype; shapes equal (aclnn_logsoftmax_backward.cpp:58, :82-83) */
        check_same_dtype(&p, gradOutput, "gradOutput", output, "output") && check_dtype(&p, out, "out", DT_FLOATS) &&
        check_shape(&p, output, "output", gradOutput->v.dims, gradOutput->v.ndim) &&
        check_shape(&p, out, "out", gradOutput->v.dims, gradOutput->v.ndim) && check_dim(&p, dim, gradOutput, &d) &&
        make_exec(&p, k_log_softmax_backward, 0)) {
        p.e->job.ip[IP_GRAD] = add_in(&p, gradOutput);
        p.e->job.ip[IP_X] = add_in(&p, output);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_DIM] = d;
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(LogSoftmaxBackward)
