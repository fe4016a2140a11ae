/*
 * op_embedding.c (libopapi.so): the embedding lookup and its dense gradient
 * of operators III (batch `ops-a`): aclnnEmbedding, aclnnEmbeddingDenseBackward.
 * Parameter lists (hicann/ops-nn v8.5.0):
 * index/gather_v2/op_host/op_api/aclnn_embedding.h:48-50 and
 * index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.h:58-60.
 *
 * Embedding (index/gather_v2/op_host/op_api/aclnn_embedding.cpp): out[i..] =
 * weight[indices[i..], :], a gather along weight's dim 0 (:31, :251).
 * Checks, in its order (:115-129): weight, indices, out not null (:63-68);
 * weight in the 910B list f64, f32, f16, i64, i32, i16, i8, u8, bool, bf16
 * (:51-54, :78; complex not emulated); out of weight's dtype (:81); indices
 * int32 or int64 (:55-56, :84); at most 8 dims each (:89-94); out one dim
 * more than indices, its leading dims indices' (:96-113). The gather's
 * result (indices' dims then weight's dims after the first) is copied into
 * out (:258), so out's last dims must be weight's: in effect weight is 2-D
 * and out [*indices, weight.dim1]; the mock refuses another shape in phase 1
 * (the real op fails in that copy). An empty weight or indices leaves out
 * unwritten (:224-228). Values are copied, not converted.
 *
 * EmbeddingDenseBackward
 * (index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.cpp):
 * out[w, :] = sum of grad's rows r (grad flattened to [rows, D]) with
 * indices[r] == w, each divided by the count of w in indices when
 * scaleGradByFreq, rows with indices[r] == paddingIdx skipped (a paddingIdx
 * that is negative as int64 skips nothing: docs/aclnnEmbeddingDenseBackward.md:97-98).
 * Checks, in its order (:154-176): grad, indices, out not null (:62-68);
 * grad in f32, f16, bf16 (:51-52, :82); indices in f16, f32, f64, i8, u8,
 * i16, i32, i64, bool (:53-56, :85; non-integer ones are cast to int32,
 * :387-391, which truncates); out in f32, f16, bf16 (:59-60, :88), not
 * necessarily grad's (the result is cast, :398); at most 8 dims each
 * (:93-97, :164); unless grad's last dim is 0, grad's leading dims hold as
 * many elements as indices (:99-122); out 2-D [numWeights, grad's last dim]
 * (:124-141). A 0-d grad is refused by the mock (the real op reads grad's
 * last dim, :103). An empty grad or indices zeroes out (:314-328). The
 * gradient is accumulated in f32 (grad is cast, :341-345) and cast to out;
 * the mock sums in double and rounds once.
 *
 * An index outside [0, rows of weight) (or [0, numWeights)) would make the
 * device read or write out of bounds: counted as misuse (mk_index_misuse),
 * the element skipped. PyTorch raises an IndexError instead.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int32_t DT_EMB_WEIGHT[] = {ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_INT32,
                                        ACL_INT16,  ACL_INT8,  ACL_UINT8,   ACL_BOOL,  ACL_BF16, -1};
static const int32_t DT_EMB_GRAD[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};
static const int32_t DT_EMB_GRAD_INDICES[] = {ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_INT8, ACL_UINT8,
                                              ACL_INT16,   ACL_INT32, ACL_INT64,  ACL_BOOL, -1};

/* job->ip layout */
enum { IP_WEIGHT, IP_INDICES, IP_OUT, IP_GRAD, IP_NUM_WEIGHTS, IP_PADDING, IP_SCALE };

/* indices' element as the op uses it: an integer as is, a float truncated
 * toward zero (the cast to int32), bool 0 or 1. */
static int64_t index_at(const void *b, int32_t dt, int64_t e)
{
    if (mk_dtype_is_float(dt)) {
        double v = mk_ldd(b, dt, e);
        return isfinite(v) && fabs(v) < 9.2e18 ? (int64_t)v : INT64_MIN;
    }
    return mk_ldi(b, dt, e);
}

/* Counts a launch that met `bad` indices outside [0, rows) as misuse, once. */
static void bad_indices(const char *op, int64_t bad, int64_t first, int64_t at, int64_t rows)
{
    if (bad) {
        mk_index_misuse("%s: %lld index(es) outside [0, %lld) (first: %lld, at flat position %lld)", op,
                        (long long)bad, (long long)rows, (long long)first, (long long)at);
    }
}

static void k_embedding(const mk_job *j, void *const *bufs)
{
    const mk_view *w = &j->slot[j->ip[IP_WEIGHT]], *ix = &j->slot[j->ip[IP_INDICES]], *o = &j->slot[j->ip[IP_OUT]];
    const char *wb = bufs[j->ip[IP_WEIGHT]];
    const void *ib = bufs[j->ip[IP_INDICES]];
    char *ob = bufs[j->ip[IP_OUT]];
    if (numel(w) == 0) {
        return; /* an empty weight leaves out unwritten (aclnn_embedding.cpp:224-228) */
    }
    int64_t *oi = view_offsets(ix);
    int64_t n = numel(ix), rows = w->dims[0], dim = w->dims[1];
    size_t es = mk_dtype_size(w->dtype);
    int64_t ostr = o->strides[o->ndim - 1];
    int64_t bad = 0, first = 0, at = 0;
    if (oi && ob) {
        for (int64_t i = 0; i < n; i++) {
            int64_t r = index_at(ib, ix->dtype, oi[i]);
            if (r < 0 || r >= rows) {
                if (!bad++) {
                    first = r;
                    at = i;
                }
                continue;
            }
            /* out's element (i, k): i over indices' dims in row-major order */
            int64_t rem = i, base = 0;
            for (int d = (int)ix->ndim - 1; d >= 0; d--) {
                base += (rem % ix->dims[d]) * o->strides[d];
                rem /= ix->dims[d];
            }
            for (int64_t k = 0; k < dim; k++) {
                memcpy(ob + (size_t)(base + k * ostr) * es, wb + (size_t)(r * w->strides[0] + k * w->strides[1]) * es,
                       es);
            }
        }
    }
    bad_indices("aclnnEmbedding", bad, first, at, rows);
    free(oi);
}

static void k_embedding_dense_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *ix = &j->slot[j->ip[IP_INDICES]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *ib = bufs[j->ip[IP_INDICES]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t nw = j->ip[IP_NUM_WEIGHTS], padding = j->ip[IP_PADDING];
    bool scale = j->ip[IP_SCALE] != 0;
    int64_t bad = 0, first = 0, at = 0;
    int64_t d = o->dims[1], n = numel(ix);
    int64_t *og = view_offsets(g), *oi = view_offsets(ix), *oo = view_offsets(o);
    double *acc = dzeros(nw * d);
    int64_t *count = nw > 0 ? calloc((size_t)nw, sizeof(int64_t)) : NULL;
    if (ob && oo && (nw * d == 0 || (acc && count)) && (n == 0 || d == 0 || (og && oi))) {
        for (int64_t r = 0; r < n && d > 0; r++) {
            int64_t w = index_at(ib, ix->dtype, oi[r]);
            if (w >= 0 && w < nw) {
                count[w]++;
            }
        }
        for (int64_t r = 0; r < n && d > 0; r++) {
            int64_t w = index_at(ib, ix->dtype, oi[r]);
            if (w == padding && padding >= 0) {
                continue;
            }
            if (w < 0 || w >= nw) {
                if (!bad++) {
                    first = w;
                    at = r;
                }
                continue;
            }
            double f = scale ? 1.0 / (double)count[w] : 1.0;
            for (int64_t k = 0; k < d; k++) {
                acc[w * d + k] += mk_ldd(gb, g->dtype, og[r * d + k]) * f;
            }
        }
        for (int64_t e = 0; e < nw * d; e++) {
            mk_std(ob, o->dtype, oo[e], acc[e]);
        }
    }
    bad_indices("aclnnEmbeddingDenseBackward", bad, first, at, nw);
    free(og);
    free(oi);
    free(oo);
    free(acc);
    free(count);
}

OPS_EXPORT aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
                                                      const aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnEmbeddingGetWorkspaceSize), "aclnnEmbedding");
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_tensor(&p, "indices", indices);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, weight, "weight") && need_tensor(&p, indices, "indices") && need_tensor(&p, out, "out") &&
        check_dtype(&p, weight, "weight", DT_EMB_WEIGHT) && check_same_dtype(&p, out, "out", weight, "weight") &&
        check_dtype(&p, indices, "indices", DT_INDEX) && check_ndim(&p, weight, "weight", 0, 8) &&
        check_ndim(&p, indices, "indices", 0, 8) && check_ndim(&p, out, "out", 0, 8)) {
        int64_t dims[MK_MAX_DIMS];
        uint32_t nd = indices->v.ndim;
        memcpy(dims, indices->v.dims, nd * sizeof(int64_t));
        if (out->v.ndim != nd + 1) {
            invalid(&p, "out has %u dims; it needs one more than indices (%u)", out->v.ndim, nd);
        } else if (weight->v.ndim != 2) {
            invalid(&p, "weight has %u dims; out [*indices, embedding dim] takes a 2-D weight", weight->v.ndim);
        } else {
            dims[nd] = weight->v.dims[1];
            if (check_shape(&p, out, "out ([*indices.shape, weight.shape[1]])", dims, nd + 1) &&
                make_exec(&p, k_embedding, 0)) {
                p.e->job.ip[IP_WEIGHT] = add_in(&p, weight);
                p.e->job.ip[IP_INDICES] = add_in(&p, indices);
                p.e->job.ip[IP_OUT] = add_out(&p, out);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Embedding)

OPS_EXPORT aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(const aclTensor *grad, const aclTensor *indices,
                                                                   uint64_t numWeights, uint64_t paddingIdx,
                                                                   bool scaleGradByFreq, const aclTensor *out,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnEmbeddingDenseBackwardGetWorkspaceSize), "aclnnEmbeddingDenseBackward");
    ph1_arg_tensor(&p, "grad", grad);
    ph1_arg_tensor(&p, "indices", indices);
    aclmock_arg_u64(&p.c, "numWeights", numWeights);
    aclmock_arg_u64(&p.c, "paddingIdx", paddingIdx);
    ph1_arg_i64(&p, "scaleGradByFreq", scaleGradByFreq ? 1 : 0);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, grad, "grad") && need_tensor(&p, indices, "indices") && need_tensor(&p, out, "out") &&
        check_dtype(&p, grad, "grad", DT_EMB_GRAD) && check_dtype(&p, indices, "indices", DT_EMB_GRAD_INDICES) &&
        check_dtype(&p, out, "out", DT_EMB_GRAD) && check_ndim(&p, grad, "grad", 1, 8) &&
        check_ndim(&p, indices, "indices", 0, 8) && check_ndim(&p, out, "out", 0, 8)) {
        int64_t d = grad->v.dims[grad->v.ndim - 1], rows = 1;
        for (uint32_t i = 0; i + 1 < grad->v.ndim; i++) {
            rows *= grad->v.dims[i];
        }
        int64_t want[2] = {(int64_t)numWeights, d};
        if (numWeights > (uint64_t)INT64_MAX) {
            invalid(&p, "numWeights %llu is too large", (unsigned long long)numWeights);
        } else if (d != 0 && rows != numel(&indices->v)) {
            invalid(&p, "grad's leading dims hold %lld rows but indices has %lld elements", (long long)rows,
                    (long long)numel(&indices->v));
        } else if (check_shape(&p, out, "out ([numWeights, grad's last dim])", want, 2) &&
                   make_exec(&p, k_embedding_dense_backward, 0)) {
            p.e->job.ip[IP_GRAD] = add_in(&p, grad);
            p.e->job.ip[IP_INDICES] = add_in(&p, indices);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_NUM_WEIGHTS] = (int64_t)numWeights;
            p.e->job.ip[IP_PADDING] = (int64_t)paddingIdx;
            p.e->job.ip[IP_SCALE] = scaleGradByFreq;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(EmbeddingDenseBackward)
