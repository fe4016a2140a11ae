/*
 * op_isfinite.c (libopapi.so): aclnnIsFinite, out = isfinite(self) as BOOL.
 * Parameter list: ops-math v8.5.0 math/is_finite/op_api/aclnn_isfinite.h:49-50.
 *
 * Checks (math/is_finite/op_api/aclnn_is_finite.cpp, v8.5.0): self and out
 * not null (161001, :34-39); self's dtype in the 910B list (f32, f16, bf16,
 * f64, i32, i64, i16, i8, u8, bool: :30-32, checked at :41-51); out BOOL
 * (:53-54); self at most 8 dims and out of self's shape (:59-68). An empty
 * self succeeds with workspace 0 (:112-118). A non-floating self gives all
 * true (a Fill, :84-96, :122-124); a floating one the element-wise test
 * (:125-131).
 */
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_ISFINITE_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT32,
                                           ACL_INT64, ACL_INT16,   ACL_INT8,  ACL_UINT8,  ACL_BOOL, -1};
static const int32_t DT_BOOL_ONLY[] = {ACL_BOOL, -1};

enum { IP_X, IP_OUT };

static void k_isfinite(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    bool floating = mk_dtype_is_float(x->dtype);
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            /* f16/bf16/f32 widen exactly to double */
            mk_sti(ob, ACL_BOOL, oo[i], floating ? isfinite(mk_ldd(xb, x->dtype, ox[i])) != 0 : 1);
        }
    }
    free(ox);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnIsFiniteGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnIsFiniteGetWorkspaceSize), "aclnnIsFinite");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_ISFINITE_910B) && check_dtype(&p, out, "out", DT_BOOL_ONLY) &&
        check_ndim(&p, self, "self", 0, 8) && check_shape(&p, out, "out", self->v.dims, self->v.ndim) &&
        make_exec(&p, k_isfinite, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(IsFinite)
