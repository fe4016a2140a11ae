/*
 * op_pool_check.c (libopapi.so): a test hook, not a CANN function, that
 * runs one of the pooling kernels (op_pool_planes.h) threaded and as the
 * sequential reference on the same random input and counts the output
 * elements whose bits differ (ascendcl-mock/tests/ops2_pool_threads.rs).
 */
#include "op_pool_planes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t esize(int32_t dt) { return dt == ACL_FLOAT || dt == ACL_INT32 ? 4 : dt == ACL_INT64 ? 8 : 2; }

/* Signed values over 2^-10..2^10, one in four a small integer (so windows
 * hold ties and the first of equal maxima matters), xorshift from seed. */
static void fill(void *buf, int32_t dt, int64_t n, uint64_t *seed)
{
    for (int64_t e = 0; e < n; e++) {
        uint64_t x = *seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *seed = x;
        double m = 1.0 + (double)(x >> 40) / 16777216.0;
        double v = (x >> 5) % 4 == 0 ? (double)((int)((x >> 8) % 5) - 2) : ldexp(x & 1 ? -m : m, (int)((x >> 3) % 21) - 10);
        mk_std(buf, dt, e, v);
    }
}

static mk_view nchw(int32_t dt, const int64_t *d)
{
    mk_view v;
    memset(&v, 0, sizeof v);
    v.dtype = dt;
    v.ndim = 4;
    for (int i = 0; i < 4; i++) {
        v.dims[i] = d[i];
    }
    v.strides[3] = 1;
    for (int i = 2; i >= 0; i--) {
        v.strides[i] = v.strides[i + 1] * d[i + 1];
    }
    return v;
}

/* Test hook (not a CANN function): kernel `which` (0 max pool, 1 its
 * backward, 2 adaptive average pool, 3 its backward) for the input dims in
 * (N, C, H, W), the output's (OH, OW) out_hw, the max pool attributes attrs
 * (kh, kw, sh, sw, ph, pw, dh, dw) and data dtype dt; for 1 the indices are
 * the forward's (int32), every seventh moved out of its plane when
 * `corrupt`. Runs the kernel on `threads` threads and as the reference, on
 * the same random values, from the same random output. Returns the number
 * of output elements (and indices) that differ in any bit, the reference's
 * count of out-of-plane indices in *ref_bad; -3 if the threaded count (or
 * first such index) differs, -1 on host OOM, -2 for a bad request. */
OPS_EXPORT int64_t aclmockop_pool_kernels_differ(int which, const int64_t *in, const int64_t *out_hw,
                                                 const int64_t *attrs, int32_t dt, int corrupt, int threads,
                                                 uint64_t seed, int64_t *ref_bad)
{
    if (which < 0 || which > 3) {
        return -2;
    }
    int64_t od[4] = {in[0], in[1], out_hw[0], out_hw[1]};
    int64_t ni = in[0] * in[1] * in[2] * in[3], no = od[0] * od[1] * od[2] * od[3];
    size_t es = esize(dt);
    bool back = which == 1 || which == 3;
    /* the written array: out (+ indices) forward, gradInput backward */
    int64_t nw = back ? ni : no;
    char *mem = malloc((size_t)(ni + no) * es + 2 * (size_t)nw * es + 3 * (size_t)no * 4 + 1);
    if (!mem) {
        return -1;
    }
    void *x = mem, *g = mem + (size_t)ni * es, *w0 = (char *)g + (size_t)no * es, *w1 = (char *)w0 + (size_t)nw * es;
    void *ix = (char *)w1 + (size_t)nw * es, *ix0 = (char *)ix + (size_t)no * 4, *ix1 = (char *)ix0 + (size_t)no * 4;
    seed |= 1;
    fill(x, dt, ni, &seed);
    fill(g, dt, no, &seed);
    fill(w0, dt, nw, &seed);
    memcpy(w1, w0, (size_t)nw * es);
    fill(ix0, ACL_INT32, no, &seed);
    memcpy(ix1, ix0, (size_t)no * 4);
    pool_job pj = {.x = nchw(dt, in), .o = nchw(dt, od), .ix = nchw(ACL_INT32, od), .go = nchw(dt, od),
                   .gi = nchw(dt, in), .xb = x, .gob = g, .ib = ix, .kh = attrs[0], .kw = attrs[1], .sh = attrs[2],
                   .sw = attrs[3], .ph = attrs[4], .pw = attrs[5], .dh = attrs[6], .dw = attrs[7]};
    pool_plane_fn fns[4] = {max_pool_plane, max_pool_backward_plane, adaptive_avg_pool_plane,
                            adaptive_avg_pool_backward_plane};
    pj.plane = fns[which];
    pj.N = in[0];
    pj.C = in[1];
    pj.scratch = back ? in[2] * in[3] : 0;
    if (which == 1) {
        /* the backward's indices: the forward's */
        pool_job f = pj;
        f.plane = max_pool_plane;
        f.ob = NULL;
        f.ixb = ix;
        f.scratch = 0;
        int64_t b, fi;
        pool_planes_run(&f, 0, &b, &fi);
        for (int64_t e = 6; corrupt && e < no; e += 7) {
            mk_sti(ix, ACL_INT32, e, e % 2 ? -1 - e : in[2] * in[3] + e);
        }
    }
    int64_t bad[2], first[2], differ = 0;
    void *outs[2] = {w0, w1}, *idx[2] = {ix0, ix1};
    bool ok = true;
    for (int r = 0; r < 2; r++) {
        if (back) {
            pj.gib = outs[r];
        } else {
            pj.ob = outs[r];
            pj.ixb = which == 0 ? idx[r] : NULL;
        }
        ok = pool_planes_run(&pj, r == 0 ? 0 : threads, &bad[r], &first[r]) && ok;
    }
    *ref_bad = bad[0];
    if (!ok) {
        differ = -1;
    } else if (bad[0] != bad[1] || first[0] != first[1]) {
        differ = -3;
    } else {
        for (int64_t e = 0; e < nw; e++) {
            differ += memcmp((char *)w0 + e * es, (char *)w1 + e * es, es) != 0;
        }
        for (int64_t e = 0; which == 0 && e < no; e++) {
            differ += memcmp((char *)ix0 + e * 4, (char *)ix1 + e * 4, 4) != 0;
        }
    }
    free(mem);
    return differ;
}
