/*
 * op_promote.c (libopapi.so): the dtype promotion and the result-cast rule
 * the element-wise ops of the third set check (op_elementwise.h).
 */
#include "op_elementwise.h"

static int rank_int(int32_t dt)
{
    switch (dt) {
    case ACL_INT8:
        return 1;
    case ACL_INT16:
        return 2;
    case ACL_INT32:
        return 3;
    case ACL_INT64:
        return 4;
    default:
        return 0;
    }
}

int32_t ew_promote(int32_t a, int32_t b)
{
    if (a == b) {
        return a;
    }
    if (a == ACL_BOOL) {
        return b;
    }
    if (b == ACL_BOOL) {
        return a;
    }
    if (a == ACL_DOUBLE || b == ACL_DOUBLE) {
        return ACL_DOUBLE;
    }
    bool fa = mk_dtype_is_float(a), fb = mk_dtype_is_float(b);
    if (fa && fb) {
        return ACL_FLOAT; /* f32 with f16/bf16, and f16 with bf16 */
    }
    if (fa || fb) {
        return fa ? a : b; /* a floating type wins over any integer */
    }
    if (a == ACL_UINT8 || b == ACL_UINT8) {
        int32_t o = a == ACL_UINT8 ? b : a;
        if (o == ACL_INT8) {
            return ACL_INT16;
        }
        return rank_int(o) ? o : -1;
    }
    int ra = rank_int(a), rb = rank_int(b);
    if (!ra || !rb) {
        return -1;
    }
    return ra > rb ? a : b;
}

bool ew_can_cast(int32_t from, int32_t to)
{
    if (mk_dtype_is_float(from) && !mk_dtype_is_float(to)) {
        return false;
    }
    if (from != ACL_BOOL && to == ACL_BOOL) {
        return false;
    }
    return true;
}

bool ew_check_cast(ph1 *p, int32_t from, const aclTensor *out, const char *name)
{
    if (p->rc) {
        return false;
    }
    if (!ew_can_cast(from, out->v.dtype)) {
        return invalid(p, "the result dtype %s cannot be cast to %s's dtype %s", mk_dtype_name(from), name,
                       mk_dtype_name(out->v.dtype));
    }
    return true;
}
