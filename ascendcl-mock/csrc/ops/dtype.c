/*
 * dtype.c: element sizes and conversions of the dtypes the mock's kernels
 * handle; f16 and bf16 are computed in f32 and stored rounding to nearest
 * even. Compiled into both operator libraries.
 */
#include "aclnn_mock.h"

#include <math.h>
#include <string.h>

size_t mk_dtype_size(int32_t dt)
{
    switch (dt) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
        return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
        return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
        return 8;
    default:
        return 0;
    }
}

const char *mk_dtype_name(int32_t dt)
{
    switch (dt) {
    case ACL_FLOAT:
        return "FLOAT";
    case ACL_FLOAT16:
        return "FLOAT16";
    case ACL_BF16:
        return "BF16";
    case ACL_DOUBLE:
        return "DOUBLE";
    case ACL_INT8:
        return "INT8";
    case ACL_INT16:
        return "INT16";
    case ACL_INT32:
        return "INT32";
    case ACL_INT64:
        return "INT64";
    case ACL_UINT8:
        return "UINT8";
    case ACL_UINT16:
        return "UINT16";
    case ACL_UINT32:
        return "UINT32";
    case ACL_UINT64:
        return "UINT64";
    case ACL_BOOL:
        return "BOOL";
    default:
        return "UNSUPPORTED";
    }
}

bool mk_dtype_is_float(int32_t dt)
{
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}

bool mk_dtype_is_int(int32_t dt) { return mk_dtype_size(dt) != 0 && !mk_dtype_is_float(dt); }

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float mk_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) {
        return bits_f32(sign | 0x7f800000u | (man << 13));
    }
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t mk_f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) { /* inf or nan (nan stays quiet) */
        return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0));
    }
    if (a >= 0x477ff000u) { /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        /* value / 2^-24, rounded to nearest even, done in float exactly */
        float v = bits_f32(a) * 16777216.0f;
        float r = nearbyintf(v); /* default rounding mode: nearest even */
        return (uint16_t)(sign | (uint16_t)r);
    }
    uint32_t man = a & 0x7fffffu;
    uint32_t exp = (a >> 23) - 112u;
    uint32_t half = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) {
        half++; /* may carry into the exponent, which is right */
    }
    return (uint16_t)(sign | half);
}

float mk_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t mk_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((u >> 16) | 0x40u); /* quiet nan */
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#define AT(T) (((const T *)b)[e])
#define SET(T, v) (((T *)b)[e] = (T)(v))

double mk_ldd(const void *b, int32_t dt, int64_t e)
{
    switch (dt) {
    case ACL_FLOAT:
        return AT(float);
    case ACL_FLOAT16:
        return mk_f16_to_f32(AT(uint16_t));
    case ACL_BF16:
        return mk_bf16_to_f32(AT(uint16_t));
    case ACL_DOUBLE:
        return AT(double);
    default:
        return (double)mk_ldi(b, dt, e);
    }
}

float mk_ldf(const void *b, int32_t dt, int64_t e)
{
    switch (dt) {
    case ACL_FLOAT:
        return AT(float);
    case ACL_FLOAT16:
        return mk_f16_to_f32(AT(uint16_t));
    case ACL_BF16:
        return mk_bf16_to_f32(AT(uint16_t));
    default:
        return (float)mk_ldd(b, dt, e);
    }
}

int64_t mk_ldi(const void *b, int32_t dt, int64_t e)
{
    switch (dt) {
    case ACL_INT8:
        return AT(int8_t);
    case ACL_UINT8:
        return AT(uint8_t);
    case ACL_BOOL:
        return AT(uint8_t) != 0;
    case ACL_INT16:
        return AT(int16_t);
    case ACL_UINT16:
        return AT(uint16_t);
    case ACL_INT32:
        return AT(int32_t);
    case ACL_UINT32:
        return AT(uint32_t);
    case ACL_INT64:
        return AT(int64_t);
    case ACL_UINT64:
        return (int64_t)AT(uint64_t);
    default: {
        double d = mk_ldd(b, dt, e);
        return isnan(d) ? 0 : (int64_t)d; /* float to integer truncates, as a C cast */
    }
    }
}

void mk_sti(void *b, int32_t dt, int64_t e, int64_t v)
{
    switch (dt) {
    case ACL_INT8:
        SET(int8_t, v);
        break;
    case ACL_UINT8:
        SET(uint8_t, v);
        break;
    case ACL_BOOL:
        SET(uint8_t, v != 0);
        break;
    case ACL_INT16:
        SET(int16_t, v);
        break;
    case ACL_UINT16:
        SET(uint16_t, v);
        break;
    case ACL_INT32:
        SET(int32_t, v);
        break;
    case ACL_UINT32:
        SET(uint32_t, v);
        break;
    case ACL_INT64:
        SET(int64_t, v);
        break;
    case ACL_UINT64:
        SET(uint64_t, v);
        break;
    default:
        mk_std(b, dt, e, (double)v);
        break;
    }
}

void mk_stf(void *b, int32_t dt, int64_t e, float v)
{
    switch (dt) {
    case ACL_FLOAT:
        SET(float, v);
        break;
    case ACL_FLOAT16:
        SET(uint16_t, mk_f32_to_f16(v));
        break;
    case ACL_BF16:
        SET(uint16_t, mk_f32_to_bf16(v));
        break;
    case ACL_DOUBLE:
        SET(double, v);
        break;
    case ACL_BOOL:
        SET(uint8_t, v != 0.0f);
        break;
    default:
        mk_sti(b, dt, e, isnan(v) ? 0 : (int64_t)v);
        break;
    }
}

void mk_std(void *b, int32_t dt, int64_t e, double v)
{
    switch (dt) {
    case ACL_DOUBLE:
        SET(double, v);
        break;
    case ACL_BOOL:
        SET(uint8_t, v != 0.0);
        break;
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_BF16:
        mk_stf(b, dt, e, (float)v);
        break;
    default:
        mk_sti(b, dt, e, isnan(v) ? 0 : (int64_t)v);
        break;
    }
}
