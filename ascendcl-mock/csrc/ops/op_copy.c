/*
 * op_copy.c (libopapi.so): aclnnCast, aclnnInplaceCopy (broadcast and dtype
 * conversion: aclnn-facts.md B.1.2), aclnnInplaceZero, aclnnInplaceFillScalar.
 * Parameter lists (ops-math v8.5.0): math/cast/op_host/op_api/aclnn_cast.h:38-39,
 * conversion/view_copy/op_host/op_api/aclnn_copy.h:35-36,
 * math/zero_op/op_api/aclnn_zero.h:48, conversion/fill/op_api/
 * aclnn_fill_scalar.h:36-37 (selfRef and value checked for null:
 * aclnn_fill_scalar.cpp:41-42, :104).
 * Conversions: integer to integer exactly (wrapping like a C cast),
 * floating to integer truncating, anything to f16/bf16 through f32 rounding
 * to nearest even.
 */
#include "op_internal.h"

#include <stdlib.h>

enum { IP_SRC, IP_DST, IP_FILL, IP_FILL_INT };
enum { P_VALUE };

static void convert(const void *sb, int32_t sdt, int64_t so, void *db, int32_t ddt, int64_t dof)
{
    if (mk_dtype_is_int(sdt) && mk_dtype_is_int(ddt)) {
        mk_sti(db, ddt, dof, mk_ldi(sb, sdt, so));
    } else if (sdt != ACL_DOUBLE && ddt != ACL_DOUBLE && mk_dtype_is_float(sdt)) {
        mk_stf(db, ddt, dof, mk_ldf(sb, sdt, so));
    } else {
        mk_std(db, ddt, dof, mk_ldd(sb, sdt, so));
    }
}

static void k_copy(const mk_job *j, void *const *bufs)
{
    const mk_view *d = &j->slot[j->ip[IP_DST]];
    void *db = bufs[j->ip[IP_DST]];
    int64_t *od = view_offsets(d);
    int64_t n = numel(d);
    if (!od || !db) {
        free(od);
        return;
    }
    if (j->ip[IP_FILL]) {
        double v = j->p[P_VALUE];
        int64_t iv = j->ip[IP_FILL_INT];
        for (int64_t i = 0; i < n; i++) {
            if (mk_dtype_is_int(d->dtype)) {
                mk_sti(db, d->dtype, od[i], iv);
            } else {
                mk_std(db, d->dtype, od[i], v);
            }
        }
    } else {
        const mk_view *s = &j->slot[j->ip[IP_SRC]];
        const void *sb = bufs[j->ip[IP_SRC]];
        int64_t *os = bcast_offsets(s, d->dims, d->ndim);
        if (os && sb) {
            for (int64_t i = 0; i < n; i++) {
                convert(sb, s->dtype, os[i], db, d->dtype, od[i]);
            }
        }
        free(os);
    }
    free(od);
}

OPS_EXPORT aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnCastGetWorkspaceSize), "aclnnCast");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "dtype", dtype);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_ALL) &&
        check_dtype(&p, out, "out", DT_ALL)) {
        if (out->v.dtype != (int32_t)dtype) {
            invalid(&p, "out has dtype %s but dtype is %s", mk_dtype_name(out->v.dtype), mk_dtype_name(dtype));
        }
        /* out has self's shape (aclnn_cast.cpp:113) */
        if (check_shape(&p, out, "out", self->v.dims, self->v.ndim) && make_exec(&p, k_copy, 0)) {
            p.e->job.ip[IP_SRC] = add_in(&p, self);
            p.e->job.ip[IP_DST] = add_out(&p, out);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Cast)

OPS_EXPORT aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceCopyGetWorkspaceSize), "aclnnInplaceCopy");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "src", src);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, src, "src") &&
        check_dtype(&p, selfRef, "selfRef", DT_ALL) && check_dtype(&p, src, "src", DT_ALL) &&
        /* src broadcasts to exactly selfRef's shape (aclnn_copy.cpp:62-68) */
        check_bcast_to(&p, src, "src", selfRef->v.dims, selfRef->v.ndim) && make_exec(&p, k_copy, 0)) {
        p.e->job.ip[IP_SRC] = add_in(&p, src);
        p.e->job.ip[IP_DST] = add_out(&p, selfRef);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceCopy)

OPS_EXPORT aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceZeroGetWorkspaceSize), "aclnnInplaceZero");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    if (need_tensor(&p, selfRef, "selfRef") && check_dtype(&p, selfRef, "selfRef", DT_ALL) &&
        make_exec(&p, k_copy, 0)) {
        p.e->job.ip[IP_DST] = add_out(&p, selfRef);
        p.e->job.ip[IP_FILL] = 1;
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceZero)

OPS_EXPORT aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceFillScalarGetWorkspaceSize), "aclnnInplaceFillScalar");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_scalar(&p, "value", value);
    if (need_tensor(&p, selfRef, "selfRef") && need_scalar(&p, value, "value") &&
        check_dtype(&p, selfRef, "selfRef", DT_ALL) && make_exec(&p, k_copy, 0)) {
        p.e->job.ip[IP_DST] = add_out(&p, selfRef);
        p.e->job.ip[IP_FILL] = 1;
        p.e->job.p[P_VALUE] = scalar_f(value);
        p.e->job.ip[IP_FILL_INT] = mk_dtype_is_float(value->dtype) ? (int64_t)value->f : value->i;
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceFillScalar)
