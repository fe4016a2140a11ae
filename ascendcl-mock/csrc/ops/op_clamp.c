/*
 * op_clamp.c (libopapi.so): aclnnClamp, out = min(max(self, min), max) with
 * optional scalar bounds. Parameter list: ops-math v8.5.0
 * conversion/clip_by_value_v2/op_api/aclnn_clamp.h:24-26.
 *
 * Checks (conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp, v8.5.0):
 * self and out not null, and not both bounds null (161001, CheckNotNull
 * :126-137); self's and out's dtypes in the 910B list (f16, f32, i32, i64,
 * i16, i8, u8, f64, bf16: :35-37, checked at :152-159; no BOOL); out has
 * self's shape (:161-168); on 910B (not 910_95) the op computes in out's
 * dtype and self must cast to it (CanCast, :213-223, :352-353). An empty
 * self succeeds with workspace 0 (:342-346). The bounds are converted to
 * out's dtype (:356-366: a missing one is the dtype's extreme, :231-279) and
 * self is cast to out's dtype (:362), so a fractional bound of an integer out
 * is truncated. The scalar-promotion rules of ClampPromoteType (:299-330)
 * apply on 910_95 only.
 *
 * The mock clamps floating dtypes in f32 (f64 for DOUBLE) against bounds
 * rounded to out's dtype and rounds once; integers in int64 against bounds
 * converted (truncated, wrapped) into out's dtype. A NaN self stays NaN;
 * with min > max every element becomes max (as torch.clamp; the device's
 * ClipByValueV2 does not document it).
 */
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_CLAMP_910B[] = {ACL_FLOAT16, ACL_FLOAT, ACL_INT32,  ACL_INT64, ACL_INT16,
                                        ACL_INT8,    ACL_UINT8, ACL_DOUBLE, ACL_BF16,  -1};

enum { IP_X, IP_OUT, IP_HAS_MIN, IP_HAS_MAX };
enum { P_MIN, P_MAX };

static void k_clamp(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    int32_t dt = o->dtype;
    bool has_lo = j->ip[IP_HAS_MIN] != 0, has_hi = j->ip[IP_HAS_MAX] != 0;
    unsigned char tmp[8] = {0};
    if (ox && oo && ob) {
        if (dt == ACL_DOUBLE || mk_dtype_is_float(dt)) {
            /* the bounds as out's dtype holds them */
            mk_std(tmp, dt, 0, j->p[P_MIN]);
            double lo = mk_ldd(tmp, dt, 0);
            mk_std(tmp, dt, 0, j->p[P_MAX]);
            double hi = mk_ldd(tmp, dt, 0);
            for (int64_t i = 0; i < n; i++) {
                if (dt == ACL_DOUBLE) {
                    double v = mk_ldd(xb, x->dtype, ox[i]);
                    v = has_lo && v < lo ? lo : v;
                    v = has_hi && v > hi ? hi : v;
                    mk_std(ob, dt, oo[i], v);
                } else {
                    float v = mk_ldf(xb, x->dtype, ox[i]);
                    v = has_lo && v < (float)lo ? (float)lo : v;
                    v = has_hi && v > (float)hi ? (float)hi : v;
                    mk_stf(ob, dt, oo[i], v);
                }
            }
        } else {
            mk_sti(tmp, dt, 0, (int64_t)j->p[P_MIN]);
            int64_t lo = mk_ldi(tmp, dt, 0);
            mk_sti(tmp, dt, 0, (int64_t)j->p[P_MAX]);
            int64_t hi = mk_ldi(tmp, dt, 0);
            for (int64_t i = 0; i < n; i++) {
                mk_sti(tmp, dt, 0, mk_ldi(xb, x->dtype, ox[i])); /* self cast to out's dtype (:362) */
                int64_t v = mk_ldi(tmp, dt, 0);
                v = has_lo && v < lo ? lo : v;
                v = has_hi && v > hi ? hi : v;
                mk_sti(ob, dt, oo[i], v);
            }
        }
    }
    free(ox);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                  const aclScalar *clipValueMax, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnClampGetWorkspaceSize), "aclnnClamp");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_scalar(&p, "clipValueMin", clipValueMin);
    ph1_arg_scalar(&p, "clipValueMax", clipValueMax);
    ph1_arg_tensor(&p, "out", out);
    /* :129-135: self, out, then "at least one of min or max" (161001) */
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        need_ptr(&p, clipValueMin ? (const void *)clipValueMin : (const void *)clipValueMax,
                 "clipValueMin or clipValueMax (at least one bound)") &&
        (!clipValueMin || need_scalar(&p, clipValueMin, "clipValueMin")) &&
        (!clipValueMax || need_scalar(&p, clipValueMax, "clipValueMax")) &&
        check_dtype(&p, self, "self", DT_CLAMP_910B) && check_dtype(&p, out, "out", DT_CLAMP_910B) &&
        check_shape(&p, out, "out", self->v.dims, self->v.ndim) &&
        ew_check_cast(&p, self->v.dtype, out, "out") && make_exec(&p, k_clamp, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_HAS_MIN] = clipValueMin != NULL;
        p.e->job.ip[IP_HAS_MAX] = clipValueMax != NULL;
        p.e->job.p[P_MIN] = clipValueMin ? scalar_f(clipValueMin) : 0.0;
        p.e->job.p[P_MAX] = clipValueMax ? scalar_f(clipValueMax) : 0.0;
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Clamp)
