/*
 * jpeg_color.c: from the decoded component planes to the output image:
 * chroma upsampling, then colour conversion, one output row at a time.
 *
 * Upsampling by 2 (horizontally, vertically or both) is the triangle
 * ("fancy") filter that libjpeg applies by default, written here from its
 * description: each output sample is 3/4 of the nearest input sample plus
 * 1/4 of the next nearest, in each direction that is upsampled; the two
 * outputs of one input sample round with different biases (horizontally
 * +1 for the left one and +2 for the right one, out of 4; vertically +1 for
 * the upper and +2 for the lower; both at once: +8 left, +7 right, out of
 * 16, after summing 3 * nearer row + farther row), so that the rounding
 * errors do not pile up on one side. At the image's edges the missing
 * neighbour is the edge sample itself (the last valid sample or row of the
 * component, not its block padding): the outermost output sample is the
 * edge sample. As libjpeg-turbo does, a horizontally upsampled component of
 * at most 2 samples across is upsampled by repeating samples instead.
 * A component at full resolution is copied as it is (4:4:4 stays 4:4:4).
 *
 * YCbCr -> RGB per JFIF, in 16.16 fixed point, rounded and clamped:
 * R = Y + 1.402 (Cr - 128), G = Y - 0.344136 (Cb - 128) - 0.714136 (Cr - 128),
 * B = Y + 1.772 (Cb - 128). RGB -> grey: 0.299 R + 0.587 G + 0.114 B.
 */
#include "jpeg_internal.h"

#include <stdlib.h>
#include <string.h>

#define FIX_R_CR 91881   /* 1.402 * 65536 */
#define FIX_G_CB 22554   /* 0.344136 * 65536 */
#define FIX_G_CR 46802   /* 0.714136 * 65536 */
#define FIX_B_CB 116130  /* 1.772 * 65536 */
#define FIX_Y_R 19595    /* 0.299 * 65536 */
#define FIX_Y_G 38470    /* 0.587 * 65536 */
#define FIX_Y_B 7471     /* 0.114 * 65536 */
#define HALF 32768

/* (v + 0.5) >> 16 for v of either sign, without shifting a negative. */
static int descale(int32_t v)
{
    return (int)((v + HALF + (256 << 16)) >> 16) - 256;
}

static uint8_t clamp255(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Output row y of component k, upsampled to the frame's full resolution,
 * into dst (at least 2 * k->width bytes); cs: k->width ints of scratch. */
static void upsample_row(const mk_jpeg_ctx *c, const mk_jpeg_component *k, uint32_t y,
                         uint8_t *dst, int *cs)
{
    int hr = c->hmax / k->h, vr = c->vmax / k->v;
    uint32_t w = k->width, h = k->height;
    uint32_t r = vr == 2 ? y / 2 : y;
    const uint8_t *in = k->plane + (size_t)r * k->stride;

    if (vr == 1) {
        if (hr == 1) {
            memcpy(dst, in, w);
        } else if (w > 2) {
            dst[0] = in[0];
            dst[1] = (uint8_t)((3 * in[0] + in[1] + 2) >> 2);
            for (uint32_t i = 1; i + 1 < w; i++) {
                int n3 = 3 * in[i];
                dst[2 * i] = (uint8_t)((n3 + in[i - 1] + 1) >> 2);
                dst[2 * i + 1] = (uint8_t)((n3 + in[i + 1] + 2) >> 2);
            }
            dst[2 * w - 2] = (uint8_t)((3 * in[w - 1] + in[w - 2] + 1) >> 2);
            dst[2 * w - 1] = in[w - 1];
        } else {
            for (uint32_t i = 0; i < w; i++)
                dst[2 * i] = dst[2 * i + 1] = in[i];
        }
        return;
    }

    /* vr == 2: the farther row is the one above for an even output row,
     * the one below for an odd one (the edge row itself at the edges). */
    int lower = (int)(y & 1u);
    uint32_t fr = lower ? (r + 1 < h ? r + 1 : r) : (r > 0 ? r - 1 : 0);
    const uint8_t *far = k->plane + (size_t)fr * k->stride;
    if (hr == 1) {
        int bias = lower ? 2 : 1;
        for (uint32_t i = 0; i < w; i++)
            dst[i] = (uint8_t)((3 * in[i] + far[i] + bias) >> 2);
    } else if (w > 2) {
        for (uint32_t i = 0; i < w; i++)
            cs[i] = 3 * in[i] + far[i];
        dst[0] = (uint8_t)((4 * cs[0] + 8) >> 4);
        dst[1] = (uint8_t)((3 * cs[0] + cs[1] + 7) >> 4);
        for (uint32_t i = 1; i + 1 < w; i++) {
            int n3 = 3 * cs[i];
            dst[2 * i] = (uint8_t)((n3 + cs[i - 1] + 8) >> 4);
            dst[2 * i + 1] = (uint8_t)((n3 + cs[i + 1] + 7) >> 4);
        }
        dst[2 * w - 2] = (uint8_t)((3 * cs[w - 1] + cs[w - 2] + 8) >> 4);
        dst[2 * w - 1] = (uint8_t)((4 * cs[w - 1] + 7) >> 4);
    } else {
        for (uint32_t i = 0; i < w; i++)
            dst[2 * i] = dst[2 * i + 1] = in[i];
    }
}

mk_jpeg_status mk_jpeg_output(mk_jpeg_ctx *c, uint32_t channels, uint8_t *out)
{
    uint8_t *row[3] = {NULL, NULL, NULL};
    int *cs = NULL;
    mk_jpeg_status st = MK_JPEG_OK;
    int need = (c->ncomp == 3 && !(channels == 1 && c->colorspace == MK_JPEG_CS_YCBCR)) ? 3 : 1;
    uint32_t maxw = 0;
    for (int i = 0; i < need; i++)
        if (c->comp[i].width > maxw)
            maxw = c->comp[i].width;
    cs = malloc((size_t)maxw * sizeof *cs);
    for (int i = 0; i < need; i++)
        row[i] = malloc(2 * (size_t)c->comp[i].width);
    if (cs == NULL || row[0] == NULL || (need == 3 && (row[1] == NULL || row[2] == NULL))) {
        st = mk_jpeg_fail(c, MK_JPEG_NOMEM, "out of memory (row buffers)");
        goto done;
    }
    size_t X = c->width;
    for (uint32_t y = 0; y < c->height; y++) {
        uint8_t *o = out + (size_t)y * X * channels;
        for (int i = 0; i < need; i++)
            upsample_row(c, &c->comp[i], y, row[i], cs);
        const uint8_t *a = row[0], *b = row[need == 3 ? 1 : 0], *d = row[need == 3 ? 2 : 0];
        if (need == 1 && channels == 1) {
            memcpy(o, a, X);
        } else if (need == 1) { /* grey -> RGB */
            for (size_t x = 0; x < X; x++)
                o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = a[x];
        } else if (c->colorspace == MK_JPEG_CS_RGB && channels == 3) {
            for (size_t x = 0; x < X; x++) {
                o[3 * x] = a[x];
                o[3 * x + 1] = b[x];
                o[3 * x + 2] = d[x];
            }
        } else if (c->colorspace == MK_JPEG_CS_RGB) { /* RGB -> grey */
            for (size_t x = 0; x < X; x++)
                o[x] = (uint8_t)((FIX_Y_R * a[x] + FIX_Y_G * b[x] + FIX_Y_B * d[x] + HALF) >> 16);
        } else { /* YCbCr -> RGB */
            for (size_t x = 0; x < X; x++) {
                int yy = a[x], cb = b[x] - 128, cr = d[x] - 128;
                o[3 * x] = clamp255(yy + descale(FIX_R_CR * cr));
                o[3 * x + 1] = clamp255(yy + descale(-FIX_G_CB * cb - FIX_G_CR * cr));
                o[3 * x + 2] = clamp255(yy + descale(FIX_B_CB * cb));
            }
        }
    }
done:
    free(cs);
    for (int i = 0; i < 3; i++)
        free(row[i]);
    return st;
}
