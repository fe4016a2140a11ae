/*
 * device.c: devices. Each device is created lazily on first use (so eight
 * 61 GiB devices cost nothing until touched), is reference counted by
 * aclrtSetDevice and aclrtCreateContext, and owns a shared default context
 * that aclrtSetDevice creates and the last reset releases.
 */
#include "mock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

bool device_valid(int32_t id) { return id >= 0 && (uint32_t)id < G.device_count && id < MOCK_MAX_DEVICES; }

mock_device *device_get(int32_t id)
{
    mock_device *d = &G.devices[id];
    if (!d->touched) {
        d->touched = true;
        d->capacity = G.hbm_bytes;
        ea_init(&d->heap, d->capacity);
    }
    return d;
}

mock_ctx *need_ctx(void)
{
    mock_ctx *ctx = cur_ctx();
    if (!ctx) {
        fail(ACL_ERROR_RT_CONTEXT_NULL,
             "the calling thread has no current context (call aclrtSetDevice or aclrtSetCurrentContext first)");
    }
    return ctx;
}

void device_release_ref(int32_t id, bool force)
{
    mock_device *d = &G.devices[id];
    if (force) {
        G.live[ACLMOCK_RES_DEVICE_REF] -= (uint64_t)d->refcount;
        d->refcount = 0;
    } else if (d->refcount > 0) {
        d->refcount--;
        G.live[ACLMOCK_RES_DEVICE_REF]--;
    }
    if (d->refcount == 0) {
        /* the runtime's Device object and its limits go with the last
         * reference (raw_device_res.cc:47-64 sets them again on the next) */
        d->res_limited[0] = d->res_limited[1] = false;
    }
    if (d->refcount == 0 && d->default_ctx) {
        mock_ctx *ctx = d->default_ctx;
        d->default_ctx = NULL;
        ctx_teardown(ctx);
    }
}

void devices_reset_locked(void)
{
    for (int i = 0; i < MOCK_MAX_DEVICES; i++) {
        mock_device *d = &G.devices[i];
        if (d->mwin_map) {
            munmap(d->mwin_map, d->mwin_len);
        }
        if (d->vwin_map) {
            munmap(d->vwin_map, d->vwin_len);
        }
        if (d->backing) {
            munmap(d->backing, d->capacity);
        }
        if (d->bitmap) {
            munmap(d->bitmap, d->bitmap_bytes);
        }
        ea_destroy(&d->heap);
        ea_destroy(&d->vspace);
        memset(d, 0, sizeof(*d));
    }
}

ACLMOCK_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetDevice);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", deviceId,
                                 G.device_count));
    }
    mock_device *d = device_get(deviceId);
    d->refcount++;
    G.live[ACLMOCK_RES_DEVICE_REF]++;
    if (!d->default_ctx) {
        d->default_ctx = ctx_create(deviceId, true);
    }
    tls()->ctx = d->default_ctx;
    jo_obj(&c, "context", d->default_ctx, OBJ_CTX);
    return call_end(&c, ACL_SUCCESS);
}

static aclError reset_device(int fn, int32_t deviceId, bool force)
{
    mock_call c;
    call_begin(&c, fn);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", deviceId,
                                 G.device_count));
    }
    mock_device *d = &G.devices[deviceId];
    if (d->refcount <= 0) {
        return call_end(&c, fail(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                                 "device %d is not set (its reference count is 0)", deviceId));
    }
    device_release_ref(deviceId, force);
    jo_i64(&c, "refCount", d->refcount);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    return reset_device(FN_aclrtResetDevice, deviceId, false);
}

ACLMOCK_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device(FN_aclrtResetDeviceForce, deviceId, true);
}

ACLMOCK_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDevice);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!deviceId) {
        /* device.cpp:139 (v8.5.0) */
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "deviceId is null"));
    }
    /* api_c_device.cc:102-103 (v8.5.0): no current context -> 107002 through
     * COND_RETURN_WITH_NOLOG, a "special state": no text, no thread error */
    mock_ctx *ctx = cur_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    *deviceId = ctx->device;
    jo_i64(&c, "deviceId", ctx->device);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetDeviceCount);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!count) {
        /* device.cpp:244 (v8.5.0) */
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "count is null"));
    }
    *count = G.device_count;
    jo_u64(&c, "count", G.device_count);
    return call_end(&c, ACL_SUCCESS);
}

static aclError sync_device(int fn, int32_t timeout, bool has_timeout)
{
    mock_call c;
    call_begin(&c, fn);
    if (has_timeout) {
        ja_i64(&c, "timeout", timeout);
    }
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* device.cpp:186-190 (v8.5.0): timeout < -1 -> 107000 from the acl layer
     * (no thread error); api_error.cc:2677-2678: timeout 0 -> 107000 */
    if (has_timeout && timeout < -1) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    if (has_timeout && timeout == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    aclError cap = capture_refuse_device_sync(ctx);
    if (cap) {
        return call_end(&c, cap);
    }
    int dev = ctx->device;
    uint64_t deadline = has_timeout ? deadline_after_ms(timeout) : 0;
    /* Snapshot the targets: work queued after this call started is not waited for. */
    size_t n = G.nstreams;
    mock_stream **list = n ? calloc(n, sizeof(*list)) : NULL;
    uint64_t *target = n ? calloc(n, sizeof(*target)) : NULL;
    size_t k = 0;
    vclock done = {0}; /* what the wait covers (order.c) */
    for (size_t i = 0; list && target && i < n; i++) {
        if (G.streams[i]->device == dev) {
            list[k] = G.streams[i];
            target[k++] = G.streams[i]->submitted;
            vc_join(&done, &G.streams[i]->vc);
        }
    }
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < k; i++) {
        if (!stream_wait_seq(list[i], target[i], deadline)) {
            rc = fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "device %d did not finish its work within %d ms", dev,
                      timeout);
            break;
        }
    }
    if (rc == ACL_SUCCESS && (n == 0 || (list && target))) {
        order_host_learn(&done);
    }
    vc_free(&done);
    free(list);
    free(target);
    return call_end(&c, rc);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeDevice(void) { return sync_device(FN_aclrtSynchronizeDevice, -1, false); }

ACLMOCK_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    return sync_device(FN_aclrtSynchronizeDeviceWithTimeout, timeout, true);
}
