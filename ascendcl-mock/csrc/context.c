/*
 * context.c: contexts. A context belongs to one device and has its own
 * default stream; the current context is per thread. Default contexts
 * (one per device, shared by every thread that sets the device) are created
 * by aclrtSetDevice; others by aclrtCreateContext, which also counts a
 * device reference and makes the new context current.
 */
#include "mock.h"

#include <stdlib.h>

mock_ctx *ctx_create(int32_t device, bool is_default)
{
    mock_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        return NULL;
    }
    obj_register(&ctx->h, OBJ_CTX, ++G.next_ctx);
    ctx->device = device;
    ctx->is_default = is_default;
    ctx->default_stream = stream_create(ctx, true, 0, 0);
    if (!is_default) {
        G.live[ACLMOCK_RES_CONTEXT]++;
    }
    return ctx;
}

void ctx_teardown(mock_ctx *ctx)
{
    if (!ctx->h.alive) {
        return;
    }
    ctx->h.alive = false;
    if (!ctx->is_default) {
        G.live[ACLMOCK_RES_CONTEXT]--;
    }
    /* Streams of the context are drained and destroyed, default one included. */
    for (;;) {
        mock_stream *victim = NULL;
        for (size_t i = 0; i < G.nstreams; i++) {
            if (G.streams[i]->ctx == ctx) {
                victim = G.streams[i];
                break;
            }
        }
        if (!victim) {
            break;
        }
        stream_destroy(victim, false);
    }
}

/* Validates a context argument: 100000 for NULL (context.cpp:55, 71
 * (v8.5.0): acl layer); a destroyed or unknown handle is counted as misuse
 * and the context (dead) or NULL (unknown: never dereferenced) returned. */
static mock_ctx *ctx_arg(const void *handle, aclError *rc)
{
    if (!handle) {
        *rc = acl_fail(ACL_ERROR_INVALID_PARAM, "context is null");
        return NULL;
    }
    mock_ctx *ctx = (mock_ctx *)obj_lookup(handle, OBJ_CTX);
    if (!ctx || !ctx->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "context %p is %s", handle, ctx ? "destroyed" : "not a live context");
    }
    *rc = ACL_SUCCESS;
    return ctx;
}

ACLMOCK_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateContext);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!context) {
        return call_end(&c, fail(ACL_ERROR_INVALID_PARAM, "context is null"));
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", deviceId,
                                 G.device_count));
    }
    mock_device *d = device_get(deviceId);
    mock_ctx *ctx = ctx_create(deviceId, false);
    if (!ctx) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    d->refcount++;
    G.live[ACLMOCK_RES_DEVICE_REF]++;
    tls()->ctx = ctx;
    *context = ctx;
    jo_obj(&c, "context", ctx, OBJ_CTX);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    mock_call c;
    call_begin(&c, FN_aclrtDestroyContext);
    ja_obj(&c, "context", context, OBJ_CTX);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError rc = ACL_SUCCESS;
    mock_ctx *ctx = ctx_arg(context, &rc);
    if (rc != ACL_SUCCESS) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:3802 (v8.5.0): a context that is not valid (destroyed,
     * unknown) -> RT_ERROR_CONTEXT_NULL, 107002; :3803: the primary
     * (default) context cannot be destroyed -> 107002 */
    if (!ctx || !ctx->h.alive) {
        return call_end(&c, fail(ACL_ERROR_RT_CONTEXT_NULL, "context %p is %s", context,
                                 ctx ? "already destroyed" : "not a context of this runtime"));
    }
    if (ctx->is_default) {
        return call_end(&c, fail(ACL_ERROR_RT_CONTEXT_NULL,
                                 "context %p is the default context of device %d; release it with aclrtResetDevice",
                                 context, ctx->device));
    }
    int dev = ctx->device;
    ctx_teardown(ctx);
    if (tls()->ctx == ctx) {
        tls()->ctx = NULL;
    }
    device_release_ref(dev, false);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    mock_call c;
    call_begin(&c, FN_aclrtSetCurrentContext);
    ja_obj(&c, "context", context, OBJ_CTX);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError rc = ACL_SUCCESS;
    mock_ctx *ctx = ctx_arg(context, &rc);
    if (rc != ACL_SUCCESS) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:3825-3832 (v8.5.0): the runtime stores the pointer without
     * checking it; a destroyed context then fails the next call that needs
     * a context with 107002 (CHECK_CONTEXT_VALID_WITH_RETURN). The mock does
     * the same (cur_ctx() treats a dead context as none); an unknown pointer
     * is never stored (the mock does not dereference it): the thread has no
     * context, with the same 107002 later. Both are counted as misuse. */
    tls()->ctx = ctx;
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    mock_call c;
    call_begin(&c, FN_aclrtGetCurrentContext);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!context) {
        /* context.cpp:86 (v8.5.0): acl-layer null check, 100000 */
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "context is null"));
    }
    /* api_impl.cc:3834-3838 (v8.5.0): ContextGetCurrent stores the thread's
     * current context (runtime.cc:5300-5312: NULL when the thread has none)
     * and returns success; api_c.cc:1400 only maps a CONTEXT_NULL that this
     * path never produces. A thread with no context gets 0 and NULL. */
    mock_ctx *ctx = cur_ctx();
    *context = ctx;
    jo_obj(&c, "context", ctx, OBJ_CTX);
    return call_end(&c, ACL_SUCCESS);
}
