/*
 * op_div.c (libopapi.so): aclnnDiv, out = self / other with numpy
 * broadcasting (true division). Parameter list: ops-math v8.5.0
 * math/div/op_api/aclnn_div.h:40-41.
 *
 * Checks in the real op's order (math/div/op_api/aclnn_div.cpp CheckParams,
 * :335-353): out, other, self not null (161001, :127-133); self and other
 * broadcast and out has the broadcast shape (:275-286); other's, then self's
 * dtype in the 910B list (:107-110, chosen at :116-125; checked at :235-244);
 * PromoteType(self, other) castable to out's dtype (:257-273: the check
 * uses the plain promotion, so an integer quotient may go to an integer
 * out). The list's BOOL and complex types are not emulated (refused).
 *
 * Computation (:388-391, :135-144): the operands are cast to the
 * promoted type, an integer promotion being replaced by FLOAT; the RealDiv
 * result is cast to out's dtype (:430, truncating toward zero into an
 * integer out; out's dtype is not checked against the list, only the cast).
 * The mock divides in f32 (in double when the promotion is
 * DOUBLE) and rounds once into out. Empty operands: success, nothing to do
 * (:381-386).
 */
#include "op_elementwise.h"

#include <stdlib.h>

/* aclnn_div.cpp:107-110 without BOOL and the complex types */
static const int32_t DT_DIV_910B[] = {ACL_FLOAT16, ACL_FLOAT, ACL_INT64, ACL_INT32,  ACL_INT16,
                                      ACL_INT8,    ACL_UINT8, ACL_BF16,  ACL_DOUBLE, -1};

enum { IP_A, IP_B, IP_OUT, IP_DOUBLE };

static void k_div(const mk_job *j, void *const *bufs)
{
    const mk_view *a = &j->slot[j->ip[IP_A]], *b = &j->slot[j->ip[IP_B]], *o = &j->slot[j->ip[IP_OUT]];
    const void *ab = bufs[j->ip[IP_A]], *bb = bufs[j->ip[IP_B]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *oa = bcast_offsets(a, o->dims, o->ndim), *obo = bcast_offsets(b, o->dims, o->ndim);
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    if (oa && obo && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            if (j->ip[IP_DOUBLE]) {
                mk_std(ob, o->dtype, oo[i], mk_ldd(ab, a->dtype, oa[i]) / mk_ldd(bb, b->dtype, obo[i]));
            } else {
                mk_stf(ob, o->dtype, oo[i], mk_ldf(ab, a->dtype, oa[i]) / mk_ldf(bb, b->dtype, obo[i]));
            }
        }
    }
    free(oa);
    free(obo);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnDivGetWorkspaceSize), "aclnnDiv");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_tensor(&p, "out", out);
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (need_tensor(&p, out, "out") && need_tensor(&p, other, "other") && need_tensor(&p, self, "self")) {
        if (!bcast(&self->v, &other->v, dims, &nd)) {
            invalid(&p, "self and other do not broadcast");
        } else if (check_shape(&p, out, "out (the broadcast result)", dims, nd) &&
                   check_dtype(&p, other, "other", DT_DIV_910B) && check_dtype(&p, self, "self", DT_DIV_910B)) {
            int32_t promoted = ew_promote(self->v.dtype, other->v.dtype);
            if (promoted < 0) {
                invalid(&p, "self (%s) and other (%s) have no common dtype", mk_dtype_name(self->v.dtype),
                        mk_dtype_name(other->v.dtype));
            } else if (ew_check_cast(&p, promoted, out, "out") && make_exec(&p, k_div, 0)) {
                p.e->job.ip[IP_A] = add_in(&p, self);
                p.e->job.ip[IP_B] = add_in(&p, other);
                p.e->job.ip[IP_OUT] = add_out(&p, out);
                p.e->job.ip[IP_DOUBLE] = promoted == ACL_DOUBLE;
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Div)
