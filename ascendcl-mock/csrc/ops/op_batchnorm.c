/*
 * op_batchnorm.c (libopapi.so): aclnnBatchNorm and aclnnBatchNormBackward,
 * channel on axis 1 of a 2- to 8-D input. Parameter lists (ops-nn v8.5.0):
 * norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.h:24-27 and
 * norm/batch_norm_grad_v3/op_host/op_api/aclnn_batch_norm_backward.h:25-29.
 *
 * Forward phase-1 rules (aclnn_batch_norm.cpp):
 *   input, output null -> 161001; saveMean, saveInvstd too when training
 *     (CheckNotNull :69-79, applied :291); weight, bias, runningMean,
 *     runningVar are optional;
 *   every given tensor f32/f16/bf16 (:119-156);
 *   input and output 2- to 8-D and of one shape (CheckShape :200-209);
 *   weight, bias, runningMean, runningVar 1-D with C elements (:211-233);
 *   saveMean, saveInvstd of shape (C) when training (:260-265).
 * Absent tensors stand for running mean 0, running var 1, weight 1, bias 0
 * (:616-630). What saveInvstd holds depends on the SoC: on Atlas A2/A3 the
 * input's biased batch variance, on 950 1/sqrt(var + eps) (ops-nn v8.5.0
 * norm/batch_norm_v3/docs/aclnnBatchNorm.md:181, :213-214; aclnn-facts.md D).
 * The mock reports Ascend910B1, an A2 part, so it stores the variance, and
 * the backward reads it back as the variance. Training also updates the
 * running statistics in place: mean' = (1-m)·mean + m·batch_mean and
 * var' = (1-m)·var + m·batch_var·n/(n-1) (the unbiased variance, as PyTorch;
 * aclnn-facts.md B.1.2). Eval normalizes with the running statistics and
 * writes neither the running nor the saved statistics.
 *
 * Backward phase-1 rules (aclnn_batch_norm_backward.cpp):
 *   gradOut, input, outputMask null -> 161001 (:69-75, :80); outputMask with
 *     fewer than 1 entry -> 161002 (:81-84); gradInput / gradWeight / gradBias
 *     null -> 161001 when their mask entry is set (:94-102);
 *   gradOut, input f32/f16/bf16 (:116-120) and the requested outputs and the
 *     given optional tensors likewise (:122-162);
 *   gradOut 2- to 8-D with input's shape, gradInput with gradOut's (:205-220);
 *   weight, runningMean, runningVar, saveMean, saveInvstd (C) (:225-260).
 * Absent weight, running mean/var, saveMean, saveInvstd stand for 1, 0, 1,
 * 0, 1 (:491-510). The mock also requires gradWeight and gradBias of shape
 * (C) when requested (the 950 check :383-389 made general). Missing mask
 * entries count as false. Training: invstd = 1/sqrt(saveInvstd + eps) and
 * gradInput = w·invstd·(dy - mean(dy) - x̂·mean(dy·x̂)); eval: invstd from
 * runningVar and gradInput = w·invstd·dy; gradWeight = Σ dy·x̂, gradBias = Σ dy.
 * Reductions in double; gradients not requested are not written.
 */
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

enum { IP_X, IP_W, IP_B, IP_RM, IP_RV, IP_OUT, IP_SM, IP_SV, IP_GO, IP_GI, IP_GW, IP_GB, IP_TRAIN };
enum { P_MOMENTUM, P_EPS };

/* value of an optional per-channel tensor (dflt when absent) */
static double chan(const mk_job *j, void *const *bufs, int ip, int64_t c, double dflt)
{
    if (j->ip[ip] < 0) {
        return dflt;
    }
    const mk_view *v = &j->slot[j->ip[ip]];
    return mk_ldd(bufs[j->ip[ip]], v->dtype, c * v->strides[0]);
}

static void chan_store(const mk_job *j, void *const *bufs, int ip, int64_t c, double val)
{
    if (j->ip[ip] >= 0 && bufs[j->ip[ip]]) {
        const mk_view *v = &j->slot[j->ip[ip]];
        mk_std(bufs[j->ip[ip]], v->dtype, c * v->strides[0], val);
    }
}

static void k_batch_norm(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t N, C, S;
    split_axis(x, 1, &N, &C, &S);
    double m = j->p[P_MOMENTUM], eps = j->p[P_EPS];
    bool train = j->ip[IP_TRAIN];
    int64_t cnt = N * S;
    for (int64_t c = 0; c < C; c++) {
        double mean, var;
        if (train) {
            double s = 0.0, q = 0.0;
            for (int64_t n = 0; n < N; n++) {
                for (int64_t i = 0; i < S; i++) {
                    s += mk_ldd(xb, x->dtype, axis_offset(x, 1, n, c, i));
                }
            }
            mean = cnt ? s / (double)cnt : NAN;
            for (int64_t n = 0; n < N; n++) {
                for (int64_t i = 0; i < S; i++) {
                    double d = mk_ldd(xb, x->dtype, axis_offset(x, 1, n, c, i)) - mean;
                    q += d * d;
                }
            }
            var = cnt ? q / (double)cnt : NAN;
            chan_store(j, bufs, IP_SM, c, mean);
            chan_store(j, bufs, IP_SV, c, var); /* A2/A3: the biased variance (aclnnBatchNorm.md:213) */
            double unbiased = cnt > 1 ? q / (double)(cnt - 1) : NAN;
            chan_store(j, bufs, IP_RM, c, (1.0 - m) * chan(j, bufs, IP_RM, c, 0.0) + m * mean);
            chan_store(j, bufs, IP_RV, c, (1.0 - m) * chan(j, bufs, IP_RV, c, 1.0) + m * unbiased);
        } else {
            mean = chan(j, bufs, IP_RM, c, 0.0);
            var = chan(j, bufs, IP_RV, c, 1.0);
        }
        double scale = chan(j, bufs, IP_W, c, 1.0) / sqrt(var + eps), shift = chan(j, bufs, IP_B, c, 0.0);
        for (int64_t n = 0; ob && n < N; n++) {
            for (int64_t i = 0; i < S; i++) {
                double v = mk_ldd(xb, x->dtype, axis_offset(x, 1, n, c, i));
                mk_std(ob, o->dtype, axis_offset(o, 1, n, c, i), (v - mean) * scale + shift);
            }
        }
    }
}

static void k_batch_norm_backward(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *go = &j->slot[j->ip[IP_GO]];
    const void *xb = bufs[j->ip[IP_X]], *gob = bufs[j->ip[IP_GO]];
    const mk_view *gi = j->ip[IP_GI] >= 0 ? &j->slot[j->ip[IP_GI]] : NULL;
    void *gib = gi ? bufs[j->ip[IP_GI]] : NULL;
    int64_t N, C, S;
    split_axis(x, 1, &N, &C, &S);
    double eps = j->p[P_EPS];
    bool train = j->ip[IP_TRAIN];
    double cnt = (double)(N * S);
    for (int64_t c = 0; c < C; c++) {
        double mean = train ? chan(j, bufs, IP_SM, c, 0.0) : chan(j, bufs, IP_RM, c, 0.0);
        double var = train ? chan(j, bufs, IP_SV, c, 1.0) : chan(j, bufs, IP_RV, c, 1.0);
        double invstd = 1.0 / sqrt(var + eps), w = chan(j, bufs, IP_W, c, 1.0);
        double sdy = 0.0, sdyx = 0.0;
        for (int64_t n = 0; n < N; n++) {
            for (int64_t i = 0; i < S; i++) {
                double dy = mk_ldd(gob, go->dtype, axis_offset(go, 1, n, c, i));
                double xh = (mk_ldd(xb, x->dtype, axis_offset(x, 1, n, c, i)) - mean) * invstd;
                sdy += dy;
                sdyx += dy * xh;
            }
        }
        chan_store(j, bufs, IP_GW, c, sdyx);
        chan_store(j, bufs, IP_GB, c, sdy);
        for (int64_t n = 0; gib && n < N; n++) {
            for (int64_t i = 0; i < S; i++) {
                double dy = mk_ldd(gob, go->dtype, axis_offset(go, 1, n, c, i));
                double v = dy;
                if (train) {
                    double xh = (mk_ldd(xb, x->dtype, axis_offset(x, 1, n, c, i)) - mean) * invstd;
                    v = dy - sdy / cnt - xh * sdyx / cnt;
                }
                mk_std(gib, gi->dtype, axis_offset(gi, 1, n, c, i), w * invstd * v);
            }
        }
    }
}

/* An optional per-channel tensor: live, float, shape (C). */
static bool opt_chan(ph1 *p, const aclTensor *t, const char *name, int64_t C)
{
    return !t || (need_tensor(p, t, name) && check_dtype(p, t, name, DT_FLOATS) && check_shape(p, t, name, &C, 1));
}

OPS_EXPORT aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
                                                      const aclTensor *bias, aclTensor *runningMean,
                                                      aclTensor *runningVar, bool training, double momentum, double eps,
                                                      aclTensor *output, aclTensor *saveMean, aclTensor *saveInvstd,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnBatchNormGetWorkspaceSize), "aclnnBatchNorm");
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_tensor(&p, "bias", bias);
    ph1_arg_tensor(&p, "runningMean", runningMean);
    ph1_arg_tensor(&p, "runningVar", runningVar);
    ph1_arg_i64(&p, "training", training);
    ph1_arg_f64(&p, "momentum", momentum);
    ph1_arg_f64(&p, "eps", eps);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_tensor(&p, "saveMean", saveMean);
    ph1_arg_tensor(&p, "saveInvstd", saveInvstd);
    int64_t C = 0;
    if (need_tensor(&p, input, "input") && need_tensor(&p, output, "output") &&
        (!training || (need_tensor(&p, saveMean, "saveMean") && need_tensor(&p, saveInvstd, "saveInvstd"))) &&
        check_dtype(&p, input, "input", DT_FLOATS) && check_dtype(&p, output, "output", DT_FLOATS) &&
        check_ndim(&p, input, "input", 2, 8) && check_shape(&p, output, "output", input->v.dims, input->v.ndim)) {
        C = input->v.dims[1];
        if (opt_chan(&p, weight, "weight", C) && opt_chan(&p, bias, "bias", C) &&
            opt_chan(&p, runningMean, "runningMean", C) && opt_chan(&p, runningVar, "runningVar", C) &&
            (!training || (opt_chan(&p, saveMean, "saveMean", C) && opt_chan(&p, saveInvstd, "saveInvstd", C))) &&
            make_exec(&p, k_batch_norm, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_X] = add_in(&p, input);
            j->ip[IP_W] = weight ? add_in(&p, weight) : (int64_t)-1;
            j->ip[IP_B] = bias ? add_in(&p, bias) : (int64_t)-1;
            /* training updates the running statistics in place */
            j->ip[IP_RM] = !runningMean ? (int64_t)-1 : training ? add_inout(&p, runningMean) : add_in(&p, runningMean);
            j->ip[IP_RV] = !runningVar ? (int64_t)-1 : training ? add_inout(&p, runningVar) : add_in(&p, runningVar);
            j->ip[IP_OUT] = add_out(&p, output);
            j->ip[IP_SM] = training ? add_out(&p, saveMean) : (int64_t)-1;
            j->ip[IP_SV] = training ? add_out(&p, saveInvstd) : (int64_t)-1;
            j->ip[IP_TRAIN] = training;
            j->p[P_MOMENTUM] = momentum;
            j->p[P_EPS] = eps;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(BatchNorm)

OPS_EXPORT aclnnStatus aclnnBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean,
    const aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnBatchNormBackwardGetWorkspaceSize), "aclnnBatchNormBackward");
    ph1_arg_tensor(&p, "gradOut", gradOut);
    ph1_arg_tensor(&p, "input", input);
    ph1_arg_tensor(&p, "weight", weight);
    ph1_arg_tensor(&p, "runningMean", runningMean);
    ph1_arg_tensor(&p, "runningVar", runningVar);
    ph1_arg_tensor(&p, "saveMean", saveMean);
    ph1_arg_tensor(&p, "saveInvstd", saveInvstd);
    ph1_arg_i64(&p, "training", training);
    ph1_arg_f64(&p, "eps", eps);
    ph1_arg_bools(&p, "outputMask", outputMask);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    ph1_arg_tensor(&p, "gradWeight", gradWeight);
    ph1_arg_tensor(&p, "gradBias", gradBias);
    bool m[3] = {false, false, false};
    if (need_tensor(&p, gradOut, "gradOut") && need_tensor(&p, input, "input") &&
        need_bools(&p, outputMask, "outputMask")) {
        if (outputMask->n < 1) {
            invalid(&p, "outputMask size should not be less than 1");
        }
        for (uint64_t i = 0; i < 3 && i < outputMask->n; i++) {
            m[i] = outputMask->v[i];
        }
    }
    if ((!m[0] || need_tensor(&p, gradInput, "gradInput")) && (!m[1] || need_tensor(&p, gradWeight, "gradWeight")) &&
        (!m[2] || need_tensor(&p, gradBias, "gradBias")) && check_dtype(&p, gradOut, "gradOut", DT_FLOATS) &&
        check_dtype(&p, input, "input", DT_FLOATS) && (!m[0] || check_dtype(&p, gradInput, "gradInput", DT_FLOATS)) &&
        check_ndim(&p, input, "input", 2, 8) && check_shape(&p, gradOut, "gradOut", input->v.dims, input->v.ndim) &&
        (!m[0] || check_shape(&p, gradInput, "gradInput", input->v.dims, input->v.ndim))) {
        int64_t C = input->v.dims[1];
        if (opt_chan(&p, weight, "weight", C) && opt_chan(&p, runningMean, "runningMean", C) &&
            opt_chan(&p, runningVar, "runningVar", C) && opt_chan(&p, saveMean, "saveMean", C) &&
            opt_chan(&p, saveInvstd, "saveInvstd", C) && (!m[1] || opt_chan(&p, gradWeight, "gradWeight", C)) &&
            (!m[2] || opt_chan(&p, gradBias, "gradBias", C)) && make_exec(&p, k_batch_norm_backward, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_GO] = add_in(&p, gradOut);
            j->ip[IP_X] = add_in(&p, input);
            j->ip[IP_W] = weight ? add_in(&p, weight) : (int64_t)-1;
            j->ip[IP_RM] = runningMean && !training ? add_in(&p, runningMean) : (int64_t)-1;
            j->ip[IP_RV] = runningVar && !training ? add_in(&p, runningVar) : (int64_t)-1;
            j->ip[IP_SM] = saveMean && training ? add_in(&p, saveMean) : (int64_t)-1;
            j->ip[IP_SV] = saveInvstd && training ? add_in(&p, saveInvstd) : (int64_t)-1;
            j->ip[IP_GI] = m[0] ? add_out(&p, gradInput) : (int64_t)-1;
            j->ip[IP_GW] = m[1] ? add_out(&p, gradWeight) : (int64_t)-1;
            j->ip[IP_GB] = m[2] ? add_out(&p, gradBias) : (int64_t)-1;
            j->ip[IP_TRAIN] = training;
            j->p[P_EPS] = eps;
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(BatchNormBackward)
