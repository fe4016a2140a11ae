/*
 * op_reduce_dims.c (libopapi.so), operators III norm_shape batch: aclnnMean
 * and aclnnAmax, reductions over a list of dims with keepDim.
 *
 * Mean (ops-math v8.5.0 math/reduce_mean/op_api/aclnn_mean.h:24-26,
 * rules from aclnn_mean.cpp): self, dim and out must not be null (:43-49,
 * 161001 at :154); self, `dtype` and out in the 910B list (f32, i32, i64, f16,
 * i16, i8, u8, f64, bf16, complex: :57-60, checked at :78-90); self castable
 * to `dtype` and `dtype` to out (:104-105); every dim in [-n, n) with a 0-d
 * self as 1-d (:113-124), none repeated (:127-138); at most 8 dims (:143-148);
 * an empty self fills out with NaN (:218-224); out must have the reduced
 * shape (:237). Empty `dim` reduces every dimension (the ReduceMean kernel's
 * empty axes, as torch.mean(dim=[])). The mean is taken in double and
 * rounded once into out; an integer out gets it truncated.
 *
 * Amax (ops-math v8.5.0 math/reduce_max/op_host/op_api/aclnn_amax.h:37-38,
 * rules from aclnn_amax.cpp): self, dim and out not null (:86-92); out of
 * self's dtype (:107), in the 910B list (f32, f16, u8, i32, i64, i16, i8,
 * f64, bool, bf16: :44-47); dims in [-n, n) with a 0-d self as 1-d
 * (:127-131), a reduced dim of a non-0-d self not of size 0 (:133-136),
 * none repeated (:139-142); empty `dim` reduces every dim (:68-70); out of
 * the reduced shape (:157); an empty self leaves out as it is (:189-193).
 * The maximum propagates NaN, as torch.amax.
 */
#include "op_internal.h"
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

enum { IP_X, IP_OUT, IP_MODE, IP_EMPTY, IP_MASK };
enum { MODE_MEAN, MODE_AMAX, MODE_NOTHING };

/* aclnn_mean.cpp:57-60 (910B); the mock has no complex dtypes */
static const int32_t DT_MEAN_910B[] = {ACL_FLOAT, ACL_INT32, ACL_INT64,  ACL_FLOAT16, ACL_INT16,
                                       ACL_INT8,  ACL_UINT8, ACL_DOUBLE, ACL_BF16,    -1};
/* aclnn_amax.cpp:44-47 (910B) */
static const int32_t DT_AMAX_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_UINT8,  ACL_INT32, ACL_INT64,
                                       ACL_INT16, ACL_INT8,    ACL_DOUBLE, ACL_BOOL,  ACL_BF16, -1};

static bool dtype_in(int32_t dt, const int32_t *list)
{
    for (; *list >= 0; list++) {
        if (*list == dt) {
            return true;
        }
    }
    return false;
}

static void k_reduce_dims(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int mode = (int)j->ip[IP_MODE];
    if (mode == MODE_NOTHING) {
        return;
    }
    int64_t *oo = view_offsets(o);
    int64_t no = numel(o);
    if (!ob || (no && !oo)) {
        free(oo);
        return;
    }
    if (j->ip[IP_EMPTY]) {
        /* Mean of an empty self: NaN everywhere (aclnn_mean.cpp:218-224; an
         * integer out gets 0, NaN converted as the mock's stores do) */
        for (int64_t i = 0; i < no; i++) {
            mk_std(ob, o->dtype, oo[i], NAN);
        }
        free(oo);
        return;
    }
    /* acc index of each element of x: row-major over the kept dims, 0 stride over reduced ones */
    mk_view acc_v = *x;
    int64_t count = 1, per = 1;
    for (int64_t d = (int64_t)x->ndim - 1; d >= 0; d--) {
        if (j->ip[IP_MASK + d]) {
            acc_v.strides[d] = 0;
            per *= x->dims[d];
        } else {
            acc_v.strides[d] = count;
            count *= x->dims[d];
        }
    }
    bool fl = mk_dtype_is_float(x->dtype) || mode == MODE_MEAN;
    double *accf = fl ? calloc((size_t)count + 1, sizeof(double)) : NULL;
    int64_t *acci = fl ? NULL : calloc((size_t)count + 1, sizeof(int64_t));
    bool *seen = calloc((size_t)count + 1, sizeof(bool));
    int64_t *ox = view_offsets(x), *ai = view_offsets(&acc_v);
    int64_t n = numel(x);
    if ((!accf && !acci) || !seen || (n && (!ox || !ai))) {
        goto out;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t a = ai[i];
        if (mode == MODE_MEAN) {
            accf[a] += mk_ldd(xb, x->dtype, ox[i]);
        } else if (fl) {
            double v = mk_ldd(xb, x->dtype, ox[i]);
            /* NaN propagates (torch.amax) */
            if (!seen[a] || isnan(v) || (!isnan(accf[a]) && v > accf[a])) {
                accf[a] = v;
            }
        } else {
            int64_t v = mk_ldi(xb, x->dtype, ox[i]);
            if (!seen[a] || v > acci[a]) {
                acci[a] = v;
            }
        }
        seen[a] = true;
    }
    for (int64_t i = 0; i < count && i < no; i++) {
        if (mode == MODE_MEAN) {
            mk_std(ob, o->dtype, oo[i], accf[i] / (double)per);
        } else if (fl) {
            mk_std(ob, o->dtype, oo[i], accf[i]);
        } else {
            mk_sti(ob, o->dtype, oo[i], acci[i]);
        }
    }
out:
    free(accf);
    free(acci);
    free(seen);
    free(ox);
    free(ai);
    free(oo);
}

/* dims in [-n, n) (a 0-d self as 1-d), no repeats; sets mask (all set for
 * an empty list); with no_empty, a reduced dim of a non-0-d self must not
 * have size 0 (Amax). Out's expected shape into od/nd. */
static bool reduce_dims(ph1 *p, const aclTensor *self, const aclIntArray *dims, bool keep, bool no_empty, bool *mask,
                        int64_t *od, uint32_t *nd)
{
    uint32_t n = self->v.ndim;
    for (uint64_t i = 0; i < dims->n; i++) {
        uint32_t d = 0;
        if (!norm_dim(dims->v[i], n, &d)) {
            return invalid(p, "dim[%llu] = %lld must be in [%lld, %lld] for a %u-dimensional self",
                           (unsigned long long)i, (long long)dims->v[i], -(long long)(n ? n : 1),
                           (long long)(n ? n : 1) - 1, n);
        }
        if (no_empty && n && self->v.dims[d] == 0) {
            return invalid(p, "dimension %u to reduce has size 0", d);
        }
        if (mask[d]) {
            return invalid(p, "dimension %u appears twice in dim", d);
        }
        mask[d] = true;
    }
    *nd = 0;
    for (uint32_t d = 0; d < n; d++) {
        mask[d] = mask[d] || dims->n == 0;
        if (!mask[d]) {
            od[(*nd)++] = self->v.dims[d];
        } else if (keep) {
            od[(*nd)++] = 1;
        }
    }
    return true;
}

OPS_EXPORT aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                 aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMeanGetWorkspaceSize), "aclnnMean");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "dim", dim);
    ph1_arg_i64(&p, "keepDim", keepDim);
    ph1_arg_i64(&p, "dtype", dtype);
    ph1_arg_tensor(&p, "out", out);
    bool mask[MK_MAX_DIMS] = {false};
    int64_t od[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (need_tensor(&p, self, "self") && need_ints(&p, dim, "dim") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_MEAN_910B)) {
        if (!dtype_in((int32_t)dtype, DT_MEAN_910B)) {
            invalid(&p, "dtype %s is not one aclnnMean takes on 910B", mk_dtype_name(dtype));
        } else if (check_dtype(&p, out, "out", DT_MEAN_910B)) {
            if (!ew_can_cast(self->v.dtype, (int32_t)dtype)) {
                invalid(&p, "self's dtype %s cannot be cast to dtype %s", mk_dtype_name(self->v.dtype),
                        mk_dtype_name(dtype));
            } else if (!ew_can_cast((int32_t)dtype, out->v.dtype)) {
                invalid(&p, "dtype %s cannot be cast to out's dtype %s", mk_dtype_name(dtype),
                        mk_dtype_name(out->v.dtype));
            } else if (reduce_dims(&p, self, dim, keepDim, false, mask, od, &nd) &&
                       check_shape(&p, out, "out", od, nd) && make_exec(&p, k_reduce_dims, 0)) {
                p.e->job.ip[IP_X] = add_in(&p, self);
                p.e->job.ip[IP_OUT] = add_out(&p, out);
                p.e->job.ip[IP_MODE] = MODE_MEAN;
                p.e->job.ip[IP_EMPTY] = numel(&self->v) == 0;
                for (uint32_t d = 0; d < self->v.ndim; d++) {
                    p.e->job.ip[IP_MASK + d] = mask[d];
                }
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Mean)

OPS_EXPORT aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAmaxGetWorkspaceSize), "aclnnAmax");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "dim", dim);
    ph1_arg_i64(&p, "keepDim", keepDim);
    ph1_arg_tensor(&p, "out", out);
    bool mask[MK_MAX_DIMS] = {false};
    int64_t od[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (need_tensor(&p, self, "self") && need_ints(&p, dim, "dim") && need_tensor(&p, out, "out") &&
        check_same_dtype(&p, out, "out", self, "self") && check_dtype(&p, self, "self", DT_AMAX_910B) &&
        reduce_dims(&p, self, dim, keepDim, true, mask, od, &nd) && check_shape(&p, out, "out", od, nd) &&
        make_exec(&p, k_reduce_dims, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_MODE] = numel(&self->v) == 0 ? MODE_NOTHING : MODE_AMAX;
        for (uint32_t d = 0; d < self->v.ndim; d++) {
            p.e->job.ip[IP_MASK + d] = mask[d];
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Amax)
