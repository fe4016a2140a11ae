/*
 * op_conv_wgrad.c (libopapi.so): the threaded weight-gradient core (see
 * op_conv_fast.c for why its results are the reference nest's bits): per
 * block of input channels, output positions ascending in blocks, each
 * block applied to every tap over a [position][oc] copy of the output
 * gradient, each weight element through a block's positions in a register.
 */
#include "op_conv_fast.h"

#include <stdlib.h>
#include <string.h>

enum {
    WG_BLOCK = 64,   /* output positions per block */
    WG_CHANNELS = 8, /* input channels per unit */
};

/* wgrad unit: input channels [u*WG_CHANNELS, ..) (all their taps, their
 * group's output channels), accumulated in aux as [ci][tap][oc in group];
 * j->s is the output gradient transposed to [position][oc]. The channels
 * share each block of positions while it is in cache. */
HOT static void wgrad_channels(const job *j, int64_t u)
{
    const int64_t *bd = j->bd, *sd = j->sd, *wd = j->wd;
    const conv_geom *g = j->g;
    int64_t Og = sd[1] / g->groups;
    int64_t taps = wd[2] * wd[3] * wd[4], npos = sd[0] * sd[2] * sd[3] * sd[4];
    int64_t c_lo = u * WG_CHANNELS, c_hi = c_lo + WG_CHANNELS < bd[1] ? c_lo + WG_CHANNELS : bd[1];
    int64_t at[WG_BLOCK][4]; /* (n, od, oh, ow) of the block's positions */
    for (int64_t p0 = 0; p0 < npos; p0 += WG_BLOCK) {
        int64_t p1 = p0 + WG_BLOCK < npos ? p0 + WG_BLOCK : npos;
        for (int64_t p = p0; p < p1; p++) {
            int64_t *a = at[p - p0];
            a[3] = p % sd[4];
            a[2] = (p / sd[4]) % sd[3];
            a[1] = (p / (sd[4] * sd[3])) % sd[2];
            a[0] = p / (sd[4] * sd[3] * sd[2]);
        }
        for (int64_t ci = c_lo; ci < c_hi; ci++) {
            int64_t grp = ci / wd[1];
            for (int64_t t = 0; t < taps; t++) {
                int64_t kd = t / (wd[3] * wd[4]), kh = (t / wd[4]) % wd[3], kw = t % wd[4];
                double *restrict arow = j->aux + (ci * taps + t) * Og;
                double xs[WG_BLOCK];
                const double *sp[WG_BLOCK];
                int m = 0; /* the block's in-bounds taps, positions ascending */
                for (int64_t p = p0; p < p1; p++) {
                    const int64_t *a = at[p - p0];
                    int64_t id = a[1] * g->s[0] - g->pb[0] + kd * g->d[0];
                    int64_t ih = a[2] * g->s[1] - g->pb[1] + kh * g->d[1];
                    int64_t iw = a[3] * g->s[2] - g->pb[2] + kw * g->d[2];
                    if (id < 0 || id >= bd[2] || ih < 0 || ih >= bd[3] || iw < 0 || iw >= bd[4]) {
                        continue;
                    }
                    xs[m] = j->b[IDX5(bd, a[0], ci, id, ih, iw)];
                    sp[m++] = j->s + p * sd[1] + grp * Og;
                }
                /* each element through the block's products in a register:
                 * the additions and their order of one pass per position */
                int64_t o = 0;
                for (; o + 8 <= Og; o += 8) {
                    double acc[8];
                    memcpy(acc, arow + o, sizeof acc);
                    for (int k = 0; k < m; k++) {
                        for (int i = 0; i < 8; i++) {
                            acc[i] += xs[k] * sp[k][o + i];
                        }
                    }
                    memcpy(arow + o, acc, sizeof acc);
                }
                for (; o < Og; o++) {
                    double acc = arow[o];
                    for (int k = 0; k < m; k++) {
                        acc += xs[k] * sp[k][o];
                    }
                    arow[o] = acc;
                }
            }
        }
    }
}

void conv_wgrad_mt(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                     const int64_t *wd, double *dw, int threads)
{
    int64_t O = sd[1], Og = O / g->groups, C = bd[1], taps = wd[2] * wd[3] * wd[4];
    int64_t npos = sd[0] * sd[2] * sd[3] * sd[4], nw = O * wd[1] * taps;
    double *st = malloc((size_t)(npos * O) * sizeof(double));
    double *aux = st ? malloc((size_t)(C * taps * Og) * sizeof(double)) : NULL;
    if (!aux) { /* host memory short (or nothing to do): the same sums without the copies */
        free(st);
        conv_wgrad_ref(b, bd, s, sd, g, wd, dw);
        return;
    }
    int64_t plane = npos / sd[0];
    for (int64_t n = 0; n < sd[0]; n++) { /* s as [position][oc] */
        for (int64_t oc = 0; oc < O; oc++) {
            const double *src = s + (n * O + oc) * plane;
            for (int64_t q = 0; q < plane; q++) {
                st[(n * plane + q) * O + oc] = src[q];
            }
        }
    }
    for (int64_t k = 0; k < nw; k++) { /* aux starts from dw, element for element */
        int64_t oc = k / (wd[1] * taps), c = (k / taps) % wd[1], t = k % taps;
        aux[(((oc / Og) * wd[1] + c) * taps + t) * Og + oc % Og] = dw[k];
    }
    job j = {.b = b, .s = st, .aux = aux, .bd = bd, .sd = sd, .wd = wd, .g = g, .unit = wgrad_channels};
    j.units = (C + WG_CHANNELS - 1) / WG_CHANNELS;
    conv_run_units(&j, threads);
    for (int64_t k = 0; k < nw; k++) {
        int64_t oc = k / (wd[1] * taps), c = (k / taps) % wd[1], t = k % taps;
        dw[k] = aux[(((oc / Og) * wd[1] + c) * taps + t) * Og + oc % Og];
    }
    free(st);
    free(aux);
}

