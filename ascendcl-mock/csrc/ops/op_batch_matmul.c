/*
 * op_batch_matmul.c (libopapi.so): aclnnBatchMatMul of operators III (batch
 * `ops-a`), out[b] = self[b] @ mat2[b] over 3-D tensors. Parameter list
 * (hicann/ops-nn v8.5.0): matmul/batch_mat_mul_v3/op_host/op_api/aclnn_batch_matmul.h:24-26.
 *
 * Checks, in the real op's order (aclnn_batch_matmul.cpp, CheckParamsV2
 * :270-285 from aclnnBatchMatMulGetWorkspaceSize :1005):
 * - self, mat2, out not null (:89-95);
 * - the 910B rule (matmul/common/op_host/op_api/matmul_util.cpp:2129-2142):
 *   cubeMathType -1 (FP16FP32_KEEP_DTYPE) refused (:2130-2134, whose
 *   condition is true on every SoC), then self, mat2 and out each f32, f16
 *   or bf16 (:2095-2106, :2185-2189); mixed dtypes are taken and promoted
 *   (:2215-2225);
 * - self, mat2, out exactly 3-D (:198-200), self's K equal to mat2's
 *   (:215-221), the batch dims equal or one of them 1 (:222-229: the only
 *   broadcast; torch.bmm broadcasts none), out [max batch, M, N] (:230-240);
 * - cubeMathType in 0..5 (matmul/common/op_host/op_api/cube_util.cpp:67-95,
 *   reached from the graph's CheckMathType, aclnn_batch_matmul.cpp:244-250, :678).
 * An empty result (self's batch or M, or mat2's N is 0) leaves out
 * unwritten (:104-108, :1009-1013); K = 0 gives zeros.
 * The kernel accumulates in f32 in a plain k-loop and rounds once into out's
 * dtype, whatever cubeMathType asks (a card may compute f32 as HF32 with 1
 * or 3, or in f16 with 2). The loops are op_matmul_kernel.c's (threaded,
 * or the sequential reference with ASCENDCL_MOCK_KERNEL_THREADS=0).
 */
#include "op_internal.h"
#include "op_matmul_kernel.h"

#include <stdlib.h>

static const int32_t DT_BMM[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};

/* job->ip layout */
enum { IP_A, IP_B, IP_OUT };

static void k_batch_matmul(const mk_job *j, void *const *bufs)
{
    const mk_view *a = &j->slot[j->ip[IP_A]], *b = &j->slot[j->ip[IP_B]], *o = &j->slot[j->ip[IP_OUT]];
    const void *ab = bufs[j->ip[IP_A]], *bb = bufs[j->ip[IP_B]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t nb = o->dims[0], m = o->dims[1], n = o->dims[2], k = a->dims[2];
    /* a batch dim of 1 repeats (stride 0) */
    int64_t sab = a->dims[0] == 1 ? 0 : a->strides[0], sbb = b->dims[0] == 1 ? 0 : b->strides[0];
    int64_t *offs = ob && nb > 0 ? malloc((size_t)nb * 3 * sizeof(int64_t)) : NULL;
    if (!offs) {
        return;
    }
    for (int64_t bi = 0; bi < nb; bi++) {
        offs[bi] = bi * sab;
        offs[nb + bi] = bi * sbb;
        offs[2 * nb + bi] = bi * o->strides[0];
    }
    mm_args x = {.a = ab, .b = bb, .out = ob, .adt = a->dtype, .bdt = b->dtype, .odt = o->dtype, .offa = offs,
                 .offb = offs + nb, .offo = offs + 2 * nb, .nb = nb, .m = m, .n = n, .k = k,
                 .sam = a->strides[1], .sak = a->strides[2], .sbk = b->strides[1], .sbn = b->strides[2],
                 .som = o->strides[1], .son = o->strides[2]};
    mm_run(&x);
    free(offs);
}

OPS_EXPORT aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                        int8_t cubeMathType, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnBatchMatMulGetWorkspaceSize), "aclnnBatchMatMul");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "mat2", mat2);
    ph1_arg_tensor(&p, "out", out);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    if (need_tensor(&p, self, "self") && need_tensor(&p, mat2, "mat2") && need_tensor(&p, out, "out")) {
        if (cubeMathType == -1) {
            invalid(&p, "cubeMathType -1 (FP16FP32_KEEP_DTYPE) is not supported for the cube");
        }
        if (check_dtype(&p, self, "self", DT_BMM) && check_dtype(&p, mat2, "mat2", DT_BMM) &&
            check_dtype(&p, out, "out", DT_BMM) && check_ndim(&p, self, "self", 3, 3) &&
            check_ndim(&p, mat2, "mat2", 3, 3) && check_ndim(&p, out, "out", 3, 3)) {
            const int64_t *a = self->v.dims, *b = mat2->v.dims;
            if (a[2] != b[1]) {
                invalid(&p, "self's last dim %lld differs from mat2's middle dim %lld", (long long)a[2],
                        (long long)b[1]);
            } else if (a[0] != b[0] && a[0] != 1 && b[0] != 1) {
                invalid(&p, "the batch dims %lld and %lld differ and neither is 1", (long long)a[0], (long long)b[0]);
            } else {
                int64_t want[3] = {a[0] >= b[0] ? a[0] : b[0], a[1], b[2]};
                if (check_shape(&p, out, "out ([batch, M, N])", want, 3)) {
                    if (cubeMathType < 0 || cubeMathType > 5) {
                        invalid(&p, "cubeMathType %d is not one of 0 (KEEP_DTYPE) to 5 (USE_HIGH_PREC_MODE)",
                                cubeMathType);
                    } else if (make_exec(&p, k_batch_matmul, 0)) {
                        p.e->job.ip[IP_A] = add_in(&p, self);
                        p.e->job.ip[IP_B] = add_in(&p, mat2);
                        p.e->job.ip[IP_OUT] = add_out(&p, out);
                    }
                }
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(BatchMatMul)
