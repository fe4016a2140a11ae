/*
 * device_res.c: a device's health and the limits a process puts on it
 * (aclrtQueryDeviceStatus, aclrtDeviceGetStreamPriorityRange,
 * aclrtGetDeviceResLimit, aclrtSetDeviceResLimit, aclrtResetDeviceResLimit).
 *
 * Rules from hicann/runtime v8.5.0: the acl layer (src/acl/aclrt_impl/
 * device.cpp), the runtime's C API (src/runtime/feature/src/api/
 * api_c_device.cc), its checks (api_impl/api_error.cc) and implementation
 * (api_impl/api_impl.cc, device/raw_device_res.cc, runtime.cc).
 *
 * The limits are stored per device while the process holds it (the
 * runtime's Device object) and reported back; the mock's kernels run on the
 * host and do not use fewer threads under a lower limit.
 */
#include "mock.h"

/* base_info.hpp:154-155: priorities run from 0 (greatest) to 7 (least). */
#define RT_STREAM_GREATEST_PRIORITY 0
#define RT_STREAM_LEAST_PRIORITY 7
/* rt_external_base.h:185-189: cube cores, vector cores. */
#define RT_DEV_RES_TYPE_MAX 2u

/* ApiErrorDecorator::CheckDeviceIdIsValid (api_error.cc:4818-4829): an id
 * outside [0, device count) -> 107001. */
static aclError check_device_id(int32_t deviceId)
{
    if (!device_valid(deviceId)) {
        return fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", deviceId,
                    G.device_count);
    }
    return ACL_SUCCESS;
}

/* The device's totals, as RawDevice::InitResource reads them from the driver
 * (raw_device_res.cc:47-64): the AI core and vector core counts. */
static uint32_t res_total(uint32_t type) { return type == 0 ? MOCK_AI_CORES : MOCK_VECTOR_CORES; }

/* The checks the three limit calls share, after the type check: the id
 * (api_c_device.cc:190-193, 204-207, 218-221: negative -> 107001; then
 * api_error.cc:5520-5528, 5535-5543, 5553-5561: 107001 outside the device
 * count), then the runtime's Device object, which exists only while the
 * process holds the device (api_impl.cc:7548-7549, 7570-7571, 7585-7586:
 * RT_ERROR_DEVICE_NULL, reported as 507033 by errcode_manage.cc:36). */
static mock_device *limited_device(int32_t deviceId, aclError *rc)
{
    *rc = check_device_id(deviceId);
    if (*rc) {
        return NULL;
    }
    mock_device *d = &G.devices[deviceId];
    if (d->refcount <= 0) {
        *rc = fail(ACL_ERROR_RT_DEV_SETUP_ERROR, "device %d is not set in this process (call aclrtSetDevice first)",
                   deviceId);
        return NULL;
    }
    return d;
}

static bool res_type_valid(aclrtDevResLimitType type) { return (uint32_t)type < RT_DEV_RES_TYPE_MAX; }

ACLMOCK_EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    mock_call c;
    call_begin(&c, FN_aclrtQueryDeviceStatus);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:313: null -> 100000 */
    if (!deviceStatus) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "deviceStatus is null"));
    }
    /* api_error.cc:5315-5321: the id is checked; the device need not be set */
    aclError rc = check_device_id(deviceId);
    if (rc) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:7223-7226, runtime.cc:5237-5252: NORMAL unless the device's
     * watchdog marked it abnormal; the mock's devices never fail */
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    jo_i64(&c, "deviceStatus", (int64_t)ACL_RT_DEVICE_STATUS_NORMAL);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    mock_call c;
    call_begin(&c, FN_aclrtDeviceGetStreamPriorityRange);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:354-368 checks nothing; api_error.cc:2739-2741 only logs
     * when both are null; api_impl.cc:3612-3618 fills the ones given. No
     * device or context is needed. */
    if (leastPriority) {
        *leastPriority = RT_STREAM_LEAST_PRIORITY;
    }
    if (greatestPriority) {
        *greatestPriority = RT_STREAM_GREATEST_PRIORITY;
    }
    jo_i64(&c, "leastPriority", RT_STREAM_LEAST_PRIORITY);
    jo_i64(&c, "greatestPriority", RT_STREAM_GREATEST_PRIORITY);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceResLimit);
    ja_i64(&c, "deviceId", deviceId);
    ja_i64(&c, "type", (int64_t)type);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:408: null -> 100000 */
    if (!value) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "value is null"));
    }
    /* api_c_device.cc:218-221: a negative id first */
    if (deviceId < 0) {
        return call_end(&c, check_device_id(deviceId));
    }
    /* api_error.cc:5549-5550: a type outside [0, 2) -> 107000 */
    if (!res_type_valid(type)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "type %d is not an aclrtDevResLimitType (0 or 1)",
                                 (int)type));
    }
    aclError rc;
    mock_device *d = limited_device(deviceId, &rc);
    if (!d) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:7587: the limit in force (raw_device_res.cc:93-100), the
     * device's total until one is set */
    uint32_t t = (uint32_t)type;
    *value = d->res_limited[t] ? d->res_limit[t] : res_total(t);
    jo_u64(&c, "value", *value);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetDeviceResLimit);
    ja_i64(&c, "deviceId", deviceId);
    ja_i64(&c, "type", (int64_t)type);
    ja_u64(&c, "value", value);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* api_c_device.cc:190-193: a negative id first */
    if (deviceId < 0) {
        return call_end(&c, check_device_id(deviceId));
    }
    /* api_error.cc:5517-5518: a type outside [0, 2) -> 107000 */
    if (!res_type_valid(type)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "type %d is not an aclrtDevResLimitType (0 or 1)",
                                 (int)type));
    }
    aclError rc;
    mock_device *d = limited_device(deviceId, &rc);
    if (!d) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:7550-7557: more than the device has -> 107000 (0 passes) */
    uint32_t t = (uint32_t)type;
    if (value > res_total(t)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "value %u exceeds the %u %s cores of device %d", value, res_total(t),
                                 t == 0 ? "cube" : "vector", deviceId));
    }
    /* api_impl.cc:7562: the last setting wins (aclrtSetDeviceResLimit.md:15) */
    d->res_limit[t] = value;
    d->res_limited[t] = true;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtResetDeviceResLimit);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* api_c_device.cc:204-207: a negative id first */
    if (deviceId < 0) {
        return call_end(&c, check_device_id(deviceId));
    }
    aclError rc;
    mock_device *d = limited_device(deviceId, &rc);
    if (!d) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:7572, raw_device_res.cc:102-107: back to the totals */
    d->res_limited[0] = d->res_limited[1] = false;
    return call_end(&c, ACL_SUCCESS);
}
