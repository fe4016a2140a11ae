/*
 * op_conv_backward.c (libopapi.so): aclnnConvolutionBackward, 2-D (NCHW) and
 * 1-D (NCL, as 2-D with H = 1), not transposed. Parameter list: ops-nn
 * v8.5.0 conv/convolution_backward/op_api/aclnn_convolution_backward.h:56-61 (`groups` is a plain int here,
 * int64_t in the forward; biasSizes is nullable; outputMask has 3 entries;
 * aclnn-facts.md B.1.2). Phase-1 rules, convolution_backward_checker.cpp:
 *   gradOutput, input, weight, stride, padding, dilation, outputPadding,
 *     outputMask null -> 161001 (:666-674);
 *   outputMask must have 3 entries (:676-679);
 *   gradInput / gradWeight / gradBias null -> 161001 only when their mask
 *     entry is set (:680-690);
 *   gradOutput, input, weight and the requested outputs f32/f16/bf16
 *     (CheckDtypeValid :19-27, applied :715-727);
 *   gradOutput, input, weight of one rank (:491-495); gradInput has input's
 *     shape and gradWeight weight's (:499-506); gradBias 1-D with gradOutput's
 *     C elements (:510-517);
 *   stride, dilation inputDim-2 entries, padding (and outputPadding)
 *     inputDim-2 or, for 2-D only, 4 entries (:519-560); stride >= 1, padding >= 0, dilation >= 1, outputPadding 0
 *     unless transposed, groups >= 1 (CheckConvParams :422-466);
 *   gradOutput C = weight N, input C = weight C * groups (:564-598);
 *   gradOutput's spatial shape is the forward's (:617-662).
 * transposed = true is not modelled (161002 with a message). biasSizes is
 * journaled; gradBias takes its length from gradOutput like the real checker.
 * Gradients whose mask entry is false are neither checked nor written.
 * All three gradients are accumulated in double and stored once.
 */
#include "op_internal.h"

#include <stdlib.h>

enum { IP_GO, IP_X, IP_W, IP_GI, IP_GW, IP_GB, IP_GEOM = 8 };

static void k_conv_backward(const mk_job *j, void *const *bufs)
{
    mk_view gov = as_nc1l(&j->slot[j->ip[IP_GO]]), xv = as_nc1l(&j->slot[j->ip[IP_X]]);
    mk_view wv = as_nc1l(&j->slot[j->ip[IP_W]]);
    mk_view giv = j->ip[IP_GI] >= 0 ? as_nc1l(&j->slot[j->ip[IP_GI]]) : xv;
    mk_view gwv = j->ip[IP_GW] >= 0 ? as_nc1l(&j->slot[j->ip[IP_GW]]) : wv;
    const mk_view *go = &gov, *x = &xv, *w = &wv;
    const void *gob = bufs[j->ip[IP_GO]], *xb = bufs[j->ip[IP_X]], *wb = bufs[j->ip[IP_W]];
    const mk_view *gi = j->ip[IP_GI] >= 0 ? &giv : NULL;
    const mk_view *gw = j->ip[IP_GW] >= 0 ? &gwv : NULL;
    const mk_view *gbv = j->ip[IP_GB] >= 0 ? &j->slot[j->ip[IP_GB]] : NULL;
    void *gib = gi ? bufs[j->ip[IP_GI]] : NULL, *gwb = gw ? bufs[j->ip[IP_GW]] : NULL;
    void *gbb = gbv ? bufs[j->ip[IP_GB]] : NULL;
    conv_geom g;
    conv_get(j, IP_GEOM, &g);
    int64_t N = go->dims[0], O = go->dims[1], OH = go->dims[2], OW = go->dims[3];
    int64_t C = x->dims[1], H = x->dims[2], W = x->dims[3];
    int64_t Cg = w->dims[1], KH = w->dims[2], KW = w->dims[3], Og = O / g.groups;
    double *di = gib ? dzeros(N * C * H * W) : NULL;
    double *dw = gwb ? dzeros(O * Cg * KH * KW) : NULL;
    double *db = gbb ? dzeros(O) : NULL;
    if ((gib && !di && N * C * H * W > 0) || (gwb && !dw && O * Cg * KH * KW > 0) || (gbb && !db && O > 0)) {
        free(di);
        free(dw);
        free(db);
        return; /* host OOM: nothing written */
    }
    for (int64_t n = 0; n < N; n++) {
        for (int64_t oc = 0; oc < O; oc++) {
            int64_t c0 = (oc / Og) * Cg;
            for (int64_t oh = 0; oh < OH; oh++) {
                for (int64_t ow = 0; ow < OW; ow++) {
                    double gv = mk_ldd(gob, go->dtype, off4(go, n, oc, oh, ow));
                    if (db) {
                        db[oc] += gv;
                    }
                    if (!di && !dw) {
                        continue;
                    }
                    for (int64_t c = 0; c < Cg; c++) {
                        for (int64_t kh = 0; kh < KH; kh++) {
                            int64_t ih = oh * g.sh - g.pt + kh * g.dh;
                            if (ih < 0 || ih >= H) {
                                continue;
                            }
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t iw = ow * g.sw - g.pl + kw * g.dw;
                                if (iw < 0 || iw >= W) {
                                    continue;
                                }
                                if (di) {
                                    di[((n * C + c0 + c) * H + ih) * W + iw] +=
                                        gv * mk_ldd(wb, w->dtype, off4(w, oc, c, kh, kw));
                                }
                                if (dw) {
                                    dw[((oc * Cg + c) * KH + kh) * KW + kw] +=
                                        gv * mk_ldd(xb, x->dtype, off4(x, n, c0 + c, ih, iw));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    for (int64_t n = 0; di && n < N; n++) {
        for (int64_t c = 0; c < C; c++) {
            for (int64_t h = 0; h < H; h++) {
                for (int64_t x2 = 0; x2 < W; x2++) {
                    mk_std(gib, gi->dtype, off4(gi, n, c, h, x2), di[((n * C + c) * H + h) * W + x2]);
                }
            }
        }
    }
    for (int64_t oc = 0; dw && oc < O; oc++) {
        for (int64_t c = 0; c < Cg; c++) {
            for (int64_t kh = 0; kh < KH; kh++) {
                for (int64_t kw = 0; kw < KW; kw++) {
                    mk_std(gwb, gw->dtype, off4(gw, oc, c, kh, kw), dw[((oc * Cg + c) * KH + kh) * KW + kw]);
                }
            }
        }
    }
    for (int64_t oc = 0; db && oc < O; oc++) {
        mk_std(gbb, gbv->dtype, oc * gbv->strides[0], db[oc]);
    }
    free(di);
    free(dw);
    free(db);
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
    int64_t od[4];
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
        if (transposed) {
            invalid(&p, "transposed convolution is not modelled by the mock");
        } else if (check_ndim(&p, input, "input", 3, 4) && check_ndim(&p, gradOutput, "gradOutput", nd, nd) &&
                   check_ndim(&p, weight, "weight", nd, nd) &&
                   (!m[0] || check_shape(&p, gradInput, "gradInput", input->v.dims, nd)) &&
                   (!m[1] || check_shape(&p, gradWeight, "gradWeight", weight->v.dims, nd)) &&
                   (!m[2] || check_shape(&p, gradBias, "gradBias", &gradOutput->v.dims[1], 1)) &&
                   check_len(&p, outputPadding, "outputPadding", nd - 2, nd == 4 ? 4 : -1)) {
            for (uint64_t i = 0; i < outputPadding->n; i++) {
                if (outputPadding->v[i] != 0) {
                    invalid(&p, "outputPadding[%llu] = %lld, must be 0 if not transposed", (unsigned long long)i,
                            (long long)outputPadding->v[i]);
                    break;
                }
            }
            if (!p.rc && gradOutput->v.dims[1] != weight->v.dims[0]) {
                invalid(&p, "gradOutput has %lld channels, expected weight N (%lld)", (long long)gradOutput->v.dims[1],
                        (long long)weight->v.dims[0]);
            }
            if (conv_attrs(&p, stride, padding, dilation, groups, nd - 2, false, &g) &&
                conv_out_shape(&p, input, weight, &g, od) && check_shape(&p, gradOutput, "gradOutput", od, nd) &&
                make_exec(&p, k_conv_backward, 0)) {
                p.e->job.ip[IP_GO] = add_in(&p, gradOutput);
                p.e->job.ip[IP_X] = add_in(&p, input);
                p.e->job.ip[IP_W] = add_in(&p, weight);
                p.e->job.ip[IP_GI] = m[0] ? add_out(&p, gradInput) : (int64_t)-1;
                p.e->job.ip[IP_GW] = m[1] ? add_out(&p, gradWeight) : (int64_t)-1;
                p.e->job.ip[IP_GB] = m[2] ? add_out(&p, gradBias) : (int64_t)-1;
                conv_put(&p.e->job, IP_GEOM, &g);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(ConvolutionBackward)
