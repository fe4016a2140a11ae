/*
 * op_smooth_activations.c (libopapi.so): the pointwise smooth activations of
 * operators III (batch "activations") and their gradients: aclnnSigmoid,
 * aclnnSigmoidBackward, aclnnTanh, aclnnTanhBackward, aclnnSilu,
 * aclnnSiluBackward. Parameter lists (hicann/ops-nn v8.5.0):
 * activation/sigmoid/op_api/aclnn_sigmoid.h:33-34,
 * activation/sigmoid_grad/op_api/aclnn_sigmoid_backward.h:35-37,
 * activation/swish/op_api/aclnn_silu.h:25-26 and
 * activation/silu_grad/op_api/aclnn_silu_backward.h:25-27;
 * (hicann/ops-math v8.5.0): math/tanh/op_api/aclnn_tanh.h:50-51 and
 * math/tanh_grad/op_api/aclnn_tanh_backward.h:47-49.
 * Each element is computed in double and rounded once into the out dtype.
 *
 * Checks, in the real ops' order:
 * - Sigmoid: self, out not null (aclnn_sigmoid.cpp:65-70); self in f32, f16,
 *   f64, i8, i16, i32, i64, bool, bf16, u8 (:29-32) and out in f32, f16, f64,
 *   bf16 (:34-36), checked at :72-86 (complex types not emulated); out of
 *   self's shape, at most 8 dims (:88-97). An integer self is cast to out's
 *   dtype first (:146-150); a float self is computed in its own dtype and the
 *   result cast to out's (:153-158), where the mock rounds once from double.
 * - SigmoidBackward: gradOutput, output, gradInput not null
 *   (aclnn_sigmoid_backward.cpp:40-47); each in f32, f16, f64, bf16 (:30-32,
 *   :49-66); at most 8 dims (:68-75); the promoted dtype of gradOutput and
 *   output in that list and castable to gradInput's (:77-96); gradOutput and
 *   output broadcast to gradInput's shape (:98-115), checked in that order
 *   (:142-160).
 * - Tanh (ops-math math/tanh/op_api/aclnn_tanh.cpp): self, out not null
 *   (:65-69); self and out each in the 910B list f32, f16, bool, u8, i8, i16,
 *   i32, i64, bf16 (:38-42, :71-80; no f64); the compute dtype (f32 for an
 *   integer or bool self, :82-83, cast at :162-164) castable to out's
 *   (:84), so out is in effect a float; at most 8 dims, out of self's shape
 *   (:104-108), checked in that order (:110-124). Formats are not emulated.
 * - TanhBackward (math/tanh_grad/op_api/aclnn_tanh_backward.cpp):
 *   gradOutput, output, gradInput not null (:59-64); each in f32, f16, f64,
 *   bf16 (:39-40, :66-75); output and gradInput of gradOutput's dtype
 *   (:77-79); at most 8 dims (:85-86); gradOutput and output broadcast to
 *   gradInput's shape (:88-91), checked in that order (:96-107).
 * - Silu (ops-nn activation/swish/op_api/aclnn_silu.cpp): self, out not null
 *   (:42-48); self and out in f32, f16, bf16 (:39-40, :53-54) and out of
 *   self's dtype (common/inc/op_api/level2_base_caculation.h:89-103); out of
 *   self's shape with no dims limit (:56; more than 8 dims are flattened,
 *   :87-95, so the mock's own limit of 8 is the only one), in that order.
 * - SiluBackward (activation/silu_grad/op_api/aclnn_silu_backward.cpp):
 *   gradOutput, self, gradInput not null (:52-58); each in f16, f32, bf16
 *   (:36-37, :60-68); on 910B gradOutput and self of gradInput's dtype
 *   (:70-77; mixed precision is 910_95 only, :43-45); at most 8 dims
 *   (:91-92); gradOutput and self of gradInput's shape, no broadcasting
 *   (:94-98; broadcasting is 910_95 only, :39-41), checked in that order
 *   (:109-120).
 */
#include "op_elementwise.h"
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>

static const int32_t DT_SIGMOID_SELF[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT8,  ACL_INT16,
                                          ACL_INT32, ACL_INT64,   ACL_BOOL,   ACL_BF16, ACL_UINT8, -1};
static const int32_t DT_SIGMOID_OUT[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, -1};
static const int32_t DT_TANH[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BOOL,  ACL_UINT8, ACL_INT8,
                                  ACL_INT16, ACL_INT32,   ACL_INT64, ACL_BF16,  -1};
static const int32_t DT_TANH_GRAD[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, -1};
static const int32_t DT_SILU[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};

enum { FN_SIGMOID, FN_TANH, FN_SILU };
enum { GRAD_SIGMOID, GRAD_TANH, GRAD_SILU };
/* job->ip layout */
enum { IP_X, IP_OUT, IP_GRAD, IP_FN };

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static double forward(int fn, double x)
{
    switch (fn) {
    case FN_TANH:
        return tanh(x);
    case FN_SILU:
        return x * sigmoid(x);
    case FN_SIGMOID:
    default:
        return sigmoid(x);
    }
}

/* The gradient from the upstream gradient g and v, the saved forward
 * tensor (output or input, as the op takes it). */
static double gradient(int fn, double g, double v)
{
    switch (fn) {
    case GRAD_TANH:
        return g * (1.0 - v * v); /* v is tanh's output */
    case GRAD_SILU: {
        double s = sigmoid(v); /* v is SiLU's input */
        return g * s * (1.0 + v * (1.0 - s));
    }
    case GRAD_SIGMOID:
    default:
        return g * v * (1.0 - v); /* v is sigmoid's output */
    }
}

static void k_forward(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            mk_std(ob, o->dtype, oo[i], forward((int)j->ip[IP_FN], mk_ldd(xb, x->dtype, ox[i])));
        }
    }
    free(ox);
    free(oo);
}

static void k_gradient(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *v = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *vb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *og = bcast_offsets(g, o->dims, o->ndim), *ov = bcast_offsets(v, o->dims, o->ndim);
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    if (og && ov && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            double r = gradient((int)j->ip[IP_FN], mk_ldd(gb, g->dtype, og[i]), mk_ldd(vb, v->dtype, ov[i]));
            mk_std(ob, o->dtype, oo[i], r);
        }
    }
    free(og);
    free(ov);
    free(oo);
}

/* Adds the executor of a pointwise forward. */
static void add_forward(ph1 *p, const aclTensor *self, const aclTensor *out, int fn)
{
    if (make_exec(p, k_forward, 0)) {
        p->e->job.ip[IP_X] = add_in(p, self);
        p->e->job.ip[IP_OUT] = add_out(p, out);
        p->e->job.ip[IP_FN] = fn;
    }
}

/* Adds the executor of a pointwise gradient whose operands have gradInput's
 * shape (checked by the caller). */
static void add_same_shape_gradient(ph1 *p, const aclTensor *grad, const aclTensor *v, const aclTensor *gradInput,
                                    int fn)
{
    if (make_exec(p, k_gradient, 0)) {
        p->e->job.ip[IP_GRAD] = add_in(p, grad);
        p->e->job.ip[IP_X] = add_in(p, v);
        p->e->job.ip[IP_OUT] = add_out(p, gradInput);
        p->e->job.ip[IP_FN] = fn;
    }
}

/* Checks the broadcast of gradOutput and v against gradInput and adds the
 * executor of a pointwise gradient. */
static void add_gradient(ph1 *p, const aclTensor *grad, const aclTensor *v, const char *vname,
                         const aclTensor *gradInput, int fn)
{
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (p->rc) {
        return;
    }
    if (!bcast(&grad->v, &v->v, dims, &nd)) {
        invalid(p, "gradOutput and %s do not broadcast", vname);
    } else if (check_shape(p, gradInput, "gradInput (the broadcast result)", dims, nd) &&
               make_exec(p, k_gradient, 0)) {
        p->e->job.ip[IP_GRAD] = add_in(p, grad);
        p->e->job.ip[IP_X] = add_in(p, v);
        p->e->job.ip[IP_OUT] = add_out(p, gradInput);
        p->e->job.ip[IP_FN] = fn;
    }
}

OPS_EXPORT aclnnStatus aclnnSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSigmoidGetWorkspaceSize), "aclnnSigmoid");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        check_dtype(&p, self, "self", DT_SIGMOID_SELF) && check_dtype(&p, out, "out", DT_SIGMOID_OUT) &&
        check_shape(&p, out, "out", self->v.dims, self->v.ndim) && check_ndim(&p, self, "self", 0, 8)) {
        add_forward(&p, self, out, FN_SIGMOID);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Sigmoid)

OPS_EXPORT aclnnStatus aclnnSigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output,
                                                            aclTensor *gradInput, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSigmoidBackwardGetWorkspaceSize), "aclnnSigmoidBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, output, "output") &&
        need_tensor(&p, gradInput, "gradInput") && check_dtype(&p, gradOutput, "gradOutput", DT_SIGMOID_OUT) &&
        check_dtype(&p, output, "output", DT_SIGMOID_OUT) && check_dtype(&p, gradInput, "gradInput", DT_SIGMOID_OUT) &&
        check_ndim(&p, gradOutput, "gradOutput", 0, 8) && check_ndim(&p, output, "output", 0, 8)) {
        /* the promoted dtype of two floats of the list is in the list, and every
         * float casts to every float: nothing more to refuse (:77-96) */
        add_gradient(&p, gradOutput, output, "output", gradInput, GRAD_SIGMOID);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SigmoidBackward)

OPS_EXPORT aclnnStatus aclnnTanhGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnTanhGetWorkspaceSize), "aclnnTanh");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_TANH) &&
        check_dtype(&p, out, "out", DT_TANH) &&
        ew_check_cast(&p, ew_is_integral(self->v.dtype) ? ACL_FLOAT : self->v.dtype, out, "out") &&
        check_ndim(&p, self, "self", 0, 8) && check_shape(&p, out, "out", self->v.dims, self->v.ndim)) {
        add_forward(&p, self, out, FN_TANH);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Tanh)

OPS_EXPORT aclnnStatus aclnnTanhBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output,
                                                         aclTensor *gradInput, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnTanhBackwardGetWorkspaceSize), "aclnnTanhBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "output", output);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, output, "output") &&
        need_tensor(&p, gradInput, "gradInput") && check_dtype(&p, gradOutput, "gradOutput", DT_TANH_GRAD) &&
        check_dtype(&p, output, "output", DT_TANH_GRAD) && check_dtype(&p, gradInput, "gradInput", DT_TANH_GRAD) &&
        check_same_dtype(&p, gradOutput, "gradOutput", output, "output") &&
        check_same_dtype(&p, gradOutput, "gradOutput", gradInput, "gradInput") &&
        check_ndim(&p, gradOutput, "gradOutput", 0, 8) && check_ndim(&p, output, "output", 0, 8)) {
        add_gradient(&p, gradOutput, output, "output", gradInput, GRAD_TANH);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(TanhBackward)

OPS_EXPORT aclnnStatus aclnnSiluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSiluGetWorkspaceSize), "aclnnSilu");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_SILU) &&
        check_dtype(&p, out, "out", DT_SILU) && check_same_dtype(&p, out, "out", self, "self") &&
        check_shape(&p, out, "out", self->v.dims, self->v.ndim)) {
        add_forward(&p, self, out, FN_SILU);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Silu)

OPS_EXPORT aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                         aclTensor *gradInput, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnSiluBackwardGetWorkspaceSize), "aclnnSiluBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_tensor(&p, gradInput, "gradInput") && check_dtype(&p, gradOutput, "gradOutput", DT_SILU) &&
        check_dtype(&p, self, "self", DT_SILU) && check_dtype(&p, gradInput, "gradInput", DT_SILU) &&
        check_same_dtype(&p, gradOutput, "gradOutput", gradInput, "gradInput") &&
        check_same_dtype(&p, self, "self", gradInput, "gradInput") && check_ndim(&p, gradOutput, "gradOutput", 0, 8) &&
        check_ndim(&p, self, "self", 0, 8) &&
        check_shape(&p, gradOutput, "gradOutput (no broadcasting on 910B)", gradInput->v.dims, gradInput->v.ndim) &&
        check_shape(&p, self, "self (no broadcasting on 910B)", gradInput->v.dims, gradInput->v.ndim)) {
        add_same_shape_gradient(&p, gradOutput, self, gradInput, GRAD_SILU);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(SiluBackward)
