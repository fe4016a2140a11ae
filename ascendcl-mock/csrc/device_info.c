/*
 * device_info.c: what a device is and how busy it is (aclrtGetDeviceInfo,
 * aclrtGetDeviceCapability, aclrtGetDeviceUtilizationRate) and peer access
 * between devices (aclrtDeviceCanAccessPeer, aclrtDeviceEnablePeerAccess,
 * aclrtDeviceDisablePeerAccess, aclrtDevicePeerAccessStatus).
 *
 * The numbers come from the driver on a card (closed source); the mock
 * answers as an Ascend910B1 would and says so in docs/mock-conformance.md.
 * Device ids are the mock's logical ids; the mock's physical id of a device
 * is its logical id.
 */
#include "mock.h"

/* RT_MAX_DEV_NUM, the runtime's bound on driver and physical ids
 * (api_error.cc:2577-2580, 2609-2612). */
#define RT_MAX_DEV_NUM 64

/* Ascend910B1 figures the mock reports (the driver's answer on a card; the
 * core counts are in mock.h). */
#define MOCK_AICPU_CORES 6
#define MOCK_L2_BYTES (192LL * 1024 * 1024)

static aclError invalid_device(int64_t id)
{
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %lld is out of range [0, %u)", (long long)id, G.device_count);
}

ACLMOCK_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceInfo);
    ja_u64(&c, "deviceId", deviceId);
    ja_i64(&c, "attr", (int64_t)attr);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:342: null -> 100000; api_error_standard_soc.cc:418-433: a
     * device id outside the device count -> 107000 (not 107001). The figures
     * come from the driver and the platform tables (api_impl_standard_soc.cc:
     * 300-382): the mock answers as an Ascend910B1. */
    if (!value) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "value is null"));
    }
    if (deviceId >= G.device_count || deviceId >= MOCK_MAX_DEVICES) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "device id %u is out of range [0, %u)", deviceId,
                                 G.device_count));
    }
    int64_t v;
    switch ((int)attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM:
        v = MOCK_AICPU_CORES;
        break;
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
        v = MOCK_AI_CORES;
        break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        v = MOCK_VECTOR_CORES;
        break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        v = (int64_t)G.hbm_bytes;
        break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
        v = MOCK_L2_BYTES;
        break;
    case ACL_DEV_ATTR_SMP_ID:
    case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
    case ACL_DEV_ATTR_MAINBOARD_ID:
    case ACL_DEV_ATTR_IS_VIRTUAL:
        v = 0;
        break;
    case ACL_DEV_ATTR_PHY_CHIP_ID:
        v = deviceId;
        break;
    case ACL_DEV_ATTR_WARP_SIZE:
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID:
    case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
    case ACL_DEV_ATTR_SUPER_POD_ID:
        /* SIMT figures of later chips, super-pod ids of pod systems: an
         * Ascend910B1 in a server has none (mock's choice) */
        return call_end(&c, fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "attribute %d is not available on %s", (int)attr,
                                 G.soc_name));
    default: /* api_impl_standard_soc.cc:346-349 */
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "attr %d is not an aclrtDevAttr", (int)attr));
    }
    *value = v;
    jo_i64(&c, "value", v);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                                 int32_t *value)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceCapability);
    ja_i64(&c, "deviceId", deviceId);
    ja_i64(&c, "devFeatureType", (int64_t)devFeatureType);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:374: null -> 100000 */
    if (!value) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "value is null"));
    }
    /* api_c_device.cc:542-543, 575-580: only the runtime's feature types 1,
     * 21, 10001 and 20001 (rts_device.h:54-62) -> else 107000 */
    int f = (int)devFeatureType;
    if (f != 1 && f != 21 && f != 10001 && f != 20001) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "devFeatureType %d is not a device feature", f));
    }
    /* api_error.cc:3800-3815: the device id is translated (107001) */
    if (!device_valid(deviceId)) {
        return call_end(&c, invalid_device(deviceId));
    }
    /* the driver's answer (closed); the mock has neither the TS-CPU task
     * update of AIC/AIV kernels nor cross-device memory-queue events */
    *value = 0;
    jo_i64(&c, "value", 0);
    return call_end(&c, ACL_SUCCESS);
}

/* Percent busy of a device: 100 while any of its streams has queued work. */
static int32_t device_busy(int dev)
{
    for (size_t i = 0; i < G.nstreams; i++) {
        const mock_stream *s = G.streams[i];
        if (s->device == dev && s->submitted > s->completed) {
            return 100;
        }
    }
    return 0;
}

ACLMOCK_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceUtilizationRate);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:225-230: null -> 100000 (reported), a non-null reserved
     * extension -> 100000 (logged only) */
    if (!utilizationInfo) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "utilizationInfo is null"));
    }
    if (utilizationInfo->utilizationExtend) {
        return call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    /* device.cpp:26-43, 231-235: each engine's figure, -1 where the runtime
     * fails (an unknown device: the error is reported, the call succeeds);
     * memory is always -1 */
    int32_t busy = -1;
    if (device_valid(deviceId)) {
        busy = device_busy(deviceId);
    } else {
        acl_fail(ACL_ERROR_RT_INVALID_DEVICEID, "rtGetAllUtilizations failed: device id %d is out of range [0, %u)",
                 deviceId, G.device_count);
    }
    utilizationInfo->cubeUtilization = busy;
    utilizationInfo->vectorUtilization = busy;
    utilizationInfo->aicpuUtilization = busy < 0 ? -1 : 0;
    utilizationInfo->memoryUtilization = -1;
    jo_i64(&c, "cube", busy);
    return call_end(&c, ACL_SUCCESS);
}

/* ------------------------------------------------------- peer access */

ACLMOCK_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtDeviceCanAccessPeer);
    ja_i64(&c, "deviceId", deviceId);
    ja_i64(&c, "peerDeviceId", peerDeviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:639-657, in order: the same device -> 100000; the peer's
     * physical id (107001); api_error.cc:2603-2613: the device (107001),
     * then canAccessPeer null -> 107000 */
    if (deviceId == peerDeviceId) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "deviceId and peerDeviceId are both %d", deviceId));
    }
    if (!device_valid(peerDeviceId)) {
        return call_end(&c, invalid_device(peerDeviceId));
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, invalid_device(deviceId));
    }
    if (!canAccessPeer) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "canAccessPeer is null"));
    }
    /* the driver's topology (closed): the mock's devices all share one host */
    *canAccessPeer = 1;
    jo_i64(&c, "canAccessPeer", 1);
    return call_end(&c, ACL_SUCCESS);
}

/* Enable and disable (memory.cpp:662-737): the current device (no context:
 * 107002, reported by the acl layer without a thread error), not the peer
 * itself (100000), the peer's physical id (107001). */
static aclError peer_change(mock_call *c, int32_t peer, bool enable)
{
    mock_ctx *ctx = cur_ctx();
    if (!ctx) {
        return acl_fail(ACL_ERROR_RT_CONTEXT_NULL, "call rtGetDevice failed: the thread has no current device");
    }
    if (ctx->device == peer) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "peerDeviceId %d is the current device", peer);
    }
    if (!device_valid(peer)) {
        return invalid_device(peer);
    }
    uint64_t bit = 1ULL << (unsigned)peer;
    mock_device *d = &G.devices[ctx->device];
    /* whether enabling twice or disabling what is not enabled fails is up to
     * the driver (closed): the mock accepts both */
    d->peers = enable ? (d->peers | bit) : (d->peers & ~bit);
    jo_i64(c, "device", ctx->device);
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtDeviceEnablePeerAccess);
    ja_i64(&c, "peerDeviceId", peerDeviceId);
    ja_u64(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:667-670: flags must be 0 -> 200006, before anything else */
    if (flags != 0) {
        return call_end(&c, acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags must be 0, not %u", flags));
    }
    return call_end(&c, peer_change(&c, peerDeviceId, true));
}

ACLMOCK_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtDeviceDisablePeerAccess);
    ja_i64(&c, "peerDeviceId", peerDeviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, peer_change(&c, peerDeviceId, false));
}

ACLMOCK_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    mock_call c;
    call_begin(&c, FN_aclrtDevicePeerAccessStatus);
    ja_i64(&c, "deviceId", deviceId);
    ja_i64(&c, "peerDeviceId", peerDeviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* memory.cpp:1776: null -> 100000; api_error.cc:2620-2631: the device
     * (107001), the peer's physical id below RT_MAX_DEV_NUM (107000) */
    if (!status) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "status is null"));
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, invalid_device(deviceId));
    }
    if (peerDeviceId < 0 || peerDeviceId >= RT_MAX_DEV_NUM) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "peerDeviceId %d is out of range [0, %d)", peerDeviceId,
                                 RT_MAX_DEV_NUM));
    }
    int32_t on = (G.devices[deviceId].peers >> (unsigned)peerDeviceId) & 1U;
    *status = on;
    jo_i64(&c, "status", on);
    return call_end(&c, ACL_SUCCESS);
}
