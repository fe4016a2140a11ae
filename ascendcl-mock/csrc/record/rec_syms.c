/*
 * rec_syms.c: the recording shim's symbolic names, the same as the mock's
 * journal: handles c<N> (context), s<N> (stream; NULL is the default stream
 * s0), e<N> (event), p<N> (physical memory); addresses m<N>+0x<off> inside an
 * aclrtMalloc block, v<N>+0x<off> inside a reserved range, h<N>+0x<off>
 * inside an aclrtMallocHost block, anything else "host". Ids count from 1 per
 * kind in order of appearance; a destroyed handle keeps its id, a freed
 * block's start address too until it is handed out again.
 *
 * Everything here runs under the shim's lock (rec_begin .. rec_end).
 */
#include "rec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char letters[K_COUNT] = {'c', 's', 'e', 'p', 'm', 'h', 'v', 'n', 'm', 'y'};

/* ------------------------------------------------------------- handles */

/* Open-addressing hash table from (handle, kind) to id; programs such as
 * torch_npu create events by the thousand. */
typedef struct handle {
    uintptr_t h; /* 0: empty slot */
    int kind;
    uint64_t id;
} handle;

static handle *handles;
static size_t nhandles, caphandles; /* caphandles: a power of two */
static uint64_t next_id[K_COUNT];

static size_t handle_slot(uintptr_t h, int kind)
{
    uint64_t x = ((uint64_t)h ^ ((uint64_t)kind << 59)) * 0x9E3779B97F4A7C15ULL;
    return (size_t)(x ^ (x >> 31)) & (caphandles - 1);
}

static handle *handle_find(uintptr_t h, int kind)
{
    if (!caphandles) {
        return NULL;
    }
    for (size_t i = handle_slot(h, kind);; i = (i + 1) & (caphandles - 1)) {
        if (!handles[i].h) {
            return NULL;
        }
        if (handles[i].h == h && handles[i].kind == kind) {
            return &handles[i];
        }
    }
}

static void handle_grow(void)
{
    handle *old = handles;
    size_t oldcap = caphandles;
    caphandles = caphandles ? caphandles * 2 : 256;
    handles = calloc(caphandles, sizeof(*handles));
    if (!handles) {
        abort();
    }
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].h) {
            size_t j = handle_slot(old[i].h, old[i].kind);
            while (handles[j].h) {
                j = (j + 1) & (caphandles - 1);
            }
            handles[j] = old[i];
        }
    }
    free(old);
}

static uint64_t handle_new(uintptr_t h, int kind)
{
    handle *e = handle_find(h, kind);
    if (!e) {
        if ((nhandles + 1) * 4 >= caphandles * 3) {
            handle_grow();
        }
        size_t i = handle_slot(h, kind);
        while (handles[i].h) {
            i = (i + 1) & (caphandles - 1);
        }
        e = &handles[i];
        e->h = h;
        e->kind = kind;
        nhandles++;
    }
    e->id = ++next_id[kind];
    return e->id;
}

static uint64_t handle_id(uintptr_t h, int kind)
{
    handle *e = handle_find(h, kind);
    return e ? e->id : handle_new(h, kind);
}

uint64_t rec_nn_new(const void *h) { return h ? handle_new((uintptr_t)h, K_NN) : 0; }

uint64_t rec_nn_find(const void *h)
{
    handle *e = h ? handle_find((uintptr_t)h, K_NN) : NULL;
    return e ? e->id : 0;
}

/* ------------------------------------------------------------- memory */

typedef struct block {
    uintptr_t base;
    uint64_t size, id;
    int kind;
    bool live;
} block;

static block *blocks; /* sorted by base; freed ones kept (live = false) until reused */
static size_t nblocks, capblocks;

void syms_reset_locked(void)
{
    free(handles);
    free(blocks);
    handles = NULL;
    blocks = NULL;
    nhandles = caphandles = nblocks = capblocks = 0;
    memset(next_id, 0, sizeof(next_id));
    rec_comm_reset_locked();
    rec_nn_reset_locked();
}

/* Index of the last block with base <= a, or -1. */
static long block_floor(uintptr_t a)
{
    size_t l = 0, r = nblocks;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (blocks[m].base <= a) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    return (long)l - 1;
}

/* The live block holding a, or a freed block starting at a. */
static block *block_at(uintptr_t a)
{
    for (long i = block_floor(a); i >= 0; i--) {
        block *b = &blocks[i];
        if (b->live && a - b->base < b->size) {
            return b;
        }
        if (!b->live && b->base == a && b->kind != K_HOST) {
            return b; /* like the mock: a freed pinned block is plain host memory */
        }
        if (b->base < a && b->live) {
            break; /* live blocks do not overlap: nothing further left holds a */
        }
    }
    return NULL;
}

static void sym_addr(const void *p, char *out, size_t cap, rec_call *c)
{
    uintptr_t a = (uintptr_t)p;
    block *b = block_at(a);
    if (!b) {
        snprintf(out, cap, "host");
        return;
    }
    snprintf(out, cap, "%c%llu+0x%llx", letters[b->kind], (unsigned long long)b->id,
             (unsigned long long)(a - b->base));
    c->last_kind = b->kind;
    c->last_id = b->id;
}

/* ----------------------------------------------------------- formatting */

/* Arguments and out-values grow as needed (jbuf): a field is never cut. */
#define ARGS &c->args
#define OUTS &c->out
#define put jb_printf

static void put_key(jbuf *b, const char *key) { jb_printf(b, "%s\"%s\":", b->len ? "," : "", key); }

void ra_i64(rec_call *c, const char *key, int64_t v)
{
    if (c->on) {
        put_key(ARGS, key);
        put(ARGS, "%lld", (long long)v);
    }
}

void ra_u64(rec_call *c, const char *key, uint64_t v)
{
    if (c->on) {
        put_key(ARGS, key);
        put(ARGS, "%llu", (unsigned long long)v);
    }
}

void ra_hex(rec_call *c, const char *key, uint64_t v)
{
    if (c->on) {
        put_key(ARGS, key);
        put(ARGS, "\"0x%llx\"", (unsigned long long)v);
    }
}

void ra_str(rec_call *c, const char *key, const char *s)
{
    if (c->on) {
        put_key(ARGS, key);
        jb_quote(ARGS, s);
    }
}

void ra_ptr(rec_call *c, const char *key, const void *p)
{
    if (!c->on) {
        return;
    }
    put_key(ARGS, key);
    if (!p) {
        put(ARGS, "null");
        return;
    }
    char sym[96];
    sym_addr(p, sym, sizeof(sym), c);
    put(ARGS, "\"%s\"", sym);
}

void ra_obj(rec_call *c, const char *key, const void *h, int kind)
{
    if (!c->on) {
        return;
    }
    put_key(ARGS, key);
    if (!h) {
        put(ARGS, "null");
        return;
    }
    put(ARGS, "\"%c%llu\"", letters[kind], (unsigned long long)handle_id((uintptr_t)h, kind));
}

void ra_stream(rec_call *c, const char *key, const void *s)
{
    if (!c->on) {
        return;
    }
    if (!s) {
        put_key(ARGS, key);
        put(ARGS, "\"s0\"");
        return;
    }
    ra_obj(c, key, s, K_STREAM);
}

void ro_i64(rec_call *c, const char *key, int64_t v)
{
    if (c->on) {
        put_key(OUTS, key);
        put(OUTS, "%lld", (long long)v);
    }
}

void ro_u64(rec_call *c, const char *key, uint64_t v)
{
    if (c->on) {
        put_key(OUTS, key);
        put(OUTS, "%llu", (unsigned long long)v);
    }
}

void ro_f64(rec_call *c, const char *key, double v)
{
    if (c->on) {
        put_key(OUTS, key);
        put(OUTS, "%.6f", v);
    }
}

void ro_str(rec_call *c, const char *key, const char *s)
{
    if (c->on) {
        put_key(OUTS, key);
        jb_quote(OUTS, s);
    }
}

void ro_new_obj(rec_call *c, const char *key, const void *h, int kind)
{
    if (!c->on || !h) {
        return;
    }
    put_key(OUTS, key);
    put(OUTS, "\"%c%llu\"", letters[kind], (unsigned long long)handle_new((uintptr_t)h, kind));
}

void ro_obj(rec_call *c, const char *key, const void *h, int kind)
{
    if (!c->on || !h) {
        return;
    }
    put_key(OUTS, key);
    put(OUTS, "\"%c%llu\"", letters[kind], (unsigned long long)handle_id((uintptr_t)h, kind));
}

/* Binds `h` to an id taken earlier (a model's, at its capture's begin). */
static uint64_t handle_bind(uintptr_t h, int kind, uint64_t id)
{
    uint64_t taken = next_id[kind];
    next_id[kind] = id - 1;
    handle_new(h, kind);
    next_id[kind] = taken;
    return id;
}

/* Captures begun whose model handle has not been seen yet: (stream, id).
 * One capture per stream at a time; a program with more than this many
 * captures open at once gets its later models numbered when seen. */
#define REC_OPEN_CAPTURES 64
static struct {
    uintptr_t stream;
    uint64_t id;
} open_captures[REC_OPEN_CAPTURES];
static size_t nopen_captures;

void rec_model_begun(const void *stream)
{
    uint64_t id = ++next_id[K_MODEL];
    for (size_t i = 0; i < nopen_captures; i++) {
        if (open_captures[i].stream == (uintptr_t)stream) {
            open_captures[i].id = id; /* an earlier capture never returned its model */
            return;
        }
    }
    if (nopen_captures < REC_OPEN_CAPTURES) {
        open_captures[nopen_captures].stream = (uintptr_t)stream;
        open_captures[nopen_captures].id = id;
        nopen_captures++;
    }
}

void ro_model(rec_call *c, const char *key, const void *stream, const void *h)
{
    if (!h) {
        return;
    }
    uint64_t id = 0;
    if (handle_find((uintptr_t)h, K_MODEL)) {
        id = handle_id((uintptr_t)h, K_MODEL);
    } else {
        for (size_t i = 0; i < nopen_captures; i++) {
            if (open_captures[i].stream == (uintptr_t)stream) {
                id = handle_bind((uintptr_t)h, K_MODEL, open_captures[i].id);
                open_captures[i] = open_captures[--nopen_captures];
                break;
            }
        }
        if (!id) {
            id = handle_new((uintptr_t)h, K_MODEL);
        }
    }
    if (c->on) {
        put_key(OUTS, key);
        put(OUTS, "\"%c%llu\"", letters[K_MODEL], (unsigned long long)id);
    }
}

void ro_new_mem(rec_call *c, const char *key, const void *p, uint64_t size, int kind)
{
    if (!c->on || !p) {
        return;
    }
    uintptr_t a = (uintptr_t)p;
    long i = block_floor(a);
    /* drop what the new block replaces: a freed block at its start */
    if (i >= 0 && blocks[i].base == a) {
        memmove(&blocks[i], &blocks[i + 1], (nblocks - (size_t)i - 1) * sizeof(*blocks));
        nblocks--;
        i--;
    }
    if (nblocks == capblocks) {
        capblocks = capblocks ? capblocks * 2 : 256;
        block *nb = realloc(blocks, capblocks * sizeof(*nb));
        if (!nb) {
            abort();
        }
        blocks = nb;
    }
    size_t at = (size_t)(i + 1);
    memmove(&blocks[at + 1], &blocks[at], (nblocks - at) * sizeof(*blocks));
    blocks[at] = (block){a, size ? size : 1, ++next_id[kind], kind, true};
    nblocks++;
    put_key(OUTS, key);
    put(OUTS, "\"%c%llu+0x0\"", letters[kind], (unsigned long long)blocks[at].id);
}

void rec_mem_freed(rec_call *c, const void *p, int kind)
{
    if (!c->on || !p || c->last_kind != kind) {
        return;
    }
    long i = block_floor((uintptr_t)p);
    for (; i >= 0; i--) {
        block *b = &blocks[i];
        if (b->base == (uintptr_t)p && b->live && b->kind == kind && b->id == c->last_id) {
            b->live = false;
            return;
        }
        if (b->base != (uintptr_t)p) {
            return;
        }
    }
}
