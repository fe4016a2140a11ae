/*
 * op_pool_planes.h: the pooling kernels (op_pool.c: max pool with indices
 * and its backward; op_pool_adaptive.c: adaptive average pool and its
 * backward) as one function per (n, c) plane, and the runner that spreads
 * the planes over the host's cores (op_pool_planes.c).
 */
#ifndef OP_POOL_PLANES_H
#define OP_POOL_PLANES_H

#include "op_internal.h"

typedef struct pool_job pool_job;

/* Computes plane (n, c) of the written array from the same plane of the
 * inputs; scratch holds pj->scratch doubles. An index out of its plane
 * (max pool backward) adds one to *bad and, the first time, sets *first. */
typedef void (*pool_plane_fn)(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad,
                              int64_t *first);

struct pool_job {
    mk_view x, o, ix, go, gi; /* as_nchw views; the ones the kernel uses */
    const void *xb, *gob, *ib; /* input, gradOutput, indices (backward) */
    void *ob, *ixb, *gib;      /* out, indices (forward), gradInput */
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
    int64_t N, C;     /* the planes */
    int64_t scratch;  /* doubles of scratch per plane */
    pool_plane_fn plane;
};

/* Runs every plane: on `threads` threads in contiguous runs of planes, or,
 * with 0, in (n, c) order on the caller (the sequential reference). A plane
 * writes only its own elements, so the result is the same bits either way;
 * *bad and *first are those of the reference's (n, c, oh, ow) order. False,
 * nothing written, if the scratch cannot be allocated. */
bool pool_planes_run(const pool_job *pj, int threads, int64_t *bad, int64_t *first);

/* The plane functions (op_pool.c, op_pool_adaptive.c), for the test hook
 * (op_pool_check.c). */
void max_pool_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad, int64_t *first);
void max_pool_backward_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad,
                             int64_t *first);
void adaptive_avg_pool_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad,
                             int64_t *first);
void adaptive_avg_pool_backward_plane(const pool_job *pj, int64_t n, int64_t c, double *scratch, int64_t *bad,
                                      int64_t *first);

#endif
