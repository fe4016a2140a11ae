/*
 * op_split.c (libopapi.so), operators III batch ops3b: aclnnSplitTensor
 * (pieces of splitSections along dim, the last one shorter) and
 * aclnnSplitWithSize (pieces of the given sizes), into a tensor list.
 * Parameter lists: ops-math v8.5.0 conversion/split_v/op_api/
 * aclnn_split_tensor.h:35-37 and aclnn_split_with_size.h:36-38.
 *
 * SplitTensor (aclnn_split_tensor.cpp, v8.5.0):
 * - self, out null 161001 (:50-54); a null member 161001 (the mock's:
 *   the real dtype check reads every member, :67-69);
 * - self and every member in the 910B list f64, f32, f16, bf16, i64, i32,
 *   i16, i8, u8, bool (complex too, which the mock has not: :39-42, :65-69);
 * - self of 1 to 8 dims, members at most 8 (:75-80); dim in [-n, n)
 *   (:82-88); splitSections 0 exactly when dim's size is 0 (:90-102); all
 *   161002 (CheckParams, :112-115);
 * - an empty self succeeds and writes nothing (:245-249);
 * - splitSections equal to dim's size: self cast into out[0] (:256-258);
 *   otherwise ceil(size / sections) pieces, the last the remainder
 *   (:261-265): more pieces than members is 161002 (:133-137), each piece
 *   must have its member's shape (:140); members past the pieces are not
 *   written. Each piece is cast to its member's dtype (l0op::Cast, no
 *   cast rule: a float goes into an integer member truncated).
 * SplitWithSize (aclnn_split_with_size.cpp, v8.5.0): the same, with
 * splitSize null 161001 (:50-57); the sizes must sum to dim's size
 * (:96-107) and be as many as the members (:109-114); one size: self cast
 * into out[0] (:255-257).
 * With one piece the real op ViewCopies self into out[0] unchecked; the mock
 * refuses a member of another shape there too (a device copy past the
 * member's end cannot be modelled), and refuses a negative size (SplitV
 * cannot make a piece of negative length).
 */
#include "op_internal.h"
#include "op_tensor_list.h"

#include <stdio.h>
#include <stdlib.h>

/* aclnn_split_tensor.cpp:39-42 = aclnn_split_with_size.cpp:39-42 (910B), without complex */
static const int32_t DT_SPLIT[] = {ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_INT64,
                                   ACL_INT32,  ACL_INT16, ACL_INT8,    ACL_UINT8, ACL_BOOL, -1};

enum { IP_N, IP_DIM, IP_NOTHING };

static void copy_elem(void *ob, int32_t odt, int64_t dst, const void *xb, int32_t xdt, int64_t src)
{
    if (mk_dtype_is_float(xdt)) {
        mk_std(ob, odt, dst, mk_ldd(xb, xdt, src));
    } else if (mk_dtype_is_float(odt)) {
        mk_std(ob, odt, dst, (double)mk_ldi(xb, xdt, src));
    } else {
        mk_sti(ob, odt, dst, mk_ldi(xb, xdt, src));
    }
}

/* slot 0 self, slots 1..n the pieces (each member's own dims[dim] long) */
static void k_split(const mk_job *j, void *const *bufs)
{
    if (j->ip[IP_NOTHING]) {
        return;
    }
    uint32_t n = (uint32_t)j->ip[IP_N], dim = (uint32_t)j->ip[IP_DIM];
    const mk_view *x = &j->slot[0];
    const void *xb = bufs[0];
    if (!xb) {
        return;
    }
    int64_t base = 0;
    for (uint32_t k = 1; k <= n; k++) {
        const mk_view *o = &j->slot[k];
        void *ob = bufs[k];
        int64_t outer, len, inner;
        split_axis(o, dim, &outer, &len, &inner);
        for (int64_t a = 0; ob && a < outer; a++) {
            for (int64_t c = 0; c < len; c++) {
                for (int64_t i = 0; i < inner; i++) {
                    copy_elem(ob, o->dtype, axis_offset(o, dim, a, c, i), xb, x->dtype,
                              axis_offset(x, dim, a, base + c, i));
                }
            }
        }
        base += len;
    }
}

/* The checks both ops share, up to dim's range; the normalized dim into *d. */
static bool split_common(ph1 *p, const aclTensor *self, int64_t dim, const aclTensorList *out, uint32_t *d)
{
    if (!need_tensor(p, self, "self") || !need_list(p, out, "out") || !check_dtype(p, self, "self", DT_SPLIT)) {
        return false;
    }
    char name[48];
    for (uint64_t i = 0; i < out->n; i++) {
        snprintf(name, sizeof(name), "tensor %llu of out", (unsigned long long)i);
        if (!check_dtype(p, out->v[i], name, DT_SPLIT)) {
            return false;
        }
    }
    if (!check_ndim(p, self, "self", 1, 8)) {
        return false;
    }
    for (uint64_t i = 0; i < out->n; i++) {
        snprintf(name, sizeof(name), "tensor %llu of out", (unsigned long long)i);
        if (!check_ndim(p, out->v[i], name, 0, 8)) {
            return false;
        }
    }
    int64_t nd = self->v.ndim;
    if (dim < -nd || dim >= nd) {
        return invalid(p, "dim %lld must be in [%lld, %lld) for a %lld-dimensional self", (long long)dim,
                       (long long)-nd, (long long)nd, (long long)nd);
    }
    *d = (uint32_t)(dim < 0 ? dim + nd : dim);
    return true;
}

/* Pieces of sizes[0..n) along d: each member i < n must have self's shape
 * with sizes[i] at d; builds the executor (nothing to do for an empty self). */
static void split_build(ph1 *p, const aclTensor *self, uint32_t d, const aclTensorList *out, const int64_t *sizes,
                        uint64_t n)
{
    bool empty = numel(&self->v) == 0;
    if (!empty && n > out->n) {
        invalid(p, "self splits into %llu pieces but out has %llu tensors", (unsigned long long)n,
                (unsigned long long)out->n);
        return;
    }
    char name[48];
    for (uint64_t i = 0; !empty && i < n; i++) {
        int64_t dims[MK_MAX_DIMS];
        for (uint32_t k = 0; k < self->v.ndim; k++) {
            dims[k] = self->v.dims[k];
        }
        dims[d] = sizes[i];
        snprintf(name, sizeof(name), "tensor %llu of out", (unsigned long long)i);
        if (!check_shape(p, out->v[i], name, dims, self->v.ndim)) {
            return;
        }
    }
    if (!make_exec(p, k_split, 0)) {
        return;
    }
    p->e->job.ip[IP_NOTHING] = empty;
    if (!empty) {
        add_in(p, self);
        for (uint64_t i = 0; i < n; i++) {
            add_out(p, out->v[i]);
        }
        p->e->job.ip[IP_N] = (int64_t)n;
        p->e->job.ip[IP_DIM] = d;
    }
}

OPS_EXPORT aclnnStatus aclnnSplitTensorGetWorkspaceSize(const aclTensor *self, uint64_t splitSections, int64_t dim,
                                                        aclTensorList *out, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSplitTensorGetWorkspaceSize), "aclnnSplitTensor");
    ph1_arg_tensor(&p, "self", self);
    aclmock_arg_u64(&p.c, "splitSections", splitSections);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_list(&p, "out", out);
    uint32_t d = 0;
    if (split_common(&p, self, dim, out, &d)) {
        int64_t size = self->v.dims[d];
        if (size != 0 && splitSections == 0) {
            invalid(&p, "splitSections is 0 but dim %u has size %lld", d, (long long)size);
        } else if (size == 0 && splitSections != 0) {
            invalid(&p, "dim %u has size 0 but splitSections is %llu (must be 0)", d,
                    (unsigned long long)splitSections);
        } else if (splitSections > (uint64_t)INT64_MAX) {
            invalid(&p, "splitSections %llu is out of range", (unsigned long long)splitSections);
        } else {
            int64_t s = (int64_t)splitSections;
            uint64_t n = size == 0 ? 0 : (uint64_t)((size + s - 1) / s);
            int64_t *sizes = calloc(n ? n : 1, sizeof(int64_t));
            if (!sizes) {
                p.rc = aclmock_fail(ACLNN_ERR_INNER, "out of host memory");
            } else {
                for (uint64_t i = 0; i < n; i++) {
                    sizes[i] = i + 1 < n ? s : size - s * (int64_t)(n - 1);
                }
                split_build(&p, self, d, out, sizes, n);
                free(sizes);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SplitTensor)

OPS_EXPORT aclnnStatus aclnnSplitWithSizeGetWorkspaceSize(const aclTensor *self, const aclIntArray *splitSize,
                                                          int64_t dim, aclTensorList *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSplitWithSizeGetWorkspaceSize), "aclnnSplitWithSize");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "splitSize", splitSize);
    ph1_arg_i64(&p, "dim", dim);
    ph1_arg_list(&p, "out", out);
    uint32_t d = 0;
    if (need_tensor(&p, self, "self") && need_ints(&p, splitSize, "splitSize") &&
        split_common(&p, self, dim, out, &d)) {
        int64_t sum = 0;
        bool negative = false;
        for (uint64_t i = 0; i < splitSize->n; i++) {
            sum += splitSize->v[i];
            negative |= splitSize->v[i] < 0;
        }
        if (negative) {
            invalid(&p, "a split size is negative");
        } else if (sum != self->v.dims[d]) {
            invalid(&p, "the split sizes sum to %lld but dim %u has size %lld", (long long)sum, d,
                    (long long)self->v.dims[d]);
        } else if (splitSize->n != out->n) {
            invalid(&p, "%llu split sizes but out has %llu tensors", (unsigned long long)splitSize->n,
                    (unsigned long long)out->n);
        } else {
            split_build(&p, self, d, out, splitSize->v, splitSize->n);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SplitWithSize)
