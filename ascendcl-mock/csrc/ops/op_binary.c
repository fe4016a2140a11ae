/*
 * op_binary.c (libopapi.so): element-wise arithmetic with numpy
 * broadcasting: aclnnAdd, aclnnAdds, aclnnInplaceAdd, aclnnSub, aclnnInplaceSub,
 * aclnnMul, aclnnMuls, aclnnInplaceMuls. Phase-1 parameter lists (ops-math v8.5.0):
 * math/add/op_api/aclnn_add.h:43-44 (Add), :66-67 (Adds), :90-91
 * (InplaceAdd); math/mul/op_api/aclnn_mul.h:35 (Muls), :56 (Mul), :71
 * (InplaceMuls, non-const selfRef); math/sub/op_api/aclnn_sub.h:42 (Sub), :89
 * (InplaceSub, non-const selfRef).
 * Add checks self, other, alpha and out for null (aclnn_add.cpp:78-81, 161001
 * at :269); out must have the broadcast shape (aclnn_add.h doc of `out`). Floating results are computed in f32
 * (in double when a tensor operand is DOUBLE) and
 * stored rounding to nearest even; integer results in int64.
 */
#include "op_internal.h"

#include <stdlib.h>

enum { OP_ADD, OP_SUB, OP_MUL };
/* job->ip layout */
enum { IP_A, IP_B, IP_OUT, IP_OP, IP_FLOAT, IP_B_SCALAR, IP_DOUBLE };
/* job->p layout */
enum { P_ALPHA, P_OTHER };

static const int32_t DT_ARITH[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT16,
                                   ACL_INT32, ACL_INT64,   ACL_UINT8, -1};
/* Add, Sub and Mul of two tensors (and the in-place forms) take DOUBLE too on
 * 910B (ops-math v8.5.0 math/add/op_api/aclnn_add.cpp:71-74, chosen for 910B
 * at :89-92; math/sub/op_api/aclnn_sub.cpp:63-66, chosen at :143-146;
 * math/mul/op_api/aclnn_mul.cpp:57-60). The lists' BOOL and complex types are
 * not emulated yet (refused), nor DOUBLE for the scalar forms. */
static const int32_t DT_BINARY_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8,  ACL_INT16,
                                         ACL_INT32, ACL_INT64,   ACL_UINT8, ACL_DOUBLE, -1};

static void k_binary(const mk_job *j, void *const *bufs)
{
    const mk_view *a = &j->slot[j->ip[IP_A]], *o = &j->slot[j->ip[IP_OUT]];
    const mk_view *b = j->ip[IP_B_SCALAR] ? NULL : &j->slot[j->ip[IP_B]];
    const void *ab = bufs[j->ip[IP_A]], *bb = b ? bufs[j->ip[IP_B]] : NULL;
    void *obuf = bufs[j->ip[IP_OUT]];
    int64_t *oa = bcast_offsets(a, o->dims, o->ndim);
    int64_t *ob = b ? bcast_offsets(b, o->dims, o->ndim) : NULL;
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    int op = (int)j->ip[IP_OP];
    if (!oa || !oo || (b && !ob) || !obuf) {
        goto out;
    }
    if (j->ip[IP_DOUBLE]) {
        /* a DOUBLE operand promotes the computation to double */
        double alpha = j->p[P_ALPHA], other = j->p[P_OTHER];
        for (int64_t i = 0; i < n; i++) {
            double x = mk_ldd(ab, a->dtype, oa[i]);
            double y = b ? mk_ldd(bb, b->dtype, ob[i]) : other;
            double r = op == OP_ADD ? x + alpha * y : op == OP_SUB ? x - alpha * y : x * y;
            mk_std(obuf, o->dtype, oo[i], r);
        }
    } else if (j->ip[IP_FLOAT]) {
        float alpha = (float)j->p[P_ALPHA], other = (float)j->p[P_OTHER];
        for (int64_t i = 0; i < n; i++) {
            float x = mk_ldf(ab, a->dtype, oa[i]);
            float y = b ? mk_ldf(bb, b->dtype, ob[i]) : other;
            float r = op == OP_ADD ? x + alpha * y : op == OP_SUB ? x - alpha * y : x * y;
            mk_stf(obuf, o->dtype, oo[i], r);
        }
    } else {
        int64_t alpha = (int64_t)j->p[P_ALPHA], other = (int64_t)j->p[P_OTHER];
        for (int64_t i = 0; i < n; i++) {
            int64_t x = mk_ldi(ab, a->dtype, oa[i]);
            int64_t y = b ? mk_ldi(bb, b->dtype, ob[i]) : other;
            int64_t r = op == OP_ADD ? x + alpha * y : op == OP_SUB ? x - alpha * y : x * y;
            mk_sti(obuf, o->dtype, oo[i], r);
        }
    }
out:
    free(oa);
    free(ob);
    free(oo);
}

/* The result is floating if any operand (or a scalar's dtype) is; an
 * integer out cannot receive a floating result. */
static bool result_float(ph1 *p, const aclTensor *a, const aclTensor *b, const aclScalar *s, const aclScalar *alpha,
                         const aclTensor *out, bool *fl)
{
    *fl = mk_dtype_is_float(a->v.dtype) || (b && mk_dtype_is_float(b->v.dtype)) || (s && mk_dtype_is_float(s->dtype));
    if (!*fl && alpha && mk_dtype_is_float(alpha->dtype) && alpha->f != (double)alpha->i) {
        return invalid(p, "alpha %g is not an integer but the operands are integers", alpha->f);
    }
    if (*fl && !mk_dtype_is_float(out->v.dtype)) {
        return invalid(p, "the result is floating point but out has dtype %s", mk_dtype_name(out->v.dtype));
    }
    *fl = *fl || mk_dtype_is_float(out->v.dtype);
    return !p->rc;
}

/* self op other -> out (tensor other) */
static void binary_tensor(ph1 *p, int op, const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                          const aclTensor *out, bool inplace)
{
    bool fl = false;
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    const int32_t *dts = DT_BINARY_910B;
    if (!check_dtype(p, self, inplace ? "selfRef" : "self", dts) || !check_dtype(p, other, "other", dts) ||
        !check_dtype(p, out, inplace ? "selfRef" : "out", dts) ||
        !result_float(p, self, other, NULL, alpha, out, &fl)) {
        return;
    }
    if (!bcast(&self->v, &other->v, dims, &nd)) {
        invalid(p, "self and other do not broadcast");
        return;
    }
    if (!check_shape(p, out, inplace ? "selfRef (the broadcast result)" : "out (the broadcast result)", dims, nd) ||
        !make_exec(p, k_binary, 0)) {
        return;
    }
    mk_job *j = &p->e->job;
    if (inplace) {
        j->ip[IP_A] = j->ip[IP_OUT] = add_inout(p, self);
        j->ip[IP_B] = add_in(p, other);
    } else {
        j->ip[IP_A] = add_in(p, self);
        j->ip[IP_B] = add_in(p, other);
        j->ip[IP_OUT] = add_out(p, out);
    }
    j->ip[IP_OP] = op;
    j->ip[IP_FLOAT] = fl;
    j->ip[IP_DOUBLE] = self->v.dtype == ACL_DOUBLE || other->v.dtype == ACL_DOUBLE;
    j->p[P_ALPHA] = alpha ? scalar_f(alpha) : 1.0;
}

/* self op scalar -> out */
static void binary_scalar(ph1 *p, int op, const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                          const aclTensor *out, bool inplace)
{
    bool fl = false;
    if (!check_dtype(p, self, inplace ? "selfRef" : "self", DT_ARITH) ||
        !check_dtype(p, out, inplace ? "selfRef" : "out", DT_ARITH) ||
        !result_float(p, self, NULL, other, alpha, out, &fl) ||
        !check_shape(p, out, inplace ? "selfRef" : "out", self->v.dims, self->v.ndim) || !make_exec(p, k_binary, 0)) {
        return;
    }
    mk_job *j = &p->e->job;
    if (inplace) {
        j->ip[IP_A] = j->ip[IP_OUT] = add_inout(p, self);
    } else {
        j->ip[IP_A] = add_in(p, self);
        j->ip[IP_OUT] = add_out(p, out);
    }
    j->ip[IP_B_SCALAR] = 1;
    j->ip[IP_OP] = op;
    j->ip[IP_FLOAT] = fl;
    j->p[P_ALPHA] = alpha ? scalar_f(alpha) : 1.0;
    j->p[P_OTHER] = scalar_f(other);
}

OPS_EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAddGetWorkspaceSize), "aclnnAdd");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_scalar(&p, "alpha", alpha);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, other, "other") && need_scalar(&p, alpha, "alpha") &&
        need_tensor(&p, out, "out")) {
        binary_tensor(&p, OP_ADD, self, other, alpha, out, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Add)

OPS_EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAddsGetWorkspaceSize), "aclnnAdds");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_scalar(&p, "other", other);
    ph1_arg_scalar(&p, "alpha", alpha);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_scalar(&p, other, "other") && need_scalar(&p, alpha, "alpha") &&
        need_tensor(&p, out, "out")) {
        binary_scalar(&p, OP_ADD, self, other, alpha, out, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Adds)

OPS_EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                       const aclScalar *alpha, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceAddGetWorkspaceSize), "aclnnInplaceAdd");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_scalar(&p, "alpha", alpha);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, other, "other") && need_scalar(&p, alpha, "alpha")) {
        binary_tensor(&p, OP_ADD, selfRef, other, alpha, selfRef, true);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceAdd)

OPS_EXPORT aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSubGetWorkspaceSize), "aclnnSub");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_scalar(&p, "alpha", alpha);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, other, "other") && need_scalar(&p, alpha, "alpha") &&
        need_tensor(&p, out, "out")) {
        binary_tensor(&p, OP_SUB, self, other, alpha, out, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Sub)

/* InplaceSub is Sub with selfRef as out (aclnn_sub.cpp:516-525): other must
 * broadcast to selfRef's own shape (the out-shape check of :239). Its own
 * CheckInplace (:505-514) returns `false`, i.e. success, on a failure, so the
 * checks that count are Sub's: nulls 161001 (:130-137), the rest 161002. */
OPS_EXPORT aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                       const aclScalar *alpha, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceSubGetWorkspaceSize), "aclnnInplaceSub");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_scalar(&p, "alpha", alpha);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, other, "other") && need_scalar(&p, alpha, "alpha")) {
        binary_tensor(&p, OP_SUB, selfRef, other, alpha, selfRef, true);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceSub)

OPS_EXPORT aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMulGetWorkspaceSize), "aclnnMul");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "other", other);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, other, "other") && need_tensor(&p, out, "out")) {
        binary_tensor(&p, OP_MUL, self, other, NULL, out, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Mul)

OPS_EXPORT aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMulsGetWorkspaceSize), "aclnnMuls");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_scalar(&p, "other", other);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_scalar(&p, other, "other") && need_tensor(&p, out, "out")) {
        binary_scalar(&p, OP_MUL, self, other, NULL, out, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Muls)

OPS_EXPORT aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceMulsGetWorkspaceSize), "aclnnInplaceMuls");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_scalar(&p, "other", other);
    if (need_tensor(&p, selfRef, "selfRef") && need_scalar(&p, other, "other")) {
        binary_scalar(&p, OP_MUL, selfRef, other, NULL, selfRef, true);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceMuls)
