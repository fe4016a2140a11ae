/*
 * op_pow.c (libopapi.so): aclnnPowTensorScalar, out = self ** exponent for
 * a scalar exponent. Parameter list: ops-math v8.5.0
 * math/pow/op_api/aclnn_pow.h:36-38 (`out` declared const).
 *
 * Checks (math/pow/op_api/aclnn_pow.cpp CheckPowTensorScalarParams,
 * :227-244): self, exponent, out not null (161001, :111-116); self's and the
 * exponent's dtype in the list (:42-45, checked at :130-145; the complex
 * types are not emulated: refused) and PromoteType(self, exponent)
 * castable to out (:146-153); the dtype the op computes in (910B,
 * InferTensorScalarDtype :162-182): FLOAT when the exponent is DOUBLE and out
 * FLOAT, else self's dtype when it is floating, else (a floating exponent or
 * a BOOL self) PromoteType(self, exponent), else self's integer dtype; a
 * BOOL self with a BOOL exponent is refused and that dtype must cast to out
 * (:206-219); out has self's shape (:221-225). The negative-exponent and
 * overflow checks of :389-395 are for ASCEND910_95 only, so a negative
 * integer exponent of an integer self is accepted on 910B.
 *
 * self is cast to the compute dtype (:400), raised (Pows, Square or Pow,
 * :404-430) and cast to out (:434). The mock computes floating dtypes in
 * f32 (in double for DOUBLE) with powf/pow and rounds once into out, and
 * integer dtypes by repeated multiplication in int64 (wrapping into out);
 * for a negative integer exponent it gives 1/self**|e| truncated toward zero
 * (1 for self 1, +-1 for self -1, 0 otherwise, and 0 for self 0, where the
 * device's result is not documented).
 */
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_POW[] = {ACL_FLOAT, ACL_INT32,  ACL_INT64, ACL_FLOAT16, ACL_INT8, ACL_UINT8,
                                 ACL_DOUBLE, ACL_BOOL, ACL_INT16, ACL_BF16,    -1};

enum { IP_X, IP_OUT, IP_COMPUTE };
enum { P_EXP };

static int64_t ipow(int64_t b, int64_t e)
{
    if (e < 0) {
        return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
    }
    uint64_t r = 1, x = (uint64_t)b; /* unsigned: wraps as the device's integers */
    while (e > 0) {
        if (e & 1) {
            r *= x;
        }
        x *= x;
        e >>= 1;
    }
    return (int64_t)r;
}

static void k_pow(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    int32_t cd = (int32_t)j->ip[IP_COMPUTE];
    double e = j->p[P_EXP];
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            if (cd == ACL_DOUBLE) {
                mk_std(ob, o->dtype, oo[i], pow(mk_ldd(xb, x->dtype, ox[i]), e));
            } else if (mk_dtype_is_float(cd)) {
                mk_stf(ob, o->dtype, oo[i], powf(mk_ldf(xb, x->dtype, ox[i]), (float)e));
            } else {
                mk_sti(ob, o->dtype, oo[i], ipow(mk_ldi(xb, x->dtype, ox[i]), (int64_t)e));
            }
        }
    }
    free(ox);
    free(oo);
}

/* InferTensorScalarDtype for 910B (aclnn_pow.cpp:172-181) */
static int32_t compute_dtype(int32_t self, int32_t exp, int32_t out)
{
    if (exp == ACL_DOUBLE && out == ACL_FLOAT) {
        return ACL_FLOAT;
    }
    if (mk_dtype_is_float(self)) {
        return self;
    }
    if (mk_dtype_is_float(exp) || self == ACL_BOOL) {
        return ew_promote(self, exp);
    }
    return self;
}

OPS_EXPORT aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self, const aclScalar *exponent,
                                                            const aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnPowTensorScalarGetWorkspaceSize), "aclnnPowTensorScalar");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_scalar(&p, "exponent", exponent);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_scalar(&p, exponent, "exponent") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_POW)) {
        int32_t ed = exponent->dtype;
        bool exp_ok = false;
        for (const int32_t *d = DT_POW; *d >= 0; d++) {
            exp_ok = exp_ok || *d == ed;
        }
        int32_t promoted = ew_promote(self->v.dtype, ed);
        int32_t cd = compute_dtype(self->v.dtype, ed, out->v.dtype);
        if (!exp_ok) {
            invalid(&p, "exponent has dtype %s, which is not supported", mk_dtype_name(ed));
        } else if (promoted < 0 || cd < 0) {
            invalid(&p, "self (%s) and exponent (%s) have no common dtype", mk_dtype_name(self->v.dtype),
                    mk_dtype_name(ed));
        } else if (self->v.dtype == ACL_BOOL && ed == ACL_BOOL) {
            invalid(&p, "self and exponent are both BOOL");
        } else if (ew_check_cast(&p, promoted, out, "out") && ew_check_cast(&p, cd, out, "out") &&
                   check_shape(&p, out, "out", self->v.dims, self->v.ndim) && make_exec(&p, k_pow, 0)) {
            p.e->job.ip[IP_X] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_COMPUTE] = cd;
            p.e->job.p[P_EXP] = scalar_f(exponent);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(PowTensorScalar)
