/*
 * op_conv_kernels.c (libopapi.so): the dense double-precision cores of
 * aclnnConvolution and aclnnConvolutionBackward (op_conv.c,
 * op_conv_backward.c), on 5-D (N, C, D, H, W) arrays: conv1d and conv2d are
 * run as conv3d with the leading spatial dims of size 1, which adds loops of
 * one iteration and leaves every sum in the order it had in 2-D.
 * These are the sequential reference (conv_*_ref); op_conv_fast.c runs the
 * same sums over the host's cores and falls back on them.
 * Also the conversions between a strided tensor and a dense double array.
 */
#include "op_internal.h"

#include <stdlib.h>

/* Flat index of (n, c, d, h, w) in a dense row-major 5-D array of dims x. */
#define IDX5(x, n, c, d, h, w) ((((((n) * (x)[1] + (c)) * (x)[2] + (d)) * (x)[3] + (h)) * (x)[4]) + (w))

/* One loop nest for the three cores, on dense row-major arrays: every
 * (n, o, od, oh, ow) of the conv output (flat index si), every in-bounds tap
 * (c, kd, kh, kw) of the conv input at (id, ih, iw). */
#define CONV_TAPS(bd, sd, wd, BODY)                                                                                 \
    do {                                                                                                            \
        int64_t Og_ = (sd)[1] / g->groups;                                                                          \
        for (int64_t n = 0; n < (sd)[0]; n++) {                                                                     \
            for (int64_t oc = 0; oc < (sd)[1]; oc++) {                                                              \
                int64_t c0 = (oc / Og_) * (wd)[1];                                                                  \
                for (int64_t od = 0; od < (sd)[2]; od++) {                                                          \
                    for (int64_t oh = 0; oh < (sd)[3]; oh++) {                                                      \
                        for (int64_t ow = 0; ow < (sd)[4]; ow++) {                                                  \
                            int64_t si = IDX5(sd, n, oc, od, oh, ow);                                               \
                            for (int64_t c = 0; c < (wd)[1]; c++) {                                                 \
                                for (int64_t kd = 0; kd < (wd)[2]; kd++) {                                          \
                                    int64_t id = od * g->s[0] - g->pb[0] + kd * g->d[0];                            \
                                    if (id < 0 || id >= (bd)[2]) {                                                  \
                                        continue;                                                                   \
                                    }                                                                               \
                                    for (int64_t kh = 0; kh < (wd)[3]; kh++) {                                      \
                                        int64_t ih = oh * g->s[1] - g->pb[1] + kh * g->d[1];                        \
                                        if (ih < 0 || ih >= (bd)[3]) {                                              \
                                            continue;                                                               \
                                        }                                                                           \
                                        for (int64_t kw = 0; kw < (wd)[4]; kw++) {                                  \
                                            int64_t iw = ow * g->s[2] - g->pb[2] + kw * g->d[2];                    \
                                            if (iw < 0 || iw >= (bd)[4]) {                                          \
                                                continue;                                                           \
                                            }                                                                       \
                                            BODY;                                                                   \
                                        }                                                                           \
                                    }                                                                               \
                                }                                                                                   \
                            }                                                                                       \
                        }                                                                                           \
                    }                                                                                               \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
    } while (0)

void conv_gather_ref(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                 const int64_t *sd, double *s)
{
    CONV_TAPS(bd, sd, wd, s[si] += b[IDX5(bd, n, c0 + c, id, ih, iw)] * w[IDX5(wd, oc, c, kd, kh, kw)]);
}

void conv_scatter_ref(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                  const int64_t *bd, double *b)
{
    CONV_TAPS(bd, sd, wd, b[IDX5(bd, n, c0 + c, id, ih, iw)] += s[si] * w[IDX5(wd, oc, c, kd, kh, kw)]);
}

void conv_wgrad_ref(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                const int64_t *wd, double *dw)
{
    CONV_TAPS(bd, sd, wd, dw[IDX5(wd, oc, c, kd, kh, kw)] += b[IDX5(bd, n, c0 + c, id, ih, iw)] * s[si]);
}

double *conv_dense(const mk_view *v, const void *buf, bool *oom)
{
    int64_t n = numel(v);
    if (n <= 0) {
        return NULL;
    }
    double *d = malloc((size_t)n * sizeof(double));
    int64_t *offs = view_offsets(v);
    if (!d || !offs) {
        free(d);
        free(offs);
        *oom = true;
        return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
        d[k] = mk_ldd(buf, v->dtype, offs[k]);
    }
    free(offs);
    return d;
}

void conv_store(const mk_view *v, void *vb, const double *a, const mk_view *bias, const void *biasb)
{
    const int64_t *d = v->dims, *st = v->strides;
    for (int64_t n = 0; n < d[0]; n++) {
        for (int64_t c = 0; c < d[1]; c++) {
            double add = biasb ? mk_ldd(biasb, bias->dtype, c * bias->strides[0]) : 0.0;
            for (int64_t z = 0; z < d[2]; z++) {
                for (int64_t h = 0; h < d[3]; h++) {
                    for (int64_t w = 0; w < d[4]; w++) {
                        int64_t off = n * st[0] + c * st[1] + z * st[2] + h * st[3] + w * st[4];
                        mk_std(vb, v->dtype, off, a[IDX5(d, n, c, z, h, w)] + add);
                    }
                }
            }
        }
    }
}
