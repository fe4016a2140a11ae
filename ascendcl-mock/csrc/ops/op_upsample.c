/*
 * op_upsample.c (libopapi.so): aclnnUpsampleBicubic2d, its backward and
 * aclnnUpsampleBilinear2d, NCHW. Parameter lists (ops-cv v8.5.0, image/):
 * upsample_bicubic2d/op_host/op_api/aclnn_upsample_bicubic_2d.h:25-27,
 * upsample_bicubic2d_grad/op_host/op_api/aclnn_upsample_bicubic_2d_backward.h:31-33,
 * upsample_bilinear2d/op_host/op_api/aclnn_upsample_bilinear_2d.h:31-33.
 *
 * Bicubic phase-1 rules (aclnn_upsample_bicubic_2d.cpp):
 *   self, outputSize, out null -> 161001 (:72-77, applied :166);
 *   self f16/f32/bf16 on A2/A3 (:46-47, :85), out of self's dtype (:91);
 *   self and out 4-D, outputSize 2 entries (:111-116); C > 0, input and
 *   output H, W > 0 (:130-139); out = (N, C, outputSize) (:140-147);
 *   a scale > 0 must agree with outputSize: out == (int)(in·scale) or within
 *   in·(scale ± 1e-5) (CheckDstSize :180-191, CheckScales :193-219, :336).
 * Bicubic backward rules (aclnn_upsample_bicubic_2d_backward.cpp):
 *   gradOut, outputSize, inputSize, gradInput null -> 161001 (:61-68, :208);
 *   gradOut and gradInput 4-D, outputSize 2 and inputSize 4 entries
 *   (:137-147); H, W > 0 (:172-176); gradOut = (N, C, outputSize) and
 *   gradInput = inputSize (:178-198); gradOut f16/f32/bf16 and gradInput of
 *   its dtype (:71-88, :217).
 * Bilinear phase-1 rules (aclnn_upsample_bilinear_2d.cpp):
 *   self or out null -> 561103, ACLNN_ERR_INNER_NULLPTR, not 161001
 *   (CheckNotNull :65-70 is applied with that code, :175); outputSize is not
 *   checked for null there (the mock reports 161001 instead of reading it);
 *   self f16/f32/bf16 (the list's double needs NHWC, :57-58, :107-111; the
 *   mock has no NHWC) and out of self's dtype (:78-81); self and out 4-D
 *   (:103-104); out's N, C are self's (:187); scales >= 0 (:129-139);
 *   outputSize equals out's H, W (:141-165).
 * Numerics, PyTorch's (aclnn-facts.md A.2.5): scale = (in-1)/(out-1) with
 * alignCorners (0 when out is 1), else 1/scales when scales > 0, else
 * in/out; source = scale·dst with alignCorners, else scale·(dst+0.5)-0.5
 * (bilinear clamps a negative source to 0). Bicubic: A = -0.75, taps at
 * floor(src)-1 .. floor(src)+2 clamped to [0, in-1]; the backward adds each
 * gradOut element times the same weights to the clamped taps. Bilinear: taps
 * floor(src) and the next one unless at the last row/column. Sums in double.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

enum { IP_X, IP_OUT, IP_ALIGN };
enum { P_SH, P_SW };

#define CUBIC_A (-0.75)

static double up_scale(int64_t in, int64_t out, bool align, double scale)
{
    if (align) {
        return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
    }
    return scale > 0 ? 1.0 / scale : (double)in / (double)out;
}

static double up_src(double scale, int64_t dst, bool align, bool cubic)
{
    if (align) {
        return scale * (double)dst;
    }
    double s = scale * ((double)dst + 0.5) - 0.5;
    return !cubic && s < 0 ? 0.0 : s;
}

/* weights and clamped indices of the 4 bicubic taps for output position dst */
static void cubic_taps(int64_t in, double scale, int64_t dst, bool align, int64_t *idx, double *wt)
{
    double src = up_src(scale, dst, align, true);
    double f = floor(src), t = src - f;
    const double A = CUBIC_A;
    double x1 = t + 1.0, x2 = 1.0 - t, x3 = 2.0 - t;
    wt[0] = ((A * x1 - 5.0 * A) * x1 + 8.0 * A) * x1 - 4.0 * A;
    wt[1] = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
    wt[2] = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0;
    wt[3] = ((A * x3 - 5.0 * A) * x3 + 8.0 * A) * x3 - 4.0 * A;
    for (int k = 0; k < 4; k++) {
        int64_t i = (int64_t)f - 1 + k;
        idx[k] = i < 0 ? 0 : i >= in ? in - 1 : i;
    }
}

static void k_bicubic(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    bool align = j->ip[IP_ALIGN];
    int64_t H = x->dims[2], W = x->dims[3], OH = o->dims[2], OW = o->dims[3];
    double sh = up_scale(H, OH, align, j->p[P_SH]), sw = up_scale(W, OW, align, j->p[P_SW]);
    if (!ob) {
        return;
    }
    for (int64_t n = 0; n < o->dims[0]; n++) {
        for (int64_t c = 0; c < o->dims[1]; c++) {
            for (int64_t oh = 0; oh < OH; oh++) {
                int64_t hi[4];
                double hw[4];
                cubic_taps(H, sh, oh, align, hi, hw);
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t wi[4];
                    double ww[4];
                    cubic_taps(W, sw, ow, align, wi, ww);
                    double acc = 0.0;
                    for (int a = 0; a < 4; a++) {
                        double row = 0.0;
                        for (int b = 0; b < 4; b++) {
                            row += ww[b] * mk_ldd(xb, x->dtype, off4(x, n, c, hi[a], wi[b]));
                        }
                        acc += hw[a] * row;
                    }
                    mk_std(ob, o->dtype, off4(o, n, c, oh, ow), acc);
                }
            }
        }
    }
}

static void k_bicubic_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *go = &j->slot[j->ip[IP_X]], *gi = &j->slot[j->ip[IP_OUT]];
    const void *gob = bufs[j->ip[IP_X]];
    void *gib = bufs[j->ip[IP_OUT]];
    bool align = j->ip[IP_ALIGN];
    int64_t H = gi->dims[2], W = gi->dims[3], OH = go->dims[2], OW = go->dims[3];
    double sh = up_scale(H, OH, align, j->p[P_SH]), sw = up_scale(W, OW, align, j->p[P_SW]);
    double *acc = dzeros(H * W);
    if (!gib || (!acc && H * W > 0)) {
        free(acc);
        return;
    }
    for (int64_t n = 0; n < gi->dims[0]; n++) {
        for (int64_t c = 0; c < gi->dims[1]; c++) {
            for (int64_t k = 0; k < H * W; k++) {
                acc[k] = 0.0;
            }
            for (int64_t oh = 0; oh < OH; oh++) {
                int64_t hi[4];
                double hw[4];
                cubic_taps(H, sh, oh, align, hi, hw);
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t wi[4];
                    double ww[4];
                    cubic_taps(W, sw, ow, align, wi, ww);
                    double g = mk_ldd(gob, go->dtype, off4(go, n, c, oh, ow));
                    for (int a = 0; a < 4; a++) {
                        for (int b = 0; b < 4; b++) {
                            acc[hi[a] * W + wi[b]] += g * hw[a] * ww[b];
                        }
                    }
                }
            }
            for (int64_t h = 0; h < H; h++) {
                for (int64_t w = 0; w < W; w++) {
                    mk_std(gib, gi->dtype, off4(gi, n, c, h, w), acc[h * W + w]);
                }
            }
        }
    }
    free(acc);
}

static void k_bilinear(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    bool align = j->ip[IP_ALIGN];
    int64_t H = x->dims[2], W = x->dims[3], OH = o->dims[2], OW = o->dims[3];
    double sh = up_scale(H, OH, align, j->p[P_SH]), sw = up_scale(W, OW, align, j->p[P_SW]);
    if (!ob) {
        return;
    }
    for (int64_t n = 0; n < o->dims[0]; n++) {
        for (int64_t c = 0; c < o->dims[1]; c++) {
            for (int64_t oh = 0; oh < OH; oh++) {
                double sy = up_src(sh, oh, align, false);
                int64_t y0 = (int64_t)sy, y1 = y0 < H - 1 ? y0 + 1 : y0;
                double ly = sy - (double)y0;
                for (int64_t ow = 0; ow < OW; ow++) {
                    double sx = up_src(sw, ow, align, false);
                    int64_t x0 = (int64_t)sx, x1 = x0 < W - 1 ? x0 + 1 : x0;
                    double lx = sx - (double)x0;
                    double v = (1.0 - ly) * ((1.0 - lx) * mk_ldd(xb, x->dtype, off4(x, n, c, y0, x0)) +
                                             lx * mk_ldd(xb, x->dtype, off4(x, n, c, y0, x1))) +
                               ly * ((1.0 - lx) * mk_ldd(xb, x->dtype, off4(x, n, c, y1, x0)) +
                                     lx * mk_ldd(xb, x->dtype, off4(x, n, c, y1, x1)));
                    mk_std(ob, o->dtype, off4(o, n, c, oh, ow), v);
                }
            }
        }
    }
}

/* out == (int)(in·scale), or within in·(scale ± 1e-5), when scale > 0 */
static bool dst_size_ok(int64_t in, int64_t out, double scale)
{
    if (scale <= 0) {
        return true;
    }
    const double eps = 1e-5;
    int64_t dst = (int64_t)((double)in * scale), hi = (int64_t)((double)in * (scale + eps));
    int64_t lo = (int64_t)((double)in * (scale - eps));
    return out == dst || (out >= lo && out <= hi);
}

static void up_journal(ph1 *p, const aclIntArray *outputSize, bool alignCorners, double scalesH, double scalesW)
{
    ph1_arg_ints(p, "outputSize", outputSize);
    ph1_arg_i64(p, "alignCorners", alignCorners);
    ph1_arg_f64(p, "scalesH", scalesH);
    ph1_arg_f64(p, "scalesW", scalesW);
}

static void up_exec(ph1 *p, mk_kernel k, const aclTensor *in, aclTensor *out, bool align, double sh, double sw)
{
    if (make_exec(p, k, 0)) {
        p->e->job.ip[IP_X] = add_in(p, in);
        p->e->job.ip[IP_OUT] = add_out(p, out);
        p->e->job.ip[IP_ALIGN] = align;
        p->e->job.p[P_SH] = sh;
        p->e->job.p[P_SW] = sw;
    }
}

OPS_EXPORT aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                              const bool alignCorners, const double scalesH,
                                                              const double scalesW, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnUpsampleBicubic2dGetWorkspaceSize), "aclnnUpsampleBicubic2d");
    ph1_arg_tensor(&p, "self", self);
    up_journal(&p, outputSize, alignCorners, scalesH, scalesW);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_ints(&p, outputSize, "outputSize") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_FLOATS) && check_same_dtype(&p, self, "self", out, "out") &&
        check_ndim(&p, self, "self", 4, 4) && check_ndim(&p, out, "out", 4, 4) &&
        check_len(&p, outputSize, "outputSize", 2, -1)) {
        const int64_t *d = self->v.dims, *os = outputSize->v;
        if (d[1] <= 0 || d[2] <= 0 || d[3] <= 0 || os[0] <= 0 || os[1] <= 0) {
            invalid(&p, "C, H and W must be > 0, got self %lldx%lldx%lld and outputSize %lldx%lld", (long long)d[1],
                    (long long)d[2], (long long)d[3], (long long)os[0], (long long)os[1]);
        } else if (check_shape(&p, out, "out", (int64_t[]){d[0], d[1], os[0], os[1]}, 4)) {
            if (!dst_size_ok(d[2], os[0], scalesH)) {
                invalid(&p, "scalesH %g conflicts with outputSize: %lld * scale is not %lld", scalesH,
                        (long long)d[2], (long long)os[0]);
            } else if (!dst_size_ok(d[3], os[1], scalesW)) {
                invalid(&p, "scalesW %g conflicts with outputSize: %lld * scale is not %lld", scalesW,
                        (long long)d[3], (long long)os[1]);
            }
            up_exec(&p, k_bicubic, self, out, alignCorners, scalesH, scalesW);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(UpsampleBicubic2d)

OPS_EXPORT aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                      const aclIntArray *outputSize,
                                                                      const aclIntArray *inputSize,
                                                                      const bool alignCorners, double scalesH,
                                                                      double scalesW, aclTensor *gradInput,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnUpsampleBicubic2dBackwardGetWorkspaceSize), "aclnnUpsampleBicubic2dBackward");
    ph1_arg_tensor(&p, "gradOut", gradOut);
    ph1_arg_ints(&p, "inputSize", inputSize);
    up_journal(&p, outputSize, alignCorners, scalesH, scalesW);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    if (need_tensor(&p, gradOut, "gradOut") && need_ints(&p, outputSize, "outputSize") &&
        need_ints(&p, inputSize, "inputSize") && need_tensor(&p, gradInput, "gradInput") &&
        check_ndim(&p, gradOut, "gradOut", 4, 4) && check_ndim(&p, gradInput, "gradInput", 4, 4) &&
        check_len(&p, outputSize, "outputSize", 2, -1) && check_len(&p, inputSize, "inputSize", 4, -1)) {
        const int64_t *is = inputSize->v, *os = outputSize->v;
        if (is[2] <= 0 || is[3] <= 0 || os[0] <= 0 || os[1] <= 0) {
            invalid(&p, "H and W must be > 0, got input %lldx%lld and output %lldx%lld", (long long)is[2],
                    (long long)is[3], (long long)os[0], (long long)os[1]);
        } else if (check_shape(&p, gradOut, "gradOut", (int64_t[]){is[0], is[1], os[0], os[1]}, 4) &&
                   check_shape(&p, gradInput, "gradInput", is, 4) &&
                   check_dtype(&p, gradOut, "gradOut", DT_FLOATS) &&
                   check_same_dtype(&p, gradOut, "gradOut", gradInput, "gradInput")) {
            up_exec(&p, k_bicubic_backward, gradOut, gradInput, alignCorners, scalesH, scalesW);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(UpsampleBicubic2dBackward)

OPS_EXPORT aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
                                                               const bool alignCorners, const double scalesH,
                                                               const double scalesW, aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnUpsampleBilinear2dGetWorkspaceSize), "aclnnUpsampleBilinear2d");
    ph1_arg_tensor(&p, "self", self);
    up_journal(&p, outputSize, alignCorners, scalesH, scalesW);
    ph1_arg_tensor(&p, "out", out);
    if (!p.rc && (!self || !out)) {
        /* aclnn_upsample_bilinear_2d.cpp:175 reports these as an inner null pointer */
        p.rc = aclmock_fail(ACLNN_ERR_INNER_NULLPTR, "%s: %s is null", p.op, !self ? "self" : "out");
    }
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && need_ints(&p, outputSize, "outputSize") &&
        check_dtype(&p, self, "self", DT_FLOATS) && check_same_dtype(&p, self, "self", out, "out") &&
        check_ndim(&p, self, "self", 4, 4) && check_ndim(&p, out, "out", 4, 4) &&
        check_len(&p, outputSize, "outputSize", 2, -1)) {
        const int64_t *d = self->v.dims, *od = out->v.dims;
        if (od[0] != d[0] || od[1] != d[1]) {
            invalid(&p, "out's N, C (%lld, %lld) must be self's (%lld, %lld)", (long long)od[0], (long long)od[1],
                    (long long)d[0], (long long)d[1]);
        } else if (scalesH < 0 || scalesW < 0) {
            invalid(&p, "scales cannot be negative, got scalesH %g, scalesW %g", scalesH, scalesW);
        } else if (outputSize->v[0] != od[2] || outputSize->v[1] != od[3]) {
            invalid(&p, "outputSize (%lld, %lld) does not match out's H, W (%lld, %lld)",
                    (long long)outputSize->v[0], (long long)outputSize->v[1], (long long)od[2], (long long)od[3]);
        } else if (d[2] <= 0 || d[3] <= 0 || od[2] <= 0 || od[3] <= 0) {
            invalid(&p, "H and W must be > 0");
        }
        up_exec(&p, k_bilinear, self, out, alignCorners, scalesH, scalesW);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(UpsampleBilinear2d)
