/*
 * op_where.c (libopapi.so), operators III batch ops3b: aclnnSWhere,
 * out = condition ? self : other with broadcasting (torch.where).
 * Parameter list: ops-math v8.5.0 math/select/op_api/aclnn_s_where.h:25-27.
 *
 * Rules (math/select/op_api/aclnn_s_where.cpp, v8.5.0):
 * - condition, self, other, out null 161001 (CheckNotNull4Tensor, :97);
 * - self, other, out in the 910B list f32, i32, u64, i64, u32, f16, u16,
 *   i16, i8, u8, f64, bool, bf16 (complex too, which the mock has not:
 *   :42-46, :54-62); condition BOOL or UINT8 (:48-49, :64), cast to bool
 *   (:142: nonzero is true);
 * - self, other, condition at most 8 dims (:70-72); self and other
 *   broadcast, and condition with them (:74-80), to exactly out's shape
 *   (:82-87); all 161002;
 * - any empty input: nothing is written (:122-127);
 * - self and other are cast to their promoted dtype, selected, and the
 *   result cast to out's dtype with no cast rule (:141, :167-176); two
 *   bool inputs are selected as int8 and viewed back as bool (:147-165).
 *   A pair without a promotion (an unsigned 16/32/64-bit integer with a
 *   signed one) makes the Cast fail: 561103 (ACLNN_ERR_INNER_NULLPTR).
 */
#include "op_elementwise.h"

#include <stdlib.h>

/* aclnn_s_where.cpp:42-46 (910B), without complex */
static const int32_t DT_SWHERE_910B[] = {ACL_FLOAT, ACL_INT32,  ACL_UINT64, ACL_INT64, ACL_UINT32,
                                         ACL_FLOAT16, ACL_UINT16, ACL_INT16, ACL_INT8,  ACL_UINT8,
                                         ACL_DOUBLE, ACL_BOOL,   ACL_BF16,   -1};
/* aclnn_s_where.cpp:48-49 */
static const int32_t DT_CONDITION[] = {ACL_BOOL, ACL_UINT8, -1};

enum { IP_C, IP_S, IP_O, IP_OUT, IP_PROMOTE, IP_NOTHING };

static double round_to(int32_t dt, double v)
{
    uint64_t tmp = 0;
    mk_std(&tmp, dt, 0, v);
    return mk_ldd(&tmp, dt, 0);
}

static void k_swhere(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    const mk_view *c = &j->slot[j->ip[IP_C]], *s = &j->slot[j->ip[IP_S]], *o = &j->slot[j->ip[IP_O]];
    const mk_view *out = &j->slot[j->ip[IP_OUT]];
    const void *cb = bufs[j->ip[IP_C]], *sb = bufs[j->ip[IP_S]], *obuf = bufs[j->ip[IP_O]];
    void *ub = bufs[j->ip[IP_OUT]];
    int32_t pdt = (int32_t)j->ip[IP_PROMOTE];
    int64_t *co = bcast_offsets(c, out->dims, out->ndim), *so = bcast_offsets(s, out->dims, out->ndim);
    int64_t *oo = bcast_offsets(o, out->dims, out->ndim), *uo = view_offsets(out);
    int64_t n = numel(out);
    if (cb && sb && obuf && ub && co && so && oo && uo) {
        for (int64_t i = 0; i < n; i++) {
            bool take_self = mk_ldi(cb, c->dtype, co[i]) != 0;
            const mk_view *v = take_self ? s : o;
            const void *vb = take_self ? sb : obuf;
            int64_t e = take_self ? so[i] : oo[i];
            if (mk_dtype_is_float(pdt)) {
                mk_std(ub, out->dtype, uo[i], round_to(pdt, mk_ldd(vb, v->dtype, e)));
            } else if (mk_dtype_is_float(out->dtype)) {
                mk_std(ub, out->dtype, uo[i], (double)mk_ldi(vb, v->dtype, e));
            } else {
                mk_sti(ub, out->dtype, uo[i], mk_ldi(vb, v->dtype, e));
            }
        }
    }
    free(co);
    free(so);
    free(oo);
    free(uo);
}

OPS_EXPORT aclnnStatus aclnnSWhereGetWorkspaceSize(const aclTensor *condition, const aclTensor *self,
                                                   const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSWhereGetWorkspaceSize), "aclnnSWhere");
    ph1_arg_tensor(&p, "condition", condition);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_tensor(&p, "out", out);
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (need_tensor(&p, self, "self") && need_tensor(&p, other, "other") && need_tensor(&p, condition, "condition") &&
        need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_SWHERE_910B) &&
        check_dtype(&p, other, "other", DT_SWHERE_910B) && check_dtype(&p, out, "out", DT_SWHERE_910B) &&
        check_dtype(&p, condition, "condition", DT_CONDITION) && check_ndim(&p, self, "self", 0, 8) &&
        check_ndim(&p, other, "other", 0, 8) && check_ndim(&p, condition, "condition", 0, 8)) {
        if (!bcast(&self->v, &other->v, dims, &nd)) {
            invalid(&p, "self and other do not broadcast");
        } else {
            mk_view so = self->v;
            so.ndim = nd;
            for (uint32_t k = 0; k < nd; k++) {
                so.dims[k] = dims[k];
            }
            if (!bcast(&condition->v, &so, dims, &nd)) {
                invalid(&p, "condition does not broadcast with self and other");
            } else {
                check_shape(&p, out, "out", dims, nd);
            }
        }
    }
    int32_t pdt = p.rc ? -1 : ew_promote(self->v.dtype, other->v.dtype);
    if (!p.rc && pdt < 0) {
        p.rc = aclmock_fail(ACLNN_ERR_INNER_NULLPTR, "%s: self (%s) and other (%s) have no promoted dtype to cast to",
                            p.op, mk_dtype_name(self->v.dtype), mk_dtype_name(other->v.dtype));
    }
    bool empty = !p.rc && (!numel(&self->v) || !numel(&condition->v) || !numel(&other->v));
    if (make_exec(&p, k_swhere, 0)) {
        p.e->job.ip[IP_NOTHING] = empty;
        if (!empty) {
            p.e->job.ip[IP_C] = add_in(&p, condition);
            p.e->job.ip[IP_S] = add_in(&p, self);
            p.e->job.ip[IP_O] = add_in(&p, other);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_PROMOTE] = pdt;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SWhere)
