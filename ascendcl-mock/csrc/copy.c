/*
 * copy.c: aclrtMemcpy, aclrtMemcpyAsync, aclrtMemset, aclrtMemsetAsync.
 *
 * Both sides of a copy are classified (device window, pinned host block or
 * pageable host memory) and validated before anything is queued; the kind
 * must agree with the addresses (ACL_MEMCPY_DEFAULT infers it). Synchronous
 * copies run at once in the calling thread: they are not ordered with queued
 * stream work, exactly like the real runtime. An asynchronous copy whose host
 * side is pageable waits for its own task before returning.
 */
#include "mock.h"

/* ---------------------------------------------------------------- copies */

static const char *where_name(int w) { return w == MEM_DEVICE ? "device" : w == MEM_PINNED ? "pinned host" : "host"; }

/*
 * Validates a copy; *same is set when dst == src (nothing to do). Order of
 * CANN 8.5.0:
 * 1. memory.cpp:528-536 / 572-579: null dst, null src, then a kind the acl
 *    layer does not translate (INNER_/INTER_DEVICE_TO_DEVICE, out of range)
 *    -> 100000 (acl layer, no thread error);
 * 2. api_error.cc:1569-1573 (sync) / 1612-1614 (async): destMax 0 (sync),
 *    count 0, count > destMax -> 107000;
 * 3. sync: dst == src -> success at once (api_error.cc:1577), before any
 *    context check; async: the current context (api_error.cc:2099-2100,
 *    107002) and the addresses (MemcpyAsyncCheckLocation) come first, then
 *    dst == src -> success (api_error.cc:1658-1659), before the stream
 *    (api_impl.cc:2754-2762, see aclrtMemcpyAsync).
 */
static aclError copy_check(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                           bool async, mem_range *rd, mem_range *rs, bool *same)
{
    *same = false;
    if (!dst || !src) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", dst ? "src" : "dst");
    }
    if ((unsigned)kind > (unsigned)ACL_MEMCPY_INTER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE ||
        kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "kind %d is not supported", (int)kind);
    }
    if (destMax == 0 || count == 0 || count > destMax) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu and destMax %zu are invalid (need 0 < count <= destMax)",
                    count, destMax);
    }
    if (!async && dst == src) {
        *same = true;
        return ACL_SUCCESS;
    }
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    aclError rc = mem_classify(dst, count, true, false, rd);
    if (!rc) {
        rc = mem_classify(src, count, false, false, rs);
    }
    if (rc) {
        return rc;
    }
    bool dd = rd->where == MEM_DEVICE, sd = rs->where == MEM_DEVICE;
    bool ok = true;
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        ok = !dd && !sd;
        break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        ok = dd && !sd;
        break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        ok = !dd && sd;
        break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        ok = dd && sd;
        break;
    default:
        break;
    }
    if (!ok) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "kind %d does not match the addresses: dst %p is %s memory, src %p is %s "
                    "memory", (int)kind, dst, where_name(rd->where), src, where_name(rs->where));
    }
    *same = dst == src;
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemcpy);
    ja_ptr(&c, "dst", dst);
    ja_u64(&c, "destMax", destMax);
    ja_ptr(&c, "src", src);
    ja_u64(&c, "count", count);
    ja_i64(&c, "kind", (int64_t)kind);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError cap = capture_refuse_unsafe_call("a synchronous copy (aclrtMemcpy)"); /* capture.c: api_impl.cc mode gate */
    if (cap) {
        return call_end(&c, cap);
    }
    mem_range rd, rs;
    bool same = false;
    aclError rc = copy_check(dst, destMax, src, count, kind, false, &rd, &rs, &same);
    if (rc || same) {
        return call_end(&c, rc);
    }
    /* not ordered with queued work: the host's own access (order.c) */
    int m = order_access(NULL, src, count, false, FN_aclrtMemcpy);
    int m2 = order_access(NULL, dst, count, true, FN_aclrtMemcpy);
    order_journal(&c, m >= 0 ? m : m2);
    mem_copy(dst, src, count);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemcpyAsync);
    ja_ptr(&c, "dst", dst);
    ja_u64(&c, "destMax", destMax);
    ja_ptr(&c, "src", src);
    ja_u64(&c, "count", count);
    ja_i64(&c, "kind", (int64_t)kind);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mem_range rd, rs;
    bool same = false;
    aclError rc = copy_check(dst, destMax, src, count, kind, true, &rd, &rs, &same);
    if (rc || same) {
        return call_end(&c, rc);
    }
    /* api_impl.cc:2754-2762 (v8.5.0): NULL = the default stream; a stream
     * outside the current context -> 107003. (api_error.cc:1661-1666: when
     * the driver reports pageable host memory the runtime instead
     * synchronizes the stream and copies synchronously, a path without this
     * check; whether it is taken depends on the driver's
     * GET_USER_MALLOC_ATTR support, api_error.cc:2102-2116, so the source
     * cannot decide and the mock always checks.) */
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    mock_task *t = task_new(TASK_COPY);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.count = count;
    t->u.copy.dst_fp = rd.fp;
    t->u.copy.src_fp = rs.fp;
    int m = order_access(s, src, count, false, FN_aclrtMemcpyAsync);
    int m2 = order_access(s, dst, count, true, FN_aclrtMemcpyAsync);
    order_journal(&c, m >= 0 ? m : m2);
    if (capture_is_capturing(s->cap) && (rd.where == MEM_HOST || rs.where == MEM_HOST)) {
        /* api_impl.cc:6653 (MemcpyHostTask): pageable host memory in a capture is mode-gated */
        aclError cap = capture_refuse_unsafe_call("an asynchronous copy with pageable host memory");
        if (cap) {
            task_free(t);
            return call_end(&c, cap);
        }
    }
    rc = stream_enqueue(s, t);
    if (rc) {
        return call_end(&c, rc);
    }
    bool pageable = rd.where == MEM_HOST || rs.where == MEM_HOST;
    jo_str(&c, "mode", pageable ? "synchronous (pageable host memory)" : "asynchronous");
    if (pageable) {
        /* returns once the stream has run everything up to the copy */
        vclock done = {0};
        vc_copy(&done, &s->vc);
        stream_wait_seq(s, s->submitted, 0);
        order_host_learn(&done);
        vc_free(&done);
    }
    return call_end(&c, ACL_SUCCESS);
}

/* ----------------------------------------------------------------- fills */

/*
 * Validates a fill (CANN 8.5.0): null devPtr -> 100000 (memory.cpp:552,
 * 627); count 0 -> 107000 (api_error.cc:2362, 2373); async: count >
 * maxCount -> 107000 (api_error.cc:2374-2375), then no context -> 107002
 * and a stream outside the current context -> 107003 (api_impl.cc:
 * 3071-3080). The synchronous fill's count > maxCount is checked below the
 * open-source layer (driver); the mock refuses it with 107000 after the
 * context check. *s (async only) receives the stream.
 */
static aclError set_check(void *devPtr, size_t maxCount, size_t count, bool async, aclrtStream stream,
                          mock_stream **s, mem_range *r)
{
    if (!devPtr) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "devPtr is null");
    }
    if (count == 0 || (async && count > maxCount)) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu and maxCount %zu are invalid (need 0 < count <= maxCount)",
                    count, maxCount);
    }
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (async) {
        *s = stream_in_ctx(stream);
        if (!*s) {
            return tls()->last_rc;
        }
    } else if (count > maxCount) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu and maxCount %zu are invalid (need 0 < count <= maxCount)",
                    count, maxCount);
    }
    aclError rc = mem_classify(devPtr, count, true, false, r);
    if (rc) {
        return rc;
    }
    /* Device memory or host memory from acl (aclrtMallocHost, aclrtHostRegister):
     * "the system tells host from device by the address" (runtime v8.5.0
     * docs/api_docs/aclrtMemset.md:15, aclrtMemsetAsync.md:15). The runtime has
     * no device-only check: the sync fill goes straight to drvMemsetD8
     * (api_impl.cc:3049-3064, npu_driver.cc:2141-2148), the async one tests the
     * location (context.cc:2597-2600). Host memory acl did not allocate is
     * undefined behaviour by the same docs line: refused here as misuse. */
    if (r->where == MEM_HOST) {
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p is host memory acl did not allocate (not device or pinned memory)",
               devPtr);
        return fail(ACL_ERROR_RT_PARAM_INVALID,
                    "%p is host memory acl did not allocate: fill device memory or memory from aclrtMallocHost",
                    devPtr);
    }
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemset);
    ja_ptr(&c, "devPtr", devPtr);
    ja_u64(&c, "maxCount", maxCount);
    ja_i64(&c, "value", value);
    ja_u64(&c, "count", count);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError cap = capture_refuse_unsafe_call("a synchronous memset (aclrtMemset)"); /* capture.c: api_impl.cc mode gate */
    if (cap) {
        return call_end(&c, cap);
    }
    mem_range r;
    aclError rc = set_check(devPtr, maxCount, count, false, NULL, NULL, &r);
    if (rc) {
        return call_end(&c, rc);
    }
    order_journal(&c, order_access(NULL, devPtr, count, true, FN_aclrtMemset));
    mem_fill(devPtr, value, count);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                         aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemsetAsync);
    ja_ptr(&c, "devPtr", devPtr);
    ja_u64(&c, "maxCount", maxCount);
    ja_i64(&c, "value", value);
    ja_u64(&c, "count", count);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mem_range r;
    mock_stream *s = NULL;
    aclError rc = set_check(devPtr, maxCount, count, true, stream, &s, &r);
    if (rc) {
        return call_end(&c, rc);
    }
    if (r.where == MEM_PINNED) {
        /* host memory is filled at once by the calling thread, not queued
         * (context.cc:2600, memset_s at :2602) */
        jo_str(&c, "mode", "immediate (host memory)");
        order_journal(&c, order_access(NULL, devPtr, count, true, FN_aclrtMemsetAsync));
        mem_fill(devPtr, value, count);
        return call_end(&c, ACL_SUCCESS);
    }
    mock_task *t = task_new(TASK_SET);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.set.dst = devPtr;
    t->u.set.value = value;
    t->u.set.count = count;
    t->u.set.fp = r.fp;
    order_journal(&c, order_access(s, devPtr, count, true, FN_aclrtMemsetAsync));
    return call_end(&c, stream_enqueue(s, t));
}

