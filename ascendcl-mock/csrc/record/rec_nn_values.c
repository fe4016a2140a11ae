/*
 * rec_nn_values.c: how the shim writes aclnn values, the mock's journal
 * forms (csrc/ops/nn_desc.c, op_common.c): descriptors as t<N> (tensor),
 * k<N> (scalar), i<N>/f<N>/b<N> (int, float, bool array), l<N> (tensor
 * list), x<N> (executor), numbered together in order of creation; a handle
 * the shim never saw as "?0x..."; arrays passed to an operator by their
 * values, which the shim keeps from their creation.
 *
 * Everything here runs under the shim's lock (rec_begin .. rec_end).
 */
#include "rec_nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of arrays, as text, by id (ids are dense: a vector). */
static char **texts;
static uint64_t ntexts;

void rec_nn_reset_locked(void)
{
    for (uint64_t i = 0; i < ntexts; i++) {
        free(texts[i]);
    }
    free(texts);
    texts = NULL;
    ntexts = 0;
}

void rn_keep_text(uint64_t id, const char *text)
{
    if (!id) {
        return;
    }
    if (id >= ntexts) {
        uint64_t n = ntexts ? ntexts : 64;
        while (n <= id) {
            n *= 2;
        }
        char **t = realloc(texts, n * sizeof(*t));
        if (!t) {
            return;
        }
        memset(t + ntexts, 0, (n - ntexts) * sizeof(*t));
        texts = t;
        ntexts = n;
    }
    free(texts[id]);
    texts[id] = strdup(text);
}

void rn_symbol(char *out, size_t cap, char letter, const void *h)
{
    uint64_t id = rec_nn_find(h);
    if (id) {
        snprintf(out, cap, "%c%llu", letter, (unsigned long long)id);
    } else {
        snprintf(out, cap, "?%p", h);
    }
}

void ra_nn(rec_call *c, const char *key, char letter, const void *h)
{
    if (!c->on) {
        return;
    }
    if (!h) {
        ra_str(c, key, NULL);
        return;
    }
    char sym[48];
    rn_symbol(sym, sizeof(sym), letter, h);
    ra_str(c, key, sym);
}

void ro_nn_new(rec_call *c, const char *key, char letter, const void *h)
{
    if (!c->on || !h) {
        return;
    }
    char sym[48];
    snprintf(sym, sizeof(sym), "%c%llu", letter, (unsigned long long)rec_nn_new(h));
    ro_str(c, key, sym);
}

void ra_nn_values(rec_call *c, const char *key, char letter, const void *h)
{
    if (!c->on) {
        return;
    }
    uint64_t id = rec_nn_find(h);
    if (!h || !id || id >= ntexts || !texts[id]) {
        ra_nn(c, key, letter, h);
        return;
    }
    ra_str(c, key, texts[id]);
}

void rn_dims(jbuf *b, const int64_t *d, uint64_t n, uint64_t cap)
{
    jb_printf(b, "[");
    for (uint64_t i = 0; d && i < n && i < cap; i++) {
        jb_printf(b, "%s%lld", i ? "," : "", (long long)d[i]);
    }
    jb_printf(b, "]");
}

/* ------------------------------------------------------------- scalars */

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static double f16_value(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) {
        return bits_f32(sign | 0x7f800000u | (man << 13));
    }
    if (exp == 0) {
        double v = (double)man / 1024.0 / 16384.0; /* man * 2^-24 */
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

bool rn_scalar_value(const void *p, int32_t dt, double *out)
{
    if (!p) {
        return false;
    }
    union {
        float f;
        double d;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } v;
    switch (dt) {
    case ACL_FLOAT:
        memcpy(&v.f, p, 4);
        *out = v.f;
        return true;
    case ACL_DOUBLE:
        memcpy(&v.d, p, 8);
        *out = v.d;
        return true;
    case ACL_FLOAT16:
        memcpy(&v.u16, p, 2);
        *out = f16_value(v.u16);
        return true;
    case ACL_BF16:
        memcpy(&v.u16, p, 2);
        *out = bits_f32((uint32_t)v.u16 << 16);
        return true;
    case ACL_INT8:
        memcpy(&v.i8, p, 1);
        *out = v.i8;
        return true;
    case ACL_INT16:
        memcpy(&v.i16, p, 2);
        *out = v.i16;
        return true;
    case ACL_INT32:
        memcpy(&v.i32, p, 4);
        *out = v.i32;
        return true;
    case ACL_INT64:
        memcpy(&v.i64, p, 8);
        *out = (double)v.i64;
        return true;
    case ACL_UINT8:
    case ACL_BOOL:
        memcpy(&v.u8, p, 1);
        *out = dt == ACL_BOOL ? (v.u8 != 0) : v.u8;
        return true;
    case ACL_UINT16:
        memcpy(&v.u16, p, 2);
        *out = v.u16;
        return true;
    case ACL_UINT32:
        memcpy(&v.u32, p, 4);
        *out = v.u32;
        return true;
    case ACL_UINT64:
        memcpy(&v.u64, p, 8);
        *out = (double)v.u64;
        return true;
    default:
        return false;
    }
}
