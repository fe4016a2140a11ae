/*
 * notify.c: notifies (aclrtCreateNotify, aclrtDestroyNotify,
 * aclrtRecordNotify, aclrtWaitAndResetNotify). A notify is one bit of the
 * device: a record task sets it when its stream reaches it, a wait task holds
 * its stream until the bit is set and clears it in the same step, so one
 * record releases one wait and records before a wait collapse into one
 * (the single-bit record of notify.cc:125-170, the wait of notify.cc:272-305,
 * "wait until the notify completes, then reset it",
 * docs/api_docs/aclrtWaitAndResetNotify.md:9).
 *
 * Rules from hicann/runtime v8.5.0: src/acl/aclrt_impl/notify.cpp,
 * src/runtime/feature/src/api/api_c_event.cc, api/api_c.cc,
 * api_impl/api_error.cc, api_impl/api_impl.cc, notify/notify.cc.
 */
#include "ipc.h"

#include <stdio.h>
#include <stdlib.h>

/* src/inc/runtime/event.h:61-62: the two flags rtsNotifyCreate takes */
#define RT_NOTIFY_FLAG_DEFAULT 0x00u
#define RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV 0x01u

/* The notify behind a handle argument; NULL after recording the failure. */
static mock_notify *notify_arg(const void *handle)
{
    if (!handle) {
        /* notify.cpp:41, 57, 73: ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT -> 100000 */
        acl_fail(ACL_ERROR_INVALID_PARAM, "notify is null");
        return NULL;
    }
    mock_notify *n = (mock_notify *)obj_lookup(handle, OBJ_NOTIFY);
    if (!n || !n->h.alive) {
        /* the runtime dereferences a stale Notify; the mock refuses it as it
         * refuses a stale event (event.c) */
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "notify %p is %s", handle, n ? "destroyed" : "not a live notify");
        fail(ACL_ERROR_RT_PARAM_INVALID, "notify %p is %s", handle,
             n ? "already destroyed" : "not a notify of this runtime");
        return NULL;
    }
    return n;
}

/*
 * Creation, in order: null out-pointer -> 100000 (notify.cpp:25); a flag
 * other than ACL_NOTIFY_DEFAULT (0) and ACL_NOTIFY_DEVICE_USE_ONLY (1) ->
 * 107000 (api_c_event.cc:138-142); no current device -> 107002 without text
 * (rtGetDevice, api_c_event.cc:143-147, api_c_device.cc:103); no current
 * context -> 107002 (api_impl.cc:4568-4569). (api_impl.cc:4572-4579: a
 * device-only notify depends on the TS firmware version; the mock accepts
 * it.) aclrtCreateNotify.md, constraints: 8192 notifies per device; past
 * them the driver's id allocation fails (notify.cc:101-106), in closed code:
 * the mock answers ACL_ERROR_RT_NO_NOTIFY_RESOURCE (207009), a mock decision.
 */
ACLMOCK_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    mock_call c;
    call_begin(&c, FN_aclrtCreateNotify);
    ja_hex(&c, "flag", flag);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!notify) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "notify is null"));
    }
    if (flag != RT_NOTIFY_FLAG_DEFAULT && flag != RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%llx is not ACL_NOTIFY_DEFAULT (0) or "
                                                             "ACL_NOTIFY_DEVICE_USE_ONLY (1)",
                                 (unsigned long long)flag));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mock_device *d = &G.devices[ctx->device];
    if (d->nnotifies >= MOCK_NOTIFIES_PER_DEVICE) {
        return call_end(&c, fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "device %d already has %d notifies", ctx->device,
                                 MOCK_NOTIFIES_PER_DEVICE));
    }
    mock_notify *n = calloc(1, sizeof(*n));
    if (!n) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    obj_register(&n->h, OBJ_NOTIFY, ++G.next_notify);
    n->device = ctx->device;
    n->flag = flag;
    d->nnotifies++;
    G.live[ACLMOCK_RES_NOTIFY]++;
    *notify = n;
    jo_obj(&c, "notify", n, OBJ_NOTIFY);
    return call_end(&c, ACL_SUCCESS);
}

/*
 * Destruction: null -> 100000 (notify.cpp:41); no current context -> 107002
 * (api_impl.cc:4596-4597); then the Notify is deleted and its id freed
 * (api_impl.cc:4599, notify.cc:34-57) whatever the device still has queued
 * on it. What a card does with a record or wait of a freed id is the closed
 * firmware's: the mock reports the destroy as ACLMOCK_MISUSE_DESTROYED_HANDLE
 * when tasks of the notify are still queued, and releases its queued waits
 * (they finish without the bit, so nothing hangs), a mock decision.
 */
ACLMOCK_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    mock_call c;
    call_begin(&c, FN_aclrtDestroyNotify);
    ja_obj(&c, "notify", notify, OBJ_NOTIFY);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_notify *n = notify_arg(notify);
    if (!n) {
        return call_end(&c, tls()->last_rc);
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (n->queued) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "notify y%llu destroyed while %u of its record/wait tasks are queued",
               (unsigned long long)n->h.id, n->queued);
        jo_str(&c, "misuse", misuse_name(ACLMOCK_MISUSE_DESTROYED_HANDLE));
    }
    n->h.alive = false;
    notify_ipc_release(n);
    G.devices[n->device].nnotifies--;
    G.live[ACLMOCK_RES_NOTIFY]--;
    mock_broadcast(); /* queued waits see the notify gone */
    return call_end(&c, ACL_SUCCESS);
}

/* Capture of notify tasks into a model (notify.cc:272 takes a capture
 * model) is not modelled: refused with 207000, a mock limitation. */
static aclError refuse_capture(const mock_stream *s)
{
    if (s->cap && capture_is_capturing(s->cap)) {
        return fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the mock does not capture notify tasks (stream s%llu is capturing)",
                    (unsigned long long)s->h.id);
    }
    return ACL_SUCCESS;
}

static aclError queue_notify_task(mock_notify *n, mock_stream *s, task_kind kind, uint32_t timeout_s)
{
    aclError rc = refuse_capture(s);
    if (rc) {
        return rc;
    }
    mock_task *t = task_new(kind);
    if (!t) {
        return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    t->u.ntf.n = n;
    t->u.ntf.timeout_s = timeout_s;
    n->queued++;
    rc = stream_enqueue(s, t); /* on failure task_finish already dropped `queued` */
    if (rc == ACL_SUCCESS && kind == TASK_NOTIFY_RECORD) {
        order_notify_record(n, s);
    } else if (rc == ACL_SUCCESS) {
        order_notify_wait(s, n);
    }
    return rc;
}

/*
 * Record: null -> 100000 (notify.cpp:57); no current context -> 107002
 * (api_impl.cc:4606-4607); NULL is the context's default stream
 * (api_impl.cc:4609-4613); a stream of another context -> 107003
 * (api_impl.cc:4614-4615). A stream of another device than the notify's is
 * accepted: Notify::Record submits to the stream's device and handles the
 * remote case (notify.cc:127-142). No flag is refused on the host.
 */
ACLMOCK_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtRecordNotify);
    ja_obj(&c, "notify", notify, OBJ_NOTIFY);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_notify *n = notify_arg(notify);
    if (!n) {
        return call_end(&c, tls()->last_rc);
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    return call_end(&c, queue_notify_task(n, s, TASK_NOTIFY_RECORD, 0));
}

/*
 * Wait and reset: null -> 100000 (notify.cpp:73); timeout UINT32_MAX is
 * rtNotifyWait (api_c_event.cc:172-174), which waits without limit on an
 * Ascend910B (RT_FEATURE_NOTIFY_WAIT, platform/910_B_93/dev_info_reg.cc:140;
 * api_c.cc:2144-2145), as 0 does (aclrtWaitAndResetNotify.md:20: 0 waits
 * forever, else the limit in seconds); no current context -> 107002
 * (api_impl.cc:4679-4680); NULL is the default stream (api_impl.cc:4683-4686);
 * a stream of another context -> 107003 (api_impl.cc:4688-4691). A wait that
 * times out fails its stream: the code the next synchronize reports is the
 * firmware's (device_error_proc.cc:1513 only logs it); the mock reports
 * ACL_ERROR_RT_WAIT_TIMEOUT (107019), as for an event wait.
 */
ACLMOCK_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    mock_call c;
    call_begin(&c, FN_aclrtWaitAndResetNotify);
    ja_obj(&c, "notify", notify, OBJ_NOTIFY);
    ja_stream(&c, "stream", stream);
    ja_u64(&c, "timeout", timeout);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mock_notify *n = notify_arg(notify);
    if (!n) {
        return call_end(&c, tls()->last_rc);
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    /* api_impl.cc:4692-4694, notify.cc:347-366: an IPC notify is waited for
     * only on its own device -> 107000 */
    if (n->ipc && n->device != s->device) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "IPC notify y%llu of device %d cannot be waited for on device %d",
                                 (unsigned long long)n->h.id, n->device, s->device));
    }
    uint32_t limit = timeout == UINT32_MAX ? 0 : timeout;
    return call_end(&c, queue_notify_task(n, s, TASK_NOTIFY_WAIT, limit));
}

/* ------------------------------------------------------------- worker */

void notify_task_record(mock_task *t)
{
    if (t->u.ntf.n->h.alive) {
        notify_bit_set(t->u.ntf.n);
    }
}

/* A stream destroy sets `stopping` without waking the global condition, and
 * a record in another process wakes nothing here, so the wait looks again
 * every 10 ms besides every completion's broadcast. */
void notify_task_wait(mock_stream *s, mock_task *t)
{
    mock_notify *n = t->u.ntf.n;
    uint64_t deadline = t->u.ntf.timeout_s ? now_ns() + (uint64_t)t->u.ntf.timeout_s * 1000000000ULL : 0;
    for (;;) {
        if (s->stopping || !n->h.alive) {
            return;
        }
        if (notify_bit_take(n)) {
            return; /* taken and cleared in one step */
        }
        if (deadline && now_ns() >= deadline) {
            s->sticky = ACL_ERROR_RT_WAIT_TIMEOUT;
            snprintf(s->sticky_msg, sizeof(s->sticky_msg),
                     "aclrtWaitAndResetNotify: notify y%llu was not recorded within %u s", (unsigned long long)n->h.id,
                     t->u.ntf.timeout_s);
            return;
        }
        uint64_t slice = deadline_after_ms(10);
        (void)mock_wait_until(deadline && deadline < slice ? deadline : slice);
    }
}

void notify_task_done(mock_task *t)
{
    if (t->u.ntf.n->queued) {
        t->u.ntf.n->queued--;
    }
}
