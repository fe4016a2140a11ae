/*
 * op_parallel.c (libopapi.so): the thread runner of op_parallel.h. Units
 * are handed out in ascending order from one atomic counter; threads are
 * created per launch and joined before it returns.
 */
#include "op_parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static int parse_threads(const char *v)
{
    long n = strtol(v, NULL, 10);
    return n <= 0 ? 0 : n > MK_MAX_THREADS ? MK_MAX_THREADS : (int)n;
}

int mk_kernel_threads(void)
{
    const char *v = getenv("ASCENDCL_MOCK_KERNEL_THREADS");
    if (v && *v) {
        return parse_threads(v);
    }
    v = getenv("ASCENDCL_MOCK_CONV_THREADS");
    if (v && *v) {
        return parse_threads(v);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MK_MAX_THREADS ? MK_MAX_THREADS : (int)n;
}

typedef struct run {
    void (*unit)(const void *, int64_t);
    const void *ctx;
    int64_t units;
    atomic_llong next;
} run;

static void *worker(void *arg)
{
    run *r = arg;
    for (;;) {
        int64_t u = atomic_fetch_add(&r->next, 1);
        if (u >= r->units) {
            return NULL;
        }
        r->unit(r->ctx, u);
    }
}

void mk_run_units(int64_t units, int threads, void (*unit)(const void *ctx, int64_t u), const void *ctx)
{
    run r = {.unit = unit, .ctx = ctx, .units = units};
    pthread_t t[MK_MAX_THREADS];
    int made = 0;
    atomic_init(&r.next, 0);
    int64_t want = threads < units ? threads : units;
    want = want > MK_MAX_THREADS ? MK_MAX_THREADS : want;
    for (int64_t i = 1; i < want; i++) {
        if (pthread_create(&t[made], NULL, worker, &r) == 0) {
            made++;
        }
    }
    worker(&r);
    for (int i = 0; i < made; i++) {
        pthread_join(t[i], NULL);
    }
}
