/*
 * databuf.c: data buffers (aclCreateDataBuffer, aclDestroyDataBuffer,
 * aclUpdateDataBuffer, aclGetDataBufferAddr, aclGetDataBufferSizeV2) and
 * the CANN feature attributes (aclGetCannAttributeList, aclGetCannAttribute).
 *
 * A data buffer is a host-side (data, length) descriptor: no context, device
 * or init is needed, and the memory it names is never touched. In the mock
 * it is a handle like a stream or event (checked before it is read, kept as
 * a zombie after destroy), so a destroyed or made-up descriptor is refused
 * and counted as misuse where the runtime would read freed memory. Its
 * journal keys are the data pointer and size only, the same as the
 * recording shim writes.
 */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

struct aclDataBuffer {
    mock_obj h;
    void *data;
    size_t length;
};

/* The live descriptor behind a handle; NULL (with misuse) when destroyed or
 * unknown. */
static aclDataBuffer *databuf_arg(const aclDataBuffer *b)
{
    aclDataBuffer *d = (aclDataBuffer *)obj_lookup(b, OBJ_DATABUF);
    if (!d || !d->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "data buffer %p is %s", (const void *)b,
               d ? "destroyed" : "not a data buffer of this runtime");
        return NULL;
    }
    return d;
}

/* data_buffer.cpp:56-62 (CANN 8.5.0): any data and size, NULL only when
 * out of memory. */
ACLMOCK_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    mock_call c;
    call_begin(&c, FN_aclCreateDataBuffer);
    ja_ptr(&c, "data", data);
    ja_u64(&c, "size", size);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return NULL;
    }
    aclDataBuffer *b = calloc(1, sizeof(*b));
    if (!b) {
        call_end(&c, acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
        return NULL;
    }
    obj_register(&b->h, OBJ_DATABUF, 0);
    b->data = data;
    b->length = size;
    call_end(&c, ACL_SUCCESS);
    return b;
}

/* data_buffer.cpp:64-74: NULL -> 100000 without any log */
ACLMOCK_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    mock_call c;
    call_begin(&c, FN_aclDestroyDataBuffer);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!dataBuffer) {
        return call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    aclDataBuffer *b = (aclDataBuffer *)obj_lookup(dataBuffer, OBJ_DATABUF);
    if (!b || !b->h.alive) {
        misuse(b ? ACLMOCK_MISUSE_DOUBLE_FREE : ACLMOCK_MISUSE_UNKNOWN_POINTER, "data buffer %p %s",
               (const void *)dataBuffer, b ? "was already destroyed" : "is not a data buffer of this runtime");
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "data buffer %p %s", (const void *)dataBuffer,
                                     b ? "was already destroyed" : "is not a data buffer"));
    }
    b->h.alive = false;
    return call_end(&c, ACL_SUCCESS);
}

/* data_buffer.cpp:76-88: NULL -> 100000 (reported); any data and size */
ACLMOCK_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    mock_call c;
    call_begin(&c, FN_aclUpdateDataBuffer);
    ja_ptr(&c, "data", data);
    ja_u64(&c, "size", size);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!dataBuffer) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is null (create it with "
                                     "aclCreateDataBuffer)"));
    }
    aclDataBuffer *b = databuf_arg(dataBuffer);
    if (!b) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer %p is not a live data buffer",
                                     (void *)dataBuffer));
    }
    b->data = data;
    b->length = size;
    return call_end(&c, ACL_SUCCESS);
}

/* data_buffer.cpp:90-97: NULL -> NULL */
ACLMOCK_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    mock_call c;
    call_begin(&c, FN_aclGetDataBufferAddr);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return NULL;
    }
    aclDataBuffer *b = dataBuffer ? databuf_arg(dataBuffer) : NULL;
    void *data = b ? b->data : NULL;
    jo_ptr(&c, "data", data);
    call_end(&c, ACL_SUCCESS);
    return data;
}

/* data_buffer.cpp:108-115: NULL -> 0 */
ACLMOCK_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    mock_call c;
    call_begin(&c, FN_aclGetDataBufferSizeV2);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return 0;
    }
    aclDataBuffer *b = dataBuffer ? databuf_arg(dataBuffer) : NULL;
    size_t size = b ? b->length : 0;
    jo_u64(&c, "size", size);
    call_end(&c, ACL_SUCCESS);
    return size;
}

/* ------------------------------------------------------- CANN attributes */

/*
 * src/acl/config/swFeatureList.json (v8.5.0): INF_NAN and BF16 need runtime
 * 7.1 and an SoC whose name starts with one of these; JIT_COMPILE needs
 * runtime 6.4 on any SoC. The runtime here is 8.5, so only the SoC decides
 * (cann_info_utils.cpp:186-211, prefix match).
 */
static const char *const inf_nan_bf16_socs[] = {"Ascend910B1", "Ascend910B2", "Ascend910B2C",
                                                "Ascend910B3", "Ascend910B4", "Ascend910_9"};

static bool attr_available(aclCannAttr a)
{
    if (a == ACL_CANN_ATTR_JIT_COMPILE) {
        return true;
    }
    for (size_t i = 0; i < sizeof(inf_nan_bf16_socs) / sizeof(inf_nan_bf16_socs[0]); i++) {
        if (strncmp(G.soc_name, inf_nan_bf16_socs[i], strlen(inf_nan_bf16_socs[i])) == 0) {
            return true;
        }
    }
    return false;
}

/* The available attributes in ascending order (a std::map, cann_info_utils.h:62). */
static aclCannAttr attr_list[3];

ACLMOCK_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    mock_call c;
    call_begin(&c, FN_aclGetCannAttributeList);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* acl.cpp:1167-1168: list, then num null -> 100000 */
    if (!cannAttrList || !num) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", cannAttrList ? "num" : "cannAttrList"));
    }
    static const aclCannAttr all[3] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
    size_t n = 0;
    for (size_t i = 0; i < 3; i++) {
        if (attr_available(all[i])) {
            attr_list[n++] = all[i];
        }
    }
    *cannAttrList = attr_list;
    *num = n;
    jo_u64(&c, "num", n);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    mock_call c;
    call_begin(&c, FN_aclGetCannAttribute);
    ja_i64(&c, "cannAttr", (int64_t)cannAttr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* acl.cpp:1180: null -> 100000; cann_info_utils.cpp:65-70: an attribute
     * the feature list does not name -> 100000 (a warning, no text); else
     * 1 if available, 0 if not */
    if (!value) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "value is null"));
    }
    if (cannAttr != ACL_CANN_ATTR_INF_NAN && cannAttr != ACL_CANN_ATTR_BF16 && cannAttr != ACL_CANN_ATTR_JIT_COMPILE) {
        return call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    *value = attr_available(cannAttr) ? 1 : 0;
    jo_i64(&c, "value", *value);
    return call_end(&c, ACL_SUCCESS);
}
