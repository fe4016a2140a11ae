/*
 * vmm_access.c: access rights of mappings and handle queries:
 * aclrtMemSetAccess, aclrtMemGetAccess, aclrtMemRetainAllocationHandle and
 * aclrtMemGetAllocationPropertiesFromHandle. Only the device that owns a
 * reservation can be given access to it (no peer access in the mock); copies
 * and fills respect the rights (a read-only mapping cannot be written).
 */
#include "mock.h"

/* The mapping that contains `va`, or NULL. */
static mock_map *mapping_at(const void *va, mock_resv **res)
{
    int dev = -1;
    mock_resv *r = resv_of(va, &dev);
    if (!r) {
        return NULL;
    }
    *res = r;
    return map_find(r, (uintptr_t)va - G.devices[dev].vwin - r->off);
}

ACLMOCK_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemSetAccess);
    ja_ptr(&c, "virPtr", virPtr);
    ja_u64(&c, "size", size);
    ja_u64(&c, "count", count);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* v8.5.0: the acl layer checks nothing (memory.cpp:1834-1845); the
     * runtime refuses a null virPtr or desc with 107000 (api_error.cc:
     * 5203-5204); size and count go to the driver (closed,
     * npu_driver.cc): the mock refuses 0 with 107000 too */
    if (!virPtr || !desc || size == 0 || count == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "virPtr, desc, size and count must be non-zero"));
    }
    mock_resv *r = NULL;
    mock_map *first = mapping_at(virPtr, &r);
    if (!first) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not mapped", virPtr));
    }
    uint64_t start = (uintptr_t)virPtr - G.devices[r->device].vwin - r->off;
    if (size > r->size - start) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) goes past the end of range v%llu", virPtr,
                                 size, (unsigned long long)r->id));
    }
    for (uint64_t cur = start; cur < start + size;) {
        mock_map *m = map_find(r, cur);
        if (!m) {
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "v%llu+0x%llx inside [%p, +%zu) is not mapped",
                                     (unsigned long long)r->id, (unsigned long long)cur, virPtr, size));
        }
        cur = m->off + m->size;
    }
    for (size_t i = 0; i < count; i++) {
        const aclrtMemAccessDesc *d = &desc[i];
        if (d->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
            return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "desc[%zu].location.type %d is not a device", i,
                                     (int)d->location.type));
        }
        if (d->flags != ACL_RT_MEM_ACCESS_FLAGS_NONE && d->flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
            d->flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
            return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "desc[%zu].flags 0x%x is not an access flag", i,
                                     (unsigned)d->flags));
        }
        if ((int64_t)d->location.id != (int64_t)r->device) {
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                     "desc[%zu]: device %u cannot access range v%llu of device %d", i,
                                     d->location.id, (unsigned long long)r->id, r->device));
        }
    }
    for (uint64_t cur = start; cur < start + size;) {
        mock_map *m = map_find(r, cur);
        m->access = (uint32_t)desc[count - 1].flags;
        cur = m->off + m->size;
    }
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemGetAccess);
    ja_ptr(&c, "virPtr", virPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!virPtr || !location || !flag) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "virPtr, location and flag must be non-null"));
    }
    if (location->type != ACL_MEM_LOCATION_TYPE_DEVICE) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "location.type %d is not a device", (int)location->type));
    }
    if (location->id > INT32_MAX || !device_valid((int32_t)location->id)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "location.id %u is not a valid device", location->id));
    }
    mock_resv *r = NULL;
    mock_map *m = mapping_at(virPtr, &r);
    if (!m) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not mapped", virPtr));
    }
    *flag = (int64_t)location->id == (int64_t)r->device ? m->access : ACL_RT_MEM_ACCESS_FLAGS_NONE;
    jo_u64(&c, "flag", *flag);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemRetainAllocationHandle);
    ja_ptr(&c, "virPtr", virPtr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:1852 (v8.5.0): null virPtr -> 100000 in the acl layer. A
     * null handle is passed on to the driver (api_error.cc:6257-6260 checks
     * virPtr only; npu_driver.cc:5452-5463): the mock refuses it with 100000 */
    if (!virPtr || !handle) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", virPtr ? "handle" : "virPtr"));
    }
    mock_resv *r = NULL;
    mock_map *m = mapping_at(virPtr, &r);
    if (!m) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not mapped", virPtr));
    }
    /* docs/api_docs/aclrtMemRetainAllocationHandle.md:29 (v8.5.0): virPtr
     * must be the address passed to aclrtMapMem; the check itself is in the
     * driver (halMemRetainAllocationHandle), whose "invalid value" the
     * runtime maps to 107000 */
    if ((uintptr_t)virPtr - G.devices[r->device].vwin - r->off != m->off) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "%p is inside a mapping but not the address aclrtMapMem mapped", virPtr));
    }
    /* docs/api_docs/aclrtMemRetainAllocationHandle.md:15: every call takes
     * one more reference, each released by its own aclrtFreePhysical */
    m->phys->refs++;
    m->phys->h.alive = true;
    *handle = m->phys;
    jo_obj(&c, "handle", m->phys, OBJ_PHYS);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                                  aclrtPhysicalMemProp *prop)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemGetAllocationPropertiesFromHandle);
    ja_obj(&c, "handle", handle, OBJ_PHYS);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:1862-1903 (v8.5.0): null handle -> 100000 (acl layer); a
     * null prop is not checked there (a card dereferences it): the mock
     * refuses it with 100000. The properties are rebuilt from the driver's:
     * handleType NONE, allocationType PINNED, the location and reserve as
     * allocated, and memAttr from the page type only (normal ->
     * ACL_HBM_MEM_NORMAL, huge -> ACL_HBM_MEM_HUGE, 1G -> ACL_HBM_MEM_HUGE1G:
     * an ACL_MEM_HUGE handle reads back as ACL_HBM_MEM_HUGE); a P2P memory
     * type (ACL_MEM_P2P_*) is refused with 100000 after the other fields are
     * written (memory.cpp:1872-1880). */
    if (!handle) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "handle is null"));
    }
    if (!prop) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "prop is null"));
    }
    mock_phys *p = phys_arg(handle, false);
    if (!p) {
        return call_end(&c, tls()->last_rc);
    }
    prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop->location = p->prop.location;
    prop->reserve = p->prop.reserve;
    switch (p->prop.memAttr) {
    case ACL_HBM_MEM_NORMAL:
    case ACL_MEM_NORMAL:
        prop->memAttr = ACL_HBM_MEM_NORMAL;
        break;
    case ACL_HBM_MEM_HUGE1G:
    case ACL_MEM_HUGE1G:
        prop->memAttr = ACL_HBM_MEM_HUGE1G;
        break;
    case ACL_HBM_MEM_HUGE:
    case ACL_MEM_HUGE:
        prop->memAttr = ACL_HBM_MEM_HUGE;
        break;
    default:
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "the memory of handle p%llu is not HBM (memAttr %d)",
                                     (unsigned long long)p->h.id, (int)p->prop.memAttr));
    }
    jo_i64(&c, "memAttr", (int64_t)prop->memAttr);
    jo_i64(&c, "device", (int64_t)prop->location.id);
    return call_end(&c, ACL_SUCCESS);
}
