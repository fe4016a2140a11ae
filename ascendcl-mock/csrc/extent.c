/*
 * extent.c: the placement policy of the HBM arena and of the VMM address
 * windows: an address-ordered list of free extents, best-fit placement (the
 * smallest free extent that can hold the aligned request, lowest address on
 * ties) and coalescing of neighbours on free. A request fails when no single
 * extent fits, however much is free in total: fragmentation is real.
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ea_init(extent_alloc *a, uint64_t total)
{
    free(a->v);
    memset(a, 0, sizeof(*a));
    a->total = total;
    a->free = total;
    if (total) {
        a->cap = 16;
        a->v = malloc(a->cap * sizeof(extent));
        if (!a->v) {
            abort();
        }
        a->v[0].off = 0;
        a->v[0].len = total;
        a->n = 1;
    }
}

void ea_destroy(extent_alloc *a)
{
    free(a->v);
    memset(a, 0, sizeof(*a));
}

static void ea_insert_at(extent_alloc *a, size_t i, uint64_t off, uint64_t len)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        extent *nv = realloc(a->v, a->cap * sizeof(extent));
        if (!nv) {
            fprintf(stderr, "aclmock: out of host memory\n");
            abort();
        }
        a->v = nv;
    }
    memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof(extent));
    a->v[i].off = off;
    a->v[i].len = len;
    a->n++;
}

static void ea_remove_at(extent_alloc *a, size_t i)
{
    memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof(extent));
    a->n--;
}

bool ea_alloc(extent_alloc *a, uint64_t size, uint64_t align, uint64_t *off)
{
    if (size == 0 || size > a->free) {
        return false;
    }
    if (align == 0) {
        align = 1;
    }
    size_t best = SIZE_MAX;
    uint64_t best_len = UINT64_MAX, best_start = 0;
    for (size_t i = 0; i < a->n; i++) {
        const extent *e = &a->v[i];
        if (e->len < size || e->len >= best_len) {
            continue;
        }
        uint64_t start = round_up(e->off, align);
        if (start < e->off || start - e->off > e->len - size) {
            continue;
        }
        best = i;
        best_len = e->len;
        best_start = start;
    }
    if (best == SIZE_MAX) {
        return false;
    }
    extent e = a->v[best];
    uint64_t head = best_start - e.off;
    uint64_t tail = e.off + e.len - (best_start + size);
    if (head && tail) {
        a->v[best].len = head;
        ea_insert_at(a, best + 1, best_start + size, tail);
    } else if (head) {
        a->v[best].len = head;
    } else if (tail) {
        a->v[best].off = best_start + size;
        a->v[best].len = tail;
    } else {
        ea_remove_at(a, best);
    }
    a->free -= size;
    *off = best_start;
    return true;
}

void ea_free(extent_alloc *a, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi)
{
    /* first extent with offset > off */
    size_t l = 0, r = a->n;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (a->v[m].off <= off) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    size_t i = l;
    bool merge_prev = i > 0 && a->v[i - 1].off + a->v[i - 1].len == off;
    bool merge_next = i < a->n && off + len == a->v[i].off;
    a->free += len;
    if (merge_prev && merge_next) {
        a->v[i - 1].len += len + a->v[i].len;
        ea_remove_at(a, i);
        i--;
    } else if (merge_prev) {
        a->v[i - 1].len += len;
        i--;
    } else if (merge_next) {
        a->v[i].off = off;
        a->v[i].len += len;
    } else {
        ea_insert_at(a, i, off, len);
    }
    if (lo) {
        *lo = a->v[i].off;
    }
    if (hi) {
        *hi = a->v[i].off + a->v[i].len;
    }
}

uint64_t ea_largest(const extent_alloc *a)
{
    uint64_t best = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].len > best) {
            best = a->v[i].len;
        }
    }
    return best;
}
