/*
 * rec_api_ipc.c: recording wrappers of device memory shared between
 * processes (aclrtIpcMem*, the shareable handles of physical allocations)
 * and aclrtDeviceGetBareTgid. Keys name processes
 * (csrc/ipc.h), so traces of these calls differ from run to run. The shim
 * does not learn an import's size: the imported address is recorded as a
 * block of 1 byte (later addresses inside it record as unknown).
 */
#include "rec.h"

REC_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    REC_BEGIN(aclrtIpcMemGetExportKey);
    ra_ptr(&c, "devPtr", devPtr);
    ra_u64(&c, "size", size);
    ra_u64(&c, "len", len);
    ra_hex(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, devPtr, size, key, len, flags);
    if (rc == ACL_SUCCESS && key) {
        ro_str(&c, "key", key);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtIpcMemClose(const char *key)
{
    REC_BEGIN(aclrtIpcMemClose);
    ra_str(&c, "key", key);
    aclError rc;
    REC_INVOKE(rc, key);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    REC_BEGIN(aclrtIpcMemImportByKey);
    ra_str(&c, "key", key);
    ra_hex(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, devPtr, key, flags);
    if (rc == ACL_SUCCESS && devPtr) {
        ro_new_mem(&c, "devPtr", *devPtr, 1, K_DEV);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    REC_BEGIN(aclrtIpcMemSetImportPid);
    ra_str(&c, "key", key);
    ra_u64(&c, "num", num);
    aclError rc;
    REC_INVOKE(rc, key, pid, num);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    REC_BEGIN(aclrtDeviceGetBareTgid);
    aclError rc;
    REC_INVOKE(rc, pid);
    if (rc == ACL_SUCCESS && pid) {
        ro_i64(&c, "pid", *pid);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                    uint64_t flags, uint64_t *shareableHandle)
{
    REC_BEGIN(aclrtMemExportToShareableHandle);
    ra_obj(&c, "handle", handle, K_PHYS);
    ra_i64(&c, "handleType", (int64_t)handleType);
    ra_hex(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, handle, handleType, flags, shareableHandle);
    if (rc == ACL_SUCCESS && shareableHandle) {
        ro_u64(&c, "shareableHandle", *shareableHandle);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                      aclrtDrvMemHandle *handle)
{
    REC_BEGIN(aclrtMemImportFromShareableHandle);
    ra_hex(&c, "shareableHandle", shareableHandle);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, shareableHandle, deviceId, handle);
    if (rc == ACL_SUCCESS && handle) {
        ro_new_obj(&c, "handle", *handle, K_PHYS);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    REC_BEGIN(aclrtMemSetPidToShareableHandle);
    ra_hex(&c, "shareableHandle", shareableHandle);
    ra_u64(&c, "pidNum", pidNum);
    aclError rc;
    REC_INVOKE(rc, shareableHandle, pid, pidNum);
    return REC_END(rc);
}
