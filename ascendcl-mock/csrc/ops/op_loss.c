/*
 * op_loss.c (libopapi.so): aclnnNLLLoss and aclnnNLLLossBackward.
 * Parameter lists (ops-nn v8.5.0): loss/nll_loss/op_api/aclnn_nll_loss.h:42-44
 * and loss/nll_loss_grad/op_api/aclnn_nll_loss_backward.h:45-48; every
 * tensor, weight included, is checked for null (aclnn_nll_loss.cpp:58-62 and
 * :187; aclnn_nll_loss_backward.cpp:54-59 and :173). Dtypes and shapes:
 * aclnn-facts.md B.1.2: self (N,C) or (C); target (N) or () of int64, int32
 * or uint8; weight (C) of self's dtype (torch_npu always passes one, B.1.1);
 * reduction 0 none, 1 mean, 2 sum; out (N) for none with a 2-D self, else
 * at most 1-D with one element (aclnn_nll_loss.cpp:152-163); totalWeightOut
 * (and the backward's totalWeight) any shape of one element (:169;
 * backward :141). weight (and in the backward gradOutput and totalWeight)
 * must have self's dtype (aclnn_nll_loss.cpp:88; backward :95-97); out and
 * totalWeightOut only need to receive self's dtype (:89-90; backward :98):
 * the mock takes any floating dtype. totalWeightOut is written only for
 * reduction mean or sum (aclnn_nll_loss.cpp:338): with none it is left
 * untouched.
 * mean = sum(w[t]·loss) / sum(w[t]) over the non-ignored targets, PyTorch's
 * rule (aclnn-facts.md "Mock notes"). A target outside [0, C) that is not
 * ignoreIndex is outside the documented range (ops-nn v8.5.0
 * loss/nll_loss/docs/aclnnNLLLoss.md:106: [0, C - 1]); a card's kernel
 * indexes weight and self with it (op_kernel/arch35/nll_loss_simt.h:46-48,
 * 78-80: an assertion, then the reads), so it may read out of bounds. The
 * mock counts it as misuse (mk_index_misuse) and reads nothing for it: the
 * forward's loss is nan, the backward leaves the row's gradient zero.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_TARGET[] = {ACL_INT64, ACL_INT32, ACL_UINT8, -1};

enum { IP_X, IP_T, IP_W, IP_OUT, IP_TW, IP_GRAD, IP_RED, IP_IGNORE };
enum { RED_NONE, RED_MEAN, RED_SUM };

/* n-th sample's class c element offset */
static int64_t x_off(const mk_view *x, int64_t n, int64_t c)
{
    return x->ndim == 2 ? n * x->strides[0] + c * x->strides[1] : c * x->strides[0];
}

static int64_t t_off(const mk_view *t, int64_t n) { return t->ndim ? n * t->strides[0] : 0; }

/* Counts the targets outside [0, C) that are not ignoreIndex as misuse. */
static void bad_targets(const char *op, int64_t bad, int64_t n, int64_t c, int64_t C, int64_t ignore)
{
    mk_index_misuse("%s: %lld target(s) outside [0, %lld) and not ignoreIndex %lld (first: %lld, of sample %lld); "
                    "a card may read out of bounds",
                    op, (long long)bad, (long long)C, (long long)ignore, (long long)c, (long long)n);
}

static void k_nll_loss(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *t = &j->slot[j->ip[IP_T]], *w = &j->slot[j->ip[IP_W]];
    const mk_view *o = &j->slot[j->ip[IP_OUT]], *tw = &j->slot[j->ip[IP_TW]];
    const void *xb = bufs[j->ip[IP_X]], *tb = bufs[j->ip[IP_T]], *wb = bufs[j->ip[IP_W]];
    void *ob = bufs[j->ip[IP_OUT]], *twb = bufs[j->ip[IP_TW]];
    int64_t N = x->ndim == 2 ? x->dims[0] : 1, C = x->dims[x->ndim - 1];
    int64_t red = j->ip[IP_RED], ignore = j->ip[IP_IGNORE];
    double sum = 0.0, wsum = 0.0;
    int64_t bad = 0, first = 0, first_c = 0;
    for (int64_t n = 0; n < N; n++) {
        int64_t c = mk_ldi(tb, t->dtype, t_off(t, n));
        double loss = 0.0, wc = 0.0;
        if (c != ignore) {
            if (c < 0 || c >= C) {
                loss = NAN;
                if (bad++ == 0) {
                    first = n;
                    first_c = c;
                }
            } else {
                wc = mk_ldd(wb, w->dtype, c * w->strides[0]);
                loss = -wc * mk_ldd(xb, x->dtype, x_off(x, n, c));
            }
        }
        if (red == RED_NONE && ob) {
            mk_std(ob, o->dtype, o->ndim ? n * o->strides[0] : 0, loss);
        }
        sum += loss;
        wsum += wc;
    }
    if (red != RED_NONE && ob) {
        mk_std(ob, o->dtype, 0, red == RED_MEAN ? sum / wsum : sum);
    }
    if (twb && red != RED_NONE) {
        mk_std(twb, tw->dtype, 0, wsum);
    }
    if (bad) {
        bad_targets("aclnnNLLLoss", bad, first, first_c, C, ignore);
    }
}

static void k_nll_loss_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *x = &j->slot[j->ip[IP_X]], *t = &j->slot[j->ip[IP_T]];
    const mk_view *w = &j->slot[j->ip[IP_W]], *tw = &j->slot[j->ip[IP_TW]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *tb = bufs[j->ip[IP_T]], *wb = bufs[j->ip[IP_W]];
    const void *twb = bufs[j->ip[IP_TW]];
    void *ob = bufs[j->ip[IP_OUT]];
    (void)x;
    if (!ob) {
        return;
    }
    int64_t N = o->ndim == 2 ? o->dims[0] : 1, C = o->dims[o->ndim - 1];
    int64_t red = j->ip[IP_RED], ignore = j->ip[IP_IGNORE];
    double total = twb ? mk_ldd(twb, tw->dtype, 0) : 1.0;
    double g0 = red != RED_NONE ? mk_ldd(gb, g->dtype, 0) : 0.0;
    int64_t bad = 0, first = 0, first_c = 0;
    for (int64_t n = 0; n < N; n++) {
        int64_t c = mk_ldi(tb, t->dtype, t_off(t, n));
        for (int64_t k = 0; k < C; k++) {
            mk_std(ob, o->dtype, x_off(o, n, k), 0.0);
        }
        if (c != ignore && (c < 0 || c >= C)) {
            if (bad++ == 0) {
                first = n;
                first_c = c;
            }
        }
        if (c == ignore || c < 0 || c >= C) {
            continue;
        }
        double gv = red == RED_NONE ? mk_ldd(gb, g->dtype, g->ndim ? n * g->strides[0] : 0) : g0;
        double v = -mk_ldd(wb, w->dtype, c * w->strides[0]) * gv;
        if (red == RED_MEAN) {
            v /= total;
        }
        mk_std(ob, o->dtype, x_off(o, n, c), v);
    }
    if (bad) {
        bad_targets("aclnnNLLLossBackward", bad, first, first_c, C, ignore);
    }
}

/* Shared phase-1 checks; N and C out. */
static bool check_nll(ph1 *p, const aclTensor *self, const aclTensor *target, const aclTensor *weight,
                      int64_t reduction, int64_t *N, int64_t *C)
{
    if (!check_dtype(p, self, "self", DT_FLOATS) || !check_ndim(p, self, "self", 1, 2) ||
        !check_dtype(p, target, "target", DT_TARGET) || !check_dtype(p, weight, "weight", DT_FLOATS) ||
        !check_same_dtype(p, self, "self", weight, "weight")) {
        return false;
    }
    *N = self->v.ndim == 2 ? self->v.dims[0] : 1;
    *C = self->v.dims[self->v.ndim - 1];
    if (self->v.ndim == 2) {
        if (!check_shape(p, target, "target", (int64_t[]){*N}, 1)) {
            return false;
        }
    } else if (!check_shape(p, target, "target", NULL, 0)) {
        return false;
    }
    if (!check_shape(p, weight, "weight", (int64_t[]){*C}, 1)) {
        return false;
    }
    if (reduction < 0 || reduction > 2) {
        return invalid(p, "reduction %lld is not 0 (none), 1 (mean) or 2 (sum)", (long long)reduction);
    }
    return true;
}

/* A reduced value: at most 1-D with one element. */
static bool check_one(ph1 *p, const aclTensor *t, const char *name)
{
    if (!p->rc && !(t->v.ndim <= 1 && numel(&t->v) == 1)) {
        return invalid(p, "%s must be a single element of at most one dimension", name);
    }
    return !p->rc;
}

/* A total weight: one element, any shape. */
static bool check_single(ph1 *p, const aclTensor *t, const char *name)
{
    if (!p->rc && numel(&t->v) != 1) {
        return invalid(p, "%s must hold a single element", name);
    }
    return !p->rc;
}

static const int32_t DT_LOSS_OUT[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, -1};

OPS_EXPORT aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                    const aclTensor *weight, int64_t reduction, int64_t ignoreIndex,
                                                    aclTensor *out, aclTensor *totalWeightOut, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnNLLLossGetWorkspaceSize), "aclnnNLLLoss");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "target", target);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_i64(&p, "reduction", reduction);
    ph1_arg_i64(&p, "ignoreIndex", ignoreIndex);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_tensor(&p, "totalWeightOut", totalWeightOut);
    int64_t N = 0, C = 0;
    if (need_tensor(&p, self, "self") && need_tensor(&p, target, "target") && need_tensor(&p, weight, "weight") &&
        need_tensor(&p, out, "out") && need_tensor(&p, totalWeightOut, "totalWeightOut") &&
        check_nll(&p, self, target, weight, reduction, &N, &C) && check_dtype(&p, out, "out", DT_LOSS_OUT) &&
        check_dtype(&p, totalWeightOut, "totalWeightOut", DT_LOSS_OUT) &&
        check_single(&p, totalWeightOut, "totalWeightOut")) {
        if (reduction == RED_NONE) {
            if (self->v.ndim == 2) {
                check_shape(&p, out, "out", (int64_t[]){N}, 1);
            } else {
                check_one(&p, out, "out");
            }
        } else {
            check_one(&p, out, "out");
        }
        if (make_exec(&p, k_nll_loss, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_X] = add_in(&p, self);
            j->ip[IP_T] = add_in(&p, target);
            j->ip[IP_W] = add_in(&p, weight);
            j->ip[IP_OUT] = add_out(&p, out);
            j->ip[IP_TW] = add_out(&p, totalWeightOut);
            j->ip[IP_RED] = reduction;
            j->ip[IP_IGNORE] = ignoreIndex;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(NLLLoss)

OPS_EXPORT aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                            const aclTensor *target, const aclTensor *weight,
                                                            int64_t reduction, int64_t ignoreIndex,
                                                            const aclTensor *totalWeight, aclTensor *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnNLLLossBackwardGetWorkspaceSize), "aclnnNLLLossBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "target", target);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_i64(&p, "reduction", reduction);
    ph1_arg_i64(&p, "ignoreIndex", ignoreIndex);
    ph1_arg_tensor(&p, "totalWeight", totalWeight);
    ph1_arg_tensor(&p, "out", out);
    int64_t N = 0, C = 0;
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_tensor(&p, target, "target") && need_tensor(&p, weight, "weight") &&
        need_tensor(&p, totalWeight, "totalWeight") && need_tensor(&p, out, "out") &&
        check_nll(&p, self, target, weight, reduction, &N, &C) &&
        check_same_dtype(&p, self, "self", gradOutput, "gradOutput") &&
        check_same_dtype(&p, self, "self", totalWeight, "totalWeight") && check_dtype(&p, out, "out", DT_LOSS_OUT) &&
        check_single(&p, totalWeight, "totalWeight") &&
        check_shape(&p, out, "out (self's shape)", self->v.dims, self->v.ndim)) {
        if (reduction == RED_NONE && self->v.ndim == 2) {
            check_shape(&p, gradOutput, "gradOutput", (int64_t[]){N}, 1);
        } else {
            check_one(&p, gradOutput, "gradOutput");
        }
        if (make_exec(&p, k_nll_loss_backward, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_GRAD] = add_in(&p, gradOutput);
            j->ip[IP_X] = add_in(&p, self);
            j->ip[IP_T] = add_in(&p, target);
            j->ip[IP_W] = add_in(&p, weight);
            j->ip[IP_TW] = add_in(&p, totalWeight);
            j->ip[IP_OUT] = add_out(&p, out);
            j->ip[IP_RED] = reduction;
            j->ip[IP_IGNORE] = ignoreIndex;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(NLLLossBackward)
