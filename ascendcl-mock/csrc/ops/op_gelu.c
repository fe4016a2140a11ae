/*
 * op_gelu.c (libopapi.so): GELU and its gradient, both approximations, of
 * operators III (batch `ops-a`): aclnnGelu, aclnnGeluBackward, aclnnGeluV2,
 * aclnnGeluBackwardV2. Parameter lists (hicann/ops-nn v8.5.0):
 * activation/gelu/op_api/aclnn_gelu.h:46-47,
 * activation/gelu_grad/op_host/op_api/aclnn_gelu_backward.h:70-72,
 * activation/gelu_v2/op_host/op_api/aclnn_gelu_v2.h:47-48 and
 * activation/gelu_grad_v2/op_host/op_api/aclnn_gelu_backward_v2.h:38-40.
 * Each element is computed in double and rounded once into the out dtype.
 *
 * What is computed:
 * - aclnnGelu is the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x +
 *   0.044715 x^3))) (activation/gelu/docs/aclnnGelu.md:18; the kernel's
 *   x / (1 + exp(-1.5957691 (x + 0.044715 x^3))) is the same function,
 *   op_kernel/arch35/gelu_dag.h:24-29), not PyTorch's default erf form.
 * - aclnnGeluBackward is the derivative of that tanh approximation: the
 *   GeluGrad kernel's constants are 2 sqrt(2/pi) and 2 sqrt(2/pi) 0.044715
 *   (activation/gelu_grad/op_kernel/arch35/gelu_grad_dag.h:30-33, ops-nn
 *   v9.2.0-beta.1: v8.5.0 ships the kernel as a binary), although its doc
 *   writes the erf derivative (docs/aclnnGeluBackward.md:31).
 * - aclnnGeluV2: approximate 1 is "tanh", every other value "none", the erf
 *   form 0.5 x (1 + erf(x / sqrt 2)) (aclnn_gelu_v2.cpp:29-36: no value is
 *   refused, where PyTorch only takes "none" and "tanh").
 * - aclnnGeluBackwardV2: the derivative of the form its string names.
 *
 * Checks, in the real ops' order:
 * - Gelu (aclnn_gelu.cpp): self, out not null (:31-35); self in f32, f16,
 *   bf16 (:22-24, :44; bf16 is taken on 910B, :26-29) and out of self's dtype
 *   (:46); at most 8 dims and out of self's shape (:51-56), checked in that
 *   order (:68-82). An empty self leaves out unwritten (:97-101).
 * - GeluBackward (aclnn_gelu_backward.cpp): gradOutput, self, gradInput not
 *   null (:32-38); the promoted dtype of gradOutput and self exists and is
 *   f32, f16 or bf16 (:61-68, common/inc/op_api/level2_base.h:354-380), so
 *   an integer gradOutput with a float self is taken; gradOutput and self at
 *   most 8 dims (:43-44), broadcast (:48), gradInput of the broadcast shape
 *   (:50-55), in that order (:71-83). gradInput's dtype is not checked: the
 *   result is cast into it (:147, :193).
 * - GeluV2 (aclnn_gelu_v2.cpp): x, y not null (:47-52); y of x's dtype (:57),
 *   x in f32, f16, bf16 (:38-39, :65); y of x's shape (:69-74); no dims
 *   limit (the mock's own is 8), in that order (:76-88).
 * - GeluBackwardV2 (aclnn_gelu_backward_v2.cpp): gradOutput, self,
 *   gradInput and approximate not null (:31-42); the promoted dtype in f32,
 *   f16, bf16 and equal to gradInput's (:61-76); gradOutput and self
 *   broadcast to gradInput's shape (:45-59); approximate "none" or "tanh"
 *   (:80-90), in that order (:93-109).
 * An empty gradOutput or self leaves gradInput unwritten (aclnn_gelu_backward.cpp:123-127,
 * aclnn_gelu_backward_v2.cpp:149-153).
 */
#include "op_elementwise.h"
#include "op_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int32_t DT_GELU[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, -1};

enum { GELU_ERF, GELU_TANH };
/* job->ip layout */
enum { IP_X, IP_OUT, IP_GRAD, IP_FORM };

static const double SQRT_2_OVER_PI = 0.79788456080286535588; /* sqrt(2/pi) */
static const double TANH_CUBIC = 0.044715;

static double gelu(int form, double x)
{
    if (form == GELU_TANH) {
        return 0.5 * x * (1.0 + tanh(SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x)));
    }
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* d gelu / dx; the second term is dropped where its factor underflows to 0
 * (it would give 0 * inf = NaN for huge |x|). */
static double gelu_grad(int form, double x)
{
    if (form == GELU_TANH) {
        double t = tanh(SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x));
        double sech2 = 1.0 - t * t;
        double rest = sech2 == 0.0 ? 0.0 : 0.5 * x * sech2 * SQRT_2_OVER_PI * (1.0 + 3.0 * TANH_CUBIC * x * x);
        return 0.5 * (1.0 + t) + rest;
    }
    double density = exp(-0.5 * x * x);
    double rest = density == 0.0 ? 0.0 : x * density / sqrt(2.0 * M_PI);
    return 0.5 * (1.0 + erf(x / sqrt(2.0))) + rest;
}

static void k_gelu(const mk_job *j, void *const *bufs)
{
    const mk_view *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *ox = view_offsets(x), *oo = view_offsets(o);
    int64_t n = numel(o);
    if (ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            mk_std(ob, o->dtype, oo[i], gelu((int)j->ip[IP_FORM], mk_ldd(xb, x->dtype, ox[i])));
        }
    }
    free(ox);
    free(oo);
}

static void k_gelu_grad(const mk_job *j, void *const *bufs)
{
    const mk_view *g = &j->slot[j->ip[IP_GRAD]], *x = &j->slot[j->ip[IP_X]], *o = &j->slot[j->ip[IP_OUT]];
    const void *gb = bufs[j->ip[IP_GRAD]], *xb = bufs[j->ip[IP_X]];
    void *ob = bufs[j->ip[IP_OUT]];
    int64_t *og = bcast_offsets(g, o->dims, o->ndim), *ox = bcast_offsets(x, o->dims, o->ndim);
    int64_t *oo = view_offsets(o);
    int64_t n = numel(o);
    if (og && ox && oo && ob) {
        for (int64_t i = 0; i < n; i++) {
            double r = mk_ldd(gb, g->dtype, og[i]) * gelu_grad((int)j->ip[IP_FORM], mk_ldd(xb, x->dtype, ox[i]));
            mk_std(ob, o->dtype, oo[i], r);
        }
    }
    free(og);
    free(ox);
    free(oo);
}

static void add_forward(ph1 *p, const aclTensor *x, const aclTensor *out, int form)
{
    if (make_exec(p, k_gelu, 0)) {
        p->e->job.ip[IP_X] = add_in(p, x);
        p->e->job.ip[IP_OUT] = add_out(p, out);
        p->e->job.ip[IP_FORM] = form;
    }
}

/* The promoted dtype of gradOutput and self, checked against the list
 * (level2_base.h:354-380); -1 once p->rc is set. */
static int32_t grad_promote(ph1 *p, const aclTensor *grad, const aclTensor *self)
{
    if (p->rc) {
        return -1;
    }
    int32_t dt = ew_promote(grad->v.dtype, self->v.dtype);
    if (dt < 0) {
        invalid(p, "gradOutput's dtype %s and self's %s do not promote", mk_dtype_name(grad->v.dtype),
                mk_dtype_name(self->v.dtype));
        return -1;
    }
    for (const int32_t *a = DT_GELU; *a >= 0; a++) {
        if (*a == dt) {
            return dt;
        }
    }
    invalid(p, "the promoted dtype %s of gradOutput and self is not float, float16 or bfloat16", mk_dtype_name(dt));
    return -1;
}

/* Checks that gradOutput and self broadcast to gradInput's shape. */
static bool check_grad_shapes(ph1 *p, const aclTensor *grad, const aclTensor *self, const aclTensor *gradInput)
{
    int64_t dims[MK_MAX_DIMS];
    uint32_t nd = 0;
    if (p->rc) {
        return false;
    }
    if (!bcast(&grad->v, &self->v, dims, &nd)) {
        return invalid(p, "gradOutput and self do not broadcast");
    }
    return check_shape(p, gradInput, "gradInput (the broadcast shape of gradOutput and self)", dims, nd);
}

static void add_gradient(ph1 *p, const aclTensor *grad, const aclTensor *self, const aclTensor *gradInput, int form)
{
    if (make_exec(p, k_gelu_grad, 0)) {
        p->e->job.ip[IP_GRAD] = add_in(p, grad);
        p->e->job.ip[IP_X] = add_in(p, self);
        p->e->job.ip[IP_OUT] = add_out(p, gradInput);
        p->e->job.ip[IP_FORM] = form;
    }
}

OPS_EXPORT aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnGeluGetWorkspaceSize), "aclnnGelu");
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "out", out);
    if (need_tensor(&p, self, "self") && need_tensor(&p, out, "out") && check_dtype(&p, self, "self", DT_GELU) &&
        check_same_dtype(&p, out, "out", self, "self") && check_ndim(&p, self, "self", 0, 8) &&
        check_shape(&p, out, "out", self->v.dims, self->v.ndim)) {
        add_forward(&p, self, out, GELU_TANH);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(Gelu)

OPS_EXPORT aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                         const aclTensor *gradInput, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnGeluBackwardGetWorkspaceSize), "aclnnGeluBackward");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_tensor(&p, gradInput, "gradInput") && grad_promote(&p, gradOutput, self) >= 0 &&
        check_ndim(&p, gradOutput, "gradOutput", 0, 8) && check_ndim(&p, self, "self", 0, 8) &&
        check_grad_shapes(&p, gradOutput, self, gradInput)) {
        add_gradient(&p, gradOutput, self, gradInput, GELU_TANH);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(GeluBackward)

OPS_EXPORT aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate, aclTensor *y,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnGeluV2GetWorkspaceSize), "aclnnGeluV2");
    ph1_arg_tensor(&p, "x", x);
    ph1_arg_i64(&p, "approximate", approximate);
    ph1_arg_tensor(&p, "y", y);
    if (need_tensor(&p, x, "x") && need_tensor(&p, y, "y") && check_same_dtype(&p, y, "y", x, "x") &&
        check_dtype(&p, x, "x", DT_GELU) && check_shape(&p, y, "y", x->v.dims, x->v.ndim)) {
        add_forward(&p, x, y, approximate == 1 ? GELU_TANH : GELU_ERF);
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(GeluV2)

OPS_EXPORT aclnnStatus aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           char *approximate, aclTensor *gradInput,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    ph1_begin(&p, MK_FN(aclnnGeluBackwardV2GetWorkspaceSize), "aclnnGeluBackwardV2");
    ph1_arg_tensor(&p, "gradOutput", gradOutput);
    ph1_arg_tensor(&p, "self", self);
    aclmock_arg_str(&p.c, "approximate", approximate);
    ph1_arg_tensor(&p, "gradInput", gradInput);
    int32_t dt = -1;
    if (need_tensor(&p, gradOutput, "gradOutput") && need_tensor(&p, self, "self") &&
        need_tensor(&p, gradInput, "gradInput") && need_ptr(&p, approximate, "approximate (\"none\" or \"tanh\")") &&
        (dt = grad_promote(&p, gradOutput, self)) >= 0) {
        if (dt != gradInput->v.dtype) {
            invalid(&p, "the promoted dtype %s of gradOutput and self differs from gradInput's %s", mk_dtype_name(dt),
                    mk_dtype_name(gradInput->v.dtype));
        } else if (check_grad_shapes(&p, gradOutput, self, gradInput)) {
            bool tanh_form = strcmp(approximate, "tanh") == 0;
            if (!tanh_form && strcmp(approximate, "none") != 0) {
                invalid(&p, "approximate is \"%.32s\"; it must be \"none\" or \"tanh\"", approximate);
            } else {
                add_gradient(&p, gradOutput, self, gradInput, tanh_form ? GELU_TANH : GELU_ERF);
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
OP_PHASE2(GeluBackwardV2)
