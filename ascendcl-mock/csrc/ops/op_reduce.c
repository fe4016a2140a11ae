/*
 * op_reduce.c (libopapi.so): aclnnReduceSum and aclnnArgMax.
 * Parameter lists (ops-math v8.5.0): math/reduce_sum_op/op_host/op_api/
 * aclnn_reduce_sum.h:22-23, ReduceSum(self, dims, keepDims, dtype, out) with
 * self, dims and out checked for null (aclnn_reduce_sum.cpp:55-57, :126) and
 * `dtype` required to equal out's dtype (:78, 161002 at :129);
 * math/arg_max_v2/op_api/aclnn_argmax.h:47-48, ArgMax(self, dim, keepdim,
 * out) with out int32 or int64 (aclnn-facts.md B.1.2). Empty `dims` reduces every dimension (PyTorch's sum(dim=[])).
 * Floating sums accumulate in double, integer sums in int64. ArgMax returns
 * the first index of the maximum, nan counting as the maximum (PyTorch).
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

#define REDUCE_WORKSPACE 512

enum { IP_X, IP_OUT, IP_DIM, IP_MASK };

static void k_reduce_sum(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    /* acc index of each element of x: contiguous over the kept dims, 0 stride over reduced ones */
    mk_view acc_v = *x;
    int64_t count = 1;
    for (int64_t d = (int64_t)x->ndim - 1; d >= 0; d--) {
        if (j->ip[IP_MASK + d]) {
            acc_v.strides[d] = 0;
        } else {
            acc_v.strides[d] = count;
            count *= x->dims[d];
        }
    }
    bool fl = mk_dtype_is_float(o->dtype) || mk_dtype_is_float(x->dtype);
    double *accf = fl ? calloc((size_t)count, sizeof(double)) : NULL;
    int64_t *acci = fl ? NULL : calloc((size_t)count, sizeof(int64_t));
    int64_t *ox = view_offsets(x), *ai = view_offsets(&acc_v), *oo = view_offsets(o);
    int64_t n = numel(x);
    if ((!accf && !acci) || !oo || !ob || (n && (!ox || !ai))) {
        goto out;
    }
    for (int64_t i = 0; i < n; i++) {
        if (fl) {
            accf[ai[i]] += mk_ldd(xb, x->dtype, ox[i]);
        } else {
            acci[ai[i]] += mk_ldi(xb, x->dtype, ox[i]);
        }
    }
    for (int64_t i = 0; i < count; i++) {
        if (fl) {
            mk_std(ob, o->dtype, oo[i], accf[i]);
        } else {
            mk_sti(ob, o->dtype, oo[i], acci[i]);
        }
    }
out:
    free(accf);
    free(acci);
    free(ox);
    free(ai);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                                                      aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnReduceSumGetWorkspaceSize), "aclnnReduceSum");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "dims", dims);
    ph1_arg_i64(&p, "keepDims", keepDims);
    ph1_arg_i64(&p, "dtype", dtype);
    ph1_arg_tensor(&p, "out", out);
    bool mask[MK_MAX_DIMS] = {false};
    if (need_tensor(&p, self, "self") && need_ptr(&p, dims, "dims") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_ALL) && check_dtype(&p, out, "out", DT_ALL)) {
        if (!aclmocknn_is_live(dims, MK_INT_ARRAY)) {
            invalid(&p, "dims is not a live aclIntArray");
        } else if (out->v.dtype != (int32_t)dtype) {
            invalid(&p, "out has dtype %s but dtype is %s", mk_dtype_name(out->v.dtype), mk_dtype_name(dtype));
        } else if (mk_dtype_is_float(self->v.dtype) && !mk_dtype_is_float(dtype)) {
            invalid(&p, "a floating self cannot be summed into %s", mk_dtype_name(dtype));
        }
        for (uint64_t i = 0; !p.rc && i < dims->n; i++) {
            uint32_t d = 0;
            if (!norm_dim(dims->v[i], self->v.ndim, &d)) {
                invalid(&p, "dims[%llu] = %lld is out of range for a %u-dimensional self", (unsigned long long)i,
                        (long long)dims->v[i], self->v.ndim);
            } else if (self->v.ndim && mask[d]) {
                invalid(&p, "dimension %u appears twice in dims", d);
            } else {
                mask[d] = true;
            }
        }
        int64_t od[MK_MAX_DIMS];
        uint32_t nd = 0;
        for (uint32_t d = 0; d < self->v.ndim; d++) {
            bool red = mask[d] || (dims->n == 0);
            if (!red) {
                od[nd++] = self->v.dims[d];
            } else if (keepDims) {
                od[nd++] = 1;
            }
        }
        if (check_shape(&p, out, "out", od, nd) && make_exec(&p, k_reduce_sum, REDUCE_WORKSPACE)) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            for (uint32_t d = 0; d < self->v.ndim; d++) {
                p.e->job.ip[IP_MASK + d] = mask[d] || dims->n == 0;
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ReduceSum)

static void k_argmax(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    uint32_t dim = (uint32_t)j->ip[IP_DIM];
    int64_t outer, len, inner;
    split_axis(x, dim, &outer, &len, &inner);
    int64_t *oo = view_offsets(o);
    if (!oo || !ob) {
        free(oo);
        return;
    }
    for (int64_t a = 0; a < outer; a++) {
        for (int64_t i = 0; i < inner; i++) {
            int64_t best_k = 0;
            double best = 0.0;
            for (int64_t k = 0; k < len; k++) {
                double v = mk_ldd(xb, x->dtype, axis_offset(x, dim, a, k, i));
                if (k == 0 || (!isnan(best) && (v > best || isnan(v)))) {
                    best = v;
                    best_k = k;
                }
            }
            mk_sti(ob, o->dtype, oo[a * inner + i], best_k);
        }
    }
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnArgMaxGetWorkspaceSize), "aclnnArgMax");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_i64(&p, "keepdim", keepdim);
    ph1_arg_tensor(&p, "out", out);
    uint32_t d = 0;
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_NUMERIC) &&
        check_dtype(&p, out, "out", DT_INDEX)) {
        /* dim in [-n, n-1], [-1, 0] for a 0-dim self (aclnn_argmax.cpp:86-98); the
         * real op does not check out's shape in phase 1 (its ViewCopy would
         * fail later), the mock does */
        if (!norm_dim(dim, self->v.ndim, &d)) {
            invalid(&p, "dim %lld is out of range for a %u-dimensional self", (long long)dim, self->v.ndim);
        } else if (self->v.ndim && self->v.dims[d] == 0) {
            invalid(&p, "argmax over an empty dimension");
        }
        int64_t od[MK_MAX_DIMS];
        uint32_t nd = 0;
        for (uint32_t i = 0; i < self->v.ndim; i++) {
            if (i != d) {
                od[nd++] = self->v.dims[i];
            } else if (keepdim) {
                od[nd++] = 1;
            }
        }
        if (check_shape(&p, out, "out", od, nd) && make_exec(&p, k_argmax, 0)) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_DIM] = d;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ArgMax)
