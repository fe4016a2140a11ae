/*
 * op_iter.c (libopapi.so): how kernels walk tensors: element offsets of a
 * view (shape, element strides) in row-major order, with numpy broadcasting
 * to a larger shape (dims right-aligned; size-1 or missing dims repeat), and
 * the (outer, axis, inner) split of a view around one dimension.
 */
#include "op_internal.h"

#include <stdlib.h>

int64_t numel(const mk_view *v)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < v->ndim; i++) {
        n *= v->dims[i];
    }
    return n;
}

int64_t *bcast_offsets(const mk_view *v, const int64_t *dims, uint32_t nd)
{
    int64_t n = 1;
    for (uint32_t i = 0; i < nd; i++) {
        n *= dims[i];
    }
    if (n <= 0) {
        return NULL;
    }
    int64_t *offs = malloc((size_t)n * sizeof(int64_t));
    if (!offs) {
        return NULL;
    }
    /* stride of each output dim in v: 0 where v is broadcast */
    int64_t st[MK_MAX_DIMS] = {0};
    for (uint32_t i = 0; i < nd; i++) {
        int64_t vi = (int64_t)i - (int64_t)(nd - v->ndim);
        st[i] = vi >= 0 && v->dims[vi] != 1 ? v->strides[vi] : 0;
    }
    int64_t idx[MK_MAX_DIMS] = {0};
    int64_t cur = 0;
    for (int64_t k = 0; k < n; k++) {
        offs[k] = cur;
        for (int64_t d = (int64_t)nd - 1; d >= 0; d--) {
            if (++idx[d] < dims[d]) {
                cur += st[d];
                break;
            }
            cur -= st[d] * (idx[d] - 1);
            idx[d] = 0;
        }
    }
    return offs;
}

int64_t *view_offsets(const mk_view *v) { return bcast_offsets(v, v->dims, v->ndim); }

void split_axis(const mk_view *v, uint32_t dim, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    *len = v->ndim ? v->dims[dim] : 1;
    for (uint32_t i = 0; i < dim && i < v->ndim; i++) {
        *outer *= v->dims[i];
    }
    for (uint32_t i = dim + 1; i < v->ndim; i++) {
        *inner *= v->dims[i];
    }
}

int64_t axis_offset(const mk_view *v, uint32_t dim, int64_t o, int64_t k, int64_t i)
{
    if (!v->ndim) {
        return 0;
    }
    int64_t off = k * v->strides[dim];
    for (int64_t d = (int64_t)v->ndim - 1; d > (int64_t)dim; d--) {
        off += (i % v->dims[d]) * v->strides[d];
        i /= v->dims[d];
    }
    for (int64_t d = (int64_t)dim - 1; d >= 0; d--) {
        off += (o % v->dims[d]) * v->strides[d];
        o /= v->dims[d];
    }
    return off;
}

bool norm_dim(int64_t dim, uint32_t nd, uint32_t *out)
{
    int64_t n = nd ? (int64_t)nd : 1;
    if (dim < -n || dim >= n) {
        return false;
    }
    *out = (uint32_t)(dim < 0 ? dim + n : dim);
    return true;
}
