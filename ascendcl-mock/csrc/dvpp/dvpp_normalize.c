/*
 * dvpp_normalize.c (libacl_dvpp_op.so): acldvppNormalize, out = (self -
 * mean[c]) / std[c] per channel, computed in float.
 *
 * Checks (CANN 8.5 page operatorlist_00064, …/850/API/aolapi/): self uint8
 * or float, NCHW or NHWC, contiguous, N 1 or absent, C 1 or 3; mean and std
 * host float arrays of C entries each; out float, of self's format and
 * shape; the image between 6x4 and 4096x8192 (width x height). A zero std
 * is not refused (the page is silent): the result is then ±inf or NaN, as
 * the formula gives.
 */
#include "dvpp_internal.h"

#include <stdio.h>

enum { IP_SELF, IP_OUT, IP_DTYPE, IP_SRC = 8, IP_DST = 16 };
/* job->p[0..2]: mean, p[3..5]: std */

static void k_normalize(const mk_job *j, void *const *bufs)
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
                float v = (float)dv_load(sb, dt, &s, y, x, c);
                float r = (v - (float)j->p[c]) / (float)j->p[3 + c];
                dv_store(ob, ACL_FLOAT, &d, y, x, c, r);
            }
        }
    }
}

static void arg_floats(ph1 *p, const char *key, const aclFloatArray *a)
{
    char text[160];
    if (!a || !aclmocknn_is_live(a, MK_FLOAT_ARRAY)) {
        ph1_arg_ints(p, key, NULL);
        return;
    }
    size_t k = (size_t)snprintf(text, sizeof(text), "[");
    for (uint64_t i = 0; i < a->n && k + 20 < sizeof(text); i++) {
        k += (size_t)snprintf(text + k, sizeof(text) - k, "%s%.9g", i ? "," : "", a->v[i]);
    }
    snprintf(text + k, sizeof(text) - k, "]");
    aclmock_arg_str(&p->c, key, text);
}

static bool need_floats(ph1 *p, const aclFloatArray *a, const char *name, int64_t n)
{
    if (!need_ptr(p, a, name)) {
        return false;
    }
    if (!aclmocknn_is_live(a, MK_FLOAT_ARRAY)) {
        return invalid(p, "%s is not a live aclFloatArray", name);
    }
    if ((int64_t)a->n != n) {
        return invalid(p, "%s has %llu entries, self has %lld channels: they must be equal", name,
                       (unsigned long long)a->n, (long long)n);
    }
    return true;
}

OPS_EXPORT acldvppStatus acldvppNormalizeGetWorkspaceSize(const aclTensor *self, const aclFloatArray *mean,
                                                          const aclFloatArray *std, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor)
{
    ph1 p;
    dvpp_begin(&p, MK_FN(acldvppNormalizeGetWorkspaceSize), "acldvppNormalize");
    ph1_arg_tensor(&p, "self", self);
    arg_floats(&p, "mean", mean);
    arg_floats(&p, "std", std);
    ph1_arg_tensor(&p, "out", out);
    dv_image s, d;
    if (dvpp_check_init(&p) && need_tensor(&p, self, "self") && need_tensor(&p, out, "out") &&
        dv_image_of(&p, self, "self", DV_U8_F32, &s) && need_floats(&p, mean, "mean", s.c) &&
        need_floats(&p, std, "std", s.c) && dv_image_of(&p, out, "out", DV_F32, &d)) {
        if (out->format != self->format) {
            invalid(&p, "out has format %d, self %d: they must be equal", out->format, self->format);
        } else if (s.w < 6 || s.w > 4096 || s.h < 4 || s.h > 8192) {
            invalid(&p, "self is %lldx%lld (width x height): Normalize takes 6x4 to 4096x8192", (long long)s.w,
                    (long long)s.h);
        } else if (dv_check_hw(&p, "out", &d, s.h, s.w, s.c) && make_exec(&p, k_normalize, 0)) {
            mk_job *j = &p.e->job;
            j->ip[IP_SELF] = add_in(&p, self);
            j->ip[IP_OUT] = add_out(&p, out);
            j->ip[IP_DTYPE] = self->v.dtype;
            dv_put(j, IP_SRC, &s);
            dv_put(j, IP_DST, &d);
            for (int64_t c = 0; c < s.c; c++) {
                j->p[c] = mean->v[c];
                j->p[3 + c] = std->v[c];
            }
        }
    }
    return ph1_end(&p, workspaceSize, executor);
}
DVPP_PHASE2(Normalize)
