/*
 * op_parallel.h: the thread runner the mock's threaded kernels share
 * (op_parallel.c): convolution (op_conv_fast.c, op_conv_wgrad.c), matmul
 * (op_matmul_kernel.c).
 */
#ifndef OP_PARALLEL_H
#define OP_PARALLEL_H

#include <stdint.h>

enum { MK_MAX_THREADS = 64 };

/* The threads a kernel launch uses, read from the environment at every call:
 * ASCENDCL_MOCK_KERNEL_THREADS, or when it is unset or empty its older name
 * ASCENDCL_MOCK_CONV_THREADS; both unset or empty, one thread per online CPU
 * (at most MK_MAX_THREADS); N >= 1, N threads (at most MK_MAX_THREADS); 0 (or
 * below), 0: the caller runs the sequential reference instead. */
int mk_kernel_threads(void);

/* Runs unit(ctx, u) for every u in 0..units-1 on up to `threads` threads, the
 * caller among them. Each unit must write outputs no other unit writes, so
 * which thread runs a unit does not change its result; a thread that cannot
 * be created leaves its share to the others. */
void mk_run_units(int64_t units, int threads, void (*unit)(const void *ctx, int64_t u), const void *ctx);

#endif
