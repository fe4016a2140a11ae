/*
 * op_matmul_kernel.h: the matmul core shared by aclnnMm, aclnnAddmm,
 * aclnnInplaceAddmm, aclnnMatmul (op_matmul.c) and aclnnBatchMatMul
 * (op_batch_matmul.c); op_matmul_kernel.c runs it.
 */
#ifndef OP_MATMUL_KERNEL_H
#define OP_MATMUL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

/* out[bi][i][c] = sum over q of a[bi][i][q] * b[bi][q][c], each operand
 * element at an element index of its buffer (read with mk_ldf in its dtype,
 * out stored with mk_stf): a at offa[bi] + i*sam + q*sak, b at offb[bi] +
 * q*sbk + c*sbn, out at offo[bi] + i*som + c*son. With has_self the result
 * is alpha*sum, plus beta*self (self at offs[i*n + c]) when beta != 0 and
 * self and offs are there. */
typedef struct mm_args {
    const void *a, *b, *self;
    void *out;
    int32_t adt, bdt, odt, sdt;
    const int64_t *offa, *offb, *offo, *offs;
    int64_t nb, m, n, k;
    int64_t sam, sak, sbk, sbn, som, son;
    bool has_self;
    float alpha, beta;
} mm_args;

/* The sequential reference: outputs in (bi, i, c) order, each a float sum
 * over q ascending. */
void mm_ref(const mm_args *x);
/* The same bits on `threads` threads over packed copies of a and b; false
 * (nothing written) if the copies cannot be allocated. */
bool mm_mt(const mm_args *x, int threads);
/* mm_mt on mk_kernel_threads() threads, or mm_ref when that is 0 or the
 * copies do not fit in host memory. */
void mm_run(const mm_args *x);

#endif
