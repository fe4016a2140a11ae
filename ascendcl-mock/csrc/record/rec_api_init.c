/*
 * rec_api_init.c: recording wrappers of init, versions, errors, devices and
 * contexts. Argument and out-value keys are the mock's (see
 * docs/trace-format.md).
 */
#include "rec.h"

#include <stdio.h>

REC_EXPORT aclError aclInit(const char *configPath)
{
    REC_BEGIN(aclInit);
    ra_str(&c, "configPath", configPath);
    aclError rc;
    REC_INVOKE(rc, configPath);
    return REC_END(rc);
}

REC_EXPORT aclError aclFinalize(void)
{
    REC_BEGIN(aclFinalize);
    aclError rc;
    REC_INVOKE(rc);
    return REC_END(rc);
}

REC_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
    REC_BEGIN(aclFinalizeReference);
    ra_ptr(&c, "refCount", refCount);
    aclError rc;
    REC_INVOKE(rc, refCount);
    if (rc == ACL_SUCCESS && refCount) {
        ro_u64(&c, "refCount", *refCount);
    }
    return REC_END(rc);
}

/* The shim reads the text after every failing call (so the trace has it);
 * the program gets it here, followed by anything newer. */
REC_EXPORT const char *aclGetRecentErrMsg(void)
{
    REC_BEGIN(aclGetRecentErrMsg);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    const char *text = rec_take_messages(real_ ? real_() : NULL);
    if (rec_on_) {
        rec_returned(&c, ACL_SUCCESS);
        ro_str(&c, "msg", text);
        rec_end(&c, ACL_SUCCESS);
    }
    return text;
}

REC_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    REC_BEGIN(aclrtGetVersion);
    aclError rc;
    REC_INVOKE(rc, majorVersion, minorVersion, patchVersion);
    if (rc == ACL_SUCCESS && majorVersion && minorVersion && patchVersion) {
        ro_i64(&c, "major", *majorVersion);
        ro_i64(&c, "minor", *minorVersion);
        ro_i64(&c, "patch", *patchVersion);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    REC_BEGIN(aclrtGetRunMode);
    aclError rc;
    REC_INVOKE(rc, runMode);
    if (rc == ACL_SUCCESS && runMode) {
        ro_i64(&c, "runMode", (int64_t)*runMode);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    REC_BEGIN(aclrtPeekAtLastError);
    ra_i64(&c, "level", (int64_t)level);
    aclError rc;
    REC_INVOKE(rc, level);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    REC_BEGIN(aclrtGetLastError);
    ra_i64(&c, "level", (int64_t)level);
    aclError rc;
    REC_INVOKE(rc, level);
    return REC_END(rc);
}

REC_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    REC_BEGIN(aclsysGetCANNVersion);
    ra_i64(&c, "name", (int64_t)name);
    aclError rc;
    REC_INVOKE(rc, name, version);
    if (rc == ACL_SUCCESS && version) {
        char field[ACL_PKG_VERSION_MAX_SIZE + 1];
        /* the runtime NUL-terminates them; the copies make sure */
        snprintf(field, sizeof(field), "%.*s", (int)sizeof(version->version), version->version);
        ro_str(&c, "version", field);
        snprintf(field, sizeof(field), "%.*s", (int)sizeof(version->majorVersion), version->majorVersion);
        ro_str(&c, "majorVersion", field);
        snprintf(field, sizeof(field), "%.*s", (int)sizeof(version->minorVersion), version->minorVersion);
        ro_str(&c, "minorVersion", field);
        snprintf(field, sizeof(field), "%.*s", (int)sizeof(version->releaseVersion), version->releaseVersion);
        ro_str(&c, "releaseVersion", field);
        snprintf(field, sizeof(field), "%.*s", (int)sizeof(version->patchVersion), version->patchVersion);
        ro_str(&c, "patchVersion", field);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    REC_BEGIN(aclsysGetVersionStr);
    ra_str(&c, "pkgName", pkgName);
    aclError rc;
    REC_INVOKE(rc, pkgName, versionStr);
    if (rc == ACL_SUCCESS && versionStr) {
        char v[ACL_PKG_VERSION_MAX_SIZE + 1];
        snprintf(v, sizeof(v), "%.*s", ACL_PKG_VERSION_MAX_SIZE, versionStr);
        ro_str(&c, "versionStr", v);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    REC_BEGIN(aclsysGetVersionNum);
    ra_str(&c, "pkgName", pkgName);
    aclError rc;
    REC_INVOKE(rc, pkgName, versionNum);
    if (rc == ACL_SUCCESS && versionNum) {
        ro_i64(&c, "versionNum", *versionNum);
    }
    return REC_END(rc);
}

/* Returns a pointer: "ret" is 0, or the thread's last error when it is null. */
REC_EXPORT const char *aclrtGetSocName(void)
{
    REC_BEGIN(aclrtGetSocName);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    const char *name = NULL;
    aclError rc = ACL_SUCCESS;
    if (real_) {
        name = real_();
        rc = name ? ACL_SUCCESS : rec_peek_error();
    } else {
        rc = rec_missing(&c);
    }
    if (rec_on_) {
        rec_returned(&c, rc);
        ro_str(&c, "name", name);
        rec_end(&c, rc);
    }
    return name;
}

/* ---------------------------------------------------------------- devices */

REC_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    REC_BEGIN(aclrtSetDevice);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    REC_BEGIN(aclrtResetDevice);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    REC_BEGIN(aclrtResetDeviceForce);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    REC_BEGIN(aclrtGetDevice);
    aclError rc;
    REC_INVOKE(rc, deviceId);
    if (rc == ACL_SUCCESS && deviceId) {
        ro_i64(&c, "deviceId", *deviceId);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    REC_BEGIN(aclrtGetDeviceCount);
    aclError rc;
    REC_INVOKE(rc, count);
    if (rc == ACL_SUCCESS && count) {
        ro_u64(&c, "count", *count);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeDevice(void)
{
    REC_BEGIN(aclrtSynchronizeDevice);
    aclError rc;
    REC_INVOKE(rc);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    REC_BEGIN(aclrtSynchronizeDeviceWithTimeout);
    ra_i64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, timeout);
    return REC_END(rc);
}

/* --------------------------------------------------------------- contexts */

REC_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    REC_BEGIN(aclrtCreateContext);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, context, deviceId);
    if (rc == ACL_SUCCESS && context) {
        ro_new_obj(&c, "context", *context, K_CTX);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    REC_BEGIN(aclrtDestroyContext);
    ra_obj(&c, "context", context, K_CTX);
    aclError rc;
    REC_INVOKE(rc, context);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    REC_BEGIN(aclrtSetCurrentContext);
    ra_obj(&c, "context", context, K_CTX);
    aclError rc;
    REC_INVOKE(rc, context);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    REC_BEGIN(aclrtGetCurrentContext);
    aclError rc;
    REC_INVOKE(rc, context);
    if (rc == ACL_SUCCESS && context) {
        ro_obj(&c, "context", *context, K_CTX);
    }
    return REC_END(rc);
}
