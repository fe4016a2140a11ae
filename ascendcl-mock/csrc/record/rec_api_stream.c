/*
 * rec_api_stream.c: recording wrappers of streams, events, notifies and host
 * callbacks. Function pointers are recorded as numbers (they differ from run
 * to run, and replay ignores them); user data pointers are not recorded.
 */
#include "rec.h"

REC_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    REC_BEGIN(aclrtCreateStream);
    aclError rc;
    REC_INVOKE(rc, stream);
    if (rc == ACL_SUCCESS && stream) {
        ro_new_obj(&c, "stream", *stream, K_STREAM);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    REC_BEGIN(aclrtCreateStreamWithConfig);
    ra_u64(&c, "priority", priority);
    ra_hex(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, stream, priority, flag);
    if (rc == ACL_SUCCESS && stream) {
        ro_new_obj(&c, "stream", *stream, K_STREAM);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    REC_BEGIN(aclrtDestroyStream);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    REC_BEGIN(aclrtDestroyStreamForce);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    REC_BEGIN(aclrtSynchronizeStream);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    REC_BEGIN(aclrtSynchronizeStreamWithTimeout);
    ra_stream(&c, "stream", stream);
    ra_i64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, stream, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    REC_BEGIN(aclrtStreamQuery);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, stream, status);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", (int64_t)*status);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    REC_BEGIN(aclrtStreamWaitEvent);
    ra_stream(&c, "stream", stream);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, stream, event);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    REC_BEGIN(aclrtStreamWaitEventWithTimeout);
    ra_stream(&c, "stream", stream);
    ra_obj(&c, "event", event, K_EVENT);
    ra_i64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, stream, event, timeout);
    return REC_END(rc);
}

/* ------------------------------------------------------------------ events */

REC_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    REC_BEGIN(aclrtCreateEvent);
    aclError rc;
    REC_INVOKE(rc, event);
    if (rc == ACL_SUCCESS && event) {
        ro_new_obj(&c, "event", *event, K_EVENT);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    REC_BEGIN(aclrtCreateEventWithFlag);
    ra_hex(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, event, flag);
    if (rc == ACL_SUCCESS && event) {
        ro_new_obj(&c, "event", *event, K_EVENT);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    REC_BEGIN(aclrtCreateEventExWithFlag);
    ra_hex(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, event, flag);
    if (rc == ACL_SUCCESS && event) {
        ro_new_obj(&c, "event", *event, K_EVENT);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    REC_BEGIN(aclrtDestroyEvent);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    REC_BEGIN(aclrtRecordEvent);
    ra_obj(&c, "event", event, K_EVENT);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, event, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    REC_BEGIN(aclrtResetEvent);
    ra_obj(&c, "event", event, K_EVENT);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, event, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    REC_BEGIN(aclrtQueryEvent);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event, status);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", (int64_t)*status);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    REC_BEGIN(aclrtQueryEventStatus);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event, status);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", (int64_t)*status);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    REC_BEGIN(aclrtQueryEventWaitStatus);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event, status);
    if (rc == ACL_SUCCESS && status) {
        ro_i64(&c, "status", (int64_t)*status);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    REC_BEGIN(aclrtSynchronizeEvent);
    ra_obj(&c, "event", event, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, event);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    REC_BEGIN(aclrtSynchronizeEventWithTimeout);
    ra_obj(&c, "event", event, K_EVENT);
    ra_i64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, event, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    REC_BEGIN(aclrtEventElapsedTime);
    ra_obj(&c, "startEvent", startEvent, K_EVENT);
    ra_obj(&c, "endEvent", endEvent, K_EVENT);
    aclError rc;
    REC_INVOKE(rc, ms, startEvent, endEvent);
    if (rc == ACL_SUCCESS && ms) {
        ro_f64(&c, "ms", (double)*ms);
    }
    return REC_END(rc);
}

/* --------------------------------------------------------------- callbacks */

REC_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    REC_BEGIN(aclrtLaunchHostFunc);
    ra_stream(&c, "stream", stream);
    ra_hex(&c, "fn", (uint64_t)(uintptr_t)fn);
    aclError rc;
    REC_INVOKE(rc, stream, fn, args);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    REC_BEGIN(aclrtSubscribeReport);
    ra_u64(&c, "threadId", threadId);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, threadId, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                        aclrtStream stream)
{
    REC_BEGIN(aclrtLaunchCallback);
    ra_hex(&c, "fn", (uint64_t)(uintptr_t)fn);
    ra_i64(&c, "blockType", (int64_t)blockType);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, fn, userData, blockType, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    REC_BEGIN(aclrtProcessReport);
    ra_i64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    REC_BEGIN(aclrtUnSubscribeReport);
    ra_u64(&c, "threadId", threadId);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, threadId, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    REC_BEGIN(aclrtCreateNotify);
    ra_hex(&c, "flag", flag);
    aclError rc;
    REC_INVOKE(rc, notify, flag);
    if (rc == ACL_SUCCESS && notify) {
        ro_new_obj(&c, "notify", *notify, K_NOTIFY);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    REC_BEGIN(aclrtDestroyNotify);
    ra_obj(&c, "notify", notify, K_NOTIFY);
    aclError rc;
    REC_INVOKE(rc, notify);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    REC_BEGIN(aclrtRecordNotify);
    ra_obj(&c, "notify", notify, K_NOTIFY);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, notify, stream);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    REC_BEGIN(aclrtWaitAndResetNotify);
    ra_obj(&c, "notify", notify, K_NOTIFY);
    ra_stream(&c, "stream", stream);
    ra_u64(&c, "timeout", timeout);
    aclError rc;
    REC_INVOKE(rc, notify, stream, timeout);
    return REC_END(rc);
}

REC_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    REC_BEGIN(aclrtNotifyGetExportKey);
    ra_obj(&c, "notify", notify, K_NOTIFY);
    ra_u64(&c, "len", len);
    ra_hex(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, notify, key, len, flags);
    if (rc == ACL_SUCCESS && key) {
        ro_str(&c, "key", key);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    REC_BEGIN(aclrtNotifyImportByKey);
    ra_str(&c, "key", key);
    ra_hex(&c, "flags", flags);
    aclError rc;
    REC_INVOKE(rc, notify, key, flags);
    if (rc == ACL_SUCCESS && notify) {
        ro_new_obj(&c, "notify", *notify, K_NOTIFY);
    }
    return REC_END(rc);
}

REC_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    REC_BEGIN(aclrtNotifySetImportPid);
    ra_obj(&c, "notify", notify, K_NOTIFY);
    ra_u64(&c, "num", num);
    aclError rc;
    REC_INVOKE(rc, notify, pid, num);
    return REC_END(rc);
}
