/*
 * op_pool.c (libopapi.so): aclnnMaxPool2dWithIndices and its backward, on a
 * (C,H,W) or (N,C,H,W) input. Parameter lists (ops-nn v8.5.0):
 * pooling/max_pool3d_with_argmax_v2/op_host/op_api/
 * aclnn_max_pool2d_with_indices.h:78-80 and pooling/max_pool3d_grad_with_argmax/
 * op_host/op_api/aclnn_max_pool2d_with_indices_backward.h:83-86.
 *
 * Forward phase-1 rules (aclnn_max_pool2d_with_indices.cpp):
 *   self, kernelSize, stride, padding, dilation, out, indices null -> 161001
 *     (:69-80, applied :384);
 *   self f32/f16/bf16 on A2/A3 (:39-40, :119), out of self's dtype (:122),
 *     indices int32 or int64 (:49-50, :128);
 *   self 3- or 4-D (:148-151);
 *   kernelSize 1 or 2 entries, stride 0, 1 or 2 (empty: stride = kernel),
 *     padding and dilation 1 or 2 (:296-311); kernel > 0 (:314-320); stride
 *     > 0 (:322-329); 0 <= padding <= kernel/2 (:332-342); dilation 1 on
 *     A2/A3 (:355-369; 950 takes any dilation > 0: the kernel honours it);
 *   C, H, W non-zero (:237-244); out = PoolingOutShape per side with ceil
 *     mode (:203-216: the last window must start inside the input or the
 *     left padding), > 0 (:246-254); out and indices of that shape (:256-290).
 * Backward phase-1 rules (aclnn_max_pool2d_with_indices_backward.cpp):
 *   gradOutput, self, indices, kernelSize, stride, padding, dilation,
 *     gradInput null -> 161001 (:117-127);
 *   self f32 only on A2/A3 (:39), gradOutput and gradInput of self's dtype
 *     (:136-140); indices int32 on A2/A3 (:49-50, :144; the list's int8 is the
 *     mask form, which the mock does not model); the attribute rules of the
 *     forward (CheckShape :367-440, pad <= half the effective kernel
 *     :327-342); indices and gradOutput of the forward's out shape (:285,
 *     :359); gradInput of self's shape (:307).
 * Kernel (PyTorch's max_pool2d_with_indices): a window starts at
 * o·stride − pad, its taps step by dilation and are clipped to the input;
 * a value wins when it is '>' the max so far or NaN (the first of equal
 * maxima is kept; A2/A3 inputs may not hold NaN or -inf, aclnn-facts.md B.1.2); the index is h·W + w
 * in its (n, c) plane (aclnn-facts.md B.1.3 Mock notes). The backward zeroes
 * gradInput and adds each gradOutput element at its index. An index outside
 * its (n, c) plane cannot come from the forward; a card's kernel would write
 * where it points (out of bounds). The mock counts it as misuse
 * (mk_index_misuse) and skips it.
 * Both kernels run plane by plane (op_pool_planes.c: threaded, or in (n, c)
 * order with ASCENDCL_MOCK_KERNEL_THREADS=0; the same bits).
 */
#include "op_internal.h"
#include "op_parallel.h"
#include "op_pool_planes.h"

#include <math.h>
#include <stdlib.h>

enum { IP_X, IP_OUT, IP_IDX, IP_GO, IP_GI, IP_KH, IP_KW, IP_SH, IP_SW, IP_PH, IP_PW, IP_DH, IP_DW };

typedef struct pool_attr {
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} pool_attr;

static int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode)
{
    int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t q = num / s;
    if (num % s != 0 && (num < 0) != (s < 0)) {
        q--; /* rounds toward -infinity */
    }
    int64_t out = q + 1;
    if (ceil_mode && (out - 1) * s >= in + pad) {
        out--;
    }
    return out;
}

/* attribute checks shared by both phases; a1 = 1 or 2 entries, a012 = 0, 1 or 2 */
static bool pool_attrs(ph1 *p, const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
                       const aclIntArray *dilation, pool_attr *a)
{
    if (kernelSize->n < 1 || kernelSize->n > 2) {
        return invalid(p, "the size of kernelSize must be one or two, got %llu", (unsigned long long)kernelSize->n);
    }
    if (stride->n > 2) {
        return invalid(p, "the size of stride must be zero, one or two, got %llu", (unsigned long long)stride->n);
    }
    if (padding->n < 1 || padding->n > 2) {
        return invalid(p, "the size of padding must be one or two, got %llu", (unsigned long long)padding->n);
    }
    if (dilation->n < 1 || dilation->n > 2) {
        return invalid(p, "the size of dilation must be one or two, got %llu", (unsigned long long)dilation->n);
    }
    a->kh = kernelSize->v[0];
    a->kw = kernelSize->n == 2 ? kernelSize->v[1] : a->kh;
    if (a->kh <= 0 || a->kw <= 0) {
        return invalid(p, "the kernel size must be > 0, got %lld x %lld", (long long)a->kh, (long long)a->kw);
    }
    a->sh = stride->n == 0 ? a->kh : stride->v[0];
    a->sw = stride->n == 0 ? a->kw : stride->n == 2 ? stride->v[1] : a->sh;
    if (a->sh <= 0 || a->sw <= 0) {
        return invalid(p, "the stride must be > 0, got %lld x %lld", (long long)a->sh, (long long)a->sw);
    }
    a->ph = padding->v[0];
    a->pw = padding->n == 2 ? padding->v[1] : a->ph;
    if (a->ph < 0 || a->pw < 0 || a->ph > a->kh / 2 || a->pw > a->kw / 2) {
        return invalid(p, "padding must be >= 0 and <= half of the kernel size, got %lld x %lld for a %lld x %lld "
                          "kernel",
                       (long long)a->ph, (long long)a->pw, (long long)a->kh, (long long)a->kw);
    }
    a->dh = dilation->v[0];
    a->dw = dilation->n == 2 ? dilation->v[1] : a->dh;
    if (a->dh != 1 || a->dw != 1) {
        return invalid(p, "dilation only supports 1 on this SoC (Ascend910B1), got %lld x %lld", (long long)a->dh,
                       (long long)a->dw);
    }
    return true;
}

/* the forward's out shape for self (3- or 4-D) */
static bool pool_out_shape(ph1 *p, const aclTensor *self, const pool_attr *a, bool ceil_mode, int64_t *od)
{
    uint32_t nd = self->v.ndim;
    const int64_t *d = self->v.dims;
    int64_t C = d[nd - 3], H = d[nd - 2], W = d[nd - 1];
    if (C == 0 || H == 0 || W == 0) {
        return invalid(p, "expected non-zero C, H, W, got %lld, %lld, %lld", (long long)C, (long long)H,
                       (long long)W);
    }
    int64_t oh = pool_out_size(H, a->kh, a->ph, a->sh, a->dh, ceil_mode);
    int64_t ow = pool_out_size(W, a->kw, a->pw, a->sw, a->dw, ceil_mode);
    if (oh <= 0 || ow <= 0) {
        return invalid(p, "input %lldx%lldx%lld gives an output of %lldx%lldx%lld", (long long)C, (long long)H,
                       (long long)W, (long long)C, (long long)oh, (long long)ow);
    }
    for (uint32_t i = 0; i < nd; i++) {
        od[i] = d[i];
    }
    od[nd - 2] = oh;
    od[nd - 1] = ow;
    return true;
}

static void put_attrs(mk_job *j, const pool_attr *a)
{
    j->ip[IP_KH] = a->kh;
    j->ip[IP_KW] = a->kw;
    j->ip[IP_SH] = a->sh;
    j->ip[IP_SW] = a->sw;
    j->ip[IP_PH] = a->ph;
    j->ip[IP_PW] = a->pw;
    j->ip[IP_DH] = a->dh;
    j->ip[IP_DW] = a->dw;
}

/* One (n, c) plane of out and indices. */
void max_pool_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad, int64_t *first)
{
    const mk_view *x = &pj->x, *o = &pj->o, *ix = &pj->ix;
    int64_t H = x->dims[2], W = x->dims[3];
    for (int64_t oh = 0; oh < o->dims[2]; oh++) {
        for (int64_t ow = 0; ow < o->dims[3]; ow++) {
            int64_t hs = oh * pj->sh - pj->ph, ws = ow * pj->sw - pj->pw;
            int64_t he = hs + (pj->kh - 1) * pj->dh + 1, we = ws + (pj->kw - 1) * pj->dw + 1;
            he = he < H ? he : H;
            we = we < W ? we : W;
            while (hs < 0) {
                hs += pj->dh;
            }
            while (ws < 0) {
                ws += pj->dw;
            }
            int64_t best = hs * W + ws;
            double mx = -INFINITY;
            for (int64_t h = hs; h < he; h += pj->dh) {
                for (int64_t w = ws; w < we; w += pj->dw) {
                    double v = mk_ldd(pj->xb, x->dtype, off4(x, n, c, h, w));
                    if (v > mx || isnan(v)) {
                        mx = v;
                        best = h * W + w;
                    }
                }
            }
            if (pj->ob) {
                mk_std(pj->ob, o->dtype, off4(o, n, c, oh, ow), mx);
            }
            if (pj->ixb) {
                mk_sti(pj->ixb, ix->dtype, off4(ix, n, c, oh, ow), best);
            }
        }
    }
}

static void attrs_to(pool_job *pj, const int64_t *q)
{
    pj->kh = q[IP_KH];
    pj->kw = q[IP_KW];
    pj->sh = q[IP_SH];
    pj->sw = q[IP_SW];
    pj->ph = q[IP_PH];
    pj->pw = q[IP_PW];
    pj->dh = q[IP_DH];
    pj->dw = q[IP_DW];
}

static void k_max_pool(const mk_job *j, void *const *bufs)
{
    pool_job pj = {.x = as_nchw(&j->slot[j->ip[IP_X]]), .o = as_nchw(&j->slot[j->ip[IP_OUT]]),
                   .ix = as_nchw(&j->slot[j->ip[IP_IDX]]), .xb = bufs[j->ip[IP_X]], .ob = bufs[j->ip[IP_OUT]],
                   .ixb = bufs[j->ip[IP_IDX]], .plane = max_pool_plane};
    attrs_to(&pj, j->ip);
    pj.N = pj.o.dims[0];
    pj.C = pj.o.dims[1];
    int64_t bad, first;
    pool_planes_run(&pj, mk_kernel_threads(), &bad, &first);
}

/* One (n, c) plane of gradInput: zeroed, then each gradOutput element of
 * the plane added at its index, in (oh, ow) order. */
void max_pool_backward_plane(const pool_job *pj, int64_t n, int64_t c, double *acc, int64_t *bad, int64_t *first)
{
    const mk_view *go = &pj->go, *ix = &pj->ix, *gi = &pj->gi;
    int64_t H = gi->dims[2], W = gi->dims[3];
    for (int64_t k = 0; k < H * W; k++) {
        acc[k] = 0.0;
    }
    for (int64_t oh = 0; oh < go->dims[2]; oh++) {
        for (int64_t ow = 0; ow < go->dims[3]; ow++) {
            int64_t at = mk_ldi(pj->ib, ix->dtype, off4(ix, n, c, oh, ow));
            if (at >= 0 && at < H * W) {
                acc[at] += mk_ldd(pj->gob, go->dtype, off4(go, n, c, oh, ow));
            } else {
                *first = (*bad)++ == 0 ? at : *first;
            }
        }
    }
    for (int64_t h = 0; h < H; h++) {
        for (int64_t w = 0; w < W; w++) {
            mk_std(pj->gib, gi->dtype, off4(gi, n, c, h, w), acc[h * W + w]);
        }
    }
}

static void k_max_pool_backward(const mk_job *j, void *const *bufs)
{
    pool_job pj = {.go = as_nchw(&j->slot[j->ip[IP_GO]]), .ix = as_nchw(&j->slot[j->ip[IP_IDX]]),
                   .gi = as_nchw(&j->slot[j->ip[IP_GI]]), .gob = bufs[j->ip[IP_GO]], .ib = bufs[j->ip[IP_IDX]],
                   .gib = bufs[j->ip[IP_GI]], .plane = max_pool_backward_plane};
    int64_t H = pj.gi.dims[2], W = pj.gi.dims[3];
    pj.N = pj.gi.dims[0];
    pj.C = pj.gi.dims[1];
    pj.scratch = H * W;
    int64_t bad, first;
    if (!pj.gib || !pool_planes_run(&pj, mk_kernel_threads(), &bad, &first)) {
        return;
    }
    if (bad) {
        mk_index_misuse("aclnnMaxPool2dWithIndicesBackward: %lld index(es) outside the %lld x %lld plane (first: %lld); "
                        "a card may write out of bounds",
                        (long long)bad, (long long)H, (long long)W, (long long)first);
    }
}

static void journal_attrs(ph1 *p, const aclIntArray *k, const aclIntArray *s, const aclIntArray *pad,
                          const aclIntArray *d, bool ceilMode)
{
    ph1_arg_ints(p, "kernelSize", k);
    ph1_arg_ints(p, "stride", s);
    ph1_arg_ints(p, "padding", pad);
    ph1_arg_ints(p, "dilation", d);
    ph1_arg_i64(p, "ceilMode", ceilMode);
}

OPS_EXPORT aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
                                                                 const aclIntArray *stride, const aclIntArray *padding,
                                                                 const aclIntArray *dilation, bool ceilMode,
                                                                 aclTensor *out, aclTensor *indices,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMaxPool2dWithIndicesGetWorkspaceSize), "aclnnMaxPool2dWithIndices");
    ph1_arg_tensor(&p, "self", self);
    journal_attrs(&p, kernelSize, stride, padding, dilation, ceilMode);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_tensor(&p, "indices", indices);
    pool_attr a;
    int64_t od[4];
    if (need_tensor(&p, self, "self") && need_ints(&p, kernelSize, "kernelSize") && need_ints(&p, stride, "stride") &&
        need_ints(&p, padding, "padding") && need_ints(&p, dilation, "dilation") && need_tensor(&p, out, "out") &&
        need_tensor(&p, indices, "indices") && check_dtype(&p, self, "self", DT_FLOATS) &&
        check_same_dtype(&p, self, "self", out, "out") && check_dtype(&p, indices, "indices", DT_INDEX) &&
        check_ndim(&p, self, "self", 3, 4) && pool_attrs(&p, kernelSize, stride, padding, dilation, &a) &&
        pool_out_shape(&p, self, &a, ceilMode, od) && check_shape(&p, out, "out", od, self->v.ndim) &&
        check_shape(&p, indices, "indices", od, self->v.ndim) && make_exec(&p, k_max_pool, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_IDX] = add_out(&p, indices);
        put_attrs(&p.e->job, &a);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(MaxPool2dWithIndices)

static const int32_t DT_F32[] = {ACL_FLOAT, -1};
static const int32_t DT_I32[] = {ACL_INT32, -1};

OPS_EXPORT aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize), "aclnnMaxPool2dWithIndicesBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "indices", indices);
    journal_attrs(&p, kernelSize, stride, padding, dilation, ceilMode);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    pool_attr a;
    int64_t od[4];
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_tensor(&p, indices, "indices") && need_ints(&p, kernelSize, "kernelSize") &&
        need_ints(&p, stride, "stride") && need_ints(&p, padding, "padding") && need_ints(&p, dilation, "dilation") &&
        need_tensor(&p, gradInput, "gradInput") && check_dtype(&p, self, "self", DT_F32) &&
        check_same_dtype(&p, self, "self", gradOutput, "gradOutput") &&
        check_same_dtype(&p, self, "self", gradInput, "gradInput") && check_dtype(&p, indices, "indices", DT_I32) &&
        check_ndim(&p, self, "self", 3, 4) && pool_attrs(&p, kernelSize, stride, padding, dilation, &a) &&
        pool_out_shape(&p, self, &a, ceilMode, od) && check_shape(&p, indices, "indices", od, self->v.ndim) &&
        check_shape(&p, gradOutput, "gradOutput", od, self->v.ndim) &&
        check_shape(&p, gradInput, "gradInput", self->v.dims, self->v.ndim) &&
        make_exec(&p, k_max_pool_backward, 0)) {
        p.e->job.ip[IP_GO] = add_in(&p, gradOutput);
        p.e->job.ip[IP_IDX] = add_in(&p, indices);
        p.e->job.ip[IP_GI] = add_out(&p, gradInput);
        put_attrs(&p.e->job, &a);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(MaxPool2dWithIndicesBackward)
