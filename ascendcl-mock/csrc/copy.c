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

/* Validates a copy; *same is set when dst == src (nothing to do). */
static aclError copy_check(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                           mem_range *rd, mem_range *rs, bool *same)
{
    *same = false;
    if (!dst || !src) {
        return fail(ACL_ERROR_INVALID_PARAM, "%s is null", dst ? "src" : "dst");
    }
    if ((unsigned)kind > (unsigned)ACL_MEMCPY_INTER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE ||
        kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
        return fail(ACL_ERROR_INVALID_PARAM, "kind %d is not supported", (int)kind);
    }
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (destMax == 0 || count == 0 || count > destMax) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu and destMax %zu are invalid (need 0 < count <= destMax)",
                    count, destMax);
    }
    if (dst == src) {
        *same = true;
        return ACL_SUCCESS;
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
    mem_range rd, rs;
    bool same = false;
    aclError rc = copy_check(dst, destMax, src, count, kind, &rd, &rs, &same);
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
    aclError rc = copy_check(dst, destMax, src, count, kind, &rd, &rs, &same);
    if (rc) {
        return call_end(&c, rc);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    if (same) {
        return call_end(&c, ACL_SUCCESS);
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

static aclError set_check(void *devPtr, size_t maxCount, size_t count, mem_range *r)
{
    if (!devPtr) {
        return fail(ACL_ERROR_INVALID_PARAM, "devPtr is null");
    }
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (count == 0 || count > maxCount) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu and maxCount %zu are invalid (need 0 < count <= maxCount)",
                    count, maxCount);
    }
    aclError rc = mem_classify(devPtr, count, true, false, r);
    if (rc) {
        return rc;
    }
    if (r->where != MEM_DEVICE) {
        misuse(ACLMOCK_MISUSE_UNKNOWN_POINTER, "%p is %s memory, not device memory", devPtr, where_name(r->where));
        return fail(ACL_ERROR_RT_PARAM_INVALID, "%p is %s memory, not device memory", devPtr, where_name(r->where));
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
    mem_range r;
    aclError rc = set_check(devPtr, maxCount, count, &r);
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
    aclError rc = set_check(devPtr, maxCount, count, &r);
    if (rc) {
        return call_end(&c, rc);
    }
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
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

