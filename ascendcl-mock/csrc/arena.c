/*
 * arena.c: the device memory model.
 *
 * Per device, created on first memory use:
 *  - a PROT_NONE window of address space for aclrtMalloc addresses (HBM
 *    capacity rounded up to 1 GiB) and a second one, 4x larger, for VMM
 *    reservations. Device addresses are therefore never host memory: a host
 *    dereference faults (see hostderef.c).
 *  - a sparse backing store: one MAP_NORESERVE anonymous mapping of the HBM
 *    capacity, indexed by arena offset. Linux backs only touched pages; freed
 *    extents are handed back with MADV_DONTNEED. A bitmap of touched pages
 *    gives aclmockBackedBytes.
 *
 * Pointer translation maps a device address to the bytes behind it: inside
 * one aclrtMalloc block, or piece by piece through the mappings of a VMM
 * reservation (a copy that straddles two mappings is split).
 */
#include "mock.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------- windows */

static void *map_window(uint64_t size, uint64_t align, uintptr_t *base, size_t *len)
{
    *len = (size_t)(size + align);
    void *m = mmap(NULL, *len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        return NULL;
    }
    *base = (uintptr_t)round_up((uint64_t)(uintptr_t)m, align);
    return m;
}

aclError device_windows(int32_t id)
{
    mock_device *d = device_get(id);
    if (d->windows) {
        return ACL_SUCCESS;
    }
    d->mwin_size = round_up(d->capacity, MOCK_GIB);
    d->vwin_size = 4 * d->mwin_size;
    uint64_t pages = d->capacity / MOCK_PAGE;
    d->bitmap_bytes = (size_t)round_up((pages + 7) / 8, MOCK_PAGE);
    d->mwin_map = map_window(d->mwin_size, MOCK_GIB, &d->mwin, &d->mwin_len);
    d->vwin_map = map_window(d->vwin_size, MOCK_GIB, &d->vwin, &d->vwin_len);
    void *backing = mmap(NULL, (size_t)d->capacity, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *bitmap = mmap(NULL, d->bitmap_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (!d->mwin_map || !d->vwin_map || backing == MAP_FAILED || bitmap == MAP_FAILED) {
        if (d->mwin_map) {
            munmap(d->mwin_map, d->mwin_len);
        }
        if (d->vwin_map) {
            munmap(d->vwin_map, d->vwin_len);
        }
        if (backing != MAP_FAILED) {
            munmap(backing, (size_t)d->capacity);
        }
        if (bitmap != MAP_FAILED) {
            munmap(bitmap, d->bitmap_bytes);
        }
        d->mwin_map = d->vwin_map = NULL;
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                    "cannot reserve host address space for device %d (%llu bytes of HBM)", id,
                    (unsigned long long)d->capacity);
    }
    d->backing = backing;
    d->bitmap = bitmap;
    ea_init(&d->vspace, d->vwin_size);
    d->windows = true;
    hostderef_install();
    return ACL_SUCCESS;
}

/* Which device window holds `a`, if any. */
bool mem_window(uintptr_t a, int *dev, bool *vmm)
{
    for (int i = 0; i < MOCK_MAX_DEVICES; i++) {
        const mock_device *d = &G.devices[i];
        if (!d->windows) {
            continue;
        }
        if (a >= d->mwin && a - d->mwin < d->mwin_size) {
            *dev = i;
            *vmm = false;
            return true;
        }
        if (a >= d->vwin && a - d->vwin < d->vwin_size) {
            *dev = i;
            *vmm = true;
            return true;
        }
    }
    return false;
}

int mem_where(const void *p)
{
    int dev;
    bool vmm;
    if (mem_window((uintptr_t)p, &dev, &vmm)) {
        return MEM_DEVICE;
    }
    return host_find((uintptr_t)p, true) ? MEM_PINNED : MEM_HOST;
}

/* ------------------------------------------------------ touched pages */

static void bits_update(mock_device *d, uint64_t first, uint64_t last, bool set)
{
    for (uint64_t p = first; p <= last;) {
        uint64_t w = p / 64, b = p % 64;
        uint64_t nb = 64 - b < last - p + 1 ? 64 - b : last - p + 1;
        uint64_t mask = nb == 64 ? ~0ULL : ((1ULL << nb) - 1) << b;
        uint64_t old = d->bitmap[w];
        if (set) {
            d->bitmap[w] = old | mask;
            d->touched_pages += (uint64_t)__builtin_popcountll(mask & ~old);
        } else if (old & mask) {
            d->bitmap[w] = old & ~mask;
            d->touched_pages -= (uint64_t)__builtin_popcountll(mask & old);
        }
        p += nb;
    }
}

static void mark_written(int dev, uint64_t off, uint64_t len)
{
    if (len) {
        bits_update(&G.devices[dev], off / MOCK_PAGE, (off + len - 1) / MOCK_PAGE, true);
    }
}

/* Drops whole pages [start, end) of the backing store. */
static void drop_pages(mock_device *d, uint64_t start, uint64_t end)
{
    if (start >= end) {
        return;
    }
    madvise(d->backing + start, (size_t)(end - start), MADV_DONTNEED);
    bits_update(d, start / MOCK_PAGE, end / MOCK_PAGE - 1, false);
}

void arena_release_backing(int device, uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
    mock_device *d = &G.devices[device];
    if (!d->backing) {
        return;
    }
    uint64_t a = round_down(off, MOCK_PAGE), b = round_up(off + len, MOCK_PAGE);
    uint64_t flo = round_up(lo, MOCK_PAGE), fhi = round_down(hi, MOCK_PAGE);
    drop_pages(d, a > flo ? a : flo, b < fhi ? b : fhi);
}

uint64_t arena_backed_bytes(void)
{
    uint64_t pages = 0;
    for (int i = 0; i < MOCK_MAX_DEVICES; i++) {
        pages += G.devices[i].touched_pages;
    }
    return pages * MOCK_PAGE;
}

/* ------------------------------------------------------- translation */

static aclError bad_range(bool quiet, aclmockMisuse kind, const char *fmt, const void *p, const char *sym)
{
    if (!quiet) {
        char detail[256];
        snprintf(detail, sizeof(detail), fmt, sym);
        misuse(kind, "%p: %s", p, detail);
        fail(ACL_ERROR_RT_PARAM_INVALID, "device address %p: %s", p, detail);
    }
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError mem_classify(const void *p, size_t n, bool write, bool quiet, mem_range *out)
{
    uintptr_t a = (uintptr_t)p;
    int dev;
    bool vmm;
    char sym[96];
    out->device = -1;
    out->fp = 0;
    if (mem_window(a, &dev, &vmm)) {
        mock_device *d = &G.devices[dev];
        out->where = MEM_DEVICE;
        out->device = dev;
        if (!vmm) {
            uint64_t off = a - d->mwin;
            mock_alloc *al = alloc_find(d, off, true);
            if (!al) {
                bool freed = pm_get(&G.freed_dev, a, NULL);
                sym_addr(p, sym, sizeof(sym));
                return bad_range(quiet, freed ? ACLMOCK_MISUSE_USE_AFTER_FREE : ACLMOCK_MISUSE_UNKNOWN_POINTER,
                                 freed ? "%s was freed" : "%s is not inside any live allocation", p, sym);
            }
            uint64_t at = off - al->off;
            if (n > al->padded || at > al->padded - n) {
                char detail[160];
                snprintf(detail, sizeof(detail), "m%llu+0x%llx (%zu bytes past an allocation of %llu)",
                         (unsigned long long)al->id, (unsigned long long)at, n, (unsigned long long)al->size);
                return bad_range(quiet, ACLMOCK_MISUSE_OUT_OF_BOUNDS, "%s goes past the end", p, detail);
            }
            if ((n > al->size || at > al->size - n) && !quiet) {
                /* a card's allocation is padded (aclrtMalloc.md:15), so it takes
                 * the access; the bytes past the size asked for are still not
                 * the caller's: misuse, and the call goes ahead */
                misuse(ACLMOCK_MISUSE_OUT_OF_BOUNDS,
                       "%p: m%llu+0x%llx, %zu bytes, reaches past the %llu bytes allocated into the padding a card "
                       "adds (up to %llu bytes): it works on a card, but allocate what you use",
                       p, (unsigned long long)al->id, (unsigned long long)at, n, (unsigned long long)al->size,
                       (unsigned long long)al->padded);
            }
            out->fp = fp_mix(1, al->id);
            return ACL_SUCCESS;
        }
        uint64_t voff = a - d->vwin;
        mock_resv *r = resv_find(d, voff);
        sym_addr(p, sym, sizeof(sym));
        if (!r) {
            return bad_range(quiet, ACLMOCK_MISUSE_UNKNOWN_POINTER, "%s is not inside any reserved range", p, sym);
        }
        uint64_t cur = voff - r->off;
        if (n > r->size - cur) {
            return bad_range(quiet, ACLMOCK_MISUSE_OUT_OF_BOUNDS, "%s: the range goes past the end of the reservation",
                             p, sym);
        }
        uint64_t end = cur + n, fp = 2;
        while (cur < end) {
            mock_map *m = map_find(r, cur);
            if (!m) {
                char at[96];
                snprintf(at, sizeof(at), "v%llu+0x%llx", (unsigned long long)r->id, (unsigned long long)cur);
                return bad_range(quiet, ACLMOCK_MISUSE_UNKNOWN_POINTER, "%s is reserved but not mapped", p, at);
            }
            bool allowed = write ? m->access == ACL_RT_MEM_ACCESS_FLAGS_READWRITE
                                 : m->access != ACL_RT_MEM_ACCESS_FLAGS_NONE;
            if (!allowed) {
                if (!quiet) {
                    fail(ACL_ERROR_RT_PARAM_INVALID, "device address %p: mapping does not allow %s (access 0x%x)", p,
                         write ? "writes" : "reads", m->access);
                }
                return ACL_ERROR_RT_PARAM_INVALID;
            }
            fp = fp_mix(fp, m->id);
            cur = m->off + m->size;
        }
        out->fp = fp;
        return ACL_SUCCESS;
    }
    mock_host *h = host_find(a, true);
    if (h) {
        out->where = MEM_PINNED;
        if (n > h->size - (a - h->addr)) {
            if (!quiet) {
                misuse(ACLMOCK_MISUSE_OUT_OF_BOUNDS, "%p: %zu bytes go past pinned host block h%llu of %zu bytes", p,
                       n, (unsigned long long)h->id, h->size);
                fail(ACL_ERROR_RT_PARAM_INVALID, "host address %p: %zu bytes go past the pinned block of %zu bytes",
                     p, n, h->size);
            }
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        out->fp = fp_mix(3, h->id);
        return ACL_SUCCESS;
    }
    out->where = MEM_HOST;
    return ACL_SUCCESS;
}

/* The bytes behind address `a`: a host pointer, or a pointer into a device
 * backing store with dev and boff set; *contig is how many bytes follow in the
 * same block or mapping. NULL if `a` is device memory that is not there. */
static unsigned char *resolve(uintptr_t a, uint64_t *contig, int *dev, uint64_t *boff)
{
    int d_id;
    bool vmm;
    *dev = -1;
    if (!mem_window(a, &d_id, &vmm)) {
        *contig = UINT64_MAX;
        return (unsigned char *)a;
    }
    mock_device *d = &G.devices[d_id];
    uint64_t off;
    if (!vmm) {
        mock_alloc *al = alloc_find(d, a - d->mwin, true);
        if (!al) {
            return NULL;
        }
        off = a - d->mwin;
        *contig = al->off + al->consumed - off;
    } else {
        uint64_t voff = a - d->vwin;
        mock_resv *r = resv_find(d, voff);
        mock_map *m = r ? map_find(r, voff - r->off) : NULL;
        if (!m) {
            return NULL;
        }
        uint64_t in = voff - r->off - m->off;
        off = m->phys->off + in;
        *contig = m->size - in;
    }
    *dev = d_id;
    *boff = off;
    return d->backing + off;
}

void mem_copy(void *dst, const void *src, size_t n)
{
    uintptr_t da = (uintptr_t)dst, sa = (uintptr_t)src;
    while (n) {
        uint64_t cd, cs, od = 0, os = 0;
        int dd, ds;
        unsigned char *pd = resolve(da, &cd, &dd, &od);
        unsigned char *ps = resolve(sa, &cs, &ds, &os);
        if (!pd || !ps) {
            return;
        }
        uint64_t k = n;
        k = cd < k ? cd : k;
        k = cs < k ? cs : k;
        memmove(pd, ps, (size_t)k);
        if (dd >= 0) {
            mark_written(dd, od, k);
        }
        da += k;
        sa += k;
        n -= (size_t)k;
    }
}

void mem_fill(void *dst, int value, size_t n)
{
    uintptr_t da = (uintptr_t)dst;
    while (n) {
        uint64_t cd, od = 0;
        int dd;
        unsigned char *pd = resolve(da, &cd, &dd, &od);
        if (!pd) {
            return;
        }
        uint64_t k = cd < n ? cd : n;
        if (dd >= 0 && (uint8_t)value == 0) {
            /* zero whole pages by dropping them: keeps the backing sparse */
            uint64_t a = round_up(od, MOCK_PAGE), b = round_down(od + k, MOCK_PAGE);
            if (a < b) {
                memset(pd, 0, (size_t)(a - od));
                drop_pages(&G.devices[dd], a, b);
                memset(pd + (b - od), 0, (size_t)(od + k - b));
                mark_written(dd, od, a - od);
                mark_written(dd, b, od + k - b);
                da += k;
                n -= (size_t)k;
                continue;
            }
        }
        memset(pd, (uint8_t)value, (size_t)k);
        if (dd >= 0) {
            mark_written(dd, od, k);
        }
        da += k;
        n -= (size_t)k;
    }
}

/* ------------------------------------------------------ symbolic names */

void sym_addr(const void *p, char *buf, size_t cap)
{
    uintptr_t a = (uintptr_t)p;
    int dev;
    bool vmm;
    uint64_t id = 0;
    if (mem_window(a, &dev, &vmm)) {
        mock_device *d = &G.devices[dev];
        if (!vmm) {
            mock_alloc *al = alloc_find(d, a - d->mwin, true);
            if (al) {
                snprintf(buf, cap, "m%llu+0x%llx", (unsigned long long)al->id,
                         (unsigned long long)(a - d->mwin - al->off));
            } else if (pm_get(&G.freed_dev, a, &id)) {
                snprintf(buf, cap, "m%llu+0x0", (unsigned long long)id);
            } else {
                snprintf(buf, cap, "d%d:0x%llx", dev, (unsigned long long)(a - d->mwin));
            }
            return;
        }
        mock_resv *r = resv_find(d, a - d->vwin);
        if (r) {
            snprintf(buf, cap, "v%llu+0x%llx", (unsigned long long)r->id,
                     (unsigned long long)(a - d->vwin - r->off));
        } else if (pm_get(&G.freed_resv, a, &id)) {
            snprintf(buf, cap, "v%llu+0x0", (unsigned long long)id);
        } else {
            snprintf(buf, cap, "d%dv:0x%llx", dev, (unsigned long long)(a - d->vwin));
        }
        return;
    }
    mock_host *h = host_find(a, true);
    if (h) {
        snprintf(buf, cap, "h%llu+0x%llx", (unsigned long long)h->id, (unsigned long long)(a - h->addr));
        return;
    }
    snprintf(buf, cap, "host");
}

/* --------------------------------------------------------- lookups */

mock_alloc *alloc_find(mock_device *d, uint64_t off, bool containing)
{
    size_t l = 0, r = d->nallocs;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (d->allocs[m].off <= off) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    if (l == 0) {
        return NULL;
    }
    mock_alloc *al = &d->allocs[l - 1];
    if (containing ? off - al->off < al->consumed : al->off == off) {
        return al;
    }
    return NULL;
}

mock_host *host_find(uintptr_t addr, bool containing)
{
    size_t l = 0, r = G.nhosts;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (G.hosts[m].addr <= addr) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    if (l == 0) {
        return NULL;
    }
    mock_host *h = &G.hosts[l - 1];
    if (containing ? addr - h->addr < h->size : h->addr == addr) {
        return h;
    }
    return NULL;
}

mock_resv *resv_find(mock_device *d, uint64_t off)
{
    size_t l = 0, r = d->nresvs;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (d->resvs[m]->off <= off) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    if (l == 0) {
        return NULL;
    }
    mock_resv *v = d->resvs[l - 1];
    return off - v->off < v->size ? v : NULL;
}

mock_map *map_find(mock_resv *res, uint64_t off)
{
    size_t l = 0, r = res->nmaps;
    while (l < r) {
        size_t m = (l + r) / 2;
        if (res->maps[m].off <= off) {
            l = m + 1;
        } else {
            r = m;
        }
    }
    if (l == 0) {
        return NULL;
    }
    mock_map *mp = &res->maps[l - 1];
    return off - mp->off < mp->size ? mp : NULL;
}
