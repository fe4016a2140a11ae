/*
 * The mock's small containers and helpers: a hash map of 64-bit keys, a
 * growable text buffer, clocks, byte-size parsing, fingerprints, and the
 * address-ordered extent allocator the arenas place memory with. Included
 * by mock.h; nothing here knows about devices, streams or the lock.
 */
#ifndef ACLMOCK_INTERNAL_UTIL_H
#define ACLMOCK_INTERNAL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef MOCK_PRINTF
#define MOCK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

/* ------------------------------------------------------------ small utils */

/* Open-addressing hash map from a non-zero 64-bit key to a 64-bit value. */
typedef struct ptrmap {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap, len, tombs;
} ptrmap;
bool pm_get(const ptrmap *m, uint64_t key, uint64_t *val);
void pm_put(ptrmap *m, uint64_t key, uint64_t val);
void pm_del(ptrmap *m, uint64_t key);
void pm_clear(ptrmap *m);

/* Growable text buffer. */
typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf;
void sb_append(strbuf *b, const char *s, size_t n);
void sb_printf(strbuf *b, const char *fmt, ...) MOCK_PRINTF(2, 3);
void sb_free(strbuf *b);

uint64_t now_ns(void);            /* CLOCK_MONOTONIC */
void sleep_us(uint64_t us);
bool parse_bytes(const char *s, uint64_t *out); /* "123", "4KiB", "64MiB", "2GiB" */
uint64_t fp_mix(uint64_t h, uint64_t v);      /* fingerprint hashing */

/* ------------------------------------------------------- extent allocator */

/* Address-ordered free list with best-fit placement and coalescing. */
typedef struct extent {
    uint64_t off, len;
} extent;
typedef struct extent_alloc {
    extent *v;
    size_t n, cap;
    uint64_t total, free;
} extent_alloc;
void ea_init(extent_alloc *a, uint64_t total);
void ea_destroy(extent_alloc *a);
bool ea_alloc(extent_alloc *a, uint64_t size, uint64_t align, uint64_t *off);
/* Frees [off, off+len); lo and hi receive the coalesced free extent around it. */
void ea_free(extent_alloc *a, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi);
uint64_t ea_largest(const extent_alloc *a);

#endif /* ACLMOCK_INTERNAL_UTIL_H */
