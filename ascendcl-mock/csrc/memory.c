/*
 * memory.c: device memory (aclrtMalloc family, aclrtFree), pinned host
 * memory, copies, fills and aclrtGetMemInfo.
 *
 * aclrtMalloc draws from the device's HBM arena (arena.c/extent.c): the
 * request is rounded up to 32 bytes plus 32 bytes of padding (none for
 * aclrtMallocAlign32 and the 1 GiB policies), huge-page policies consume
 * whole 2 MiB pages for requests over 1 MiB, HUGE1G whole 1 GiB pages.
 * Copies and fills are in copy.c.
 */
#include "mock.h"
#include "ipc.h"

#include <stdlib.h>
#include <string.h>

#define POLICY_FLAGS (0x100u | 0x1000u | 0x100000u)

/* ------------------------------------------------------ registries */

void alloc_insert(mock_device *d, const mock_alloc *al)
{
    if (d->nallocs == d->capallocs) {
        size_t ncap = d->capallocs ? d->capallocs * 2 : 64;
        mock_alloc *nv = realloc(d->allocs, ncap * sizeof(*nv));
        if (!nv) {
            abort();
        }
        d->allocs = nv;
        d->capallocs = ncap;
    }
    size_t i = d->nallocs;
    while (i > 0 && d->allocs[i - 1].off > al->off) {
        i--;
    }
    memmove(&d->allocs[i + 1], &d->allocs[i], (d->nallocs - i) * sizeof(*al));
    d->allocs[i] = *al;
    d->nallocs++;
}

void host_insert(const mock_host *h)
{
    if (G.nhosts == G.caphosts) {
        size_t ncap = G.caphosts ? G.caphosts * 2 : 64;
        mock_host *nv = realloc(G.hosts, ncap * sizeof(*nv));
        if (!nv) {
            abort();
        }
        G.hosts = nv;
        G.caphosts = ncap;
    }
    size_t i = G.nhosts;
    while (i > 0 && G.hosts[i - 1].addr > h->addr) {
        i--;
    }
    memmove(&G.hosts[i + 1], &G.hosts[i], (G.nhosts - i) * sizeof(*h));
    G.hosts[i] = *h;
    G.nhosts++;
}

void memory_reset_locked(void)
{
    for (size_t i = 0; i < G.nhosts; i++) {
        order_log_free(&G.hosts[i].log);
        if (!G.hosts[i].registered) { /* registered memory is the caller's */
            free((void *)G.hosts[i].addr);
        }
    }
    free(G.hosts);
    G.hosts = NULL;
    G.nhosts = G.caphosts = 0;
    for (int i = 0; i < MOCK_MAX_DEVICES; i++) {
        mock_device *d = &G.devices[i];
        free(d->allocs);
        d->allocs = NULL;
        d->nallocs = d->capallocs = 0;
        for (size_t k = 0; k < d->nallocs; k++) {
            order_log_free(&d->allocs[k].log);
        }
        for (size_t k = 0; k < d->nresvs; k++) {
            free(d->resvs[k]->maps);
            free(d->resvs[k]);
        }
        free(d->resvs);
        d->resvs = NULL;
        d->nresvs = d->capresvs = 0;
    }
    pm_clear(&G.freed_dev);
    pm_clear(&G.freed_host);
    pm_clear(&G.freed_resv);
}

/* ------------------------------------------------------------- malloc */

/*
 * Device allocation checks (CANN 8.5.0, src/acl/aclrt_impl/memory.cpp):
 * - aclrtMalloc/Align32 (aclMallocMemInner, :140-185), aclrtMallocCached
 *   (:233-265): null devPtr, size 0, size overflowing when padded -> 100000;
 *   an unknown policy is not an error: it becomes RT_MEMORY_DEFAULT
 *   (:175-177, :257-259) and the (closed) driver picks the pages; the mock
 *   treats it as ACL_MEM_MALLOC_HUGE_FIRST;
 * - aclrtMallocWithCfg (aclrtMallocInnerWithCfg, :187-215): null devPtr,
 *   then cfg with numAttrs != 0 and null attrs, then size 0 -> 100000; the
 *   size is passed on unpadded (:209); the runtime refuses any cfg with
 *   null attrs -> 107000 (api_error.cc:5842-5844); the policy is not
 *   checked either (api_impl.cc:7975-8000).
 * Then no current context -> 107002 (api_impl.cc:7969-7970).
 */
static aclError do_malloc(mock_call *c, void **devPtr, size_t size, aclrtMemMallocPolicy policy, bool align32,
                          const aclrtMallocConfig *cfg)
{
    if (!devPtr) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "devPtr is null");
    }
    if (cfg && cfg->numAttrs && !cfg->attrs) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "cfg has %zu attributes but attrs is null", cfg->numAttrs);
    }
    if (size == 0) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    }
    if (size > SIZE_MAX - 2 * MOCK_GIB) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "size %zu overflows when rounded up", size);
    }
    if (cfg && !cfg->attrs) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "cfg is given without attrs");
    }
    uint32_t pol = (uint32_t)policy;
    uint32_t base = pol & ~POLICY_FLAGS;
    if (base > (uint32_t)ACL_MEM_MALLOC_HUGE1G_ONLY_P2P) {
        base = ACL_MEM_MALLOC_HUGE_FIRST;
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    int dev = ctx->device;
    aclError rc = device_windows(dev);
    if (rc) {
        return rc;
    }
    mock_device *d = &G.devices[dev];
    bool huge1g = base == ACL_MEM_MALLOC_HUGE1G_ONLY || base == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    bool huge = base == ACL_MEM_MALLOC_HUGE_FIRST || base == ACL_MEM_MALLOC_HUGE_ONLY ||
                base == ACL_MEM_MALLOC_HUGE_FIRST_P2P || base == ACL_MEM_MALLOC_HUGE_ONLY_P2P;
    uint64_t consumed, align;
    /* rounded up to 32 bytes, plus 32 but for 1G huge pages (aclrtMalloc.md:15) */
    uint64_t padded = round_up(size, 32) + (align32 || huge1g ? 0 : 32);
    if (huge1g) {
        consumed = round_up(size, MOCK_GIB);
        align = MOCK_GIB;
    } else {
        if (huge && size > MOCK_MIB) {
            consumed = round_up(padded, MOCK_GRAN_2M);
            align = MOCK_GRAN_2M;
        } else {
            consumed = padded;
            align = 64;
        }
    }
    uint64_t off = 0;
    if (!ea_alloc(&d->heap, consumed, align, &off)) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                    "Failed to allocate memory of %zu bytes on device %d (free %llu bytes, largest free block %llu "
                    "bytes)",
                    size, dev, (unsigned long long)d->heap.free, (unsigned long long)ea_largest(&d->heap));
    }
    mock_alloc al = {++G.next_alloc, off, size, consumed, NULL, padded};
    alloc_insert(d, &al);
    uintptr_t addr = d->mwin + off;
    pm_del(&G.freed_dev, addr);
    G.live[ACLMOCK_RES_DEVICE_BUFFER]++;
    *devPtr = (void *)addr;
    jo_ptr(c, "devPtr", *devPtr);
    jo_u64(c, "consumed", consumed);
    return ACL_SUCCESS;
}

static aclError malloc_entry(int fn, void **devPtr, size_t size, aclrtMemMallocPolicy policy, bool align32,
                             const aclrtMallocConfig *cfg)
{
    mock_call c;
    call_begin(&c, fn);
    ja_u64(&c, "size", size);
    ja_i64(&c, "policy", (int64_t)policy);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, do_malloc(&c, devPtr, size, policy, align32, cfg));
}

ACLMOCK_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_entry(FN_aclrtMalloc, devPtr, size, policy, false, NULL);
}

ACLMOCK_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_entry(FN_aclrtMallocAlign32, devPtr, size, policy, true, NULL);
}

ACLMOCK_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_entry(FN_aclrtMallocCached, devPtr, size, policy, false, NULL);
}

ACLMOCK_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                           aclrtMallocConfig *cfg)
{
    return malloc_entry(FN_aclrtMallocWithCfg, devPtr, size, policy, true, cfg); /* unpadded */
}

ACLMOCK_EXPORT aclError aclrtFree(void *devPtr)
{
    mock_call c;
    call_begin(&c, FN_aclrtFree);
    ja_ptr(&c, "devPtr", devPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!devPtr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "devPtr is null"));
    }
    uintptr_t a = (uintptr_t)devPtr;
    int dev = -1;
    bool vmm = false;
    mock_alloc *al = NULL;
    if (mem_window(a, &dev, &vmm) && !vmm) {
        al = alloc_find(&G.devices[dev], a - G.devices[dev].mwin, false);
    }
    if (!al) {
        uint64_t id = 0;
        if (dev >= 0 && !vmm && pm_get(&G.freed_dev, a, &id)) {
            misuse(ACLMOCK_MISUSE_DOUBLE_FREE, "%p (m%llu) was already freed", devPtr, (unsigned long long)id);
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p (m%llu) was already freed", devPtr,
                                     (unsigned long long)id));
        }
        char sym[96];
        sym_addr(devPtr, sym, sizeof(sym));
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p (%s) is not the start of an aclrtMalloc block", devPtr, sym);
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p (%s) is not the start of an aclrtMalloc block",
                                 devPtr, sym));
    }
    if (ipc_mem_is_import(dev, al->off)) {
        /* an import is the exporter's memory: aclrtIpcMemClose unmaps it (mock) */
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "%p was imported by aclrtIpcMemImportByKey: close it with aclrtIpcMemClose", devPtr));
    }
    capture_note_free(devPtr, al->size, "aclrtFree");
    mock_device *d = &G.devices[dev];
    mock_alloc gone = *al;
    size_t idx = (size_t)(al - d->allocs);
    memmove(&d->allocs[idx], &d->allocs[idx + 1], (d->nallocs - idx - 1) * sizeof(*al));
    d->nallocs--;
    uint64_t lo = 0, hi = 0;
    /* freeing is a host write to all of it: queued work must be known done */
    order_journal(&c, order_free(&gone.log, 'm', gone.id, gone.size));
    ipc_mem_block_freed(dev, gone.off, gone.consumed); /* an exported block gets private pages again */
    ea_free(&d->heap, gone.off, gone.consumed, &lo, &hi);
    arena_release_backing(dev, gone.off, gone.consumed, lo, hi);
    pm_put(&G.freed_dev, a, gone.id);
    G.live[ACLMOCK_RES_DEVICE_BUFFER]--;
    return call_end(&c, ACL_SUCCESS);
}

/* ---------------------------------------------------------- host memory */

ACLMOCK_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    mock_call c;
    call_begin(&c, FN_aclrtMallocHost);
    ja_u64(&c, "size", size);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!hostPtr || size == 0) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, hostPtr ? "size is 0" : "hostPtr is null"));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    void *p = NULL;
    if (size > SIZE_MAX - 64 || posix_memalign(&p, 64, round_up(size, 64)) != 0) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of pinned host memory",
                                 size));
    }
    mock_host h = {.id = ++G.next_host, .addr = (uintptr_t)p, .size = size};
    host_insert(&h);
    pm_del(&G.freed_host, (uint64_t)(uintptr_t)p);
    G.live[ACLMOCK_RES_HOST_BUFFER]++;
    *hostPtr = p;
    jo_ptr(&c, "hostPtr", p);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    mock_call c;
    call_begin(&c, FN_aclrtFreeHost);
    ja_ptr(&c, "hostPtr", hostPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!hostPtr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "hostPtr is null"));
    }
    mock_host *h = host_find((uintptr_t)hostPtr, false);
    if (h && h->registered) {
        /* the runtime frees only what it allocated; registered memory is
         * released by aclrtHostUnregister (host_register.c) */
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p was registered by aclrtHostRegister, not allocated by "
               "aclrtMallocHost (use aclrtHostUnregister)", hostPtr);
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p was registered by aclrtHostRegister; release it "
                                 "with aclrtHostUnregister", hostPtr));
    }
    if (!h) {
        uint64_t id = 0;
        bool freed = pm_get(&G.freed_host, (uint64_t)(uintptr_t)hostPtr, &id);
        misuse(freed ? ACLMOCK_MISUSE_DOUBLE_FREE : ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p %s", hostPtr,
               freed ? "was already freed by aclrtFreeHost" : "is not the start of an aclrtMallocHost block");
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p %s", hostPtr,
                                 freed ? "was already freed" : "is not the start of an aclrtMallocHost block"));
    }
    uint64_t id = h->id;
    /* freeing is a host write to all of it: queued copies must be known done */
    order_journal(&c, order_free(&h->log, 'h', h->id, h->size));
    size_t idx = (size_t)(h - G.hosts);
    memmove(&G.hosts[idx], &G.hosts[idx + 1], (G.nhosts - idx - 1) * sizeof(*h));
    G.nhosts--;
    free(hostPtr);
    pm_put(&G.freed_host, (uint64_t)(uintptr_t)hostPtr, id);
    G.live[ACLMOCK_RES_HOST_BUFFER]--;
    return call_end(&c, ACL_SUCCESS);
}

/* ---------------------------------------------------------------- info */

ACLMOCK_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetMemInfo);
    ja_i64(&c, "attr", (int64_t)attr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:742-743 (v8.5.0): free, then total, null -> 100000 */
    if (!free_ || !total) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", free_ ? "total" : "free"));
    }
    /* api_error.cc:2418-2419: only RT_MEMORYINFO_DDR..HBM_P2P_HUGE1G
     * (mem.h:152-163, = ACL_DDR_MEM..ACL_HBM_MEM_P2P_HUGE1G, 0..11) pass;
     * anything else, the 8.5 header's ACL_MEM_NORMAL..ACL_MEM_P2P_HUGE1G
     * (12..17) included, is RT_ERROR_INVALID_MEMORY_TYPE -> 107016
     * (errcode_manage.cc:301), before the context check (api_impl.cc:3130) */
    if ((unsigned)attr > (unsigned)ACL_HBM_MEM_P2P_HUGE1G) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_MEMORY_TYPE, "attr %d is not a valid memory type [0, %d]",
                                 (int)attr, (int)ACL_HBM_MEM_P2P_HUGE1G));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    bool ddr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
               attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
    mock_device *d = device_get(ctx->device);
    uint64_t f = ddr ? 0 : d->heap.free, tot = ddr ? 0 : d->capacity;
    replay_out_u64(&c, "free", &f);
    replay_out_u64(&c, "total", &tot);
    *free_ = (size_t)f;
    *total = (size_t)tot;
    jo_u64(&c, "free", *free_);
    jo_u64(&c, "total", *total);
    return call_end(&c, ACL_SUCCESS);
}
