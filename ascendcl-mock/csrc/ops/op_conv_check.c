/*
 * op_conv_check.c (libopapi.so): a test hook, not a CANN function, that runs
 * one of the threaded convolution cores (op_conv_fast.c) and the sequential
 * reference nest (op_conv_kernels.c) on the same random doubles and counts
 * the output elements whose bits differ (ascendcl-mock/tests/
 * ops2_conv_threads.rs).
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Values whose sums depend on their order in double: signed, with
 * exponents over 2^-40..2^40 (xorshift from seed). */
static void fill(double *a, int64_t n, uint64_t *seed)
{
    for (int64_t k = 0; k < n; k++) {
        uint64_t x = *seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *seed = x;
        double m = 1.0 + (double)(x >> 11) / 9007199254740992.0; /* [1, 2) */
        a[k] = ldexp(x & 1 ? -m : m, (int)((x >> 3) % 81) - 40);
    }
}

/* Test hook (not a CANN function): runs core `which` (0 gather, 1 scatter,
 * 2 wgrad) for the 5-D dims bd (conv input), sd (conv output), wd (weight)
 * and the geometry geom (conv_put's 13 values: stride, pad before, pad
 * after, dilation, groups) on `threads` threads and as the reference nest,
 * on the same random values, starting from the same random output. Returns
 * the number of output elements that differ in any bit, -1 on host OOM. */
OPS_EXPORT int64_t aclmockop_conv_kernels_differ(int which, const int64_t *bd, const int64_t *sd, const int64_t *wd,
                                                 const int64_t *geom, int threads, uint64_t seed)
{
    conv_geom g;
    for (int i = 0; i < 3; i++) {
        g.s[i] = geom[i];
        g.pb[i] = geom[3 + i];
        g.pa[i] = geom[6 + i];
        g.d[i] = geom[9 + i];
    }
    g.groups = geom[12];
    int64_t nb = bd[0] * bd[1] * bd[2] * bd[3] * bd[4], ns = sd[0] * sd[1] * sd[2] * sd[3] * sd[4];
    int64_t nw = wd[0] * wd[1] * wd[2] * wd[3] * wd[4];
    int64_t nin[3][2] = {{nb, nw}, {ns, nw}, {nb, ns}}, nout[3] = {ns, nb, nw};
    int64_t ni0 = nin[which][0], ni1 = nin[which][1], no = nout[which];
    double *x = malloc((size_t)(ni0 + ni1 + 2 * no + 1) * sizeof(double));
    if (!x) {
        return -1;
    }
    double *y = x + ni0, *ref = y + ni1, *fast = ref + no;
    seed |= 1;
    fill(x, ni0 + ni1 + no, &seed);
    memcpy(fast, ref, (size_t)no * sizeof(double));
    if (which == 0) {
        conv_gather_ref(x, bd, y, wd, &g, sd, ref);
        conv_gather_mt(x, bd, y, wd, &g, sd, fast, threads);
    } else if (which == 1) {
        conv_scatter_ref(x, sd, y, wd, &g, bd, ref);
        conv_scatter_mt(x, sd, y, wd, &g, bd, fast, threads);
    } else {
        conv_wgrad_ref(x, bd, y, sd, &g, wd, ref);
        conv_wgrad_mt(x, bd, y, sd, &g, wd, fast, threads);
    }
    int64_t differ = 0;
    for (int64_t k = 0; k < no; k++) {
        differ += memcmp(&ref[k], &fast[k], sizeof(double)) != 0;
    }
    free(x);
    return differ;
}
