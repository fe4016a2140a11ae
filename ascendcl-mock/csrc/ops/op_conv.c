/*
 * op_conv.c (libopapi.so): aclnnConvolution, 3-D (NCDHW), 2-D (NCHW) and 1-D
 * (NCL), direct and transposed, all computed as 3-D with the missing leading
 * spatial dims of size 1; the geometry and shape rules shared with
 * op_conv_backward.c (kernels: op_conv_kernels.c).
 * Parameter list: ops-nn v8.5.0 conv/convolution_forward/op_host/op_api/
 * aclnn_convolution.h:58-63 (`groups` is int64_t here, a plain int in the
 * backward: aclnn-facts.md B.1.2). Phase-1 rules, aclnn_convolution.cpp
 * (checker list CheckConvParams :2025-2049):
 *   input, weight, stride, padding, dilation, output null -> 161001 (:1086-1091);
 *     outputPadding only when transposed (:1094-1096), bias is optional;
 *   input, weight, output dtypes f32/f16/bf16 (DtypeChecker :984-1015), bias
 *     likewise when given (:995-999), for every rank;
 *   input, weight, output all 3-, 4- or 5-D and of one rank (:805-840); 5-D
 *     (conv3d) is accepted on Ascend 910B, the SoC the mock emulates
 *     (TemporarySoftwareLimitChecker :1936), with any groups;
 *   bias 1-D with weight N elements (:870-879);
 *   stride and dilation have inputDim-2 entries (:885-889), padding inputDim-2
 *     or 2*inputDim-4 for conv1d and conv2d, exactly inputDim-2 for conv3d
 *     (:891-895); four entries are [top, bottom, left, right] (PAD_*_INDEX
 *     :594-597, ConstructPad :603-627), conv1d's two entries are summed as
 *     left + right (:607-610); conv3d's three entries [D, H, W] pad both
 *     sides of their dim (CheckPad :1474-1476, InferShape :669-673, transposed
 *     :688-692);
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
 *   dilation·(k-1) + outputPadding + 1 (InferShape :676-697). The
 *   backprop padding (K-1)·dilation - padding must be at most 255 (conv1d,
 *   conv2d, with the source's indexing) or in 0..255 (conv3d) unless a
 *   tensor is empty (padBinaryValid :1365-1432; check_backprop_pad).
 * cubeMathType is journaled; the mock always accumulates in double.
 * The kernels accumulate in double, honouring the strides of every tensor;
 * f16/bf16 are stored with round-to-nearest-even.
 */
#include "op_internal.h"

#include <stdio.h>
#include <stdlib.h>

enum { IP_X, IP_W, IP_B, IP_OUT, IP_TRANSPOSED, IP_GEOM = 8 };

void conv_put(mk_job *j, int at, const conv_geom *g)
{
    for (int i = 0; i < 3; i++) {
        j->ip[at + i] = g->s[i];
        j->ip[at + 3 + i] = g->pb[i];
        j->ip[at + 6 + i] = g->pa[i];
        j->ip[at + 9 + i] = g->d[i];
    }
    j->ip[at + 12] = g->groups;
}

void conv_get(const mk_job *j, int at, conv_geom *g)
{
    for (int i = 0; i < 3; i++) {
        g->s[i] = j->ip[at + i];
        g->pb[i] = j->ip[at + 3 + i];
        g->pa[i] = j->ip[at + 6 + i];
        g->d[i] = j->ip[at + 9 + i];
    }
    g->groups = j->ip[at + 12];
}

bool conv_attrs(ph1 *p, const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                int64_t groups, uint32_t nsp, bool pad2, conv_geom *g)
{
    /* padding: 4 entries for conv2d, 2 for conv1d where allowed, else nsp */
    int64_t alt = nsp == 2 ? 4 : nsp == 1 && pad2 ? 2 : -1;
    if (!check_len(p, stride, "stride", nsp, -1) || !check_len(p, dilation, "dilation", nsp, -1) ||
        !check_len(p, padding, "padding", nsp, alt)) {
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
    uint32_t o = 3 - nsp; /* the first of the dims the attributes fill */
    for (uint32_t k = 0; k < 3; k++) {
        g->s[k] = g->d[k] = 1;
        g->pb[k] = g->pa[k] = 0;
    }
    for (uint32_t i = 0; i < nsp; i++) {
        g->s[o + i] = stride->v[i];
        g->d[o + i] = dilation->v[i];
        if (padding->n == nsp) {
            g->pb[o + i] = g->pa[o + i] = padding->v[i];
        } else { /* conv1d [left, right]; conv2d [top, bottom, left, right] */
            g->pb[o + i] = padding->v[2 * i];
            g->pa[o + i] = padding->v[2 * i + 1];
        }
    }
    return true;
}

/* "a x b x c" of n values. */
static const char *dims_text(char *buf, size_t cap, const int64_t *v, uint32_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && at < cap; i++) {
        int k = snprintf(buf + at, cap - at, i ? " x %lld" : "%lld", (long long)v[i]);
        at += k > 0 ? (size_t)k : 0;
    }
    return buf;
}

bool conv_shapes(ph1 *p, const aclTensor *x, const aclTensor *weight, const conv_geom *g, bool transposed,
                 const aclIntArray *outpad, int64_t *out)
{
    if (!check_ndim(p, x, "input", 3, 5) || !check_ndim(p, weight, "weight", x->v.ndim, x->v.ndim)) {
        return false;
    }
    const int64_t *d = x->v.dims, *w = weight->v.dims;
    uint32_t nsp = x->v.ndim - 2, o = 3 - nsp;
    if (w[0] % g->groups) {
        return invalid(p, "weight N (%lld) is not a multiple of groups (%lld)", (long long)w[0], (long long)g->groups);
    }
    out[0] = d[0];
    if (!transposed) {
        if (d[1] != w[1] * g->groups) {
            return invalid(p, "input has %lld channels, expected weight C (%lld) * groups (%lld)", (long long)d[1],
                           (long long)w[1], (long long)g->groups);
        }
        int64_t padded[3], kernel[3];
        bool small = false;
        for (uint32_t i = 0; i < nsp; i++) {
            padded[i] = d[2 + i] + g->pb[o + i] + g->pa[o + i];
            kernel[i] = g->d[o + i] * (w[2 + i] - 1) + 1;
            small |= padded[i] < kernel[i];
            out[2 + i] = (padded[i] - kernel[i]) / g->s[o + i] + 1;
        }
        if (small) {
            char a[96], b[96];
            return invalid(p, "the padded input (%s) is smaller than the dilated kernel (%s)",
                           dims_text(a, sizeof a, padded, nsp), dims_text(b, sizeof b, kernel, nsp));
        }
        out[1] = w[0];
    } else {
        if (d[1] != w[0]) {
            return invalid(p, "expected weight N (%lld) equal to the input's %lld channels in transpose mode",
                           (long long)w[0], (long long)d[1]);
        }
        out[1] = w[1] * g->groups;
        bool empty = false;
        for (uint32_t i = 0; i < nsp; i++) {
            uint32_t k = o + i;
            out[2 + i] = (d[2 + i] - 1) * g->s[k] - g->pb[k] - g->pa[k] + g->d[k] * (w[2 + i] - 1) + outpad->v[i] + 1;
            empty |= out[2 + i] <= 0;
        }
        if (empty) {
            char a[96];
            return invalid(p, "the transposed convolution's output would be %s", dims_text(a, sizeof a, out + 2, nsp));
        }
    }
    return true;
}

static void k_conv(const mk_job *j, void *const *bufs)
{
    mk_view x = as_ncdhw(&j->slot[j->ip[IP_X]]), w = as_ncdhw(&j->slot[j->ip[IP_W]]);
    mk_view o = as_ncdhw(&j->slot[j->ip[IP_OUT]]);
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
        int64_t s = g->s[3 - nsp + i], d = g->d[3 - nsp + i];
        if (op->v[i] < 0 || (op->v[i] >= s && op->v[i] >= d)) {
            return invalid(p, "outputPadding[%u] = %lld, expected >= 0 and < stride (%lld) or dilation (%lld)", i,
                           (long long)op->v[i], (long long)s, (long long)d);
        }
    }
    return true;
}

/* Transposed (padBinaryValid, aclnn_convolution.cpp:1365-1432, the last check
 * of ValueChecker, :1291-1293): the backprop padding (K-1)·dilation - padding
 * of the kernel must fit the binary's 255, unless input, weight or output is
 * empty (:1371-1375). The padding read is the caller's array as given
 * (meta.padding = ToVector(params.padding), :571), indexed as the source does:
 *  - conv1d (:1389-1397): (L-1)·dilation[0] - pad <= 255, pad = padding[0]
 *    or, with two entries, padding[1];
 *  - conv2d (:1398-1411): (W-1)·dW - padLeft <= 255 and (H-1)·dilation[0] -
 *    padding[0] <= 255, dW = dilation[1] (or [0] for one entry) and padLeft
 *    = padding[1] (or [0]): with four entries [top, bottom, left, right]
 *    that is the bottom padding, as in the source;
 *  - conv3d (:1412-1428): for W and H, 0 <= (K-1)·dilation - padding <= 255
 *    (three symmetric entries). */
static bool check_backprop_pad(ph1 *p, const aclTensor *x, const aclTensor *w, const aclTensor *out,
                               const aclIntArray *padding, const aclIntArray *dilation, const conv_geom *g)
{
    if (numel(&x->v) == 0 || numel(&w->v) == 0 || numel(&out->v) == 0) {
        return true;
    }
    const int64_t *wd = w->v.dims, *pv = padding->v, *dv = dilation->v;
    if (w->v.ndim == 5) {
        for (uint32_t k = 2; k >= 1; k--) { /* W, then H, as the real check reads them */
            int64_t bp = (wd[2 + k] - 1) * g->d[k] - g->pb[k];
            if (bp < 0 || bp > 255) {
                return invalid(p, "transposed conv3d: (kernel - 1) * dilation - padding = %lld in spatial dim %u, "
                                  "expected 0..255", (long long)bp, k);
            }
        }
        return true;
    }
    int64_t dil_w = dilation->n == 1 ? dv[0] : dv[1];
    int64_t pad_left = padding->n == 1 ? pv[0] : pv[1];
    if (w->v.ndim == 3) {
        int64_t bp = (wd[2] - 1) * dil_w - pad_left;
        if (bp > 255) {
            return invalid(p, "transposed conv1d: (weight L - 1) * dilation - padding = %lld, expected at most 255",
                           (long long)bp);
        }
        return true;
    }
    int64_t bp_w = (wd[3] - 1) * dil_w - pad_left, bp_h = (wd[2] - 1) * dv[0] - pv[0];
    if (bp_w > 255 || bp_h > 255) {
        return invalid(p, "transposed conv2d: (weight W - 1) * dilation W - padding[%d] = %lld or (weight H - 1) * "
                          "dilation H - padding[0] = %lld is larger than 255",
                       padding->n == 1 ? 0 : 1, (long long)bp_w, (long long)bp_h);
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
    int64_t od[5];
    uint32_t nd = input && aclmocknn_is_live(input, MK_TENSOR) ? input->v.ndim : 4;
    if (need_tensor(&p, input, "input") && need_tensor(&p, weight, "weight") && need_ints(&p, stride, "stride") &&
        need_ints(&p, padding, "padding") && need_ints(&p, dilation, "dilation") &&
        need_tensor(&p, output, "output") && (!transposed || need_ints(&p, outputPadding, "outputPadding")) &&
        opt_tensor(&p, bias, "bias") && (!outputPadding || need_ints(&p, outputPadding, "outputPadding")) &&
        check_dtype(&p, input, "input", DT_FLOATS) && check_dtype(&p, weight, "weight", DT_FLOATS) &&
        check_dtype(&p, output, "output", DT_FLOATS) && (!bias || check_dtype(&p, bias, "bias", DT_FLOATS)) &&
        check_ndim(&p, input, "input", 3, 5) && check_ndim(&p, weight, "weight", nd, nd) &&
        check_ndim(&p, output, "output", nd, nd) &&
        conv_attrs(&p, stride, padding, dilation, groups, nd - 2, !transposed, &g) &&
        (!transposed || check_outpad(&p, outputPadding, &g, nd - 2)) &&
        (!transposed || check_backprop_pad(&p, input, weight, output, padding, dilation, &g))) {
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
