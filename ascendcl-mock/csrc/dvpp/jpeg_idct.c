/*
 * jpeg_idct.c: the inverse DCT (T.81 A.3.3) and level shift.
 *
 * Chosen: the definition itself, done separably in single-precision float
 * (rows, then columns: 2 x 8 x 64 multiply-adds per block), no fast
 * factorization, rounded to nearest once at the end and clamped to 0..255.
 * It is more exact than libjpeg's integer "islow" IDCT (13-bit constants,
 * rounding after each pass), so the two differ by a level now and then; a
 * block whose AC coefficients are all zero takes the shortcut DC / 8.
 */
#include "jpeg_internal.h"

/* basis[x][u] = C(u) / 2 * cos((2x + 1) u pi / 16), C(0) = 1 / sqrt(2),
 * C(u) = 1 otherwise. */
static const float basis[8][8] = {
    {0.353553391f, 0.490392640f, 0.461939766f, 0.415734806f, 0.353553391f, 0.277785117f, 0.191341716f, 0.097545161f},
    {0.353553391f, 0.415734806f, 0.191341716f, -0.097545161f, -0.353553391f, -0.490392640f, -0.461939766f, -0.277785117f},
    {0.353553391f, 0.277785117f, -0.191341716f, -0.490392640f, -0.353553391f, 0.097545161f, 0.461939766f, 0.415734806f},
    {0.353553391f, 0.097545161f, -0.461939766f, -0.277785117f, 0.353553391f, 0.415734806f, -0.191341716f, -0.490392640f},
    {0.353553391f, -0.097545161f, -0.461939766f, 0.277785117f, 0.353553391f, -0.415734806f, -0.191341716f, 0.490392640f},
    {0.353553391f, -0.277785117f, -0.191341716f, 0.490392640f, -0.353553391f, -0.097545161f, 0.461939766f, -0.415734806f},
    {0.353553391f, -0.415734806f, 0.191341716f, 0.097545161f, -0.353553391f, 0.490392640f, -0.461939766f, 0.277785117f},
    {0.353553391f, -0.490392640f, 0.461939766f, -0.415734806f, 0.353553391f, -0.277785117f, 0.191341716f, -0.097545161f},
};

static uint8_t to_sample(float v)
{
    v += 128.0f;
    if (!(v >= 0.5f)) /* also catches NaN, which finite input cannot give */
        return 0;
    if (v >= 254.5f)
        return 255;
    return (uint8_t)(int)(v + 0.5f);
}

/* coef: dequantized, natural order (coef[v * 8 + u], v vertical frequency).
 * Writes the 8x8 samples at dst, rows stride bytes apart. */
void mk_jpeg_idct_store(const float coef[64], int ac_nonzero, uint8_t *dst, size_t stride)
{
    if (!ac_nonzero) {
        uint8_t s = to_sample(coef[0] * 0.125f);
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++)
                dst[(size_t)y * stride + (size_t)x] = s;
        return;
    }
    float tmp[64];
    /* rows: tmp[v][x] = sum_u basis[x][u] coef[v][u] */
    for (int v = 0; v < 8; v++) {
        const float *row = coef + 8 * v;
        for (int x = 0; x < 8; x++) {
            float s = 0.0f;
            for (int u = 0; u < 8; u++)
                s += basis[x][u] * row[u];
            tmp[8 * v + x] = s;
        }
    }
    /* columns: out[y][x] = sum_v basis[y][v] tmp[v][x] */
    for (int y = 0; y < 8; y++) {
        for (int x = 0; x < 8; x++) {
            float s = 0.0f;
            for (int v = 0; v < 8; v++)
                s += basis[y][v] * tmp[8 * v + x];
            dst[(size_t)y * stride + (size_t)x] = to_sample(s);
        }
    }
}
