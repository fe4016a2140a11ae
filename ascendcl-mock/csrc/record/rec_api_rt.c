/*
 * rec_api_rt.c: recording wrappers of the runtime settings and facts:
 * device status, stream priority range, core limits, device info, capability, utilization, overflow mode, peer access, op
 * timeouts, the exception callback and its getters, the current context's
 * default stream and options, a stream's failure mode and overflow switch,
 * event timestamps. Keys are the mock's (csrc/rt_settings.c,
 * csrc/device_info.c, csrc/event.c).
 */
#include "rec.h"

/* ----------------------------------------------------------------- devices */

REC_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    REC_BEGIN(aclrtGetDeviceInfo);
    ra_u64(&c, "deviceId", deviceId);
    ra_i64(&c, "attr", (int64_t)attr);
    aclError rc;
    REC_INVOKE(rc, deviceId, attr, value);
    if (rc == ACL_SUCCESS && value) {
        ro_i64(&c, "value", *value);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    REC_BEGIN(aclrtGetDeviceCapability);
    ra_i64(&c, "deviceId", deviceId);
    ra_i64(&c, "devFeatureType", (int64_t)devFeatureType);
    aclError rc;
    REC_INVOKE(rc, deviceId, devFeatureType, value);
    if (rc == ACL_SUCCESS && value) {
        ro_i64(&c, "value", *value);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    REC_BEGIN(aclrtGetDeviceUtilizationRate);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId, utilizationInfo);
    if (rc == ACL_SUCCESS && utilizationInfo) {
        ro_i64(&c, "cube", utilizationInfo->cubeUtilization);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    REC_BEGIN(aclrtQueryDeviceStatus);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId, deviceStatus);
    if (rc == ACL_SUCCESS && deviceStatus) {
        ro_i64(&c, "deviceStatus", (int64_t)*deviceStatus);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    REC_BEGIN(aclrtDeviceGetStreamPriorityRange);
    aclError rc;
    REC_INVOKE(rc, leastPriority, greatestPriority);
    if (rc == ACL_SUCCESS && leastPriority) {
        ro_i64(&c, "leastPriority", *leastPriority);
    }
    if (rc == ACL_SUCCESS && greatestPriority) {
        ro_i64(&c, "greatestPriority", *greatestPriority);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    REC_BEGIN(aclrtGetDeviceResLimit);
    ra_i64(&c, "deviceId", deviceId);
    ra_i64(&c, "type", (int64_t)type);
    aclError rc;
    REC_INVOKE(rc, deviceId, type, value);
    if (rc == ACL_SUCCESS && value) {
        ro_u64(&c, "value", *value);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    REC_BEGIN(aclrtSetDeviceResLimit);
    ra_i64(&c, "deviceId", deviceId);
    ra_i64(&c, "type", (int64_t)type);
    ra_u64(&c, "value", value);
    aclError rc;
    REC_INVOKE(rc, deviceId, type, value);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    REC_BEGIN(aclrtResetDeviceResLimit);
    ra_i64(&c, "deviceId", deviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    REC_BEGIN(aclrtSetDeviceSatMode);
    ra_i64(&c, "mode", (int64_t)mode);
    aclError rc;
    REC_INVOKE(rc, mode);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    REC_BEGIN(aclrtGetDeviceSatMode);
    aclError rc;
    REC_INVOKE(rc, mode);
    if (rc == ACL_SUCCESS && mode) {
        ro_i64(&c, "mode", (int64_t)*mode);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    REC_BEGIN(aclrtDeviceCanAccessPeer);
    ra_i64(&c, "deviceId", deviceId);
    ra_i64(&c, "peerDeviceId", peerDeviceId);
    aclError rc;
    REC_INVOKE(rc, canAccessPeer, deviceId, peerDeviceId);
    if (rc == ACL_SUCCESS && canAccessPeer) {
        ro_i64(&c, "canAccessPeer", *canAccessPeer);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    REC_BEGIN(aclrtDeviceEnablePeerAccess);
    ra_i64(&c, "peerDeviceId", peerDeviceId);
    ra_u64(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, peerDeviceId, flags);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    REC_BEGIN(aclrtDeviceDisablePeerAccess);
    ra_i64(&c, "peerDeviceId", peerDeviceId);
    aclError rc;
    REC_INVOKE(rc, peerDeviceId);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    REC_BEGIN(aclrtDevicePeerAccessStatus);
    ra_i64(&c, "deviceId", deviceId);
    ra_i64(&c, "peerDeviceId", peerDeviceId);
    aclError rc;
    REC_INVOKE(rc, deviceId, peerDeviceId, status);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", *status);
    }
    return REC_END(rc);
}

/* ---------------------------------------------------- timeouts, exceptions */

REC_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    REC_BEGIN(aclrtSetOpWaitTimeout);
    ra_u64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    REC_BEGIN(aclrtSetOpExecuteTimeOut);
    ra_u64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    REC_BEGIN(aclrtSetExceptionInfoCallback);
    ra_str(&c, "callback", callback ? "set" : "null");
    aclError rc;
    REC_INVOKE(rc, callback);
    return REC_END(rc);
}

/* The getters return data, not a code: "ret" is 0 and the value an out-value. */
#define REC_EXCEPTION_GETTER(name, key)                                                                        \
    REC_EXPORT uint32_t name(const aclrtExceptionInfo *info)                                                   \
    {                                                                                                          \
        REC_BEGIN(name);                                                                                       \
        if (rec_on_) {                                                                                         \
            rec_invoke(&c, (void *)real_);                                                                     \
        }                                                                                                      \
        uint32_t v = 0xFFFFFFFFU;                                                                              \
        aclError rc = ACL_SUCCESS;                                                                             \
        if (real_) {                                                                                           \
            v = real_(info);                                                                                   \
        } else {                                                                                               \
            rc = rec_missing(&c);                                                                              \
        }                                                                                                      \
        if (rec_on_) {                                                                                         \
            rec_returned(&c, rc);                                                                              \
            ro_u64(&c, key, v);                                                                                \
            rec_end(&c, rc);                                                                                   \
        }                                                                                                      \
        return v;                                                                                              \
    }

REC_EXCEPTION_GETTER(aclrtGetTaskIdFromExceptionInfo, "taskid")
REC_EXCEPTION_GETTER(aclrtGetStreamIdFromExceptionInfo, "streamid")
REC_EXCEPTION_GETTER(aclrtGetThreadIdFromExceptionInfo, "tid")
REC_EXCEPTION_GETTER(aclrtGetDeviceIdFromExceptionInfo, "deviceid")
REC_EXCEPTION_GETTER(aclrtGetErrorCodeFromExceptionInfo, "retcode")

/* ------------------------------------------------------ context and stream */

REC_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    REC_BEGIN(aclrtCtxGetCurrentDefaultStream);
    aclError rc;
    REC_INVOKE(rc, stream);
    if (rc == ACL_SUCCESS && stream) {
        /* the mock's name of every default stream (its handle is not one the
         * shim saw created) */
        ro_str(&c, "stream", "s0");
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    REC_BEGIN(aclrtCtxSetSysParamOpt);
    ra_i64(&c, "opt", (int64_t)opt);
    ra_i64(&c, "value", value);
    aclError rc;
    REC_INVOKE(rc, opt, value);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    REC_BEGIN(aclrtCtxGetSysParamOpt);
    ra_i64(&c, "opt", (int64_t)opt);
    aclError rc;
    REC_INVOKE(rc, opt, value);
    if (rc == ACL_SUCCESS && value) {
        ro_i64(&c, "value", *value);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    REC_BEGIN(aclrtSetStreamFailureMode);
    ra_stream(&c, "stream", stream);
    ra_u64(&c, "mode", mode);
    aclError rc;
    REC_INVOKE(rc, stream, mode);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    REC_BEGIN(aclrtSetStreamOverflowSwitch);
    ra_stream(&c, "stream", stream);
    ra_u64(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, stream, flag);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    REC_BEGIN(aclrtGetStreamOverflowSwitch);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream, flag);
    if (rc == ACL_SUCCESS && flag) {
        ro_u64(&c, "flag", *flag);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    REC_BEGIN(aclrtEventGetTimestamp);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event, timestamp);
    if (rc == ACL_SUCCESS && timestamp) {
        ro_u64(&c, "timestamp", *timestamp);
    }
    return REC_END(rc);
}
