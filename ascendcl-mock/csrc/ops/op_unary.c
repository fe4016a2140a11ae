/*
 * op_unary.c (libopapi.so): aclnnSqrt, aclnnRsqrt, aclnnExp, aclnnLog,
 * aclnnNeg, out = f(self), out of self's shape. One kernel; each op has the
 * checks of its own op_api source (ops-math v8.5.0, math/<op>/op_api/
 * aclnn_<op>.cpp), which differ in the dtypes they take and in what they do
 * with integer inputs:
 *
 *   Sqrt   self: FLOAT, FLOAT16, DOUBLE, INT32, INT64, INT16, INT8, BOOL,
 *          BF16, UINT8 (aclnn_sqrt.cpp:40-45); an integer or bool self has a
 *          FLOAT result, which must cast to out (:68-76); INT64 is cast to
 *          DOUBLE, the other integers to FLOAT before the root (:124-131).
 *   Rsqrt  self: FLOAT, FLOAT16, DOUBLE, INT8, INT16, INT32, INT64, BOOL,
 *          BF16, UINT8 (aclnn_rsqrt.cpp:30-33); out: FLOAT, FLOAT16, DOUBLE,
 *          BF16 (:35-37, checked at :57-70; no cast check); a self outside
 *          out's list is cast to out's dtype first (:118-124).
 *   Exp    self: FLOAT, FLOAT16, BF16, DOUBLE, BOOL, INT64 only (:39-41: an
 *          INT32 self is refused); BOOL and INT64 are cast to FLOAT and the
 *          FLOAT result must cast to out (:50-69, :126-129).
 *   Log    self: FLOAT, FLOAT16, BF16, DOUBLE, BOOL, INT64, INT32, INT16,
 *          INT8, UINT8 (aclnn_log.cpp:58-62); out: FLOAT, FLOAT16, BF16,
 *          DOUBLE (:68-70), both checked at :91; self's dtype must cast to
 *          out (:72-74, :94).
 *   Neg    self: INT8, INT32, INT64, FLOAT16, FLOAT, DOUBLE, BF16
 *          (aclnn_neg.cpp:35-38, chosen for 910B at :48-66); self's dtype
 *          must cast to out (:67-70); computed in self's dtype (integers
 *          wrap as the device's two's complement does).
 *
 * Every op: self and out not null (161001; CheckNotNull2Tensor, e.g.
 * aclnn_sqrt.cpp:80, aclnn_neg.cpp:40-46), then the dtype checks, then out
 * has self's shape (aclnn_sqrt.cpp:86, aclnn_rsqrt.cpp:82, aclnn_exp.cpp:90,
 * aclnn_log.cpp:97, aclnn_neg.cpp:74-80); the complex types are not
 * emulated (refused). The result is cast to out's dtype (e.g.
 * aclnn_sqrt.cpp:137). The mock computes in f32 (in double when the real op
 * computes in DOUBLE) and rounds once into out; an empty self is a success
 * with nothing to do.
 */
#include "op_elementwise.h"

#include <math.h>
#include <stdlib.h>

enum { U_SQRT, U_RSQRT, U_EXP, U_LOG, U_NEG };
enum { C_F32, C_F64, C_INT };
enum { IP_X, IP_OUT, IP_FN, IP_COMPUTE };

static const int32_t DT_SQRT_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT16,
                                       ACL_INT8,  ACL_BOOL,    ACL_BF16,   ACL_UINT8, -1};
static const int32_t DT_RSQRT_SELF[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT8,  ACL_INT16, ACL_INT32,
                                        ACL_INT64, ACL_BOOL,    ACL_BF16,   ACL_UINT8, -1};
static const int32_t DT_FLOAT_OUT[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, -1};
static const int32_t DT_EXP_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_BOOL, ACL_INT64, -1};
static const int32_t DT_LOG_910B[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_BOOL,
                                      ACL_INT64, ACL_INT32,   ACL_INT16, ACL_INT8,   ACL_UINT8, -1};
static const int32_t DT_NEG_910B[] = {ACL_INT8, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_BF16, -1};

static double apply_d(int fn, double x)
{
    switch (fn) {
    case U_SQRT:
        return sqrt(x);
    case U_RSQRT:
        return 1.0 / sqrt(x);
    case U_EXP:
        return exp(x);
    case U_LOG:
        return log(x);
    default:
        return -x;
    }
}

static float apply_f(int fn, float x)
{
    switch (fn) {
    case U_SQRT:
        return sqrtf(x);
    case U_RSQRT:
        return 1.0f / sqrtf(x);
    case U_EXP:
        return expf(x);
    case U_LOG:
        return logf(x);
    default:
        return -x;
    }
}

static void k_unary(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    int fn = (int)j->ip[IP_FN];
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            switch (j->ip[IP_COMPUTE]) {
            case C_F64:
                mk_std(ob, o->dtype, oo[i], apply_d(fn, mk_ldd(xb, x->dtype, ox[i])));
                break;
            case C_INT: /* Neg of an integer: two's complement wrap in self's width */
                mk_sti(ob, o->dtype, oo[i], (int64_t)(0u - (uint64_t)mk_ldi(xb, x->dtype, ox[i])));
                break;
            default:
                mk_stf(ob, o->dtype, oo[i], apply_f(fn, mk_ldf(xb, x->dtype, ox[i])));
                break;
            }
        }
    }
    free(ox);
    free(oo);
}

/* The checks of op fn in the real op's order; the dtype the op computes in. */
static bool unary_checks(ph1 *p, int fn, const aclTensor *self, const aclTensor *out, int *compute)
{
    int32_t sd = self->v.dtype;
    switch (fn) {
    case U_SQRT:
        if (!check_dtype(p, self, "self", DT_SQRT_910B) ||
            !ew_check_cast(p, ew_is_integral(sd) ? ACL_FLOAT : sd, out, "out")) {
            return false;
        }
        *compute = sd == ACL_DOUBLE || sd == ACL_INT64 ? C_F64 : C_F32;
        break;
    case U_RSQRT:
        if (!check_dtype(p, self, "self", DT_RSQRT_SELF) || !check_dtype(p, out, "out", DT_FLOAT_OUT)) {
            return false;
        }
        /* a self outside out's list computes in out's dtype */
        *compute = sd == ACL_DOUBLE || (ew_is_integral(sd) && out->v.dtype == ACL_DOUBLE) ? C_F64 : C_F32;
        break;
    case U_EXP:
        if (!check_dtype(p, self, "self", DT_EXP_910B) ||
            !ew_check_cast(p, ew_is_integral(sd) ? ACL_FLOAT : sd, out, "out")) {
            return false;
        }
        *compute = sd == ACL_DOUBLE ? C_F64 : C_F32;
        break;
    case U_LOG:
        if (!check_dtype(p, self, "self", DT_LOG_910B) || !check_dtype(p, out, "out", DT_FLOAT_OUT) ||
            !ew_check_cast(p, sd, out, "out")) {
            return false;
        }
        *compute = sd == ACL_DOUBLE ? C_F64 : C_F32;
        break;
    default:
        if (!check_dtype(p, self, "self", DT_NEG_910B) || !ew_check_cast(p, sd, out, "out")) {
            return false;
        }
        *compute = sd == ACL_DOUBLE ? C_F64 : ew_is_integral(sd) ? C_INT : C_F32;
        break;
    }
    return check_shape(p, out, "out", self->v.dims, self->v.ndim);
}

static aclnnStatus unary(int fn, int fnid, const char *op, const aclTensor *self, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    int compute = C_F32;
    ph1_begin(&p, fnid, op);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && unary_checks(&p, fn, self, out, &compute) &&
        make_exec(&p, k_unary, 0)) {
        p.e->job.ip[IP_X] = add_in(&p, self);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
        p.e->job.ip[IP_FN] = fn;
        p.e->job.ip[IP_COMPUTE] = compute;
    }
    return ph1_end(&p, workspaceSize, executor);
}

#define UNARY_OP(Name, FN)                                                                                         \
    OPS_EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self, aclTensor *out,                    \
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)        \
    {                                                                                                              \
        return unary(FN, MK_FN(aclnn##Name##GetWorkspaceSize), "aclnn" #Name, self, out, workspaceSize, executor); \
    }                                                                                                              \
    OP_PHASE2(Name)

UNARY_OP(Sqrt, U_SQRT)
UNARY_OP(Rsqrt, U_RSQRT)
UNARY_OP(Exp, U_EXP)
UNARY_OP(Log, U_LOG)
UNARY_OP(Neg, U_NEG)
