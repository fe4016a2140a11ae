/*
 * op_common.c (libopapi.so): what every op's phase 1 shares (journal,
 * argument checks with aclnn status codes and messages, executor building).
 *
 * Status rules (opbase v8.5.0 op_errno.h:15-16; each op's CheckNotNull
 * returns ACLNN_ERR_PARAM_NULLPTR, e.g. ops-math aclnn_add.cpp:269, and its
 * dtype/shape checks ACLNN_ERR_PARAM_INVALID): a null required argument is 161001
 * (ACLNN_ERR_PARAM_NULLPTR); a bad dtype, shape, broadcast or dim is 161002
 * (ACLNN_ERR_PARAM_INVALID).
 */
#include "op_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int32_t DT_FLOATS[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};
const int32_t DT_NUMERIC[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,  ACL_INT16, ACL_INT32,
                              ACL_INT64, ACL_UINT8,   ACL_UINT16, ACL_UINT32, ACL_UINT64, -1};
const int32_t DT_ALL[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,   ACL_DOUBLE, ACL_INT8,   ACL_INT16, ACL_INT32,
                          ACL_INT64, ACL_UINT8,   ACL_UINT16, ACL_UINT32, ACL_UINT64, ACL_BOOL,  -1};
const int32_t DT_INDEX[] = {ACL_INT32, ACL_INT64, -1};

static void shape_text(char *buf, size_t cap, const int64_t *d, uint32_t n)
{
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (uint32_t i = 0; i < n && k + 24 < cap; i++) {
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "", (long long)d[i]);
    }
    snprintf(buf + k, cap - k, "]");
}

aclnnStatus mk_dvpp_status(aclnnStatus rc)
{
    switch (rc) {
    case ACLNN_ERR_PARAM_NULLPTR:
        return 106001;
    case ACLNN_ERR_PARAM_INVALID:
        return 106002;
    case ACLNN_ERR_RUNTIME_ERROR:
        return 306001;
    case ACLNN_ERR_INNER:
        return 506000;
    case ACLNN_ERR_INNER_NULLPTR:
        return 506103;
    default:
        return rc;
    }
}

void ph1_begin(ph1 *p, int fn, const char *op)
{
    p->op = op;
    p->e = NULL;
    p->rc = 0;
    p->checked = false;
    p->dvpp = false;
    /* checked after the arguments are journaled (ph1_ok), so a strict
     * replay compares them */
    aclmock_call_start(&p->c, fn);
}

bool ph1_ok(ph1 *p)
{
    if (!p->checked) {
        p->checked = true;
        int32_t code = aclmock_call_check(&p->c);
        if (code && !p->rc) {
            p->rc = code;
        }
    }
    return !p->rc;
}

aclnnStatus ph1_end(ph1 *p, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1_ok(p);
    if (!p->rc && !workspaceSize) {
        p->rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize is null", p->op);
    }
    if (!p->rc && !executor) {
        p->rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is null", p->op);
    }
    if (!p->rc && !p->e) {
        p->rc = aclmock_fail(ACLNN_ERR_INNER, "%s: no executor was built", p->op);
    }
    if (!p->rc && p->e->oom) {
        p->rc = ACLNN_ERR_INNER; /* the message was set when the slot could not be added */
    }
    if (p->rc) {
        aclmocknn_executor_drop(p->e);
        return aclmock_call_end(&p->c, p->dvpp ? mk_dvpp_status(p->rc) : p->rc);
    }
    uint64_t recorded;
    if (aclmock_replay_out_u64(&p->c, "workspaceSize", &recorded)) {
        /* strict replay: the recorded size, which phase 2 then checks */
        p->e->ws_size = recorded;
    }
    *workspaceSize = p->e->ws_size;
    *executor = p->e;
    char sym[32];
    snprintf(sym, sizeof(sym), "x%llu", (unsigned long long)p->e->id);
    aclmock_out_str(&p->c, "executor", sym);
    aclmock_out_u64(&p->c, "workspaceSize", p->e->ws_size);
    return aclmock_call_end(&p->c, 0);
}

void ph1_arg_tensor(ph1 *p, const char *key, const aclTensor *t)
{
    char sym[48];
    if (!t) {
        aclmock_arg_str(&p->c, key, NULL);
        return;
    }
    if (aclmocknn_is_live(t, MK_TENSOR)) {
        snprintf(sym, sizeof(sym), "t%llu", (unsigned long long)t->id);
    } else {
        snprintf(sym, sizeof(sym), "?%p", (const void *)t);
    }
    aclmock_arg_str(&p->c, key, sym);
}

void ph1_arg_scalar(ph1 *p, const char *key, const aclScalar *s)
{
    char sym[48];
    if (!s) {
        aclmock_arg_str(&p->c, key, NULL);
        return;
    }
    if (aclmocknn_is_live(s, MK_SCALAR)) {
        snprintf(sym, sizeof(sym), "k%llu", (unsigned long long)s->id);
    } else {
        snprintf(sym, sizeof(sym), "?%p", (const void *)s);
    }
    aclmock_arg_str(&p->c, key, sym);
}

void ph1_arg_i64(ph1 *p, const char *key, int64_t v) { aclmock_arg_i64(&p->c, key, v); }

void ph1_arg_f64(ph1 *p, const char *key, double v)
{
    char txt[40];
    snprintf(txt, sizeof(txt), "%.17g", v);
    aclmock_arg_str(&p->c, key, txt);
}

void ph1_arg_ints(ph1 *p, const char *key, const aclIntArray *a)
{
    if (!a) {
        aclmock_arg_str(&p->c, key, NULL);
        return;
    }
    if (!aclmocknn_is_live(a, MK_INT_ARRAY)) {
        char txt[48];
        snprintf(txt, sizeof(txt), "?%p", (const void *)a);
        aclmock_arg_str(&p->c, key, txt);
        return;
    }
    /* every value, as aclCreateIntArray journals them (nn_desc.c) */
    char *txt = aclmocknn_int_text(a->v, a->n);
    aclmock_arg_str(&p->c, key, txt ? txt : "?");
    free(txt);
}

void ph1_arg_bools(ph1 *p, const char *key, const aclBoolArray *a)
{
    char txt[120];
    if (!a) {
        aclmock_arg_str(&p->c, key, NULL);
        return;
    }
    if (!aclmocknn_is_live(a, MK_BOOL_ARRAY)) {
        snprintf(txt, sizeof(txt), "?%p", (const void *)a);
    } else {
        size_t k = (size_t)snprintf(txt, sizeof(txt), "[");
        for (uint64_t i = 0; i < a->n && k + 8 < sizeof(txt); i++) {
            k += (size_t)snprintf(txt + k, sizeof(txt) - k, "%s%s", i ? "," : "", a->v[i] ? "true" : "false");
        }
        snprintf(txt + k, sizeof(txt) - k, "]");
    }
    aclmock_arg_str(&p->c, key, txt);
}

bool need_ints(ph1 *p, const aclIntArray *a, const char *name)
{
    if (!need_ptr(p, a, name)) {
        return false;
    }
    if (!aclmocknn_is_live(a, MK_INT_ARRAY)) {
        return invalid(p, "%s (%p) is not a live aclIntArray", name, (const void *)a);
    }
    return true;
}

bool need_bools(ph1 *p, const aclBoolArray *a, const char *name)
{
    if (!need_ptr(p, a, name)) {
        return false;
    }
    if (!aclmocknn_is_live(a, MK_BOOL_ARRAY)) {
        return invalid(p, "%s (%p) is not a live aclBoolArray", name, (const void *)a);
    }
    return true;
}

bool check_len(ph1 *p, const aclIntArray *a, const char *name, uint64_t n1, int64_t n2)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (a->n == n1 || (n2 >= 0 && a->n == (uint64_t)n2)) {
        return true;
    }
    if (n2 >= 0) {
        return invalid(p, "%s has %llu elements, expected %llu or %lld", name, (unsigned long long)a->n,
                       (unsigned long long)n1, (long long)n2);
    }
    return invalid(p, "%s has %llu elements, expected %llu", name, (unsigned long long)a->n, (unsigned long long)n1);
}

double *dzeros(int64_t n) { return n > 0 ? calloc((size_t)n, sizeof(double)) : NULL; }

void mk_index_misuse(const char *fmt, ...)
{
    char detail[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    /* kernels run on the stream worker without the mock's lock */
    aclmock_lock();
    aclmock_misuse(ACLMOCK_MISUSE_OUT_OF_BOUNDS, "%s", detail);
    aclmock_unlock();
}

bool invalid(ph1 *p, const char *fmt, ...)
{
    if (!ph1_ok(p)) {
        return false;
    }
    char detail[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    p->rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s", p->op, detail);
    return false;
}

bool need_ptr(ph1 *p, const void *v, const char *name)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (!v) {
        p->rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is null", p->op, name);
        return false;
    }
    return true;
}

bool need_tensor(ph1 *p, const aclTensor *t, const char *name)
{
    if (!need_ptr(p, t, name)) {
        return false;
    }
    if (!aclmocknn_is_live(t, MK_TENSOR)) {
        return invalid(p, "%s (%p) is not a live aclTensor", name, (const void *)t);
    }
    return true;
}

bool opt_tensor(ph1 *p, const aclTensor *t, const char *name) { return !t ? ph1_ok(p) : need_tensor(p, t, name); }

bool need_scalar(ph1 *p, const aclScalar *s, const char *name)
{
    if (!need_ptr(p, s, name)) {
        return false;
    }
    if (!aclmocknn_is_live(s, MK_SCALAR)) {
        return invalid(p, "%s (%p) is not a live aclScalar", name, (const void *)s);
    }
    return true;
}

bool check_dtype(ph1 *p, const aclTensor *t, const char *name, const int32_t *allowed)
{
    if (!ph1_ok(p)) {
        return false;
    }
    for (const int32_t *a = allowed; *a >= 0; a++) {
        if (t->v.dtype == *a) {
            return true;
        }
    }
    char list[256];
    size_t k = 0;
    list[0] = '\0';
    for (const int32_t *a = allowed; *a >= 0 && k + 16 < sizeof(list); a++) {
        k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", a == allowed ? "" : ", ", mk_dtype_name(*a));
    }
    return invalid(p, "%s has dtype %s, which is not supported (supported: %s)", name, mk_dtype_name(t->v.dtype),
                   list);
}

bool check_same_dtype(ph1 *p, const aclTensor *a, const char *an, const aclTensor *b, const char *bn)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (a->v.dtype != b->v.dtype) {
        return invalid(p, "%s (%s) and %s (%s) must have the same dtype", an, mk_dtype_name(a->v.dtype), bn,
                       mk_dtype_name(b->v.dtype));
    }
    return true;
}

bool check_shape(ph1 *p, const aclTensor *t, const char *name, const int64_t *dims, uint32_t nd)
{
    if (!ph1_ok(p)) {
        return false;
    }
    bool same = t->v.ndim == nd;
    for (uint32_t i = 0; same && i < nd; i++) {
        same = t->v.dims[i] == dims[i];
    }
    if (!same) {
        char want[200], got[200];
        shape_text(want, sizeof(want), dims, nd);
        shape_text(got, sizeof(got), t->v.dims, t->v.ndim);
        return invalid(p, "%s has shape %s, expected %s", name, got, want);
    }
    return true;
}

bool check_ndim(ph1 *p, const aclTensor *t, const char *name, uint32_t lo, uint32_t hi)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (t->v.ndim < lo || t->v.ndim > hi) {
        char got[200];
        shape_text(got, sizeof(got), t->v.dims, t->v.ndim);
        if (lo == hi) {
            return invalid(p, "%s must be %u-dimensional, its shape is %s", name, lo, got);
        }
        return invalid(p, "%s must have %u to %u dimensions, its shape is %s", name, lo, hi, got);
    }
    return true;
}

bool bcast(const mk_view *a, const mk_view *b, int64_t *out, uint32_t *nd)
{
    uint32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (uint32_t i = 0; i < n; i++) {
        int64_t da = i < a->ndim ? a->dims[a->ndim - 1 - i] : 1;
        int64_t db = i < b->ndim ? b->dims[b->ndim - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) {
            return false;
        }
        out[n - 1 - i] = da == 1 ? db : da;
    }
    *nd = n;
    return true;
}

bool check_bcast_to(ph1 *p, const aclTensor *t, const char *name, const int64_t *dims, uint32_t nd)
{
    if (!ph1_ok(p)) {
        return false;
    }
    bool ok = t->v.ndim <= nd;
    for (uint32_t i = 0; ok && i < t->v.ndim; i++) {
        int64_t d = t->v.dims[t->v.ndim - 1 - i];
        ok = d == 1 || d == dims[nd - 1 - i];
    }
    if (!ok) {
        char want[200], got[200];
        shape_text(want, sizeof(want), dims, nd);
        shape_text(got, sizeof(got), t->v.dims, t->v.ndim);
        return invalid(p, "%s of shape %s cannot be broadcast to %s", name, got, want);
    }
    return true;
}

bool make_exec(ph1 *p, mk_kernel k, uint64_t ws)
{
    if (!ph1_ok(p)) {
        return false;
    }
    p->e = aclmocknn_executor_new(p->op, k, ws);
    if (!p->e) {
        p->rc = ACLNN_ERR_INNER;
        return false;
    }
    return true;
}

uint32_t add_in(ph1 *p, const aclTensor *t) { return aclmocknn_executor_add(p->e, t, true, false); }
uint32_t add_out(ph1 *p, const aclTensor *t) { return aclmocknn_executor_add(p->e, t, false, true); }
uint32_t add_inout(ph1 *p, const aclTensor *t) { return aclmocknn_executor_add(p->e, t, true, true); }

double scalar_f(const aclScalar *s) { return mk_dtype_is_float(s->dtype) ? s->f : (double)s->i; }
