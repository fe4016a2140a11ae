/*
 * rec_api_buf.c: recording wrappers of data buffers, CANN attributes,
 * pinned and registered host memory, pointer attributes and 2-D copies.
 * Keys are the mock's (csrc/databuf.c, csrc/host_register.c, csrc/copy2d.c):
 * a data buffer is recorded by the memory it names, not by its handle.
 */
#include "rec.h"

/* ------------------------------------------------------------ data buffers */

REC_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    REC_BEGIN(aclCreateDataBuffer);
    ra_ptr(&c, "data", data);
    ra_u64(&c, "size", size);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    aclDataBuffer *b = NULL;
    aclError rc = ACL_SUCCESS;
    if (real_) {
        b = real_(data, size);
        rc = b ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
    } else {
        rc = rec_missing(&c);
    }
    if (rec_on_) {
        rec_returned(&c, rc);
        rec_end(&c, rc);
    }
    return b;
}

REC_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    REC_BEGIN(aclDestroyDataBuffer);
    aclError rc;
    REC_INVOKE(rc, dataBuffer);
    return REC_END(rc);
}

REC_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    REC_BEGIN(aclUpdateDataBuffer);
    ra_ptr(&c, "data", data);
    ra_u64(&c, "size", size);
    aclError rc;
    REC_INVOKE(rc, dataBuffer, data, size);
    return REC_END(rc);
}

REC_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    REC_BEGIN(aclGetDataBufferAddr);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    void *data = NULL;
    aclError rc = ACL_SUCCESS;
    if (real_) {
        data = real_(dataBuffer);
    } else {
        rc = rec_missing(&c);
    }
    if (rec_on_) {
        rec_returned(&c, rc);
        rec_end(&c, rc);
    }
    return data;
}

REC_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    REC_BEGIN(aclGetDataBufferSizeV2);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    size_t size = 0;
    aclError rc = ACL_SUCCESS;
    if (real_) {
        size = real_(dataBuffer);
    } else {
        rc = rec_missing(&c);
    }
    if (rec_on_) {
        rec_returned(&c, rc);
        ro_u64(&c, "size", size);
        rec_end(&c, rc);
    }
    return size;
}

/* --------------------------------------------------------- CANN attributes */

REC_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    REC_BEGIN(aclGetCannAttributeList);
    aclError rc;
    REC_INVOKE(rc, cannAttrList, num);
    if (rc == ACL_SUCCESS && num) {
        ro_u64(&c, "num", *num);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    REC_BEGIN(aclGetCannAttribute);
    ra_i64(&c, "cannAttr", (int64_t)cannAttr);
    aclError rc;
    REC_INVOKE(rc, cannAttr, value);
    if (rc == ACL_SUCCESS && value) {
        ro_i64(&c, "value", *value);
    }
    return REC_END(rc);
}

/* -------------------------------------------------------------- host memory */

REC_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    REC_BEGIN(aclrtMallocHostWithCfg);
    ra_u64(&c, "size", size);
    ra_u64(&c, "numAttrs", cfg ? cfg->numAttrs : 0);
    aclError rc;
    REC_INVOKE(rc, ptr, size, cfg);
    if (rc == ACL_SUCCESS && ptr) {
        ro_new_mem(&c, "ptr", *ptr, size, K_HOST);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    REC_BEGIN(aclrtHostRegister);
    ra_ptr(&c, "ptr", ptr);
    ra_u64(&c, "size", size);
    ra_i64(&c, "type", (int64_t)type);
    aclError rc;
    REC_INVOKE(rc, ptr, size, type, devPtr);
    if (rc == ACL_SUCCESS && devPtr) {
        /* the registered range is pinned host memory from now on */
        ro_new_mem(&c, "devPtr", ptr, size, K_HOST);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtHostUnregister(void *ptr)
{
    REC_BEGIN(aclrtHostUnregister);
    ra_ptr(&c, "ptr", ptr);
    aclError rc;
    REC_INVOKE(rc, ptr);
    if (rc == ACL_SUCCESS) {
        rec_mem_freed(&c, ptr, K_HOST);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    REC_BEGIN(aclrtPointerGetAttributes);
    ra_ptr(&c, "ptr", ptr);
    aclError rc;
    REC_INVOKE(rc, ptr, attributes);
    if (rc == ACL_SUCCESS && attributes) {
        ro_i64(&c, "type", (int64_t)attributes->location.type);
        ro_i64(&c, "id", attributes->location.id);
    }
    return REC_END(rc);
}

/* ---------------------------------------------------------------- 2-D copies */

REC_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                  size_t height, aclrtMemcpyKind kind)
{
    REC_BEGIN(aclrtMemcpy2d);
    ra_ptr(&c, "dst", dst);
    ra_u64(&c, "dpitch", dpitch);
    ra_ptr(&c, "src", src);
    ra_u64(&c, "spitch", spitch);
    ra_u64(&c, "width", width);
    ra_u64(&c, "height", height);
    ra_i64(&c, "kind", (int64_t)kind);
    aclError rc;
    REC_INVOKE(rc, dst, dpitch, src, spitch, width, height, kind);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    REC_BEGIN(aclrtMemcpy2dAsync);
    ra_ptr(&c, "dst", dst);
    ra_u64(&c, "dpitch", dpitch);
    ra_ptr(&c, "src", src);
    ra_u64(&c, "spitch", spitch);
    ra_u64(&c, "width", width);
    ra_u64(&c, "height", height);
    ra_i64(&c, "kind", (int64_t)kind);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, dst, dpitch, src, spitch, width, height, kind, stream);
    return REC_END(rc);
}
