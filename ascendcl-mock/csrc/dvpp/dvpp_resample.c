/*
 * dvpp_resample.c (libacl_dvpp_op.so): acldvppCropAndResize, acldvppResize
 * and acldvppHorizontalFlip.
 *
 * Checks, from the CANN 8.5 pages (…/850/API/aolapi/operatorlist_000NN.html):
 * - CropAndResize (00077): self uint8 or float, NCHW or NHWC, contiguous, N 1
 *   or absent, C 1 or 3; height in [4, 32768], width in [6, 32768]; size an
 *   IntArray of two entries [height, width] equal to out's; interpolationMode
 *   0 bilinear, 1 nearest, 2 bicubic; out of self's dtype and format, with
 *   self's N and C.
 * - Resize (00066): as CropAndResize with the whole image, out's H and W the
 *   size.
 * - HorizontalFlip (00072): out of self's dtype, format and shape.
 * Where the pages are silent the mock decides (docs/mock-conformance.md,
 * "DVPP"): the crop must lie inside the image (top + height <= H,
 * left + width <= W); the interpolation is PyTorch's (torch.nn.functional.
 * interpolate without antialiasing, align_corners=False: source coordinate
 * (dst + 0.5) * in / out - 0.5; bilinear clamps it at 0; bicubic uses
 * A = -0.75 and clamps the taps; nearest takes floor(dst * in / out)), which
 * is what torchvision's resized_crop / resize compute on a float tensor; a
 * uint8 result is rounded half to even and clamped, as torchvision does
 * after a float resize.
 */
#include "dvpp_internal.h"

#include <math.h>

enum { IP_SELF, IP_OUT, IP_DTYPE, IP_MODE, IP_TOP, IP_LEFT, IP_CH, IP_CW, IP_SRC = 8, IP_DST = 16 };
enum { MODE_BILINEAR = 0, MODE_NEAREST = 1, MODE_BICUBIC = 2 };

static double cubic_near(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; } /* |x| <= 1 */
static double cubic_far(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; } /* 1 < |x| < 2 */

static void cubic_weights(double t, double w[4])
{
    const double a = -0.75;
    w[0] = cubic_far(t + 1, a);
    w[1] = cubic_near(t, a);
    w[2] = cubic_near(1 - t, a);
    w[3] = cubic_far(2 - t, a);
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One output sample of the crop (top, left, ch x cw) of src resized to dst. */
static double sample(const mk_job *j, const void *sb, const dv_image *s, const dv_image *d, int64_t y, int64_t x,
                     int64_t c)
{
    int32_t dt = (int32_t)j->ip[IP_DTYPE];
    int64_t top = j->ip[IP_TOP], left = j->ip[IP_LEFT], ch = j->ip[IP_CH], cw = j->ip[IP_CW];
    double sy = (double)ch / (double)d->h, sx = (double)cw / (double)d->w;
    switch (j->ip[IP_MODE]) {
    case MODE_NEAREST: {
        float fy = (float)ch / (float)d->h, fx = (float)cw / (float)d->w;
        int64_t iy = clampi((int64_t)floorf((float)y * fy), 0, ch - 1);
        int64_t ix = clampi((int64_t)floorf((float)x * fx), 0, cw - 1);
        return dv_load(sb, dt, s, top + iy, left + ix, c);
    }
    case MODE_BICUBIC: {
        double ry = (y + 0.5) * sy - 0.5, rx = (x + 0.5) * sx - 0.5;
        int64_t iy = (int64_t)floor(ry), ix = (int64_t)floor(rx);
        double wy[4], wx[4], acc = 0;
        cubic_weights(ry - (double)iy, wy);
        cubic_weights(rx - (double)ix, wx);
        for (int a = 0; a < 4; a++) {
            int64_t yy = clampi(iy - 1 + a, 0, ch - 1);
            double row = 0;
            for (int b = 0; b < 4; b++) {
                int64_t xx = clampi(ix - 1 + b, 0, cw - 1);
                row += wx[b] * dv_load(sb, dt, s, top + yy, left + xx, c);
            }
            acc += wy[a] * row;
        }
        return acc;
    }
    default: { /* bilinear */
        double ry = (y + 0.5) * sy - 0.5, rx = (x + 0.5) * sx - 0.5;
        ry = ry < 0 ? 0 : ry;
        rx = rx < 0 ? 0 : rx;
        int64_t y0 = (int64_t)ry, x0 = (int64_t)rx;
        int64_t y1 = y0 + (y0 < ch - 1), x1 = x0 + (x0 < cw - 1);
        double ly = ry - (double)y0, lx = rx - (double)x0;
        double v00 = dv_load(sb, dt, s, top + y0, left + x0, c), v01 = dv_load(sb, dt, s, top + y0, left + x1, c);
        double v10 = dv_load(sb, dt, s, top + y1, left + x0, c), v11 = dv_load(sb, dt, s, top + y1, left + x1, c);
        return (1 - ly) * ((1 - lx) * v00 + lx * v01) + ly * ((1 - lx) * v10 + lx * v11);
    }
    }
}

static void k_crop_resize(const mk_job *j, void *const *bufs)
{
    dv_image s, d;
    dv_get(j, IP_SRC, &s);
    dv_get(j, IP_DST, &d);
    const void *sb = bufs[j->ip[IP_SELF]];
    void *ob = bufs[j->ip[IP_OUT]];
    if (!sb || !ob) {
        return;
    }
    int32_t dt = (int32_t)j->ip[IP_DTYPE];
    for (int64_t y = 0; y < d.h; y++) {
        for (int64_t x = 0; x < d.w; x++) {
            for (int64_t c = 0; c < d.c; c++) {
                dv_store(ob, dt, &d, y, x, c, sample(j, sb, &s, &d, y, x, c));
            }
        }
    }
}

/* The phase 1 both resizing ops share; crop NULL: the whole image. */
static void resize_phase1(ph1 *p, const aclTensor *self, const int64_t *crop, const aclIntArray *size,
                          uint32_t mode, aclTensor *out)
{
    dv_image s, d;
    if (!dvpp_check_init(p) || !need_tensor(p, self, "self") || !need_tensor(p, out, "out") ||
        (crop && !need_ints(p, size, "size")) || !dv_image_of(p, self, "self", DV_U8_F32, &s) ||
        !dv_image_of(p, out, "out", DV_U8_F32, &d) || !dv_same_kind(p, out, self)) {
        return;
    }
    int64_t top = 0, left = 0, ch = s.h, cw = s.w;
    if (crop) {
        top = crop[0];
        left = crop[1];
        ch = crop[2];
        cw = crop[3];
        if (ch < 4 || ch > 32768) {
            invalid(p, "height %lld is outside [4, 32768]", (long long)ch);
            return;
        }
        if (cw < 6 || cw > 32768) {
            invalid(p, "width %lld is outside [6, 32768]", (long long)cw);
            return;
        }
        if (top + ch > s.h || left + cw > s.w) {
            invalid(p, "the crop (top %lld, left %lld, %lldx%lld) does not lie inside self (%lldx%lld)",
                    (long long)top, (long long)left, (long long)ch, (long long)cw, (long long)s.h, (long long)s.w);
            return;
        }
        if (!check_len(p, size, "size", 2, -1)) {
            return;
        }
        if (size->v[0] != d.h || size->v[1] != d.w) {
            invalid(p, "size [%lld, %lld] differs from out's height and width (%lldx%lld)", (long long)size->v[0],
                    (long long)size->v[1], (long long)d.h, (long long)d.w);
            return;
        }
    }
    if (mode > MODE_BICUBIC) {
        invalid(p, "interpolationMode %u is not 0 (bilinear), 1 (nearest) or 2 (bicubic)", mode);
        return;
    }
    if (d.c != s.c) {
        invalid(p, "out has %lld channels, self %lld", (long long)d.c, (long long)s.c);
        return;
    }
    if (!make_exec(p, k_crop_resize, 0)) {
        return;
    }
    mk_job *j = &p->e->job;
    j->ip[IP_SELF] = add_in(p, self);
    j->ip[IP_OUT] = add_out(p, out);
    j->ip[IP_DTYPE] = self->v.dtype;
    j->ip[IP_MODE] = mode;
    j->ip[IP_TOP] = top;
    j->ip[IP_LEFT] = left;
    j->ip[IP_CH] = ch;
    j->ip[IP_CW] = cw;
    dv_put(j, IP_SRC, &s);
    dv_put(j, IP_DST, &d);
}

OPS_EXPORT acldvppStatus acldvppCropAndResizeGetWorkspaceSize(const aclTensor *self, uint32_t top, uint32_t left,
                                                              uint32_t height, uint32_t width,
                                                              const aclIntArray *size, uint32_t interpolationMode,
                                                              aclTensor *out, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor)
{
    ph1 p;
    dvpp_begin(&p, MK_FN(acldvppCropAndResizeGetWorkspaceSize), "acldvppCropAndResize");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "top", top);
    ph1_arg_i64(&p, "left", left);
    ph1_arg_i64(&p, "height", height);
    ph1_arg_i64(&p, "width", width);
    ph1_arg_ints(&p, "size", size);
    ph1_arg_i64(&p, "interpolationMode", interpolationMode);
    ph1_arg_tensor(&p, "out", out);
    const int64_t crop[4] = {top, left, height, width};
    resize_phase1(&p, self, crop, size, interpolationMode, out);
    return ph1_end(&p, workspaceSize, executor);
}
DVPP_PHASE2(CropAndResize)

OPS_EXPORT acldvppStatus acldvppResizeGetWorkspaceSize(const aclTensor *self, uint32_t interpolationMode,
                                                       aclTensor *out, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor)
{
    ph1 p;
    dvpp_begin(&p, MK_FN(acldvppResizeGetWorkspaceSize), "acldvppResize");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_i64(&p, "interpolationMode", interpolationMode);
    ph1_arg_tensor(&p, "out", out);
    resize_phase1(&p, self, NULL, NULL, interpolationMode, out);
    return ph1_end(&p, workspaceSize, executor);
}
DVPP_PHASE2(Resize)

static void k_hflip(const mk_job *j, void *const *bufs)
{
    dv_image s, d;
    dv_get(j, IP_SRC, &s);
    dv_get(j, IP_DST, &d);
    const void *sb = bufs[j->ip[IP_SELF]];
    void *ob = bufs[j->ip[IP_OUT]];
    int32_t dt = (int32_t)j->ip[IP_DTYPE];
    if (!sb || !ob) {
        return;
    }
    for (int64_t y = 0; y < d.h; y++) {
        for (int64_t x = 0; x < d.w; x++) {
            for (int64_t c = 0; c < d.c; c++) {
                dv_store(ob, dt, &d, y, x, c, dv_load(sb, dt, &s, y, s.w - 1 - x, c));
            }
        }
    }
}

OPS_EXPORT acldvppStatus acldvppHorizontalFlipGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    dvpp_begin(&p, MK_FN(acldvppHorizontalFlipGetWorkspaceSize), "acldvppHorizontalFlip");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    dv_image s, d;
    if (dvpp_check_init(&p) && need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        dv_image_of(&p, self, "self", DV_U8_F32, &s) && dv_image_of(&p, out, "out", DV_U8_F32, &d) &&
        dv_same_kind(&p, out, self) && dv_check_hw(&p, "out", &d, s.h, s.w, s.c) &&
        make_exec(&p, k_hflip, 0)) {
        mk_job *j = &p.e->job;
        j->ip[IP_SELF] = add_in(&p, self);
        j->ip[IP_OUT] = add_out(&p, out);
        j->ip[IP_DTYPE] = self->v.dtype;
        dv_put(j, IP_SRC, &s);
        dv_put(j, IP_DST, &d);
    }
    return ph1_end(&p, workspaceSize, executor);
}
DVPP_PHASE2(HorizontalFlip)
