/*
 * op_permute.c (libopapi.so): aclnnPermute of operators III (batch `ops-a`),
 * out = self.permute(dims) materialized (a copy, not a view). Parameter list
 * (hicann/ops-math v8.5.0): conversion/transpose/op_api/aclnn_permute.h:25-26.
 *
 * Checks, in the real op's order (conversion/transpose/op_api/aclnn_permute.cpp,
 * CheckParam :140-155, then the graph :231-233):
 * - self, dims, out not null (:34-41);
 * - self and out in the list (:27-32: every dtype the mock has; complex and
 *   the 8-bit floats not emulated), out of self's dtype (:49-70);
 * - out with self's number of dims (:99-107), dims with one entry per dim
 *   (:109-115), no value repeated as written (:117-132), at most 8 dims
 *   (:135);
 * - each entry in [-n, n - 1], and no dim named twice once negative entries
 *   are counted from the end (:72-95; so [-1, 1] of a 2-D self, whose raw
 *   values differ, is refused here);
 * - out of the permuted shape (CheckShapeAndScalarSame, :233).
 * An empty self leaves out unwritten (:190-194, :234-239). Values are copied
 * byte for byte.
 */
#include "op_internal.h"

#include <stdlib.h>
#include <string.h>

/* job->ip layout: IP_PERM.. holds the normalized permutation */
enum { IP_SELF, IP_OUT, IP_PERM };

static void k_permute(const mk_job *j, void *const *bufs)
{
    const mk_view *s = &j->slot[j->ip[IP_SELF]], *o = &j->slot[j->ip[IP_OUT]];
    const char *sb = bufs[j->ip[IP_SELF]];
    char *ob = bufs[j->ip[IP_OUT]];
    /* self seen in out's order: dim d of the view is self's dim perm[d] */
    mk_view permuted = *s;
    for (uint32_t d = 0; d < o->ndim; d++) {
        permuted.dims[d] = s->dims[j->ip[IP_PERM + d]];
        permuted.strides[d] = s->strides[j->ip[IP_PERM + d]];
    }
    int64_t *os = view_offsets(&permuted), *oo = view_offsets(o);
    int64_t n = numel(o);
    size_t es = mk_dtype_size(o->dtype);
    if (os && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            memcpy(ob + (size_t)oo[i] * es, sb + (size_t)os[i] * es, es);
        }
    }
    free(os);
    free(oo);
}

OPS_EXPORT aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnPermuteGetWorkspaceSize), "aclnnPermute");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_ints(&p, "dims", dims);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_ints(&p, dims, "dims") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_ALL) && check_dtype(&p, out, "out", DT_ALL) &&
        check_same_dtype(&p, out, "out", self, "self")) {
        uint32_t nd = self->v.ndim;
        int64_t perm[MK_MAX_DIMS], want[MK_MAX_DIMS];
        bool seen[MK_MAX_DIMS] = {false};
        if (out->v.ndim != nd) {
            invalid(&p, "out has %u dims, self %u", out->v.ndim, nd);
        } else if (dims->n != nd) {
            invalid(&p, "dims has %llu entries for a %u-dim self", (unsigned long long)dims->n, nd);
        }
        for (uint64_t a = 0; !p.rc && a < dims->n; a++) {
            for (uint64_t b = 0; b < a; b++) {
                if (dims->v[a] == dims->v[b]) {
                    invalid(&p, "dims repeats %lld", (long long)dims->v[a]);
                    break;
                }
            }
        }
        if (check_ndim(&p, self, "self", 0, 8)) {
            for (uint32_t d = 0; !p.rc && d < nd; d++) {
                int64_t v = dims->v[d];
                if (v < -(int64_t)nd || v > (int64_t)nd - 1) {
                    invalid(&p, "dims[%u] = %lld is outside [%lld, %lld]", d, (long long)v, -(long long)nd,
                            (long long)nd - 1);
                } else {
                    perm[d] = v < 0 ? v + nd : v;
                    if (seen[perm[d]]) {
                        invalid(&p, "dims names dim %lld twice (dims[%u] = %lld)", (long long)perm[d], d,
                                (long long)v);
                    }
                    seen[perm[d]] = true;
                    want[d] = self->v.dims[perm[d]];
                }
            }
        }
        if (!p.rc && check_shape(&p, out, "out (self's shape permuted by dims)", want, nd) &&
            make_exec(&p, k_permute, 0)) {
            p.e->job.ip[IP_SELF] = add_in(&p, self);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            for (uint32_t d = 0; d < nd; d++) {
                p.e->job.ip[IP_PERM + d] = perm[d];
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Permute)
