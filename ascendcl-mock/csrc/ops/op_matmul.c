/*
 * op_matmul.c (libopapi.so): aclnnMm, aclnnAddmm, aclnnInplaceAddmm, aclnnMatmul.
 * Phase-1 parameter lists (ops-nn v8.5.0 matmul/mat_mul_v3/op_host/op_api/):
 * aclnn_mm.h:25-27, aclnn_addmm.h:24-26 (InplaceAddmm :32-34), aclnn_matmul.h:25-27; Addmm's
 * null checks cover self, mat1, mat2, beta, alpha, out (aclnn_addmm.cpp:58-63,
 * 161001 at :157). Kernels accumulate in f32 in a plain
 * k-loop, whatever the storage dtype, and store rounding to nearest even.
 *
 * Dtypes (ops-nn v8.5.0, commit e9f5c1b): Mm, Addmm and Matmul check their
 * inputs with the shared A2/A3 rule of matmul/common/op_host/op_api/
 * matmul_util.cpp (CheckInput, reached from aclnn_mm.cpp:162-171,
 * aclnn_addmm.cpp:154-164, aclnn_matmul.cpp:230-243): each of the two
 * matrices, out and the bias is f32, f16 or bf16 on its own (:2095-2106,
 * :2129-2142, list :2185-2189), and mixed matrices are promoted, not refused
 * (:2144-2162, :2191-2226): f32 with f16 or bf16 to f32 (f16 with
 * USE_FP16), f16 with bf16 to f32. The kernels read each input in its own
 * dtype and accumulate in f32, which is that promotion for every case but
 * USE_FP16's f16 one.
 *
 * The loops are op_matmul_kernel.c's (mm_run: threaded, or the sequential
 * reference with ASCENDCL_MOCK_KERNEL_THREADS=0, the same bits).
 */
#include "op_internal.h"
#include "op_matmul_kernel.h"

#include <stdlib.h>

/* Workspace the mock asks for, so callers exercise the workspace contract. */
#define MM_WORKSPACE 512

/* job->ip layout */
enum { IP_A, IP_B, IP_OUT, IP_SELF, IP_A1D, IP_B1D, IP_HAS_SELF };
/* job->p layout */
enum { P_ALPHA, P_BETA };

/* out[batch..., m, n] = beta * self + alpha * (a @ b), torch.matmul shapes:
 * a 1-D is a row [1,k] (m dropped from out), b 1-D a column [k,1]. */
static void k_matmul(const mk_job *j, void *const *bufs)
{
    const mk_view *a = &j->slot[j->ip[IP_A]], *b = &j->slot[j->ip[IP_B]], *o = &j->slot[j->ip[IP_OUT]];
    const void *ab = bufs[j->ip[IP_A]], *bb = bufs[j->ip[IP_B]];
    void *ob = bufs[j->ip[IP_OUT]];
    bool a1 = j->ip[IP_A1D], b1 = j->ip[IP_B1D];
    int64_t m = a1 ? 1 : a->dims[a->ndim - 2], k = a->dims[a->ndim - 1];
    int64_t n = b1 ? 1 : b->dims[b->ndim - 1];
    int64_t sam = a1 ? 0 : a->strides[a->ndim - 2], sak = a->strides[a->ndim - 1];
    int64_t sbk = b1 ? b->strides[0] : b->strides[b->ndim - 2], sbn = b1 ? 0 : b->strides[b->ndim - 1];
    /* out's m and n strides */
    uint32_t ob_nd = o->ndim - (a1 ? 0 : 1) - (b1 ? 0 : 1);
    int64_t som = a1 ? 0 : o->strides[ob_nd], son = b1 ? 0 : o->strides[o->ndim - 1];
    /* batch views */
    mk_view ab_v = *a, bb_v = *b, ob_v = *o;
    ab_v.ndim = a1 ? 0 : a->ndim - 2;
    bb_v.ndim = b1 ? 0 : b->ndim - 2;
    ob_v.ndim = ob_nd;
    int64_t *offa = bcast_offsets(&ab_v, o->dims, ob_nd);
    int64_t *offb = bcast_offsets(&bb_v, o->dims, ob_nd);
    int64_t *offo = view_offsets(&ob_v);
    int64_t nb = numel(&ob_v);
    if (!offa || !offb || !offo || !ob) {
        goto out;
    }
    float alpha = (float)j->p[P_ALPHA], beta = (float)j->p[P_BETA];
    int64_t *offs = NULL;
    const mk_view *s = NULL;
    const void *sb = NULL;
    if (j->ip[IP_HAS_SELF]) {
        s = &j->slot[j->ip[IP_SELF]];
        sb = bufs[j->ip[IP_SELF]];
        int64_t mn[2] = {m, n};
        offs = bcast_offsets(s, mn, 2);
    }
    mm_args x = {.a = ab, .b = bb, .self = sb, .out = ob, .adt = a->dtype, .bdt = b->dtype, .odt = o->dtype,
                 .sdt = s ? s->dtype : 0, .offa = offa, .offb = offb, .offo = offo, .offs = offs, .nb = nb, .m = m,
                 .n = n, .k = k, .sam = sam, .sak = sak, .sbk = sbk, .sbn = sbn, .som = som, .son = son,
                 .has_self = s != NULL, .alpha = alpha, .beta = beta};
    mm_run(&x);
    free(offs);
out:
    free(offa);
    free(offb);
    free(offo);
}

static bool check_cube(ph1 *p, int8_t cubeMathType)
{
    /* cubeMathType 0..4 (aclnn-facts.md A.2.4 "cubeMathType") */
    if (!p->rc && (cubeMathType < 0 || cubeMathType > 4)) {
        return invalid(p, "cubeMathType %d is not one of 0 (KEEP_DTYPE) to 4 (USE_FP32_ADD)", cubeMathType);
    }
    return !p->rc;
}

static bool check_k(ph1 *p, int64_t ka, int64_t kb)
{
    if (!p->rc && ka != kb) {
        return invalid(p, "the inner dimensions differ: self has %lld columns, mat2 has %lld rows", (long long)ka,
                       (long long)kb);
    }
    return !p->rc;
}

/* ------------------------------------------------------------------ Mm */

OPS_EXPORT aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                               int8_t cubeMathType, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMmGetWorkspaceSize), "aclnnMm");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "mat2", mat2);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    if (need_tensor(&p, self, "self") && need_tensor(&p, mat2, "mat2") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_FLOATS) && check_dtype(&p, mat2, "mat2", DT_FLOATS) &&
        check_dtype(&p, out, "out", DT_FLOATS) && check_ndim(&p, self, "self", 2, 2) &&
        check_ndim(&p, mat2, "mat2", 2, 2) && check_k(&p, self->v.dims[1], mat2->v.dims[0]) &&
        check_shape(&p, out, "out", (int64_t[]){self->v.dims[0], mat2->v.dims[1]}, 2) &&
        check_cube(&p, cubeMathType) && make_exec(&p, k_matmul, 0)) {
        p.e->job.ip[IP_A] = add_in(&p, self);
        p.e->job.ip[IP_B] = add_in(&p, mat2);
        p.e->job.ip[IP_OUT] = add_out(&p, out);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Mm)

/* --------------------------------------------------------------- Addmm */

/* Addmm's checks and executor; `inplace` makes self the output too
 * (InplaceAddmm passes selfRef as out, aclnn_addmm.cpp:684-690), so self must then
 * have out's (m, n) shape (CheckOutShape, :128-144). */
static void addmm(ph1 *p, const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2, const aclScalar *beta,
                  const aclScalar *alpha, const aclTensor *out, int8_t cubeMathType, bool inplace)
{
    const char *oname = inplace ? "selfRef" : "out";
    if (check_dtype(p, mat1, "mat1", DT_FLOATS) && check_dtype(p, mat2, "mat2", DT_FLOATS) &&
        check_dtype(p, self, inplace ? "selfRef" : "self", DT_FLOATS) && check_dtype(p, out, oname, DT_FLOATS) &&
        check_ndim(p, mat1, "mat1", 2, 2) && check_ndim(p, mat2, "mat2", 2, 2) &&
        check_k(p, mat1->v.dims[1], mat2->v.dims[0])) {
        int64_t mn[2] = {mat1->v.dims[0], mat2->v.dims[1]};
        /* self broadcasts to (m, n): torch_npu passes linear's 1-D bias (aclnn-facts.md B.1.2 Addmm) */
        if (check_bcast_to(p, self, inplace ? "selfRef" : "self", mn, 2) && check_shape(p, out, oname, mn, 2) &&
            check_cube(p, cubeMathType) && make_exec(p, k_matmul, MM_WORKSPACE)) {
            mk_job *j = &p->e->job;
            if (inplace) {
                /* each element of selfRef is read, then written, by the same step of the kernel */
                j->ip[IP_SELF] = j->ip[IP_OUT] = add_inout(p, self);
            } else {
                j->ip[IP_SELF] = add_in(p, self);
            }
            j->ip[IP_A] = add_in(p, mat1);
            j->ip[IP_B] = add_in(p, mat2);
            if (!inplace) {
                j->ip[IP_OUT] = add_out(p, out);
            }
            j->ip[IP_HAS_SELF] = 1;
            j->p[P_ALPHA] = scalar_f(alpha);
            j->p[P_BETA] = scalar_f(beta);
        }
    }
}

OPS_EXPORT aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2,
                                                  const aclScalar *beta, const aclScalar *alpha, aclTensor *out,
                                                  int8_t cubeMathType, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnAddmmGetWorkspaceSize), "aclnnAddmm");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "mat1", mat1);
    ph1_arg_tensor(&p, "mat2", mat2);
    ph1_arg_scalar(&p, "beta", beta);
    ph1_arg_scalar(&p, "alpha", alpha);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    if (need_tensor(&p, self, "self") && need_tensor(&p, mat1, "mat1") && need_tensor(&p, mat2, "mat2") &&
        need_scalar(&p, beta, "beta") && need_scalar(&p, alpha, "alpha") && need_tensor(&p, out, "out")) {
        addmm(&p, self, mat1, mat2, beta, alpha, out, cubeMathType, false);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Addmm)

/* ---------------------------------------------------------- InplaceAddmm */

/* selfRef = beta*selfRef + alpha*(mat1 @ mat2): the gradient accumulation of
 * a linear layer with beta = 1 (aclnn_addmm.h:32-34; Addmm's null checks,
 * aclnn_addmm.cpp:56-64, over selfRef twice). */
OPS_EXPORT aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *mat1,
                                                         const aclTensor *mat2, const aclScalar *beta,
                                                         const aclScalar *alpha, int8_t cubeMathType,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnInplaceAddmmGetWorkspaceSize), "aclnnInplaceAddmm");
    ph1_arg_tensor(&p, "selfRef", selfRef);
    ph1_arg_tensor(&p, "mat1", mat1);
    ph1_arg_tensor(&p, "mat2", mat2);
    ph1_arg_scalar(&p, "beta", beta);
    ph1_arg_scalar(&p, "alpha", alpha);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    if (need_tensor(&p, selfRef, "selfRef") && need_tensor(&p, mat1, "mat1") && need_tensor(&p, mat2, "mat2") &&
        need_scalar(&p, beta, "beta") && need_scalar(&p, alpha, "alpha")) {
        addmm(&p, selfRef, mat1, mat2, beta, alpha, selfRef, cubeMathType, true);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(InplaceAddmm)

/* -------------------------------------------------------------- Matmul */

OPS_EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                   int8_t cubeMathType, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnMatmulGetWorkspaceSize), "aclnnMatmul");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "mat2", mat2);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    /* 1- to 6-dimensional ND inputs with broadcasting (aclnn-facts.md A.2.4) */
    if (need_tensor(&p, self, "self") && need_tensor(&p, mat2, "mat2") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_FLOATS) && check_dtype(&p, mat2, "mat2", DT_FLOATS) &&
        check_dtype(&p, out, "out", DT_FLOATS) && check_ndim(&p, self, "self", 1, 6) &&
        check_ndim(&p, mat2, "mat2", 1, 6) && check_cube(&p, cubeMathType)) {
        const mk_view *a = &self->v, *b = &mat2->v;
        bool a1 = a->ndim == 1, b1 = b->ndim == 1;
        int64_t ka = a->dims[a->ndim - 1], kb = b1 ? b->dims[0] : b->dims[b->ndim - 2];
        mk_view ab = *a, bb = *b;
        ab.ndim = a1 ? 0 : a->ndim - 2;
        bb.ndim = b1 ? 0 : b->ndim - 2;
        int64_t dims[MK_MAX_DIMS];
        uint32_t nd = 0;
        if (check_k(&p, ka, kb)) {
            if (!bcast(&ab, &bb, dims, &nd)) {
                invalid(&p, "the batch dimensions of self and mat2 do not broadcast");
            } else {
                if (!a1) {
                    dims[nd++] = a->dims[a->ndim - 2];
                }
                if (!b1) {
                    dims[nd++] = b->dims[b->ndim - 1];
                }
            }
        }
        if (check_shape(&p, out, "out", dims, nd) && make_exec(&p, k_matmul, MM_WORKSPACE)) {
            p.e->job.ip[IP_A] = add_in(&p, self);
            p.e->job.ip[IP_B] = add_in(&p, mat2);
            p.e->job.ip[IP_OUT] = add_out(&p, out);
            p.e->job.ip[IP_A1D] = a1;
            p.e->job.ip[IP_B1D] = b1;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Matmul)
