/*
 * op_conv.c (libopapi.so): aclnnConvolution, 2-D (NCHW) and 1-D (NCL, computed
 * as 2-D with H = 1), direct and transposed; the kernel cores shared with
 * op_conv_backward.c.
 * Parameter list: ops-nn v8.5.0 conv/convolution_forward/op_host/op_api/
 * aclnn_convolution.h:58-63 (`groups` is int64_t here, a plain int in the
 * backward: aclnn-facts.md B.1.2). Phase-1 rules, aclnn_convolution.cpp:
 *   input, weight, stride, padding, dilation, output null -> 161001 (:1086-1091);
 *     outputPadding only when transposed (:1094-1096), bias is optional;
 *   input, weight, output dtypes f32/f16/bf16 (DtypeChecker :984-1015), bias
 *     likewise when given (:995-999);
 *   input, weight, output all 3-, 4- or 5-D and of one rank (:805-840); the mock
 *     implements conv1d and conv2d and rejects 5-D (conv3d) with 161002;
 *   bias 1-D with weight N elements (:870-879);
 *   stride and dilation have inputDim-2 entries (:885-889), padding inputDim-2
 *     or 2*inputDim-4 for conv1d and conv2d (:891-895); four entries are
 *     [top, bottom, left, right] (PAD_*_INDEX :594-597, ConstructPad
 *     :603-627), conv1d's two entries are summed as left + right (:607-610);
 *   stride and dilation > 0 (:1244-1253, CheckVectorValueGt0 :1439); padding
 *     >= 0 (the mock's rule, as the backward checker's
 *     convolution_backward_checker.cpp:429-433);
 *   groups > 0 (:1261-1265); input C = weight C * groups and weight N a
 *     multiple of groups (channel check :1267-1272);
 *   padded input at least the dilated kernel (CheckPad :1446-1490);
 *   output shape = (N, weight N, (H + pt + pb - dh*(KH-1) - 1)/sh + 1, ...)
 *     (InferShape :643-700, ConvXdChecker :1868-1884).
 * Transposed (aclnn_convolution.cpp): outputPadding required (:1094-1096)
 *   with inputDim-2 entries (:897-900), padding inputDim-2 entries except
 *   for 2-D, which also takes 4 (:891-895); weight N = input C and the
 *   output has weight C * groups channels (CheckChannelAndGroups :1527-1533),
 *   bias 1-D with that many elements (:859-867); 0 <= outputPadding < stride
 *   or dilation (:1534-1549); output spatial size (in-1)·stride - pads +
 *   dilation·(k-1) + outputPadding + 1 (InferShape :676-697).
 * cubeMathType is journaled; the mock always accumulates in double.
 * The kernels are direct loops (one nest, CONV_TAPS, for the forward, the
 * transposed forward and both weight/input gradients) accumulating in
 * double, honouring the strides of every tensor; f16/bf16 are stored with
 * round-to-nearest-even.
 */
#include "op_internal.h"

#include <stdlib.h>

enum { IP_X, IP_W, IP_B, IP_OUT, IP_TRANSPOSED, IP_GEOM = 8 };

void conv_put(mk_job *j, int at, const conv_geom *g)
{
    int64_t v[9] = {g->sh, g->sw, g->pt, g->pb, g->pl, g->pr, g->dh, g->dw, g->groups};
    for (int i = 0; i < 9; i++) {
        j->ip[at + i] = v[i];
    }
}

void conv_get(const mk_job *j, int at, conv_geom *g)
{
    const int64_t *v = &j->ip[at];
    *g = (conv_geom){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
}

bool conv_attrs(ph1 *p, const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                int64_t groups, uint32_t nsp, bool pad2, conv_geom *g)
{
    if (!check_len(p, stride, "stride", nsp, -1) || !check_len(p, dilation, "dilation", nsp, -1) ||
        !check_len(p, padding, "padding", nsp, nsp == 2 ? 4 : pad2 ? 2 : -1)) {
        return false;
    }
    for (uint32_t i = 0; i < nsp; i++) {
        if (stride->v[i] < 1) {
            return invalid(p, "stride[%u] = %lld, expected a value >= 1", i, (long long)stride->v[i]);
        }
        if (dilation->v[i] < 1) {
            return invalid(p, "dilation[%u] = %lld, expected a value >= 1", i, (long long)dilation->v[i]);
        }
    }
    for (uint64_t i = 0; i < padding->n; i++) {
        if (padding->v[i] < 0) {
            return invalid(p, "padding[%llu] = %lld, expected a value >= 0", (unsigned long long)i,
                           (long long)padding->v[i]);
        }
    }
    if (groups < 1) {
        return invalid(p, "expected groups > 0, got %lld", (long long)groups);
    }
    g->groups = groups;
    if (nsp == 1) { /* conv1d as a conv2d with H = 1 */
        g->sh = g->dh = 1;
        g->pt = g->pb = 0;
        g->sw = stride->v[0];
        g->dw = dilation->v[0];
        g->pl = padding->v[0];
        g->pr = padding->n == 2 ? padding->v[1] : padding->v[0];
        return true;
    }
    g->sh = stride->v[0];
    g->sw = stride->v[1];
    g->dh = dilation->v[0];
    g->dw = dilation->v[1];
    if (padding->n == 2) {
        g->pt = g->pb = padding->v[0];
        g->pl = g->pr = padding->v[1];
    } else {
        g->pt = padding->v[0];
        g->pb = padding->v[1];
        g->pl = padding->v[2];
        g->pr = padding->v[3];
    }
    return true;
}

bool conv_shapes(ph1 *p, const aclTensor *x, const aclTensor *weight, const conv_geom *g, bool transposed,
                 const aclIntArray *outpad, int64_t *out)
{
    if (!check_ndim(p, x, "input", 3, 4) || !check_ndim(p, weight, "weight", x->v.ndim, x->v.ndim)) {
        return false;
    }
    mk_view xv = as_nc1l(&x->v), wv = as_nc1l(&weight->v);
    const int64_t *d = xv.dims, *w = wv.dims;
    if (w[0] % g->groups) {
        return invalid(p, "weight N (%lld) is not a multiple of groups (%lld)", (long long)w[0], (long long)g->groups);
    }
    int64_t o4[4];
    o4[0] = d[0];
    if (!transposed) {
        if (d[1] != w[1] * g->groups) {
            return invalid(p, "input has %lld channels, expected weight C (%lld) * groups (%lld)", (long long)d[1],
                           (long long)w[1], (long long)g->groups);
        }
        int64_t eh = d[2] + g->pt + g->pb - g->dh * (w[2] - 1) - 1;
        int64_t ew = d[3] + g->pl + g->pr - g->dw * (w[3] - 1) - 1;
        if (eh < 0 || ew < 0) {
            return invalid(p, "the padded input (%lld x %lld) is smaller than the dilated kernel (%lld x %lld)",
                           (long long)(d[2] + g->pt + g->pb), (long long)(d[3] + g->pl + g->pr),
                           (long long)(g->dh * (w[2] - 1) + 1), (long long)(g->dw * (w[3] - 1) + 1));
        }
        o4[1] = w[0];
        o4[2] = eh / g->sh + 1;
        o4[3] = ew / g->sw + 1;
    } else {
        if (d[1] != w[0]) {
            return invalid(p, "expected weight N (%lld) equal to the input's %lld channels in transpose mode",
                           (long long)w[0], (long long)d[1]);
        }
        uint32_t nsp = x->v.ndim - 2;
        int64_t oph = nsp == 2 ? outpad->v[0] : 0, opw = outpad->v[nsp - 1];
        o4[1] = w[1] * g->groups;
        o4[2] = (d[2] - 1) * g->sh - g->pt - g->pb + g->dh * (w[2] - 1) + oph + 1;
        o4[3] = (d[3] - 1) * g->sw - g->pl - g->pr + g->dw * (w[3] - 1) + opw + 1;
        if (o4[2] <= 0 || o4[3] <= 0) {
            return invalid(p, "the transposed convolution's output would be %lld x %lld", (long long)o4[2],
                           (long long)o4[3]);
        }
    }
    out[0] = o4[0];
    out[1] = o4[1];
    if (x->v.ndim == 3) {
        out[2] = o4[3];
    } else {
        out[2] = o4[2];
        out[3] = o4[3];
    }
    return true;
}

/* One loop nest for the three cores, on dense row-major arrays: every
 * (n, o, oh, ow) of the conv output (flat index si), every in-bounds tap
 * (c, kh, kw) of the conv input. */
#define CONV_TAPS(bd, sd, wd, BODY)                                                                                 \
    do {                                                                                                            \
        int64_t Og_ = (sd)[1] / g->groups;                                                                          \
        for (int64_t n = 0; n < (sd)[0]; n++) {                                                                     \
            for (int64_t oc = 0; oc < (sd)[1]; oc++) {                                                              \
                int64_t c0 = (oc / Og_) * (wd)[1];                                                                  \
                for (int64_t oh = 0; oh < (sd)[2]; oh++) {                                                          \
                    for (int64_t ow = 0; ow < (sd)[3]; ow++) {                                                      \
                        int64_t si = ((n * (sd)[1] + oc) * (sd)[2] + oh) * (sd)[3] + ow;                            \
                        (void)si;                                                                                   \
                        for (int64_t c = 0; c < (wd)[1]; c++) {                                                     \
                            for (int64_t kh = 0; kh < (wd)[2]; kh++) {                                              \
                                int64_t ih = oh * g->sh - g->pt + kh * g->dh;                                       \
                                if (ih < 0 || ih >= (bd)[2]) {                                                      \
                                    continue;                                                                       \
                                }                                                                                   \
                                for (int64_t kw = 0; kw < (wd)[3]; kw++) {                                          \
                                    int64_t iw = ow * g->sw - g->pl + kw * g->dw;                                   \
                                    if (iw < 0 || iw >= (bd)[3]) {                                                  \
                                        continue;                                                                   \
                                    }                                                                               \
                                    BODY;                                                                           \
                                }                                                                                   \
                            }                                                                                       \
                        }                                                                                           \
                    }                                                                                               \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
    } while (0)

void conv_gather(const double *b, const int64_t *bd, const double *w, const int64_t *wd, const conv_geom *g,
                 const int64_t *sd, double *s)
{
    CONV_TAPS(bd, sd, wd,
              s[si] += b[((n * bd[1] + c0 + c) * bd[2] + ih) * bd[3] + iw] *
                       w[((oc * wd[1] + c) * wd[2] + kh) * wd[3] + kw]);
}

void conv_scatter(const double *s, const int64_t *sd, const double *w, const int64_t *wd, const conv_geom *g,
                  const int64_t *bd, double *b)
{
    CONV_TAPS(bd, sd, wd,
              b[((n * bd[1] + c0 + c) * bd[2] + ih) * bd[3] + iw] +=
              s[si] * w[((oc * wd[1] + c) * wd[2] + kh) * wd[3] + kw]);
}

void conv_wgrad(const double *b, const int64_t *bd, const double *s, const int64_t *sd, const conv_geom *g,
                const int64_t *wd, double *dw)
{
    CONV_TAPS(bd, sd, wd,
              dw[((oc * wd[1] + c) * wd[2] + kh) * wd[3] + kw] +=
              b[((n * bd[1] + c0 + c) * bd[2] + ih) * bd[3] + iw] * s[si]);
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
    const int64_t *d = v->dims;
    for (int64_t n = 0; n < d[0]; n++) {
        for (int64_t c = 0; c < d[1]; c++) {
            double add = biasb ? mk_ldd(biasb, bias->dtype, c * bias->strides[0]) : 0.0;
            for (int64_t h = 0; h < d[2]; h++) {
                for (int64_t w = 0; w < d[3]; w++) {
                    mk_std(vb, v->dtype, off4(v, n, c, h, w), a[((n * d[1] + c) * d[2] + h) * d[3] + w] + add);
                }
            }
        }
    }
}

static void k_conv(const mk_job *j, void *const *bufs)
{
    mk_view x = as_nc1l(&j->slot[j->ip[IP_X]]), w = as_nc1l(&j->slot[j->ip[IP_W]]);
    mk_view o = as_nc1l(&j->slot[j->ip[IP_OUT]]);
    const mk_view *b = j->ip[IP_B] >= 0 ? &j->slot[j->ip[IP_B]] : NULL;
    conv_geom g;
    conv_get(j, IP_GEOM, &g);
    void *ob = bufs[j->ip[IP_OUT]];
    bool oom = false;
    double *xd = conv_dense(&x, bufs[j->ip[IP_X]], &oom), *wd = conv_dense(&w, bufs[j->ip[IP_W]], &oom);
    double *acc = dzeros(numel(&o));
    if (ob && acc && !oom) { /* else nothing to write (or host OOM: nothing written) */
        if (j->ip[IP_TRANSPOSED]) {
            conv_scatter(xd, x.dims, wd, w.dims, &g, o.dims, acc);
        } else {
            conv_gather(xd, x.dims, wd, w.dims, &g, o.dims, acc);
        }
        conv_store(&o, ob, acc, b, b ? bufs[j->ip[IP_B]] : NULL);
    }
    free(xd);
    free(wd);
    free(acc);
}

/* Transposed: outputPadding has nsp entries, each >= 0 and below the
 * stride or the dilation. */
static bool check_outpad(ph1 *p, const aclIntArray *op, const conv_geom *g, uint32_t nsp)
{
    if (!check_len(p, op, "outputPadding", nsp, -1)) {
        return false;
    }
    for (uint32_t i = 0; i < nsp; i++) {
        int64_t s = nsp == 2 && i == 0 ? g->sh : g->sw, d = nsp == 2 && i == 0 ? g->dh : g->dw;
        if (op->v[i] < 0 || (op->v[i] >= s && op->v[i] >= d)) {
            return invalid(p, "outputPadding[%u] = %lld, expected >= 0 and < stride (%lld) or dilation (%lld)", i,
                           (long long)op->v[i], (long long)s, (long long)d);
        }
    }
    return true;
}

OPS_EXPORT aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                        const aclTensor *bias, const aclIntArray *stride,
                                                        const aclIntArray *padding, const aclIntArray *dilation,
                                                        bool transposed, const aclIntArray *outputPadding,
                                                        const int64_t groups, aclTensor *output, int8_t cubeMathType,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnConvolutionGetWorkspaceSize), "aclnnConvolution");
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_tensor(&p, "bias", bias);
    ph1_arg_ints(&p, "stride", stride);
    ph1_arg_ints(&p, "padding", padding);
    ph1_arg_ints(&p, "dilation", dilation);
    ph1_arg_i64(&p, "transposed", transposed);
    ph1_arg_ints(&p, "outputPadding", outputPadding);
    ph1_arg_i64(&p, "groups", groups);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    conv_geom g;
    int64_t od[4];
    uint32_t nd = input && aclmocknn_is_live(input, MK_TENSOR) ? input->v.ndim : 4;
    if (need_tensor(&p, input, "input") && need_tensor(&p, weight, "weight") && need_ints(&p, stride, "stride") &&
        need_ints(&p, padding, "padding") && need_ints(&p, dilation, "dilation") &&
        need_tensor(&p, output, "output") && (!transposed || need_ints(&p, outputPadding, "outputPadding")) &&
        opt_tensor(&p, bias, "bias") && (!outputPadding || need_ints(&p, outputPadding, "outputPadding")) &&
        check_dtype(&p, input, "input", DT_FLOATS) && check_dtype(&p, weight, "weight", DT_FLOATS) &&
        check_dtype(&p, output, "output", DT_FLOATS) && (!bias || check_dtype(&p, bias, "bias", DT_FLOATS)) &&
        check_ndim(&p, input, "input", 3, 4) && check_ndim(&p, weight, "weight", nd, nd) &&
        check_ndim(&p, output, "output", nd, nd) &&
        conv_attrs(&p, stride, padding, dilation, groups, nd - 2, !transposed || nd == 4, &g) &&
        (!transposed || check_outpad(&p, outputPadding, &g, nd - 2))) {
        /* bias: weight N elements, or weight C * groups when transposed */
        int64_t nb = transposed ? weight->v.dims[1] * groups : weight->v.dims[0];
        if ((!bias || check_shape(&p, bias, "bias", &nb, 1)) &&
            conv_shapes(&p, input, weight, &g, transposed, outputPadding, od) &&
            check_shape(&p, output, "output", od, nd) && make_exec(&p, k_conv, 0)) {
            p.e->job.ip[IP_X] = add_in(&p, input);
            p.e->job.ip[IP_W] = add_in(&p, weight);
            p.e->job.ip[IP_B] = bias ? add_in(&p, bias) : (int64_t)-1;
            p.e->job.ip[IP_OUT] = add_out(&p, output);
            p.e->job.ip[IP_TRANSPOSED] = transposed;
            conv_put(&p.e->job, IP_GEOM, &g);
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Convolution)
