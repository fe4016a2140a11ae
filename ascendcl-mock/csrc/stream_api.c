/*
 * stream_api.c: the exported stream functions (aclrtCreateStream*,
 * aclrtDestroyStream*, aclrtSynchronizeStream*, aclrtStreamQuery) and the
 * stream resolution shared by the calls that queue work (stream_in_ctx),
 * each with the CANN 8.5.0 lines its checks come from. The stream objects,
 * their workers and queues are in stream.c.
 */
#include "mock.h"

/* The stream an asynchronous call queues to, as CANN 8.5.0's ApiImpl
 * resolves it (api_impl.cc:1518-1532 wait, 2097-2111 record, 2754-2762
 * memcpy, 3071-3080 memset, 5084-5093 callback, 8733-8741 host function):
 * no current context -> 107002, NULL = the context's default stream, a
 * stream of another context -> 107003. */
mock_stream *stream_in_ctx(const void *handle)
{
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return NULL;
    }
    mock_stream *s = stream_arg(handle);
    if (s && s->ctx != ctx) {
        fail(ACL_ERROR_RT_STREAM_CONTEXT,
             "stream s%llu is not in the current context (it belongs to c%llu on device %d, current is c%llu)",
             (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id, s->device,
             (unsigned long long)ctx->h.id);
        return NULL;
    }
    return s;
}

/* rt flag of ACL_STREAM_DEVICE_USE_ONLY (RT_STREAM_CP_PROCESS_USE,
 * src/inc/runtime/stream.h:40 v8.5.0) */
#define ACL_STREAM_KNOWN                                                                                      \
    (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |                \
     ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

/*
 * Stream creation, in the order of CANN 8.5.0:
 * 1. stream.cpp:37, 56: null out-pointer -> 100000 (acl layer);
 * 2. stream.cpp:58-76: only the six ACL_STREAM_* bits are translated to
 *    runtime flags; any other bit is dropped silently (no error);
 * 3. api_error.cc:966-968 (CheckStreamFlags): ACL_STREAM_DEVICE_USE_ONLY
 *    (RT_STREAM_CP_PROCESS_USE) combined with any other flag -> 107000;
 *    (api_error.cc:954-956 rejects ACL_STREAM_HUGE on chips without
 *    RT_FEATURE_STREAM_HUGE_DEPTH: a chip table outside these files, the
 *    mock accepts it);
 * 4. api_error.cc:934-945: the priority (an int32 after
 *    api_c_stream.cc:57) is clamped to [0, 7] (base_info.hpp:154-155), never
 *    rejected: 8 or 0xFFFFFFFF (-1) create a stream of priority 7 or 0;
 * 5. api_impl.cc:1323-1324: no current context -> 107002.
 */
static aclError create_stream(mock_call *c, aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    if (!stream) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null");
    }
    flag &= ACL_STREAM_KNOWN;
    if ((flag & ACL_STREAM_DEVICE_USE_ONLY) && flag != ACL_STREAM_DEVICE_USE_ONLY) {
        return fail(ACL_ERROR_RT_PARAM_INVALID,
                    "flag 0x%x: ACL_STREAM_DEVICE_USE_ONLY does not combine with other flags", flag);
    }
    int32_t prio = (int32_t)priority;
    priority = prio < 0 ? 0 : (prio > 7 ? 7 : (uint32_t)prio);
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (G.devices[ctx->device].nstreams >= MOCK_STREAMS_PER_DEVICE) {
        return fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device %d already has %d streams", ctx->device,
                    MOCK_STREAMS_PER_DEVICE);
    }
    mock_stream *s = stream_create(ctx, false, priority, flag);
    if (!s) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    *stream = s;
    jo_obj(c, "stream", s, OBJ_STREAM);
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateStream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_stream(&c, stream, 0, 0));
}

ACLMOCK_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateStreamWithConfig);
    ja_u64(&c, "priority", priority);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    return call_end(&c, create_stream(&c, stream, priority, flag));
}

static aclError destroy_stream(int fn, aclrtStream stream, bool force)
{
    mock_call c;
    call_begin(&c, fn);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:102, 119 (v8.5.0): null -> 100000 (acl layer); then
     * api_impl.cc:1431-1434: no context -> 107002, a stream of another
     * context -> 107003 */
    if (!stream) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "stream is null"));
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, ACL_ERROR_RT_PARAM_INVALID);
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (s->ctx != ctx) {
        misuse(ACLMOCK_MISUSE_WRONG_CONTEXT, "stream s%llu belongs to context c%llu but the current context is c%llu",
               (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id, (unsigned long long)ctx->h.id);
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_CONTEXT,
                                 "stream s%llu is not in the current context (it belongs to c%llu, current is c%llu)",
                                 (unsigned long long)s->h.id, (unsigned long long)s->ctx->h.id,
                                 (unsigned long long)ctx->h.id));
    }
    aclError cap = capture_refuse_stream_sync(s, "destroying");
    if (cap) {
        return call_end(&c, cap);
    }
    stream_destroy(s, force);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    return destroy_stream(FN_aclrtDestroyStream, stream, false);
}

ACLMOCK_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream(FN_aclrtDestroyStreamForce, stream, true);
}

static aclError sync_stream(int fn, aclrtStream stream, int32_t timeout, bool has_timeout)
{
    mock_call c;
    call_begin(&c, fn);
    ja_stream(&c, "stream", stream);
    if (has_timeout) {
        ja_i64(&c, "timeout", timeout);
    }
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:156-160 (v8.5.0): timeout < -1 -> 107000 from the acl
     * layer (no thread error); api_error.cc:1001-1002: the runtime then
     * rejects timeout 0 -> 107000 */
    if (has_timeout && timeout < -1) {
        return call_end(&c, acl_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    if (has_timeout && timeout == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 or > 0)", timeout));
    }
    mock_stream *s = NULL;
    if (stream) {
        s = stream_arg(stream);
        if (!s) {
            return call_end(&c, tls()->last_rc);
        }
        /* api_error.cc:1003-1007: a stream created with
         * ACL_STREAM_CPU_SCHEDULE (RT_STREAM_AICPU, 0x08) or
         * ACL_STREAM_DEVICE_USE_ONLY (RT_STREAM_CP_PROCESS_USE) cannot be
         * synchronized: RT_ERROR_STREAM_INVALID -> 507000
         * (errcode_manage.cc:111), before the context check */
        if (s->flags & (ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)) {
            return call_end(&c, fail(ACL_ERROR_RT_INTERNAL_ERROR,
                                     "stream s%llu (flags 0x%x) cannot be synchronized from the host",
                                     (unsigned long long)s->h.id, s->flags));
        }
    }
    /* api_impl.cc:1580-1581: no current context -> 107002; :1602-1609: a
     * stream of another context is synchronized (the runtime switches) */
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (!s) {
        s = stream_arg(NULL);
    }
    aclError cap = capture_refuse_stream_sync(s, "synchronizing");
    if (cap) {
        return call_end(&c, cap);
    }
    if (s->flags & ACL_STREAM_PERSISTENT) {
        return call_end(&c, ACL_SUCCESS);
    }
    uint64_t deadline = has_timeout ? deadline_after_ms(timeout) : 0;
    vclock done = {0}; /* what the wait covers: work queued before this call */
    vc_copy(&done, &s->vc);
    bool finished = stream_wait_seq(s, s->submitted, deadline);
    if (finished && !s->sticky) {
        order_host_learn(&done);
    }
    vc_free(&done);
    if (!finished) {
        return call_end(&c, fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                                 "stream s%llu still has %llu queued task(s) after %d ms",
                                 (unsigned long long)s->h.id, (unsigned long long)(s->submitted - s->completed),
                                 timeout));
    }
    if (s->sticky) {
        aclError e = s->sticky;
        s->sticky = ACL_SUCCESS;
        aclError r = fail(e, "a task of stream s%llu failed: %s", (unsigned long long)s->h.id,
                          s->sticky_msg[0] ? s->sticky_msg : "an event wait timed out");
        s->sticky_msg[0] = '\0';
        return call_end(&c, r);
    }
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return sync_stream(FN_aclrtSynchronizeStream, stream, -1, false);
}

ACLMOCK_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return sync_stream(FN_aclrtSynchronizeStreamWithTimeout, stream, timeout, true);
}

ACLMOCK_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    mock_call c;
    call_begin(&c, FN_aclrtStreamQuery);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    /* stream.cpp:186 (v8.5.0): null status -> 100000 (acl layer);
     * api_impl.cc:1636-1643: no context -> 107002 whatever the stream, NULL
     * = the default stream; a stream of another context may be queried */
    if (!status) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "status is null"));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    aclError cap = capture_refuse_stream_sync(s, "a query");
    if (cap) {
        return call_end(&c, cap);
    }
    int64_t st = s->completed == s->submitted ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    if (st == ACL_STREAM_STATUS_COMPLETE) {
        order_host_learn(&s->vc);
    }
    if (replay_out_i64(&c, "status", &st) && st == ACL_STREAM_STATUS_COMPLETE && s->completed != s->submitted) {
        /* strict replay: the card's stream was idle; the mock's catches up */
        stream_wait_seq(s, s->submitted, deadline_after_ms(RP_REPLAY_CATCH_UP_MS));
        order_host_learn(&s->vc);
    }
    *status = (aclrtStreamStatus)st;
    jo_i64(&c, "status", st);
    return call_end(&c, ACL_SUCCESS);
}
