/*
 * op_max_dim.c (libopapi.so), operators III batch ops3b: aclnnMaxDim, the
 * maximum along one dim with its index (torch.max(x, dim, keepdim)).
 * Parameter list: ops-math v8.5.0 math/arg_max_with_value/op_api/
 * aclnn_max_dim.h:46-48.
 *
 * Rules (math/arg_max_with_value/op_api/aclnn_max_dim.cpp, v8.5.0):
 * - self, out, indices null 161001 (:81-86);
 * - self f32, f16, i64, bool or bf16 on 910B (:38-41, :72-76); out of
 *   self's dtype (:77); indices of any dtype: the op computes int32
 *   indices and casts them to indices' dtype (:163, :172);
 * - self, out, indices at most 8 dims (:88-93); dim in [-n, n), a 0-d self
 *   as [-1, 0] (:95-109); all 161002;
 * - an empty self succeeds and writes nothing (:138-142), even reducing a
 *   dim of size 0 (which torch.max refuses);
 * - out and indices must have the reduced shape (keepdim: the dim kept as
 *   1) (:169-170); a bool self is compared as float (:149-151).
 * Ties and NaN are the ArgMaxWithValue kernel's, which the aclnn source does
 * not show: the mock takes the first maximum and lets NaN win (its first
 * index), as torch.max on the CPU does.
 */
#include "op_internal.h"

#include <math.h>

/* aclnn_max_dim.cpp:38-41 (910B to 910E) */
static const int32_t DT_MAX_DIM_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BOOL, ACL_BF16, -1};

enum { IP_X, IP_OUT, IP_IDX, IP_DIM, IP_KEEP, IP_NOTHING };

/* v (out or indices) seen with the reduced dim present (size 1, stride 0). */
static mk_view with_dim(const mk_view *v, uint32_t dim, bool keep, uint32_t xnd)
{
    mk_view r = *v;
    if (keep || xnd == 0) {
        return r;
    }
    for (uint32_t k = xnd - 1; k > dim; k--) {
        r.dims[k] = v->dims[k - 1];
        r.strides[k] = v->strides[k - 1];
    }
    r.dims[dim] = 1;
    r.strides[dim] = 0;
    r.ndim = xnd;
    return r;
}

static void k_max_dim(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    const mk_view *x = &j->slot[j->ip[IP_X]];
    uint32_t dim = (uint32_t)j->ip[IP_DIM];
    bool keep = j->ip[IP_KEEP] != 0;
    mk_view o = with_dim(&j->slot[j->ip[IP_OUT]], dim, keep, x->ndim);
    mk_view ix = with_dim(&j->slot[j->ip[IP_IDX]], dim, keep, x->ndim);
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]], *ib = bufs[j->ip[IP_IDX]];
    if (!xb || !ob || !ib) {
        return;
    }
    int64_t outer, len, inner;
    split_axis(x, dim, &outer, &len, &inner);
    bool fl = mk_dtype_is_float(x->dtype);
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t i = 0; i < inner; i++) {
            int64_t best = 0;
            double bf = 0;
            int64_t bi = 0;
            for (int64_t c = 0; c < len; c++) {
                int64_t e = axis_offset(x, dim, a, c, i);
                if (fl) {
                    double v = mk_ldd(xb, x->dtype, e);
                    if (c == 0 || (!isnan(bf) && (isnan(v) || v > bf))) {
                        bf = v;
                        best = c;
                    }
                } else {
                    int64_t v = mk_ldi(xb, x->dtype, e);
                    if (c == 0 || v > bi) {
                        bi = v;
                        best = c;
                    }
                }
            }
            int64_t oe = axis_offset(&o, dim, a, 0, i), ie = axis_offset(&ix, dim, a, 0, i);
            if (fl) {
                mk_std(ob, o.dtype, oe, bf);
            } else {
                mk_sti(ob, o.dtype, oe, bi);
            }
            /* int32 indices cast to indices' dtype (aclnn_max_dim.cpp:163, :172) */
            if (mk_dtype_is_float(ix.dtype)) {
                mk_std(ib, ix.dtype, ie, (double)best);
            } else {
                mk_sti(ib, ix.dtype, ie, best);
            }
        }
    }
}

OPS_EXPORT aclnnStatus aclnnMaxDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                                   aclTensor *indices, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMaxDimGetWorkspaceSize), "aclnnMaxDim");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_i64(&p, "keepdim", keepdim);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_tensor(&p, "indices", indices);
    uint32_t d = 0;
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && need_tensor(&p, indices, "indices") &&
        check_dtype(&p, self, "self", DT_MAX_DIM_910B) && check_same_dtype(&p, self, "self", out, "out") &&
        check_dtype(&p, indices, "indices", DT_ALL) && check_ndim(&p, self, "self", 0, 8) &&
        check_ndim(&p, out, "out", 0, 8) && check_ndim(&p, indices, "indices", 0, 8)) {
        if (!norm_dim(dim, self->v.ndim, &d)) {
            int64_t n = self->v.ndim ? self->v.ndim : 1;
            invalid(&p, "dim %lld must be in [%lld, %lld] for a %u-dimensional self", (long long)dim, (long long)-n,
                    (long long)(n - 1), self->v.ndim);
        }
    }
    bool empty = !p.rc && numel(&self->v) == 0;
    if (!p.rc && !empty) {
        int64_t dims[MK_MAX_DIMS];
        uint32_t nd = 0;
        for (uint32_t k = 0; k < self->v.ndim; k++) {
            if (k != d) {
                dims[nd++] = self->v.dims[k];
            } else if (keepdim) {
                dims[nd++] = 1;
            }
        }
        (void)(check_shape(&p, indices, "indices", dims, nd) && check_shape(&p, out, "out", dims, nd));
    }
    if (make_exec(&p, k_max_dim, 0)) {
        p.e->job.ip[IP_NOTHING] = empty;
        if (!empty) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_IDX] = add_out(&p, indices);
            p.e->job.ip[IP_DIM] = d;
            p.e->job.ip[IP_KEEP] = keepdim;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(MaxDim)
