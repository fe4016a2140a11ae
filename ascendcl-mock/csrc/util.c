/*
 * util.c: small building blocks: a pointer hash map, a growable string,
 * monotonic time, byte-size parsing and fingerprint hashing.
 */
#include "mock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- ptrmap */

#define PM_EMPTY 0ULL
#define PM_TOMB 1ULL

static size_t pm_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    return (size_t)(h & (cap - 1));
}

static void pm_grow(ptrmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    if (m->cap && (m->len * 2 < m->cap)) {
        ncap = m->cap; /* mostly tombstones: rehash in place */
    }
    uint64_t *ok = m->keys, *ov = m->vals;
    size_t ocap = m->cap;
    m->keys = calloc(ncap, sizeof(uint64_t));
    m->vals = calloc(ncap, sizeof(uint64_t));
    if (!m->keys || !m->vals) {
        fprintf(stderr, "aclmock: out of host memory\n");
        abort();
    }
    m->cap = ncap;
    m->len = 0;
    m->tombs = 0;
    for (size_t i = 0; i < ocap; i++) {
        if (ok[i] > PM_TOMB) {
            pm_put(m, ok[i], ov[i]);
        }
    }
    free(ok);
    free(ov);
}

bool pm_get(const ptrmap *m, uint64_t key, uint64_t *val)
{
    if (!m->cap || key <= PM_TOMB) {
        return false;
    }
    for (size_t i = pm_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == PM_EMPTY) {
            return false;
        }
        if (m->keys[i] == key) {
            if (val) {
                *val = m->vals[i];
            }
            return true;
        }
    }
}

void pm_put(ptrmap *m, uint64_t key, uint64_t val)
{
    if (key <= PM_TOMB) {
        return;
    }
    if ((m->len + m->tombs + 1) * 4 >= m->cap * 3) {
        pm_grow(m);
    }
    size_t tomb = SIZE_MAX;
    for (size_t i = pm_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return;
        }
        if (m->keys[i] == PM_TOMB && tomb == SIZE_MAX) {
            tomb = i;
        }
        if (m->keys[i] == PM_EMPTY) {
            if (tomb != SIZE_MAX) {
                i = tomb;
                m->tombs--;
            }
            m->keys[i] = key;
            m->vals[i] = val;
            m->len++;
            return;
        }
    }
}

void pm_del(ptrmap *m, uint64_t key)
{
    if (!m->cap || key <= PM_TOMB) {
        return;
    }
    for (size_t i = pm_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == PM_EMPTY) {
            return;
        }
        if (m->keys[i] == key) {
            m->keys[i] = PM_TOMB;
            m->len--;
            m->tombs++;
            return;
        }
    }
}

void pm_clear(ptrmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* ---------------------------------------------------------------- strbuf */

void sb_append(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1) {
            ncap *= 2;
        }
        char *ns = realloc(b->s, ncap);
        if (!ns) {
            fprintf(stderr, "aclmock: out of host memory\n");
            abort();
        }
        b->s = ns;
        b->cap = ncap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n < sizeof(tmp)) {
        sb_append(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_append(b, big, (size_t)n);
    free(big);
}

void sb_free(strbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ time */

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sleep_us(uint64_t us)
{
    struct timespec ts = {(time_t)(us / 1000000ULL), (long)(us % 1000000ULL) * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ----------------------------------------------------------------- parse */

bool parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !*s) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-') {
        return false;
    }
    while (*end == ' ') {
        end++;
    }
    uint64_t mul = 1;
    if (*end == '\0' || strcmp(end, "B") == 0) {
        mul = 1;
    } else if (strcmp(end, "KiB") == 0 || strcmp(end, "K") == 0 || strcmp(end, "KB") == 0) {
        mul = MOCK_KIB;
    } else if (strcmp(end, "MiB") == 0 || strcmp(end, "M") == 0 || strcmp(end, "MB") == 0) {
        mul = MOCK_MIB;
    } else if (strcmp(end, "GiB") == 0 || strcmp(end, "G") == 0 || strcmp(end, "GB") == 0) {
        mul = MOCK_GIB;
    } else {
        return false;
    }
    if (v > UINT64_MAX / mul) {
        return false;
    }
    *out = (uint64_t)v * mul;
    return true;
}

uint64_t fp_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 33);
}
