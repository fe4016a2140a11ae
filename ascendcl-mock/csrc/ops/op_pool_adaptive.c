/*
 * op_pool_adaptive.c (libopapi.so): aclnnAdaptiveAvgPool2d and its backward,
 * on (C,H,W) or (N,C,H,W). Parameter lists (ops-nn v8.5.0):
 * pooling/adaptive_avg_pool3d/op_host/op_api/aclnn_adaptive_avg_pool2d.h:25-27
 * and pooling/adaptive_avg_pool3d_grad/op_host/op_api/
 * aclnn_adaptive_avg_pool2d_backward.h:38-40.
 *
 * Forward phase-1 rules (aclnn_adaptive_avg_pool2d.cpp):
 *   self, outputSize, out null -> 161001 (:57-62);
 *   self and out f32/f16/bf16 on A2/A3, out of self's dtype (:75-91);
 *   self 3- or 4-D, out of the same rank and leading dims (:93-117);
 *   outputSize has 2 entries, each > 0 and equal to out's H, W (:160-178).
 * Backward phase-1 rules (aclnn_adaptive_avg_pool2d_backward.cpp):
 *   gradOutput, self, out null -> 161001 (:55-60);
 *   gradOutput and self of one rank, no negative dim (:64-90);
 *   out 3- or 4-D, of self's rank; out's and gradOutput's leading dims are
 *     self's (:95-131);
 *   gradOutput and self f32/f16/bf16 on A2/A3, gradOutput of self's dtype
 *     (:134-157).
 * The mock also requires out of self's shape and dtype (it is self's
 * gradient).
 * Bins are PyTorch's: output row i averages input rows
 * floor(i·H/OH) .. ceil((i+1)·H/OH) − 1 (likewise for columns), so bins may
 * overlap and differ in size. The backward adds gradOutput / bin area to
 * every input element of the bin. Sums in double. Both kernels run plane by
 * plane (op_pool_planes.c: threaded, or in (n, c) order with
 * ASCENDCL_MOCK_KERNEL_THREADS=0; the same bits).
 */
#include "op_internal.h"
#include "op_parallel.h"
#include "op_pool_planes.h"

#include <stdlib.h>

enum { IP_X, IP_OUT, IP_GO };

static int64_t bin_start(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
static int64_t bin_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

/* One (n, c) plane of out: each bin's sum in (h, w) order, in double. */
void adaptive_avg_pool_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad,
                             int64_t *first)
{
    const mk_view *x = &pj->x, *o = &pj->o;
    int64_t H = x->dims[2], W = x->dims[3], OH = o->dims[2], OW = o->dims[3];
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t h0 = bin_start(oh, H, OH), h1 = bin_end(oh, H, OH);
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = bin_start(ow, W, OW), w1 = bin_end(ow, W, OW);
            double s = 0.0;
            for (int64_t h = h0; h < h1; h++) {
                for (int64_t w = w0; w < w1; w++) {
                    s += mk_ldd(pj->xb, x->dtype, off4(x, n, c, h, w));
                }
            }
            mk_std(pj->ob, o->dtype, off4(o, n, c, oh, ow), s / (double)((h1 - h0) * (w1 - w0)));
        }
    }
}

static void k_adaptive_avg_pool(const mk_job *j, void *const *bufs)
{
    pool_job pj = {.x = as_nchw(&j->slot[j->ip[IP_X]]), .o = as_nchw(&j->slot[j->ip[IP_OUT]]),
                   .xb = bufs[j->ip[IP_X]], .ob = bufs[j->ip[IP_OUT]], .plane = adaptive_avg_pool_plane};
    pj.N = pj.o.dims[0];
    pj.C = pj.o.dims[1];
    int64_t bad, first;
    if (pj.ob) {
        pool_planes_run(&pj, mk_kernel_threads(), &bad, &first);
    }
}

/* One (n, c) plane of gradInput: zeroed, then each gradOutput element of
 * the plane, over its bin's area, added to the bin, in (oh, ow) order. */
void adaptive_avg_pool_backward_plane(const pool_job *pj, int64_t n, int64_t c, double *acc, int64_t *bad,
                                      int64_t *first)
{
    const mk_view *go = &pj->go, *gi = &pj->gi;
    int64_t H = gi->dims[2], W = gi->dims[3], OH = go->dims[2], OW = go->dims[3];
    for (int64_t k = 0; k < H * W; k++) {
        acc[k] = 0.0;
    }
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t h0 = bin_start(oh, H, OH), h1 = bin_end(oh, H, OH);
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t w0 = bin_start(ow, W, OW), w1 = bin_end(ow, W, OW);
            double g = mk_ldd(pj->gob, go->dtype, off4(go, n, c, oh, ow)) / (double)((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; h++) {
                for (int64_t w = w0; w < w1; w++) {
                    acc[h * W + w] += g;
                }
            }
        }
    }
    for (int64_t h = 0; h < H; h++) {
        for (int64_t w = 0; w < W; w++) {
            mk_std(pj->gib, gi->dtype, off4(gi, n, c, h, w), acc[h * W + w]);
        }
    }
}

static void k_adaptive_avg_pool_backward(const mk_job *j, void *const *bufs)
{
    pool_job pj = {.go = as_nchw(&j->slot[j->ip[IP_GO]]), .gi = as_nchw(&j->slot[j->ip[IP_OUT]]),
                   .gob = bufs[j->ip[IP_GO]], .gib = bufs[j->ip[IP_OUT]], .plane = adaptive_avg_pool_backward_plane};
    pj.N = pj.gi.dims[0];
    pj.C = pj.gi.dims[1];
    pj.scratch = pj.gi.dims[2] * pj.gi.dims[3];
    int64_t bad, first;
    if (pj.gib) {
        pool_planes_run(&pj, mk_kernel_threads(), &bad, &first);
    }
}

/* out (or gradOutput) has self's rank and leading dims */
static bool same_lead(ph1 *p, const aclTensor *self, const aclTensor *t, const char *name)
{
    if (p->rc) {
        return false;
    }
    if (t->v.ndim != self->v.ndim) {
        return invalid(p, "%s has %u dimensions, self %u", name, t->v.ndim, self->v.ndim);
    }
    for (uint32_t i = 0; i + 2 < self->v.ndim; i++) {
        if (t->v.dims[i] != self->v.dims[i]) {
            return invalid(p, "%s dim %u is %lld, expected self's %lld", name, i, (long long)t->v.dims[i],
                           (long long)self->v.dims[i]);
        }
    }
    return true;
}

OPS_EXPORT aclnnStatus aclnnAdaptiveAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAdaptiveAvgPool2dGetWorkspaceSize), "aclnnAdaptiveAvgPool2d");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "outputSize", outputSize);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_ints(&p, outputSize, "outputSize") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_FLOATS) && check_dtype(&p, out, "out", DT_FLOATS) &&
        check_same_dtype(&p, self, "self", out, "out") && check_ndim(&p, self, "self", 3, 4) &&
        same_lead(&p, self, out, "out") && check_len(&p, outputSize, "outputSize", 2, -1)) {
        for (int i = 0; i < 2 && !p.rc; i++) {
            int64_t want = out->v.dims[out->v.ndim - 2 + (uint32_t)i];
            if (outputSize->v[i] <= 0 || outputSize->v[i] != want) {
                invalid(&p, "outputSize[%d] = %lld must be > 0 and equal out's %lld", i, (long long)outputSize->v[i],
                        (long long)want);
            }
        }
        if (make_exec(&p, k_adaptive_avg_pool, 0)) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(AdaptiveAvgPool2d)

OPS_EXPORT aclnnStatus aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                      const aclTensor *self, aclTensor *out,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize), "aclnnAdaptiveAvgPool2dBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        check_ndim(&p, self, "self", 3, 4) && same_lead(&p, self, gradOutput, "gradOutput") &&
        check_dtype(&p, gradOutput, "gradOutput", DT_FLOATS) && check_dtype(&p, self, "self", DT_FLOATS) &&
        check_same_dtype(&p, self, "self", gradOutput, "gradOutput") &&
        check_same_dtype(&p, self, "self", out, "out") &&
        check_shape(&p, out, "out", self->v.dims, self->v.ndim) &&
        make_exec(&p, k_adaptive_avg_pool_backward, 0)) {
        p.e->job.ip[IP_GO] = add_in(&p, gradOutput);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(AdaptiveAvgPool2dBackward)
