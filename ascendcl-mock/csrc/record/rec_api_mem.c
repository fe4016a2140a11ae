/*
 * rec_api_mem.c: recording wrappers of device and pinned host memory,
 * copies, memory info and virtual memory (VMM). Only addresses and sizes are
 * recorded, never the bytes copied.
 */
#include "rec.h"

#define MALLOC_WRAPPER(name, ...)                                                                              \
    do {                                                                                                       \
        REC_BEGIN(name);                                                                                       \
        ra_u64(&c, "size", size);                                                                              \
        ra_i64(&c, "policy", (int64_t)policy);                                                                 \
        aclError rc;                                                                                           \
        REC_INVOKE(rc, __VA_ARGS__);                                                                           \
        if (rc == ACL_SUCCESS && devPtr) {                                                                     \
            ro_new_mem(&c, "devPtr", *devPtr, size, K_DEV);                                                    \
        }                                                                                                      \
        return REC_END(rc);                                                                                    \
    } while (0)

REC_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    MALLOC_WRAPPER(aclrtMalloc, devPtr, size, policy);
}

REC_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    MALLOC_WRAPPER(aclrtMallocAlign32, devPtr, size, policy);
}

REC_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    MALLOC_WRAPPER(aclrtMallocCached, devPtr, size, policy);
}

REC_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                       aclrtMallocConfig *cfg)
{
    MALLOC_WRAPPER(aclrtMallocWithCfg, devPtr, size, policy, cfg);
}

REC_EXPORT aclError aclrtFree(void *devPtr)
{
    REC_BEGIN(aclrtFree);
    ra_ptr(&c, "devPtr", devPtr);
    aclError rc;
    REC_INVOKE(rc, devPtr);
    if (rc == ACL_SUCCESS) {
        rec_mem_freed(&c, devPtr, K_DEV);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    REC_BEGIN(aclrtMallocHost);
    ra_u64(&c, "size", size);
    aclError rc;
    REC_INVOKE(rc, hostPtr, size);
    if (rc == ACL_SUCCESS && hostPtr) {
        ro_new_mem(&c, "hostPtr", *hostPtr, size, K_HOST);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    REC_BEGIN(aclrtFreeHost);
    ra_ptr(&c, "hostPtr", hostPtr);
    aclError rc;
    REC_INVOKE(rc, hostPtr);
    if (rc == ACL_SUCCESS) {
        rec_mem_freed(&c, hostPtr, K_HOST);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    REC_BEGIN(aclrtMemcpy);
    ra_ptr(&c, "dst", dst);
    ra_u64(&c, "destMax", destMax);
    ra_ptr(&c, "src", src);
    ra_u64(&c, "count", count);
    ra_i64(&c, "kind", (int64_t)kind);
    aclError rc;
    REC_INVOKE(rc, dst, destMax, src, count, kind);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                     aclrtStream stream)
{
    REC_BEGIN(aclrtMemcpyAsync);
    ra_ptr(&c, "dst", dst);
    ra_u64(&c, "destMax", destMax);
    ra_ptr(&c, "src", src);
    ra_u64(&c, "count", count);
    ra_i64(&c, "kind", (int64_t)kind);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, dst, destMax, src, count, kind, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    REC_BEGIN(aclrtMemset);
    ra_ptr(&c, "devPtr", devPtr);
    ra_u64(&c, "maxCount", maxCount);
    ra_i64(&c, "value", value);
    ra_u64(&c, "count", count);
    aclError rc;
    REC_INVOKE(rc, devPtr, maxCount, value, count);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    REC_BEGIN(aclrtMemsetAsync);
    ra_ptr(&c, "devPtr", devPtr);
    ra_u64(&c, "maxCount", maxCount);
    ra_i64(&c, "value", value);
    ra_u64(&c, "count", count);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, devPtr, maxCount, value, count, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    REC_BEGIN(aclrtValueWrite);
    ra_ptr(&c, "devAddr", devAddr);
    ra_u64(&c, "value", value);
    ra_u64(&c, "flag", flag);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, devAddr, value, flag, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    REC_BEGIN(aclrtValueWait);
    ra_ptr(&c, "devAddr", devAddr);
    ra_u64(&c, "value", value);
    ra_u64(&c, "flag", flag);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, devAddr, value, flag, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total)
{
    REC_BEGIN(aclrtGetMemInfo);
    ra_i64(&c, "attr", (int64_t)attr);
    aclError rc;
    REC_INVOKE(rc, attr, free_, total);
    if (rc == ACL_SUCCESS && free_ && total) {
        ro_u64(&c, "free", *free_);
        ro_u64(&c, "total", *total);
    }
    return REC_END(rc);
}

/* -------------------------------------------------------------------- VMM */

REC_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                     size_t *granularity)
{
    REC_BEGIN(aclrtMemGetAllocationGranularity);
    ra_i64(&c, "memAttr", prop ? (int64_t)prop->memAttr : -1);
    ra_i64(&c, "option", (int64_t)option);
    aclError rc;
    REC_INVOKE(rc, prop, option, granularity);
    if (rc == ACL_SUCCESS && granularity) {
        ro_u64(&c, "granularity", *granularity);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                           uint64_t flags)
{
    REC_BEGIN(aclrtReserveMemAddress);
    ra_u64(&c, "size", size);
    ra_u64(&c, "alignment", alignment);
    ra_ptr(&c, "expectPtr", expectPtr);
    ra_u64(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, virPtr, size, alignment, expectPtr, flags);
    if (rc == ACL_SUCCESS && virPtr) {
        ro_new_mem(&c, "virPtr", *virPtr, size, K_VA);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    REC_BEGIN(aclrtReleaseMemAddress);
    ra_ptr(&c, "virPtr", virPtr);
    aclError rc;
    REC_INVOKE(rc, virPtr);
    if (rc == ACL_SUCCESS) {
        rec_mem_freed(&c, virPtr, K_VA);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                        uint64_t flags)
{
    REC_BEGIN(aclrtMallocPhysical);
    ra_u64(&c, "size", size);
    if (prop) {
        ra_i64(&c, "memAttr", (int64_t)prop->memAttr);
        ra_i64(&c, "device", (int64_t)prop->location.id);
    }
    ra_u64(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, handle, size, prop, flags);
    if (rc == ACL_SUCCESS && handle) {
        ro_new_obj(&c, "handle", *handle, K_PHYS);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    REC_BEGIN(aclrtFreePhysical);
    ra_obj(&c, "handle", handle, K_PHYS);
    aclError rc;
    REC_INVOKE(rc, handle);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    REC_BEGIN(aclrtMapMem);
    ra_ptr(&c, "virPtr", virPtr);
    ra_u64(&c, "size", size);
    ra_u64(&c, "offset", offset);
    ra_obj(&c, "handle", handle, K_PHYS);
    ra_u64(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, virPtr, size, offset, handle, flags);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    REC_BEGIN(aclrtUnmapMem);
    ra_ptr(&c, "virPtr", virPtr);
    aclError rc;
    REC_INVOKE(rc, virPtr);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    REC_BEGIN(aclrtMemSetAccess);
    ra_ptr(&c, "virPtr", virPtr);
    ra_u64(&c, "size", size);
    ra_u64(&c, "count", count);
    aclError rc;
    REC_INVOKE(rc, virPtr, size, desc, count);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    REC_BEGIN(aclrtMemGetAccess);
    ra_ptr(&c, "virPtr", virPtr);
    aclError rc;
    REC_INVOKE(rc, virPtr, location, flag);
    if (rc == ACL_SUCCESS && flag) {
        ro_u64(&c, "flag", *flag);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    REC_BEGIN(aclrtMemRetainAllocationHandle);
    ra_ptr(&c, "virPtr", virPtr);
    aclError rc;
    REC_INVOKE(rc, virPtr, handle);
    if (rc == ACL_SUCCESS && handle) {
        ro_obj(&c, "handle", *handle, K_PHYS);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)
{
    REC_BEGIN(aclrtMemGetAllocationPropertiesFromHandle);
    ra_obj(&c, "handle", handle, K_PHYS);
    aclError rc;
    REC_INVOKE(rc, handle, prop);
    if (rc == ACL_SUCCESS && prop) {
        ro_i64(&c, "memAttr", (int64_t)prop->memAttr);
        ro_i64(&c, "device", (int64_t)prop->location.id);
    }
    return REC_END(rc);
}
