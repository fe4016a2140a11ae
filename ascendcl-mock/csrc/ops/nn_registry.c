/*
 * nn_registry.c (libnnopbase.so): the set of live descriptors and executors,
 * so that a destroyed or foreign handle is recognised before it is read.
 * Guarded by the mock's lock (every caller is inside a journaled call).
 * aclmockReset makes every earlier descriptor stale (not live, its memory
 * abandoned), as it does with the runtime's handles.
 */
#include "nn_internal.h"

#include <stdlib.h>

typedef struct slot {
    uintptr_t key; /* 0 empty, 1 tombstone */
    int kind;
    uint64_t gen; /* mock reset generation at creation: older entries are stale */
} slot;

static slot *tab;
static size_t cap, used;

static size_t hash(uintptr_t k) { return (size_t)((k >> 4) * 0x9e3779b97f4a7c15ull); }

static bool grow(void)
{
    size_t ncap = cap ? cap * 2 : 256;
    slot *nt = calloc(ncap, sizeof(slot));
    if (!nt) {
        return false;
    }
    for (size_t i = 0; i < cap; i++) {
        if (tab[i].key > 1) {
            size_t j = hash(tab[i].key) & (ncap - 1);
            while (nt[j].key) {
                j = (j + 1) & (ncap - 1);
            }
            nt[j] = tab[i];
        }
    }
    free(tab);
    tab = nt;
    cap = ncap;
    used = 0;
    for (size_t i = 0; i < cap; i++) {
        used += tab[i].key > 1;
    }
    return true;
}

static slot *find(const void *p)
{
    if (!cap || !p) {
        return NULL;
    }
    uintptr_t k = (uintptr_t)p;
    for (size_t j = hash(k) & (cap - 1);; j = (j + 1) & (cap - 1)) {
        if (tab[j].key == k) {
            return &tab[j];
        }
        if (tab[j].key == 0) {
            return NULL;
        }
    }
}

bool nn_reg_add(const void *p, int kind)
{
    slot *old = find(p); /* a stale entry whose address malloc reused */
    if (old) {
        old->kind = kind;
        old->gen = aclmock_generation();
        return true;
    }
    if ((used + 1) * 2 > cap && !grow()) {
        return false;
    }
    uintptr_t k = (uintptr_t)p;
    size_t j = hash(k) & (cap - 1);
    while (tab[j].key > 1) {
        j = (j + 1) & (cap - 1);
    }
    if (tab[j].key == 0) {
        used++;
    }
    tab[j].key = k;
    tab[j].kind = kind;
    tab[j].gen = aclmock_generation();
    return true;
}

bool nn_reg_del(const void *p, int kind)
{
    slot *s = find(p);
    if (!s || s->kind != kind || s->gen != aclmock_generation()) {
        return false;
    }
    s->key = 1;
    return true;
}

OPS_EXPORT bool aclmocknn_is_live(const void *p, int kind)
{
    slot *s = find(p);
    return s && s->kind == kind && s->gen == aclmock_generation();
}
