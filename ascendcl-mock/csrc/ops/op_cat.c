/*
 * op_cat.c (libopapi.so), operators III batch ops3b: aclnnCat, the
 * concatenation of a tensor list along one dim. Parameter list: ops-math
 * v8.5.0 conversion/concat_d/op_api/aclnn_cat.h:25-26.
 *
 * Rules (conversion/concat_d/op_api/aclnn_cat.cpp, v8.5.0):
 * - tensors null is 161001 (:85, reached through :290-296); a null member
 *   161001 (:87-89; the real EraseDim1EmptyTensor reads every member first,
 *   :273-278, so the mock checks members before filtering);
 * - 1-d tensors of size 0 ([0]) are dropped first; a list with nothing
 *   left succeeds with an executor that does nothing, out not even looked
 *   at (:267-281, :290-294);
 * - otherwise out null is 161001 (:90); every member and out in the 910B
 *   list f32, i32, i64, f16, i16, i8, u8, f64, bf16, bool (complex64 too,
 *   which the mock has not: :41-44, :67-81);
 * - the members' dtypes promote to one (PromoteType, :94-111) castable to
 *   out (:112);
 * - every member and out of one storage format (:116-137);
 * - member 0 at most 8 dims (:142); dim in [-n, n) for n = member 0's
 *   dims, so a 0-d member is refused (:143-152); every member of n dims
 *   (:155-160), equal to member 0 outside `dim` (:161-171);
 * - members empty in another way (a 0 elsewhere) take no part (:201-209);
 *   if none is left nothing is written (:254-256); out must have the
 *   concatenated shape (CheckShapeAndScalarSame, :257; with one member left
 *   the real op ViewCopies it into out unchecked, :211-213: the mock
 *   refuses a shape that differs there too, as a device copy past out's
 *   end cannot be modelled);
 * - each member is cast to the promoted dtype, concatenated, and the result
 *   cast to out's (:223-227, :258). No limit on the list's length: members
 *   are concatenated 32 at a time on 910B (:216-252).
 * The kernel rounds each value into the promoted dtype, then into out's.
 */
#include "op_elementwise.h"
#include "op_tensor_list.h"

#include <stdio.h>
#include <stdlib.h>

/* aclnn_cat.cpp:41-44 (910B), without complex64 */
static const int32_t DT_CAT_910B[] = {ACL_FLOAT, ACL_INT32, ACL_INT64,  ACL_FLOAT16, ACL_INT16, ACL_INT8,
                                      ACL_UINT8, ACL_DOUBLE, ACL_BF16, ACL_BOOL,    -1};

enum { IP_N, IP_DIM, IP_PROMOTE, IP_NOTHING };

/* v rounded into dtype dt (a float dtype) */
static double round_to(int32_t dt, double v)
{
    uint64_t tmp = 0;
    mk_std(&tmp, dt, 0, v);
    return mk_ldd(&tmp, dt, 0);
}

static void k_cat(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    uint32_t n = (uint32_t)j->ip[IP_N], dim = (uint32_t)j->ip[IP_DIM];
    int32_t pdt = (int32_t)j->ip[IP_PROMOTE];
    const mk_view *o = &j->slot[n];
    void *ob = bufs[n];
    if (!ob) {
        return;
    }
    int64_t base = 0;
    for (uint32_t k = 0; k < n; k++) {
        const mk_view *x = &j->slot[k];
        const void *xb = bufs[k];
        int64_t outer, len, inner;
        split_axis(x, dim, &outer, &len, &inner);
        if (!xb || numel(x) == 0) {
            base += x->dims[dim];
            continue;
        }
        for (int64_t a = 0; a < outer; a++) {
            for (int64_t c = 0; c < len; c++) {
                for (int64_t i = 0; i < inner; i++) {
                    int64_t src = axis_offset(x, dim, a, c, i), dst = axis_offset(o, dim, a, base + c, i);
                    if (mk_dtype_is_float(pdt)) {
                        mk_std(ob, o->dtype, dst, round_to(pdt, mk_ldd(xb, x->dtype, src)));
                    } else if (mk_dtype_is_float(o->dtype)) {
                        mk_std(ob, o->dtype, dst, (double)mk_ldi(xb, x->dtype, src));
                    } else {
                        mk_sti(ob, o->dtype, dst, mk_ldi(xb, x->dtype, src));
                    }
                }
            }
        }
        base += len;
    }
}

/* Members after dropping the [0] ones (aclnn_cat.cpp:267-281). */
static uint64_t keep_members(const aclTensorList *l, const aclTensor **kept)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < l->n; i++) {
        const aclTensor *t = l->v[i];
        if (!(t->v.ndim == 1 && t->v.dims[0] == 0)) {
            kept[n++] = t;
        }
    }
    return n;
}

static bool cat_checks(ph1 *p, const aclTensor *const *t, uint64_t n, int64_t dim, const aclTensor *out,
                       uint32_t *real_dim, int32_t *promote)
{
    if (!need_tensor(p, out, "out")) {
        return false;
    }
    char name[48];
    for (uint64_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "tensor %llu of tensors", (unsigned long long)i);
        if (!check_dtype(p, t[i], name, DT_CAT_910B)) {
            return false;
        }
    }
    if (!check_dtype(p, out, "out", DT_CAT_910B)) {
        return false;
    }
    int32_t pdt = t[0]->v.dtype;
    for (uint64_t i = 1; i < n; i++) {
        pdt = ew_promote(t[i]->v.dtype, pdt);
        if (pdt < 0) {
            return invalid(p, "the dtype %s of tensor %llu does not promote with the others",
                           mk_dtype_name(t[i]->v.dtype), (unsigned long long)i);
        }
    }
    if (!ew_check_cast(p, pdt, out, "out")) {
        return false;
    }
    for (uint64_t i = 1; i < n; i++) {
        if (t[i]->format != t[0]->format) {
            return invalid(p, "tensor %llu has another storage format than tensor 0", (unsigned long long)i);
        }
    }
    if (out->format != t[0]->format) {
        return invalid(p, "out has another storage format than tensor 0");
    }
    if (!check_ndim(p, t[0], "tensor 0 of tensors", 0, 8)) {
        return false;
    }
    int64_t nd = t[0]->v.ndim;
    if (dim < -nd || dim >= nd) {
        return invalid(p, "dim %lld is out of range for %lld-dimensional tensors (a 0-d tensor cannot be concatenated)",
                       (long long)dim, (long long)nd);
    }
    uint32_t d = (uint32_t)(dim < 0 ? dim + nd : dim);
    int64_t dims[MK_MAX_DIMS];
    for (uint32_t k = 0; k < (uint32_t)nd; k++) {
        dims[k] = t[0]->v.dims[k];
    }
    for (uint64_t i = 1; i < n; i++) {
        if (t[i]->v.ndim != (uint32_t)nd) {
            return invalid(p, "tensor %llu has %u dims, tensor 0 %lld", (unsigned long long)i, t[i]->v.ndim,
                           (long long)nd);
        }
        for (uint32_t k = 0; k < (uint32_t)nd; k++) {
            if (k != d && t[i]->v.dims[k] != t[0]->v.dims[k]) {
                return invalid(p, "dim %u of tensor %llu is %lld, of tensor 0 %lld", k, (unsigned long long)i,
                               (long long)t[i]->v.dims[k], (long long)t[0]->v.dims[k]);
            }
        }
        if (i) {
            dims[d] += t[i]->v.dims[d];
        }
    }
    bool any = false;
    for (uint64_t i = 0; i < n; i++) {
        any |= numel(&t[i]->v) != 0;
    }
    if (any && !check_shape(p, out, "out", dims, (uint32_t)nd)) {
        return false;
    }
    *real_dim = d;
    *promote = pdt;
    return any;
}

OPS_EXPORT aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnCatGetWorkspaceSize), "aclnnCat");
    ph1_arg_list(&p, "tensors", tensors);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_tensor(&p, "out", out);
    const aclTensor **kept = NULL;
    if (need_list(&p, tensors, "tensors")) {
        kept = calloc(tensors->n ? tensors->n : 1, sizeof(*kept));
        if (!kept) {
            p.rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
        }
    }
    if (kept) {
        uint64_t n = keep_members(tensors, kept);
        uint32_t d = 0;
        int32_t pdt = ACL_FLOAT;
        bool work = n && cat_checks(&p, kept, n, dim, out, &d, &pdt);
        if (!p.rc && make_exec(&p, k_cat, 0)) {
            p.e->job.ip[IP_NOTHING] = !work;
            if (work) {
                for (uint64_t i = 0; i < n; i++) {
                    add_in(&p, kept[i]);
                }
                add_out(&p, out);
                p.e->job.ip[IP_N] = (int64_t)n;
                p.e->job.ip[IP_DIM] = d;
                p.e->job.ip[IP_PROMOTE] = pdt;
            }
        }
    }
    free(kept);
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Cat)
