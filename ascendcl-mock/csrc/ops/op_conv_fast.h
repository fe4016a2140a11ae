/*
 * op_conv_fast.h: what the threaded convolution cores share
 * (op_conv_fast.c: the pool, gather and scatter; op_conv_wgrad.c: the
 * weight gradient). Included first: it sets the vectorizer for the rest of
 * the file.
 */
#ifndef OP_CONV_FAST_H
#define OP_CONV_FAST_H

#include "op_internal.h"
#include "op_parallel.h"

/* The inner loops run over independent output elements: vectorizing them
 * keeps every element's order of additions (GCC only reassociates a
 * reduction under -ffast-math, which this file is never built with). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif
/* On x86-64 the hot loops also get an AVX2 clone, picked at load time when
 * the CPU has it: wider vectors, the same operations (AVX2 alone has no
 * fused multiply-add, so nothing is contracted). The clones need glibc's
 * ifunc. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

#define IDX5(x, n, c, d, h, w) ((((((n) * (x)[1] + (c)) * (x)[2] + (d)) * (x)[3] + (h)) * (x)[4]) + (w))

/* Units of work 0..units-1, each writing outputs no other unit writes. */
typedef struct job {
    const double *b, *s, *w;
    double *out, *aux;
    const int64_t *bd, *sd, *wd;
    const conv_geom *g;
    int64_t units;
    void (*unit)(const struct job *, int64_t);
} job;

static inline void conv_unit(const void *ctx, int64_t u)
{
    const job *j = ctx;
    j->unit(j, u);
}

/* Runs every unit of j on up to `threads` threads (mk_run_units). */
static inline void conv_run_units(job *j, int threads) { mk_run_units(j->units, threads, conv_unit, j); }

/* First and last o in [0, count) with lo <= o*step + off <= hi; false if none. */
static inline bool conv_span(int64_t off, int64_t step, int64_t lo, int64_t hi, int64_t count, int64_t *first,
                             int64_t *last)
{
    int64_t a = lo - off, z = hi - off; /* o*step in [a, z] */
    int64_t f = a <= 0 ? 0 : (a + step - 1) / step;
    int64_t l = z < 0 ? -1 : z / step;
    if (l > count - 1) {
        l = count - 1;
    }
    *first = f;
    *last = l;
    return f <= l;
}

#endif
