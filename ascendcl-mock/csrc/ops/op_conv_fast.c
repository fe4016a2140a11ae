/*
 * op_conv_fast.c (libopapi.so): the convolution cores conv_gather,
 * conv_scatter and conv_wgrad (op_internal.h; the weight gradient's loops
 * are in op_conv_wgrad.c) spread over the host's cores,
 * with loop orders that keep their rows in cache; bit-identical to the
 * sequential reference nest (op_conv_kernels.c, conv_*_ref).
 *
 * Why the results are the same bits: every output element is owned by one
 * unit of work (a row of the array written, or a block of input channels of
 * the weight gradient), one thread runs a unit, and within it the element receives the
 * same products, in the same order, as in the reference nest, starting from
 * the value the array holds (the reference adds into it too). The orders:
 *   gather (conv output s):  taps (c, kd, kh, kw) ascending, as the
 *     reference's inner loops; a row of s over ow is updated tap by tap,
 *     or, with stride 1 in W, each element through its taps in a register.
 *   scatter (conv input b):  for an element of b the reference visits the
 *     outputs (oc, od, oh, ow) ascending, each with one tap; a row of b is
 *     updated for oc, od, oh ascending, then kw DESCENDING, which for a fixed
 *     iw is ow ascending (iw + pad = ow*sw + kw*dw); with stride 1 in W each
 *     element runs through that sequence in a register.
 *   wgrad (weight gradient): for a weight element the reference visits the
 *     output positions (n, od, oh, ow) ascending; here, per input channel,
 *     positions ascending in blocks, each block applied to every tap, with
 *     the output gradient transposed to (position, oc) so that one product
 *     row covers the group's output channels; an element runs through a
 *     block's positions in a register.
 * Products are b·w, s·w and b·s as in the reference, each rounded, then
 * added (no fused multiply-add on the x86-64 baseline this is built for;
 * both files are compiled with the same flags).
 *
 * The thread count is mk_kernel_threads()'s (op_parallel.h:
 * ASCENDCL_MOCK_KERNEL_THREADS, or its alias ASCENDCL_MOCK_CONV_THREADS;
 * 0 selects the sequential reference nest), read at every launch; the units
 * run on the shared runner mk_run_units (op_parallel.c). aclmockop_conv_kernels_differ (op_conv_check.c, a test
 * hook) compares the two on random doubles.
 */
#include "op_conv_fast.h"

#include <string.h>

/* The rows of one array (with their weight rows at kw = 0) that add into
 * one row of the other, in the reference's order: for a row of s the b
 * rows (c, kd, kh ascending), for a row of b the s rows (oc, od, oh
 * ascending). */
enum { SC_ROWS = 64 };
typedef struct rows {
    const double *s[SC_ROWS], *w[SC_ROWS];
    int n;
} rows;

/* srow += the b rows' taps (in r->s), every element in the order rows,
 * then kw ascending: one pass per row and tap, any stride. */
HOT static void gather_passes(const job *j, double *restrict srow, const rows *r)
{
    const int64_t *bd = j->bd, *sd = j->sd, *wd = j->wd;
    const conv_geom *g = j->g;
    for (int k = 0; k < r->n; k++) {
        for (int64_t kw = 0; kw < wd[4]; kw++) {
            int64_t off = kw * g->d[2] - g->pb[2], f, l, sw = g->s[2];
            if (!conv_span(off, sw, 0, bd[4] - 1, sd[4], &f, &l)) {
                continue;
            }
            double wv = r->w[k][kw];
            const double *restrict brow = r->s[k];
            for (int64_t ow = f; ow <= l; ow++) {
                srow[ow] += brow[ow * sw + off] * wv;
            }
        }
    }
}

/* The same sums for stride 1 in W, each element of srow accumulated in a
 * register through all the rows' taps. */
HOT static void gather_fused(const job *j, double *restrict srow, const rows *r)
{
    const int64_t W = j->bd[4], OW = j->sd[4], KW = j->wd[4];
    const int64_t dw = j->g->d[2], pl = j->g->pb[2];
    /* interior: every tap's iw = ow - pl + kw*dw in [0, W) */
    int64_t lo = pl, hi = W - 1 + pl - (KW - 1) * dw;
    hi = hi > OW - 1 ? OW - 1 : hi;
    for (int64_t ow = 0; ow < OW; ow++) {
        if (ow >= lo && ow + 8 <= hi + 1) {
            double acc[8];
            memcpy(acc, srow + ow, sizeof acc);
            for (int k = 0; k < r->n; k++) {
                for (int64_t kw = 0; kw < KW; kw++) {
                    const double *bp = r->s[k] + ow - pl + kw * dw, wv = r->w[k][kw];
                    for (int i = 0; i < 8; i++) {
                        acc[i] += bp[i] * wv;
                    }
                }
            }
            memcpy(srow + ow, acc, sizeof acc);
            ow += 7;
            continue;
        }
        double acc = srow[ow];
        for (int k = 0; k < r->n; k++) {
            for (int64_t kw = 0; kw < KW; kw++) {
                int64_t iw = ow - pl + kw * dw;
                if (iw >= 0 && iw < W) {
                    acc += r->s[k][iw] * r->w[k][kw];
                }
            }
        }
        srow[ow] = acc;
    }
}

static void gather_flush(const job *j, double *srow, rows *r)
{
    if (j->g->s[2] == 1) {
        gather_fused(j, srow, r);
    } else {
        gather_passes(j, srow, r);
    }
    r->n = 0;
}

/* gather unit: one row (n, od, oh, oc) of s, oc fastest (rows of b reused). */
static void gather_row(const job *j, int64_t u)
{
    const int64_t *bd = j->bd, *sd = j->sd, *wd = j->wd;
    const conv_geom *g = j->g;
    int64_t oc = u % sd[1], r = u / sd[1];
    int64_t oh = r % sd[3], od = (r / sd[3]) % sd[2], n = r / (sd[3] * sd[2]);
    int64_t c0 = (oc / (sd[1] / g->groups)) * wd[1];
    double *srow = j->out + IDX5(sd, n, oc, od, oh, 0);
    rows rw;
    rw.n = 0;
    for (int64_t c = 0; c < wd[1]; c++) {
        for (int64_t kd = 0; kd < wd[2]; kd++) {
            int64_t id = od * g->s[0] - g->pb[0] + kd * g->d[0];
            if (id < 0 || id >= bd[2]) {
                continue;
            }
            for (int64_t kh = 0; kh < wd[3]; kh++) {
                int64_t ih = oh * g->s[1] - g->pb[1] + kh * g->d[1];
                if (ih < 0 || ih >= bd[3]) {
                    continue;
                }
                rw.s[rw.n] = j->b + IDX5(bd, n, c0 + c, id, ih, 0);
                rw.w[rw.n] = j->w + IDX5(wd, oc, c, kd, kh, 0);
                if (++rw.n == SC_ROWS) {
                    gather_flush(j, srow, &rw);
                }
            }
        }
    }
    if (rw.n) {
        gather_flush(j, srow, &rw);
    }
}

/* brow += the rows' taps, every element in the order rows, then kw
 * descending (ow ascending): one pass per row and tap, any stride. */
HOT static void scatter_passes(const job *j, double *restrict brow, const rows *r)
{
    const int64_t *bd = j->bd, *sd = j->sd, *wd = j->wd;
    const conv_geom *g = j->g;
    for (int k = 0; k < r->n; k++) {
        for (int64_t kw = wd[4] - 1; kw >= 0; kw--) {
            int64_t off = kw * g->d[2] - g->pb[2], f, l, sw = g->s[2];
            if (!conv_span(off, sw, 0, bd[4] - 1, sd[4], &f, &l)) {
                continue;
            }
            double wv = r->w[k][kw];
            const double *restrict srow = r->s[k];
            for (int64_t ow = f; ow <= l; ow++) {
                brow[ow * sw + off] += srow[ow] * wv;
            }
        }
    }
}

/* The same sums for stride 1 in W, each element of brow accumulated in a
 * register through all the rows' taps (the same additions in the same
 * order as scatter_passes, one load and store of b instead of one per tap). */
HOT static void scatter_fused(const job *j, double *restrict brow, const rows *r)
{
    const int64_t W = j->bd[4], OW = j->sd[4], KW = j->wd[4];
    const int64_t dw = j->g->d[2], pl = j->g->pb[2];
    /* interior: every tap's ow = iw + pl - kw*dw in [0, OW) */
    int64_t lo = (KW - 1) * dw - pl, hi = OW - 1 - pl;
    lo = lo < 0 ? 0 : lo;
    hi = hi > W - 1 ? W - 1 : hi;
    int64_t iw = 0;
    for (; iw < W; iw++) {
        if (iw >= lo && iw + 8 <= hi + 1) {
            double acc[8];
            memcpy(acc, brow + iw, sizeof acc);
            for (int k = 0; k < r->n; k++) {
                for (int64_t kw = KW - 1; kw >= 0; kw--) {
                    const double *sp = r->s[k] + iw + pl - kw * dw, wv = r->w[k][kw];
                    for (int i = 0; i < 8; i++) {
                        acc[i] += sp[i] * wv;
                    }
                }
            }
            memcpy(brow + iw, acc, sizeof acc);
            iw += 7;
            continue;
        }
        double acc = brow[iw];
        for (int k = 0; k < r->n; k++) {
            for (int64_t kw = KW - 1; kw >= 0; kw--) {
                int64_t ow = iw + pl - kw * dw;
                if (ow >= 0 && ow < OW) {
                    acc += r->s[k][ow] * r->w[k][kw];
                }
            }
        }
        brow[iw] = acc;
    }
}

static void scatter_flush(const job *j, double *brow, rows *r)
{
    if (j->g->s[2] == 1) {
        scatter_fused(j, brow, r);
    } else {
        scatter_passes(j, brow, r);
    }
    r->n = 0;
}

/* scatter unit: one row (n, id, ih, ci) of b, ci fastest (rows of s reused). */
static void scatter_row(const job *j, int64_t u)
{
    const int64_t *bd = j->bd, *sd = j->sd, *wd = j->wd;
    const conv_geom *g = j->g;
    int64_t ci = u % bd[1], r = u / bd[1];
    int64_t ih = r % bd[3], id = (r / bd[3]) % bd[2], n = r / (bd[3] * bd[2]);
    int64_t Og = sd[1] / g->groups, grp = ci / wd[1], c = ci % wd[1];
    double *brow = j->out + IDX5(bd, n, ci, id, ih, 0);
    /* the od, oh whose windows can reach id, ih: o*stride in [i + pad - (K-1)*dil, i + pad] */
    int64_t d0, d1, h0, h1;
    if (!conv_span(0, g->s[0], id + g->pb[0] - (wd[2] - 1) * g->d[0], id + g->pb[0], sd[2], &d0, &d1) ||
        !conv_span(0, g->s[1], ih + g->pb[1] - (wd[3] - 1) * g->d[1], ih + g->pb[1], sd[3], &h0, &h1)) {
        return;
    }
    rows rw;
    rw.n = 0;
    for (int64_t oc = grp * Og; oc < (grp + 1) * Og; oc++) {
        for (int64_t od = d0; od <= d1; od++) {
            int64_t td = id + g->pb[0] - od * g->s[0]; /* kd * dilation */
            if (td % g->d[0]) {
                continue;
            }
            for (int64_t oh = h0; oh <= h1; oh++) {
                int64_t th = ih + g->pb[1] - oh * g->s[1];
                if (th % g->d[1]) {
                    continue;
                }
                rw.s[rw.n] = j->s + IDX5(sd, n, oc, od, oh, 0);
                rw.w[rw.n] = j->w + IDX5(wd, oc, c, td / g->d[0], th / g->d[1], 0);
                if (++rw.n == SC_ROWS) {
                    scatter_flush(j, brow, &rw);
                }
            }
        }
    }
    if (rw.n) {
        scatter_flush(j, brow, &rw);
    }
}

void conv_gather_mt(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                      const int64_t *sd, double *s, int threads)
{
    job j = {.b = b, .w = w, .out = s, .bd = bd, .sd = sd, .wd = wd, .g = g, .unit = gather_row};
    j.units = sd[0] * sd[1] * sd[2] * sd[3];
    conv_run_units(&j, threads);
}

void conv_scatter_mt(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                       const int64_t *bd, double *b, int threads)
{
    job j = {.s = s, .w = w, .out = b, .bd = bd, .sd = sd, .wd = wd, .g = g, .unit = scatter_row};
    j.units = bd[0] * bd[1] * bd[2] * bd[3];
    conv_run_units(&j, threads);
}

void conv_gather(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                 const int64_t *sd, double *s)
{
    int threads = mk_kernel_threads();
    if (threads) {
        conv_gather_mt(b, bd, w, wd, g, sd, s, threads);
    } else {
        conv_gather_ref(b, bd, w, wd, g, sd, s);
    }
}

void conv_scatter(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                  const int64_t *bd, double *b)
{
    int threads = mk_kernel_threads();
    if (threads) {
        conv_scatter_mt(s, sd, w, wd, g, bd, b, threads);
    } else {
        conv_scatter_ref(s, sd, w, wd, g, bd, b);
    }
}

void conv_wgrad(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                const int64_t *wd, double *dw)
{
    int threads = mk_kernel_threads();
    if (threads) {
        conv_wgrad_mt(b, bd, s, sd, g, wd, dw, threads);
    } else {
        conv_wgrad_ref(b, bd, s, sd, g, wd, dw);
    }
}
