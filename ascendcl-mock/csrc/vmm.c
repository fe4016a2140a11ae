/*
 * vmm.c: virtual memory management. aclrtReserveMemAddress takes a range of
 * the device's VMM address window; aclrtMallocPhysical takes pages from the
 * same HBM arena as aclrtMalloc; aclrtMapMem binds one whole physical
 * allocation at a granularity-aligned address of a range. Unmapping does not
 * wait for queued stream work (as on the card): a queued task that touches
 * an unmapped range is reported as use after free when it runs.
 */
#include "mock.h"
#include "ipc.h"

#include <stdlib.h>
#include <string.h>

static bool attr_is_ddr(aclrtMemAttr a)
{
    return a == ACL_DDR_MEM || a == ACL_DDR_MEM_HUGE || a == ACL_DDR_MEM_NORMAL || a == ACL_DDR_MEM_P2P_HUGE ||
           a == ACL_DDR_MEM_P2P_NORMAL;
}

/* Granularity of a physical memory attribute, 0 if unsupported. */
static uint64_t attr_granularity(aclrtMemAttr a)
{
    switch (a) {
    case ACL_HBM_MEM_HUGE1G:
    case ACL_HBM_MEM_P2P_HUGE1G:
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_HUGE1G:
        return MOCK_GRAN_1G;
    case ACL_HBM_MEM_HUGE:
    case ACL_HBM_MEM_NORMAL:
    case ACL_HBM_MEM_P2P_HUGE:
    case ACL_HBM_MEM_P2P_NORMAL:
    case ACL_MEM_NORMAL:
    case ACL_MEM_HUGE:
    case ACL_MEM_P2P_NORMAL:
    case ACL_MEM_P2P_HUGE:
        return MOCK_GRAN_2M;
    default:
        return 0;
    }
}

/* A physical handle argument; NULL (with error and misuse) when invalid. */
mock_phys *phys_arg(const void *handle, bool allow_freed)
{
    if (!handle) {
        fail(ACL_ERROR_INVALID_PARAM, "handle is null");
        return NULL;
    }
    mock_phys *p = (mock_phys *)obj_lookup(handle, OBJ_PHYS);
    if (!p) {
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p is not a physical memory handle", handle);
        fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a physical memory handle of this runtime", handle);
        return NULL;
    }
    if (p->refs == 0 && !allow_freed) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "physical handle p%llu was freed by aclrtFreePhysical",
               (unsigned long long)p->h.id);
        fail(ACL_ERROR_RT_PARAM_INVALID, "physical handle p%llu was already freed", (unsigned long long)p->h.id);
        return NULL;
    }
    return p;
}

int phys_release_if_unused(mock_phys *p)
{
    if (p->freed || p->refs || p->maps) {
        return -1;
    }
    p->freed = true;
    p->h.alive = false;
    /* by the last aclrtFreePhysical or aclrtUnmapMem */
    int reported = order_free(&p->log, 'p', p->h.id, p->size);
    ipc_phys_released(p); /* shared pages become private again (ipc_phys.c) */
    uint64_t lo = 0, hi = 0;
    ea_free(&G.devices[p->device].heap, p->off, p->size, &lo, &hi);
    arena_release_backing(p->device, p->off, p->size, lo, hi);
    G.live[ACLMOCK_RES_PHYSICAL]--;
    return reported;
}

/* The reservation holding `va`, with *dev set; NULL if none. */
mock_resv *resv_of(const void *va, int *dev)
{
    bool vmm = false;
    if (!mem_window((uintptr_t)va, dev, &vmm) || !vmm) {
        return NULL;
    }
    mock_device *d = &G.devices[*dev];
    return resv_find(d, (uintptr_t)va - d->vwin);
}

ACLMOCK_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                         aclrtMemGranularityOptions option, size_t *granularity)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemGetAllocationGranularity);
    ja_i64(&c, "memAttr", prop ? (int64_t)prop->memAttr : -1);
    ja_i64(&c, "option", (int64_t)option);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:1225-1248 (v8.5.0): prop, granularity null, then a memAttr
     * other than HBM_HUGE/HBM_NORMAL/HBM_HUGE1G -> 100000 (acl layer); the
     * option goes to the driver (closed): the mock refuses other values
     * with 100000 after those checks */
    if (!prop || !granularity) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", prop ? "granularity" : "prop"));
    }
    aclrtMemAttr a = prop->memAttr;
    if (a != ACL_HBM_MEM_HUGE && a != ACL_HBM_MEM_NORMAL && a != ACL_HBM_MEM_HUGE1G) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM,
                                     "memAttr %d is not ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL or ACL_HBM_MEM_HUGE1G",
                                     (int)a));
    }
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "option %d is not MINIMUM or RECOMMENDED", (int)option));
    }
    uint64_t gran = attr_granularity(a);
    replay_out_u64(&c, "granularity", &gran);
    *granularity = (size_t)gran;
    jo_u64(&c, "granularity", *granularity);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                               uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtReserveMemAddress);
    ja_u64(&c, "size", size);
    ja_u64(&c, "alignment", alignment);
    ja_ptr(&c, "expectPtr", expectPtr);
    ja_u64(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!virPtr || size == 0) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, virPtr ? "size is 0" : "virPtr is null"));
    }
    if (flags > 1) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "flags %llu is not 0 or 1", (unsigned long long)flags));
    }
    if (alignment != 0) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "alignment %zu is reserved and must be 0", alignment));
    }
    if (expectPtr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "expectPtr must be null (fixed addresses unsupported)"));
    }
    if (size % MOCK_GRAN_2M) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "size %zu is not a multiple of the 2 MiB granularity",
                                 size));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    aclError rc = device_windows(ctx->device);
    if (rc) {
        return call_end(&c, rc);
    }
    mock_device *d = &G.devices[ctx->device];
    uint64_t off = 0;
    if (!ea_alloc(&d->vspace, size, size >= MOCK_GIB ? MOCK_GIB : MOCK_GRAN_2M, &off)) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                                 "cannot reserve %zu bytes of address space on device %d (free %llu, largest %llu)",
                                 size, ctx->device, (unsigned long long)d->vspace.free,
                                 (unsigned long long)ea_largest(&d->vspace)));
    }
    mock_resv *r = calloc(1, sizeof(*r));
    if (!r) {
        abort();
    }
    r->id = ++G.next_resv;
    r->device = ctx->device;
    r->off = off;
    r->size = size;
    r->flags = flags;
    if (d->nresvs == d->capresvs) {
        d->capresvs = d->capresvs ? d->capresvs * 2 : 16;
        mock_resv **nv = realloc(d->resvs, d->capresvs * sizeof(*nv));
        if (!nv) {
            abort();
        }
        d->resvs = nv;
    }
    size_t i = d->nresvs;
    while (i > 0 && d->resvs[i - 1]->off > off) {
        i--;
    }
    memmove(&d->resvs[i + 1], &d->resvs[i], (d->nresvs - i) * sizeof(*d->resvs));
    d->resvs[i] = r;
    d->nresvs++;
    uintptr_t va = d->vwin + off;
    pm_del(&G.freed_resv, va);
    G.live[ACLMOCK_RES_RESERVATION]++;
    *virPtr = (void *)va;
    jo_ptr(&c, "virPtr", *virPtr);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    mock_call c;
    call_begin(&c, FN_aclrtReleaseMemAddress);
    ja_ptr(&c, "virPtr", virPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!virPtr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "virPtr is null"));
    }
    int dev = -1;
    mock_resv *r = resv_of(virPtr, &dev);
    if (!r || G.devices[dev].vwin + r->off != (uintptr_t)virPtr) {
        uint64_t id = 0;
        bool freed = !r && pm_get(&G.freed_resv, (uintptr_t)virPtr, &id);
        misuse(freed ? ACLMOCK_MISUSE_DOUBLE_FREE : ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p %s", virPtr,
               freed ? "was already released" : "is not the start of a reserved range");
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p %s", virPtr,
                                 freed ? "was already released" : "is not the start of a reserved range"));
    }
    if (r->nmaps) {
        misuse(ACLMOCK_MISUSE_RELEASE_MAPPED, "v%llu still has %zu mapping(s)", (unsigned long long)r->id, r->nmaps);
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "range v%llu still has %zu mapping(s); unmap them first", (unsigned long long)r->id,
                                 r->nmaps));
    }
    mock_device *d = &G.devices[dev];
    for (size_t i = 0; i < d->nresvs; i++) {
        if (d->resvs[i] == r) {
            memmove(&d->resvs[i], &d->resvs[i + 1], (d->nresvs - i - 1) * sizeof(*d->resvs));
            d->nresvs--;
            break;
        }
    }
    ea_free(&d->vspace, r->off, r->size, NULL, NULL);
    pm_put(&G.freed_resv, (uintptr_t)virPtr, r->id);
    free(r->maps);
    free(r);
    G.live[ACLMOCK_RES_RESERVATION]--;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                            uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtMallocPhysical);
    ja_u64(&c, "size", size);
    if (prop) {
        ja_i64(&c, "memAttr", (int64_t)prop->memAttr);
        ja_i64(&c, "device", (int64_t)prop->location.id);
    }
    ja_u64(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:888-1013 (v8.5.0), all acl layer (100000, no thread
     * error), in this order: handle, prop null; size 0; flags != 0;
     * handleType != NONE; allocationType != PINNED; location UNREGISTERED;
     * a DDR attribute on a device; an attribute outside the switch
     * (memory.cpp:912-1014: ACL_DDR_MEM, ACL_HBM_MEM and the
     * ACL_HBM_MEM_P2P_* values are refused, ACL_MEM_* 12..17 accepted) */
    if (!handle || !prop) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", handle ? "prop" : "handle"));
    }
    if (size == 0 || flags != 0) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, size ? "flags must be 0" : "size is 0"));
    }
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE || prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM,
                                     "handleType %d / allocationType %d are not NONE / PINNED",
                                     (int)prop->handleType, (int)prop->allocationType));
    }
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "location.type UNREGISTERED is not supported"));
    }
    aclrtMemAttr ma = prop->memAttr;
    bool dev_loc = prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE;
    bool p2p_hbm = ma == ACL_HBM_MEM_P2P_HUGE || ma == ACL_HBM_MEM_P2P_NORMAL || ma == ACL_HBM_MEM_P2P_HUGE1G;
    uint64_t gran = attr_granularity(ma);
    bool unknown = gran == 0 && !attr_is_ddr(ma);
    if ((dev_loc && attr_is_ddr(ma)) || ma == ACL_DDR_MEM || ma == ACL_HBM_MEM || p2p_hbm || unknown) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "memAttr %d cannot be allocated at location type %d",
                                     (int)ma, (int)prop->location.type));
    }
    /* Host (HOST, HOST_NUMA) physical memory passes the acl layer and is
     * the driver's (closed); the mock has no host VMM: refused with 100000
     * (a mock decision). */
    if (!dev_loc) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "location.type %d is not ACL_MEM_LOCATION_TYPE_DEVICE",
                                 (int)prop->location.type));
    }
    int32_t dev = (int32_t)prop->location.id;
    if (prop->location.id > INT32_MAX || !device_valid(dev)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "location.id %u is not a valid device",
                                 prop->location.id));
    }
    if (size % gran) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "size %zu is not a multiple of the granularity %llu",
                                 size, (unsigned long long)gran));
    }
    aclError rc = device_windows(dev);
    if (rc) {
        return call_end(&c, rc);
    }
    mock_device *d = &G.devices[dev];
    uint64_t off = 0;
    if (!ea_alloc(&d->heap, size, gran, &off)) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                                 "Failed to allocate memory of %zu bytes on device %d (free %llu bytes, largest free "
                                 "block %llu bytes)",
                                 size, dev, (unsigned long long)d->heap.free, (unsigned long long)ea_largest(&d->heap)));
    }
    mock_phys *p = calloc(1, sizeof(*p));
    if (!p) {
        abort();
    }
    obj_register(&p->h, OBJ_PHYS, ++G.next_phys);
    p->device = dev;
    p->off = off;
    p->size = size;
    p->gran = gran;
    p->prop = *prop;
    p->refs = 1;
    G.live[ACLMOCK_RES_PHYSICAL]++;
    *handle = p;
    jo_obj(&c, "handle", p, OBJ_PHYS);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    mock_call c;
    call_begin(&c, FN_aclrtFreePhysical);
    ja_obj(&c, "handle", handle, OBJ_PHYS);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_phys *p = phys_arg(handle, true);
    if (!p) {
        return call_end(&c, tls()->last_rc);
    }
    if (p->refs == 0) {
        misuse(ACLMOCK_MISUSE_DOUBLE_FREE, "physical handle p%llu was already freed", (unsigned long long)p->h.id);
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "physical handle p%llu was already freed",
                                 (unsigned long long)p->h.id));
    }
    if (p->maps) {
        /* CANN 8.5.0 docs/api_docs/aclrtFreePhysical.md:34 (constraints): a
         * mapped handle must be unmapped with aclrtUnmapMem before it is
         * freed. A precondition the caller broke is misuse. The release is
         * still deferred to the last unmap (the behaviour the facts record,
         * and the one that cannot corrupt the arena), and the call succeeds. */
        misuse(ACLMOCK_MISUSE_FREE_MAPPED_PHYSICAL,
               "physical handle p%llu still has %u mapping(s): aclrtUnmapMem them before aclrtFreePhysical",
               (unsigned long long)p->h.id, p->maps);
        order_journal(&c, ACLMOCK_MISUSE_FREE_MAPPED_PHYSICAL);
    }
    p->refs--;
    jo_u64(&c, "mappings", p->maps);
    order_journal(&c, phys_release_if_unused(p)); /* deferred while mapped */
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                                    uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtMapMem);
    ja_ptr(&c, "virPtr", virPtr);
    ja_u64(&c, "size", size);
    ja_u64(&c, "offset", offset);
    ja_obj(&c, "handle", handle, OBJ_PHYS);
    ja_u64(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!virPtr || !handle || size == 0 || flags != 0) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, !virPtr    ? "virPtr is null"
                                                          : !handle ? "handle is null"
                                                          : size    ? "flags must be 0"
                                                                    : "size is 0"));
    }
    mock_phys *p = phys_arg(handle, false);
    if (!p) {
        return call_end(&c, tls()->last_rc);
    }
    if (offset != 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "offset %zu must be 0", offset));
    }
    if (size != p->size) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "size %zu is not the size %llu of handle p%llu", size,
                                 (unsigned long long)p->size, (unsigned long long)p->h.id));
    }
    int dev = -1;
    mock_resv *r = resv_of(virPtr, &dev);
    if (!r) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not inside a reserved range", virPtr));
    }
    uint64_t off = (uintptr_t)virPtr - G.devices[dev].vwin - r->off;
    if ((uintptr_t)virPtr % p->gran) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not aligned to the granularity %llu", virPtr,
                                 (unsigned long long)p->gran));
    }
    if (size > r->size - off) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) goes past the end of range v%llu", virPtr,
                                 size, (unsigned long long)r->id));
    }
    size_t i = 0;
    while (i < r->nmaps && r->maps[i].off < off) {
        i++;
    }
    if ((i > 0 && r->maps[i - 1].off + r->maps[i - 1].size > off) || (i < r->nmaps && r->maps[i].off < off + size)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) overlaps an existing mapping", virPtr, size));
    }
    if (r->device != p->device) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "handle p%llu is on device %d but range v%llu on device %d",
                                 (unsigned long long)p->h.id, p->device, (unsigned long long)r->id, r->device));
    }
    if (r->nmaps == r->capmaps) {
        r->capmaps = r->capmaps ? r->capmaps * 2 : 8;
        mock_map *nv = realloc(r->maps, r->capmaps * sizeof(*nv));
        if (!nv) {
            abort();
        }
        r->maps = nv;
    }
    memmove(&r->maps[i + 1], &r->maps[i], (r->nmaps - i) * sizeof(*r->maps));
    r->maps[i] = (mock_map){++G.next_map, off, size, p, ACL_RT_MEM_ACCESS_FLAGS_READWRITE};
    r->nmaps++;
    p->maps++;
    G.live[ACLMOCK_RES_MAPPING]++;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    mock_call c;
    call_begin(&c, FN_aclrtUnmapMem);
    ja_ptr(&c, "virPtr", virPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!virPtr) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "virPtr is null"));
    }
    int dev = -1;
    mock_resv *r = resv_of(virPtr, &dev);
    mock_map *m = NULL;
    if (r) {
        uint64_t off = (uintptr_t)virPtr - G.devices[dev].vwin - r->off;
        m = map_find(r, off);
        if (m && m->off != off) {
            m = NULL;
        }
    }
    if (!m) {
        misuse(ACLMOCK_MISUSE_UNMAP_UNMAPPED, "%p is not the start of a mapping", virPtr);
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a mapping", virPtr));
    }
    mock_phys *p = m->phys;
    size_t i = (size_t)(m - r->maps);
    memmove(&r->maps[i], &r->maps[i + 1], (r->nmaps - i - 1) * sizeof(*r->maps));
    r->nmaps--;
    p->maps--;
    G.live[ACLMOCK_RES_MAPPING]--;
    order_journal(&c, phys_release_if_unused(p));
    return call_end(&c, ACL_SUCCESS);
}
