/*
 * dvpp_common.c (libacl_dvpp_op.so): acldvppInit / acldvppFinalize and what
 * every acldvpp op's phase 1 shares (the initialization check, image tensor
 * checks, element access for the kernels).
 *
 * Initialization (CANN 8.5 docs, acldvppInit operatorlist_00062 and
 * acldvppFinalize operatorlist_00063): configPath is reserved and must be
 * null; calling either function again is not an error; aclInit initializes
 * DVPP as well, so an op after aclInit alone runs. An op before any of them
 * is 106101 ACLDVPP_ERR_UNINITIALIZE (operatorlist_00061). A non-null
 * configPath is refused with 106002: the page says it "must be null" without
 * naming the status, a mock decision.
 */
#include "dvpp_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const int32_t DV_U8[] = {ACL_UINT8, -1};
const int32_t DV_U8_F32[] = {ACL_UINT8, ACL_FLOAT, -1};
const int32_t DV_F32[] = {ACL_FLOAT, -1};

/* The mock generation in which acldvppInit last ran (0: not since the last
 * acldvppFinalize); a reset of the mock starts a new generation. Read and
 * written inside calls, under the mock's lock. */
static uint64_t g_init_generation;

bool dvpp_ready(void)
{
    return aclmock_runtime_initialized() || (g_init_generation && g_init_generation == aclmock_generation());
}

OPS_EXPORT acldvppStatus acldvppInit(const char *configPath)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(acldvppInit));
    aclmock_arg_str(&c, "configPath", configPath);
    int32_t rc = aclmock_call_check(&c);
    if (!rc && configPath) {
        rc = aclmock_fail(ACLDVPP_ERR_PARAM_INVALID, "configPath is reserved and must be null, got \"%s\"",
                          configPath);
    }
    if (!rc) {
        g_init_generation = aclmock_generation();
    }
    return aclmock_call_end(&c, rc);
}

OPS_EXPORT acldvppStatus acldvppFinalize(void)
{
    aclmock_call c;
    aclmock_call_start(&c, MK_FN(acldvppFinalize));
    int32_t rc = aclmock_call_check(&c);
    if (!rc) {
        g_init_generation = 0;
    }
    return aclmock_call_end(&c, rc);
}

void dvpp_begin(ph1 *p, int fn, const char *op)
{
    ph1_begin(p, fn, op);
    p->dvpp = true;
}

bool dvpp_check_init(ph1 *p)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (!dvpp_ready()) {
        p->rc = aclmock_fail(ACLDVPP_ERR_UNINITIALIZE,
                             "%s: DVPP is not initialized: call acldvppInit(NULL) (or aclInit) first", p->op);
        return false;
    }
    return true;
}

bool dv_contiguous(const mk_view *v)
{
    int64_t want = 1;
    for (uint32_t d = v->ndim; d-- > 0;) {
        if (v->dims[d] != 1 && v->strides[d] != want) {
            return false;
        }
        want *= v->dims[d];
    }
    return true;
}

bool dv_image_of(ph1 *p, const aclTensor *t, const char *name, const int32_t *dtypes, dv_image *img)
{
    if (!check_dtype(p, t, name, dtypes) || !check_ndim(p, t, name, 3, 4)) {
        return false;
    }
    const mk_view *v = &t->v;
    if (t->format != ACL_FORMAT_NCHW && t->format != ACL_FORMAT_NHWC) {
        return invalid(p, "%s must have format NCHW or NHWC, it has format %d", name, t->format);
    }
    if (!dv_contiguous(v)) {
        return invalid(p, "%s must be contiguous", name);
    }
    uint32_t b = v->ndim - 3; /* first of the three image axes */
    if (v->ndim == 4 && v->dims[0] != 1) {
        return invalid(p, "%s holds %lld images: the acldvpp ops take one (N is 1 or absent)", name,
                       (long long)v->dims[0]);
    }
    img->nchw = t->format == ACL_FORMAT_NCHW;
    uint32_t ch = img->nchw ? b : b + 2, hy = img->nchw ? b + 1 : b, wx = img->nchw ? b + 2 : b + 1;
    img->c = v->dims[ch];
    img->h = v->dims[hy];
    img->w = v->dims[wx];
    img->sc = v->strides[ch];
    img->sh = v->strides[hy];
    img->sw = v->strides[wx];
    if (img->c != 1 && img->c != 3) {
        return invalid(p, "%s has %lld channels: the acldvpp ops take 1 (GRAY) or 3 (RGB)", name,
                       (long long)img->c);
    }
    return true;
}

bool dv_same_kind(ph1 *p, const aclTensor *out, const aclTensor *self)
{
    if (!check_same_dtype(p, out, "out", self, "self")) {
        return false;
    }
    if (out->format != self->format) {
        return invalid(p, "out has format %d, self %d: they must be equal", out->format, self->format);
    }
    return true;
}

bool dv_check_hw(ph1 *p, const char *name, const dv_image *img, int64_t h, int64_t w, int64_t c)
{
    if (!ph1_ok(p)) {
        return false;
    }
    if (img->h != h || img->w != w || img->c != c) {
        return invalid(p, "%s is %lldx%lld with %lld channels, the op makes %lldx%lld with %lld", name,
                       (long long)img->h, (long long)img->w, (long long)img->c, (long long)h, (long long)w,
                       (long long)c);
    }
    return true;
}

void dv_put(mk_job *j, int at, const dv_image *img)
{
    j->ip[at] = img->h;
    j->ip[at + 1] = img->w;
    j->ip[at + 2] = img->c;
    j->ip[at + 3] = img->nchw;
    j->ip[at + 4] = img->sh;
    j->ip[at + 5] = img->sw;
    j->ip[at + 6] = img->sc;
}

void dv_get(const mk_job *j, int at, dv_image *img)
{
    img->h = j->ip[at];
    img->w = j->ip[at + 1];
    img->c = j->ip[at + 2];
    img->nchw = j->ip[at + 3] != 0;
    img->sh = j->ip[at + 4];
    img->sw = j->ip[at + 5];
    img->sc = j->ip[at + 6];
}

double dv_load(const void *buf, int32_t dtype, const dv_image *img, int64_t y, int64_t x, int64_t ch)
{
    int64_t o = y * img->sh + x * img->sw + ch * img->sc;
    return dtype == ACL_UINT8 ? (double)((const uint8_t *)buf)[o] : (double)((const float *)buf)[o];
}

void dv_store(void *buf, int32_t dtype, const dv_image *img, int64_t y, int64_t x, int64_t ch, double v)
{
    int64_t o = y * img->sh + x * img->sw + ch * img->sc;
    if (dtype == ACL_UINT8) {
        double r = nearbyint(v); /* the default rounding mode: half to even */
        ((uint8_t *)buf)[o] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    } else {
        ((float *)buf)[o] = (float)v;
    }
}
