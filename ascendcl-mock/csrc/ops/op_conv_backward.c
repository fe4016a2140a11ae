/*
 * op_conv_backward.c (libopapi.so): aclnnConvolutionBackward, 3-D (NCDHW),
 * 2-D (NCHW) and 1-D (NCL), direct and transposed, computed as 3-D with the
 * missing leading spatial dims of size 1 (op_conv_kernels.c). Parameter list: ops-nn
 * v8.5.0 conv/convolution_backward/op_api/aclnn_convolution_backward.h:56-61
 * (`groups` is a plain int here, int64_t in the forward; biasSizes is nullable; outputMask has 3 entries;
 * aclnn-facts.md B.1.2). Phase-1 rules, convolution_backward_checker.cpp:
 *   gradOutput, input, weight, stride, padding, dilation, outputPadding,
 *     outputMask null -> 161001 (:666-674);
 *   outputMask must have 3 entries (:676-679);
 *   gradInput / gradWeight / gradBias null -> 161001 only when their mask
 *     entry is set (:680-690);
 *   gradOutput, input, weight and the requested outputs f32/f16/bf16
 *     (CheckDtypeValid :19-27, applied :715-727);
 *   gradOutput, input, weight of one rank, 3-, 4- or 5-D (:491-495, formats
 *     CheckFormatValid :43-67: 5-D is NCDHW, :56-59, dispatched to the 3-D backward
 *     on 910B, aclnn_convolution_backward.cpp:2507-2509); gradInput has input's
 *     shape and gradWeight weight's (:499-506); gradBias 1-D with gradOutput's
 *     C elements (:510-517);
 *   stride, dilation inputDim-2 entries, padding (and outputPadding)
 *     inputDim-2 or, for 2-D only, 4 entries (:519-560; the mock takes 4
 *     outputPadding entries only when not transposed, where they are 0;
 *     conv3d takes 3 padding entries, :547-553, each padding both sides of
 *     its dim, :90-109);
 *     stride >= 1, padding >= 0, dilation >= 1, outputPadding 0 unless
 *     transposed and >= 0 when transposed, for conv3d also below the stride
 *     (:446-452), groups >= 1 (CheckConvParams :422-466);
 *   gradOutput C = weight N, input C = weight C * groups (:564-598);
 *   gradOutput's spatial shape is the forward's (:617-662).
 * Transposed, the checker swaps the roles of input and gradOutput
 * (:564-570): gradOutput is the conv input, input the conv output; the
 * kernels swap them likewise (gradInput = conv(gradOutput, weight), gradWeight
 * from gradOutput's taps times input). biasSizes is journaled; gradBias
 * takes its length from gradOutput like the real checker.
 * Gradients whose mask entry is false are neither checked nor written.
 * All three gradients are accumulated in double and stored once.
 */
#include "op_internal.h"

#include <stdlib.h>

enum { IP_GO, IP_X, IP_W, IP_GI, IP_GW, IP_GB, IP_TRANSPOSED, IP_GEOM = 8 };

static void k_conv_backward(const mk_job *j, void *const *bufs)
{
    mk_view go = as_ncdhw(&j->slot[j->ip[IP_GO]]), x = as_ncdhw(&j->slot[j->ip[IP_X]]);
    mk_view w = as_ncdhw(&j->slot[j->ip[IP_W]]);
    mk_view gi = j->ip[IP_GI] >= 0 ? as_ncdhw(&j->slot[j->ip[IP_GI]]) : x;
    mk_view gw = j->ip[IP_GW] >= 0 ? as_ncdhw(&j->slot[j->ip[IP_GW]]) : w;
    const mk_view *gb = j->ip[IP_GB] >= 0 ? &j->slot[j->ip[IP_GB]] : NULL;
    void *gib = j->ip[IP_GI] >= 0 ? bufs[j->ip[IP_GI]] : NULL, *gwb = j->ip[IP_GW] >= 0 ? bufs[j->ip[IP_GW]] : NULL;
    void *gbb = gb ? bufs[j->ip[IP_GB]] : NULL;
    bool tr = j->ip[IP_TRANSPOSED], oom = false;
    conv_geom g;
    conv_get(j, IP_GEOM, &g);
    double *god = conv_dense(&go, bufs[j->ip[IP_GO]], &oom);
    double *xd = gwb ? conv_dense(&x, bufs[j->ip[IP_X]], &oom) : NULL;
    double *wd = gib ? conv_dense(&w, bufs[j->ip[IP_W]], &oom) : NULL;
    double *dgi = gib ? dzeros(numel(&gi)) : NULL, *dgw = gwb ? dzeros(numel(&gw)) : NULL;
    if (oom || (gib && !dgi && numel(&gi) > 0) || (gwb && !dgw && numel(&gw) > 0)) {
        gib = gwb = gbb = NULL; /* host OOM: nothing written */
    }
    if (gib && dgi) {
        if (tr) { /* gradOutput is the conv input: gradInput = conv(gradOutput, weight) */
            conv_gather(god, go.dims, wd, w.dims, &g, gi.dims, dgi);
        } else {
            conv_scatter(god, go.dims, wd, w.dims, &g, gi.dims, dgi);
        }
        conv_store(&gi, gib, dgi, NULL, NULL);
    }
    if (gwb && dgw) {
        if (tr) {
            conv_wgrad(god, go.dims, xd, x.dims, &g, gw.dims, dgw);
        } else {
            conv_wgrad(xd, x.dims, god, go.dims, &g, gw.dims, dgw);
        }
        conv_store(&gw, gwb, dgw, NULL, NULL);
    }
    for (int64_t c = 0; gbb && c < go.dims[1]; c++) {
        double sum = 0.0;
        int64_t plane = go.dims[2] * go.dims[3] * go.dims[4];
        for (int64_t n = 0; n < go.dims[0]; n++) {
            for (int64_t k = 0; k < plane; k++) {
                sum += god[(n * go.dims[1] + c) * plane + k];
            }
        }
        mk_std(gbb, gb->dtype, c * gb->strides[0], sum);
    }
    free(god);
    free(xd);
    free(wd);
    free(dgi);
    free(dgw);
}

OPS_EXPORT aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *input, const aclTensor *weight, const aclIntArray *biasSizes,
    const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, bool transposed,
    const aclIntArray *outputPadding, int groups, const aclBoolArray *outputMask, int8_t cubeMathType,
    aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnConvolutionBackwardGetWorkspaceSize), "aclnnConvolutionBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_ints(&p, "biasSizes", biasSizes);
    ph1_arg_ints(&p, "stride", stride);
    ph1_arg_ints(&p, "padding", padding);
    ph1_arg_ints(&p, "dilation", dilation);
    ph1_arg_i64(&p, "transposed", transposed);
    ph1_arg_ints(&p, "outputPadding", outputPadding);
    ph1_arg_i64(&p, "groups", groups);
    ph1_arg_bools(&p, "outputMask", outputMask);
    ph1_arg_i64(&p, "cubeMathType", cubeMathType);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    ph1_arg_tensor(&p, "gradWeight", gradWeight);
    ph1_arg_tensor(&p, "gradBias", gradBias);
    bool m[3] = {false, false, false};
    conv_geom g;
    int64_t od[5];
    uint32_t nd = input && aclmocknn_is_live(input, MK_TENSOR) ? input->v.ndim : 4;
    if (!(need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, input, "input") &&
          need_tensor(&p, weight, "weight") && need_ints(&p, stride, "stride") && need_ints(&p, padding, "padding") &&
          need_ints(&p, dilation, "dilation") && need_ints(&p, outputPadding, "outputPadding") &&
          need_bools(&p, outputMask, "outputMask"))) {
        return ph1_end(&p, workspaceSize, executor);
    }
    if (biasSizes && !aclmocknn_is_live(biasSizes, MK_INT_ARRAY)) {
        invalid(&p, "biasSizes (%p) is not a live aclIntArray", (const void *)biasSizes);
    } else if (outputMask->n != 3) {
        invalid(&p, "outputMask has %llu entries, expected 3", (unsigned long long)outputMask->n);
    } else {
        for (int i = 0; i < 3; i++) {
            m[i] = outputMask->v[i];
        }
    }
    if ((!m[0] || need_tensor(&p, gradInput, "gradInput")) && (!m[1] || need_tensor(&p, gradWeight, "gradWeight")) &&
        (!m[2] || need_tensor(&p, gradBias, "gradBias")) && check_dtype(&p, gradOutput, "gradOutput", DT_FLOATS) &&
        check_dtype(&p, input, "input", DT_FLOATS) && check_dtype(&p, weight, "weight", DT_FLOATS) &&
        (!m[0] || check_dtype(&p, gradInput, "gradInput", DT_FLOATS)) &&
        (!m[1] || check_dtype(&p, gradWeight, "gradWeight", DT_FLOATS)) &&
        (!m[2] || check_dtype(&p, gradBias, "gradBias", DT_FLOATS))) {
        if (check_ndim(&p, input, "input", 3, 5) && check_ndim(&p, gradOutput, "gradOutput", nd, nd) &&
            check_ndim(&p, weight, "weight", nd, nd) &&
            (!m[0] || check_shape(&p, gradInput, "gradInput", input->v.dims, nd)) &&
            (!m[1] || check_shape(&p, gradWeight, "gradWeight", weight->v.dims, nd)) &&
            (!m[2] || check_shape(&p, gradBias, "gradBias", &gradOutput->v.dims[1], 1)) &&
            check_len(&p, outputPadding, "outputPadding", nd - 2, nd == 4 && !transposed ? 4 : -1)) {
            for (uint64_t i = 0; i < outputPadding->n && !p.rc; i++) {
                if (!transposed && outputPadding->v[i] != 0) {
                    invalid(&p, "outputPadding[%llu] = %lld, must be 0 if not transposed", (unsigned long long)i,
                            (long long)outputPadding->v[i]);
                } else if (outputPadding->v[i] < 0) {
                    invalid(&p, "outputPadding[%llu] = %lld, must be >= 0", (unsigned long long)i,
                            (long long)outputPadding->v[i]);
                } else if (transposed && nd == 5 && stride->n == 3 && outputPadding->v[i] >= stride->v[i]) {
                    /* convolution_backward_checker.cpp:446-452 */
                    invalid(&p, "outputPadding[%llu] = %lld, must be below stride (%lld) in conv3d",
                            (unsigned long long)i, (long long)outputPadding->v[i], (long long)stride->v[i]);
                }
            }
            int64_t cout = transposed ? weight->v.dims[1] * groups : weight->v.dims[0];
            if (!p.rc && gradOutput->v.dims[1] != cout) {
                invalid(&p, "gradOutput has %lld channels, expected %lld", (long long)gradOutput->v.dims[1],
                        (long long)cout);
            }
            if (conv_attrs(&p, stride, padding, dilation, groups, nd - 2, false, &g) &&
                conv_shapes(&p, input, weight, &g, transposed, outputPadding, od) &&
                check_shape(&p, gradOutput, "gradOutput", od, nd) && make_exec(&p, k_conv_backward, 0)) {
                p.e->job.ip[IP_GO] = add_in(&p, gradOutput);
                p.e->job.ip[IP_X] = add_in(&p, input);
                p.e->job.ip[IP_W] = add_in(&p, weight);
                p.e->job.ip[IP_GI] = m[0] ? add_out(&p, gradInput) : (int64_t)-1;
                p.e->job.ip[IP_GW] = m[1] ? add_out(&p, gradWeight) : (int64_t)-1;
                p.e->job.ip[IP_GB] = m[2] ? add_out(&p, gradBias) : (int64_t)-1;
                p.e->job.ip[IP_TRANSPOSED] = transposed;
                conv_put(&p.e->job, IP_GEOM, &g);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ConvolutionBackward)
