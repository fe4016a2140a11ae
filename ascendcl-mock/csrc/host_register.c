/*
 * host_register.c: pinned host memory beyond aclrtMallocHost:
 * aclrtMallocHostWithCfg, aclrtHostRegister / aclrtHostUnregister, and
 * aclrtPointerGetAttributes (where any pointer's memory lives).
 *
 * A registered range joins the pinned blocks (G.hosts, flagged `registered`):
 * copies from and to it are asynchronous and tracked by the happens-before
 * model exactly like aclrtMallocHost memory, and it counts as a live host
 * buffer until unregistered. The memory stays the caller's: the mock never
 * frees it. The device address of a registered range is the host address
 * itself (the mock's device reads host memory directly).
 */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

ACLMOCK_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    mock_call c;
    call_begin(&c, FN_aclrtMallocHostWithCfg);
    ja_u64(&c, "size", size);
    ja_u64(&c, "numAttrs", cfg ? cfg->numAttrs : 0);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:290-298: ptr null, size 0 -> 100000 (reported) */
    if (!ptr) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "ptr is null"));
    }
    if (size == 0) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than zero"));
    }
    /* api_impl.cc:2451-2455, 2410-2427: a cfg needs attrs, and only the
     * MODULE_ID and VA_FLAG attributes are accepted -> else 107000 */
    if (cfg) {
        if (!cfg->attrs) {
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs is null"));
        }
        for (size_t i = 0; i < cfg->numAttrs; i++) {
            aclrtMallocAttrType a = cfg->attrs[i].attr;
            if (a != ACL_RT_MEM_ATTR_MODULE_ID && a != ACL_RT_MEM_ATTR_VA_FLAG) {
                return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "attribute %zu (type %d) is not MODULE_ID or "
                                         "VA_FLAG", i, (int)a));
            }
        }
    }
    /* api_impl.cc:2457-2458: then the current context -> 107002 */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    void *p = NULL;
    if (size > SIZE_MAX - 64 || posix_memalign(&p, 64, round_up(size, 64)) != 0) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %llu bytes of pinned host memory",
                                 (unsigned long long)size));
    }
    mock_host h = {.id = ++G.next_host, .addr = (uintptr_t)p, .size = (size_t)size};
    host_insert(&h);
    pm_del(&G.freed_host, (uint64_t)(uintptr_t)p);
    G.live[ACLMOCK_RES_HOST_BUFFER]++;
    *ptr = p;
    jo_ptr(&c, "ptr", p);
    return call_end(&c, ACL_SUCCESS);
}

/* The first pinned or registered block overlapping [a, a+n), or NULL. */
static const mock_host *host_overlap(uintptr_t a, size_t n)
{
    for (size_t i = 0; i < G.nhosts; i++) {
        const mock_host *h = &G.hosts[i];
        if (h->addr < a + n && a < h->addr + h->size) {
            return h;
        }
    }
    return NULL;
}

ACLMOCK_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    mock_call c;
    call_begin(&c, FN_aclrtHostRegister);
    ja_ptr(&c, "ptr", ptr);
    ja_u64(&c, "size", size);
    ja_i64(&c, "type", (int64_t)type);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:326-335: ptr, devPtr null, size 0 -> 100000 (reported) */
    if (!ptr || !devPtr) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", ptr ? "devPtr" : "ptr"));
    }
    if (size == 0) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than zero"));
    }
    /* api_error.cc:1470-1473: a type other than MAPPED -> 207000 (reported
     * by the acl layer, memory.cpp:338) */
    if (type != ACL_HOST_REGISTER_MAPPED) {
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "type %d is not ACL_HOST_REGISTER_MAPPED",
                                 (int)type));
    }
    /* api_impl.cc:2526-2527: the current context -> 107002 */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    /* the driver decides the rest (closed): the mock refuses device memory
     * (107000) and a range overlapping pinned or registered memory (507910,
     * the code aclrtHostRegisterV2's own check gives, api_error.cc:1494) */
    uintptr_t a = (uintptr_t)ptr;
    int dev = -1;
    bool vmm = false;
    if (size > SIZE_MAX - a || mem_window(a, &dev, &vmm) || mem_window(a + size - 1, &dev, &vmm)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p (+%llu bytes) is not host memory", ptr,
                                 (unsigned long long)size));
    }
    const mock_host *o = host_overlap(a, (size_t)size);
    if (o) {
        return call_end(&c, fail(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "%p (+%llu bytes) overlaps pinned "
                                 "memory h%llu at %p", ptr, (unsigned long long)size, (unsigned long long)o->id,
                                 (void *)o->addr));
    }
    mock_host h = {.id = ++G.next_host, .addr = a, .size = (size_t)size, .registered = true};
    host_insert(&h);
    pm_del(&G.freed_host, (uint64_t)a);
    G.live[ACLMOCK_RES_HOST_BUFFER]++;
    *devPtr = ptr;
    jo_ptr(&c, "devPtr", ptr);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtHostUnregister(void *ptr)
{
    mock_call c;
    call_begin(&c, FN_aclrtHostUnregister);
    ja_ptr(&c, "ptr", ptr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:390: null -> 100000; api_impl.cc:2566-2584: the current
     * context (107002), then a pointer that is not the base of a registered
     * range -> 507911 (reported by the acl layer, memory.cpp:393) */
    if (!ptr) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "ptr is null"));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mock_host *h = host_find((uintptr_t)ptr, false);
    if (!h || !h->registered) {
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p is not the start of a range registered by aclrtHostRegister", ptr);
        return call_end(&c, fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p is not the start of a registered range",
                                 ptr));
    }
    uint64_t id = h->id;
    /* unregistering ends the device's access: queued copies must be known done */
    order_journal(&c, order_free(&h->log, 'h', h->id, h->size));
    size_t idx = (size_t)(h - G.hosts);
    memmove(&G.hosts[idx], &G.hosts[idx + 1], (G.nhosts - idx - 1) * sizeof(*h));
    G.nhosts--;
    pm_put(&G.freed_host, (uint64_t)(uintptr_t)ptr, id);
    G.live[ACLMOCK_RES_HOST_BUFFER]--;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    mock_call c;
    call_begin(&c, FN_aclrtPointerGetAttributes);
    ja_ptr(&c, "ptr", ptr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:312-313: ptr, attributes null -> 100000 */
    if (!ptr || !attributes) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", ptr ? "attributes" : "ptr"));
    }
    /* api_impl.cc:3153-3172: no context is needed; the driver classifies the
     * pointer (closed). The mock: device memory (its device, 2 MiB pages),
     * pinned or registered host memory (HOST, 4 KiB pages), any other host
     * address (UNREGISTERED, 4 KiB pages); a device address that is not
     * allocated or mapped -> 107000. */
    aclrtPtrAttributes out = {0};
    int dev = -1;
    bool vmm = false;
    if (mem_window((uintptr_t)ptr, &dev, &vmm)) {
        mem_range r;
        if (mem_classify(ptr, 1, false, true, &r) != ACL_SUCCESS) {
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is in device %d's address range but not "
                                     "allocated or mapped", ptr, dev));
        }
        out.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        out.location.id = (uint32_t)dev;
        out.pageSize = (uint32_t)MOCK_GRAN_2M;
    } else {
        bool pinned = host_find((uintptr_t)ptr, true) != NULL;
        out.location.type = pinned ? ACL_MEM_LOCATION_TYPE_HOST : ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        out.location.id = 0;
        out.pageSize = (uint32_t)MOCK_PAGE;
    }
    *attributes = out;
    jo_i64(&c, "type", (int64_t)out.location.type);
    jo_i64(&c, "id", out.location.id);
    return call_end(&c, ACL_SUCCESS);
}
