/*
 * op_pool_planes.c (libopapi.so): pool_planes_run (op_pool_planes.h). The
 * planes are cut into contiguous runs, a few per thread; a run is one unit
 * of the shared runner (op_parallel.c) with its own scratch and misuse
 * counts, which are summed in run order afterwards.
 */
#include "op_pool_planes.h"

#include "op_parallel.h"

#include <stdlib.h>

enum { RUNS_PER_THREAD = 8 };

typedef struct runs {
    const pool_job *pj;
    int64_t planes, per;
    double *scratch;
    int64_t *counts; /* per run: bad, first */
} runs;

static void run_unit(const void *ctx, int64_t u)
{
    const runs *r = ctx;
    const pool_job *pj = r->pj;
    int64_t lo = u * r->per, hi = lo + r->per < r->planes ? lo + r->per : r->planes;
    int64_t bad = 0, first = 0;
    double *s = r->scratch + u * pj->scratch;
    for (int64_t p = lo; p < hi; p++) {
        pj->plane(pj, p / pj->C, p % pj->C, s, &bad, &first);
    }
    r->counts[2 * u] = bad;
    r->counts[2 * u + 1] = first;
}

bool pool_planes_run(const pool_job *pj, int threads, int64_t *bad, int64_t *first)
{
    *bad = 0;
    *first = 0;
    runs r = {.pj = pj, .planes = pj->N * pj->C};
    if (r.planes <= 0) {
        return true;
    }
    int64_t want = threads ? (int64_t)threads * RUNS_PER_THREAD : 1;
    for (;;) {
        want = want < r.planes ? want : r.planes;
        r.per = (r.planes + want - 1) / want;
        int64_t count = (r.planes + r.per - 1) / r.per;
        r.scratch = malloc((size_t)(count * pj->scratch + 1) * sizeof(double));
        r.counts = malloc((size_t)count * 2 * sizeof(int64_t));
        if (r.scratch && r.counts) {
            mk_run_units(count, threads ? threads : 1, run_unit, &r);
            for (int64_t u = 0; u < count; u++) {
                if (r.counts[2 * u] && !*bad) {
                    *first = r.counts[2 * u + 1];
                }
                *bad += r.counts[2 * u];
            }
            free(r.scratch);
            free(r.counts);
            return true;
        }
        free(r.scratch);
        free(r.counts);
        if (want == 1) {
            return false;
        }
        want = 1; /* out of memory: one run, one scratch */
    }
}
