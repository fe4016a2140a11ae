/*
 * op_masked_fill.c (libopapi.so), operators III batch ops3b:
 * aclnnInplaceMaskedFillScalar and aclnnInplaceMaskedFillTensor,
 * selfRef[mask] = value in place (Tensor.masked_fill_). Parameter lists:
 * ops-math v8.5.0 conversion/masked_fill/op_api/
 * aclnn_masked_fill_scalar.h:55-57 and aclnn_masked_fill_tensor.h:55-57.
 *
 * Scalar (aclnn_masked_fill_scalar.cpp, v8.5.0): selfRef, mask, value null
 * 161001 (:57-63); selfRef f32, i32, i64, f16, i8, bool or bf16 (:53-55,
 * :82); mask BOOL (:85); both at most 8 dims (:93-94) and mask broadcast
 * to exactly selfRef's shape (:96-104); an empty selfRef or mask writes
 * nothing (:136-141); value converted to selfRef's dtype (:155).
 * Tensor (aclnn_masked_fill_tensor.cpp, v8.5.0): the same nulls (:57-63)
 * and dtypes for selfRef and value (:53-55, :82-83), mask BOOL (:86); value
 * 0-d (:96); selfRef and mask broadcastable (:98-99); value cast to
 * selfRef's dtype (:156). The Tensor variant does not compare the
 * broadcast shape with selfRef's (the MaskedFill result is ViewCopied into
 * selfRef, :164): the mock refuses a mask that broadcasts past selfRef
 * there too, as a device copy past selfRef's end cannot be modelled.
 * Both 161002 for the dtype and shape rules.
 */
#include "op_internal.h"

#include <stdlib.h>

/* aclnn_masked_fill_scalar.cpp:53-55 = aclnn_masked_fill_tensor.cpp:53-55 (bf16 on 910B to 910E, :65-79) */
static const int32_t DT_MASKED_FILL[] = {ACL_FLOAT, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_INT8, ACL_BOOL, ACL_BF16, -1};
static const int32_t DT_BOOL_MASK[] = {ACL_BOOL, -1};

enum { IP_SELF, IP_MASK, IP_VALUE, IP_HAS_TENSOR, IP_NOTHING };
enum { P_VALUE };

static void k_masked_fill(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    const mk_view *s = &j->slot[j->ip[IP_SELF]], *m = &j->slot[j->ip[IP_MASK]];
    void *sb = bufs[j->ip[IP_SELF]];
    const void *mb = bufs[j->ip[IP_MASK]];
    /* value in selfRef's dtype: a float held as double, an integer as int64 */
    double vf = j->p[P_VALUE];
    int64_t vi = (int64_t)vf;
    if (j->ip[IP_HAS_TENSOR]) {
        const mk_view *v = &j->slot[j->ip[IP_VALUE]];
        const void *vb = bufs[j->ip[IP_VALUE]];
        if (!vb) {
            return;
        }
        vf = mk_ldd(vb, v->dtype, 0);
        vi = mk_dtype_is_float(v->dtype) ? (int64_t)vf : mk_ldi(vb, v->dtype, 0);
    }
    int64_t *so = view_offsets(s), *mo = bcast_offsets(m, s->dims, s->ndim);
    int64_t n = numel(s);
    if (sb && mb && so && mo) {
        for (int64_t i = 0; i < n; i++) {
            if (!mk_ldi(mb, m->dtype, mo[i])) {
                continue;
            }
            if (mk_dtype_is_float(s->dtype)) {
                mk_std(sb, s->dtype, so[i], vf);
            } else if (s->dtype == ACL_BOOL) {
                mk_sti(sb, s->dtype, so[i], vf != 0.0);
            } else {
                mk_sti(sb, s->dtype, so[i], vi);
            }
        }
    }
    free(so);
    free(mo);
}

/* The checks both share; the value tensor (Tensor variant) or NULL. */
static void masked_fill(ph1 *p, aclTensor *selfRef, const aclTensor *mask, const aclTensor *value, double scalar)
{
    if (!check_dtype(p, selfRef, "selfRef", DT_MASKED_FILL) ||
        (value && !check_dtype(p, value, "value", DT_MASKED_FILL)) ||
        !check_dtype(p, mask, "mask", DT_BOOL_MASK) || !check_ndim(p, selfRef, "selfRef", 0, 8) ||
        !check_ndim(p, mask, "mask", 0, 8) || (value && !check_ndim(p, value, "value", 0, 0))) {
        return;
    }
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (!bcast(&selfRef->v, &mask->v, dims, &nd)) {
        invalid(p, "mask does not broadcast with selfRef");
        return;
    }
    if (!check_shape(p, selfRef, "selfRef (the broadcast of selfRef and mask)", dims, nd)) {
        return;
    }
    bool empty = !numel(&selfRef->v) || !numel(&mask->v);
    if (!make_exec(p, k_masked_fill, 0)) {
        return;
    }
    p->e->job.ip[IP_NOTHING] = empty;
    if (!empty) {
        p->e->job.ip[IP_SELF] = add_inout(p, selfRef);
        p->e->job.ip[IP_MASK] = add_in(p, mask);
        p->e->job.ip[IP_HAS_TENSOR] = value != NULL;
        if (value) {
            p->e->job.ip[IP_VALUE] = add_in(p, value);
        }
        p->e->job.p[P_VALUE] = scalar;
    }
}

OPS_EXPORT aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                                    const aclScalar *value, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceMaskedFillScalarGetWorkspaceSize), "aclnnInplaceMaskedFillScalar");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "mask", mask);
    ph1_arg_scalar(&p, "value", value);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, mask, "mask") && need_scalar(&p, value, "value")) {
        /* ConvertToTensor(value, selfRef's dtype) (:155): an integer
         * selfRef takes the scalar's integer value */
        double v = mk_dtype_is_float(selfRef->v.dtype) ? scalar_f(value)
                   : mk_dtype_is_float(value->dtype)   ? (double)(int64_t)value->f
                                                       : (double)value->i;
        masked_fill(&p, selfRef, mask, NULL, v);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceMaskedFillScalar)

OPS_EXPORT aclnnStatus aclnnInplaceMaskedFillTensorGetWorkspaceSize(aclTensor *selfRef, const aclTensor *mask,
                                                                    const aclTensor *value, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceMaskedFillTensorGetWorkspaceSize), "aclnnInplaceMaskedFillTensor");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "mask", mask);
    ph1_arg_tensor(&p, "value", value);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, mask, "mask") && need_tensor(&p, value, "value")) {
        masked_fill(&p, selfRef, mask, value, 0.0);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceMaskedFillTensor)
