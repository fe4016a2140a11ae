/*
 * copy2d.c: aclrtMemcpy2d and aclrtMemcpy2dAsync, strided copies of
 * `height` rows of `width` bytes, rows `spitch` bytes apart at the source
 * and `dpitch` bytes apart at the destination.
 *
 * Each side is validated as one range, from its first byte to the last byte
 * of its last row (pitch * (height - 1) + width), and the happens-before
 * model (order.c) is told about that whole range: a conservative footprint
 * (the gaps between rows count as accessed), never a missed conflict.
 * The asynchronous copy is a TASK_COPY2D run by the stream worker; as for
 * aclrtMemcpyAsync, a pageable host side makes the call wait for its task.
 */
#include <string.h>

#include "mock.h"

/* memory.cpp:82-122 and api_error.cc:2255-2258 (CANN 8.5.0): the limits of
 * RT_MAX_MEMCPY2D_HEIGHT / _WIDTH (internal_error_define.hpp:26-27). */
#define MAX_2D_HEIGHT 5242880ULL
#define MAX_2D_WIDTH 5000000ULL

static const char *where_name(int w) { return w == MEM_DEVICE ? "device" : w == MEM_PINNED ? "pinned host" : "host"; }

/* Bytes from the first byte of a side to the end of its last row. */
static bool span_of(size_t pitch, size_t width, size_t height, size_t *span)
{
    size_t rows = 0;
    return !__builtin_mul_overflow(pitch, height - 1, &rows) && !__builtin_add_overflow(rows, width, span);
}

/*
 * Validates a 2-D copy, in CANN 8.5.0's order:
 * 1. acl layer, CheckMemcpy2dParam (memory.cpp:82-122), 100000 without a
 *    thread error: dst null, src null (reported), height 0, width 0, width >
 *    spitch or > dpitch (logged only), a kind other than HOST_TO_DEVICE,
 *    DEVICE_TO_HOST or DEFAULT (reported);
 * 2. async: a NULL stream -> 107000 (api_error.cc:2323: the decorator refuses
 *    it before ApiImpl would pick the default stream, api_impl.cc:6626-6630);
 * 3. the runtime's limits (api_error.cc:2255-2258): height > 5242880 or width
 *    > 5000000 -> 107000;
 * 4. the addresses (GetLocationType / MemcpyAsyncCheckLocation), then the
 *    kind they imply must be host to device or device to host
 *    (api_error.cc:2308-2312, 2331-2337) -> 107000;
 * 5. the current context (api_impl.cc:6596-6597 sync, 6623-6624 async,
 *    107002) and, async, the stream's context (api_impl.cc:6631-6632, 107003).
 */
static aclError check_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         aclrtMemcpyKind kind, bool async, aclrtStream stream, mem_range *rd, mem_range *rs,
                         size_t *dspan, size_t *sspan)
{
    if (!dst || !src) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", dst ? "src" : "dst");
    }
    if (height == 0 || width == 0 || width > spitch || width > dpitch) {
        return ACL_ERROR_INVALID_PARAM; /* ACL_LOG_ERROR only: no text (log_inner.h:175-180) */
    }
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST && kind != ACL_MEMCPY_DEFAULT) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "kind %d is not a kind of 2-D copy (HOST_TO_DEVICE, "
                        "DEVICE_TO_HOST or DEFAULT)", (int)kind);
    }
    if (async && !stream) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "stream is null (a 2-D copy needs an explicit stream)");
    }
    if (height > MAX_2D_HEIGHT || width > MAX_2D_WIDTH) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "height %zu or width %zu is over the limit (%llu rows of at most %llu "
                    "bytes)", height, width, MAX_2D_HEIGHT, MAX_2D_WIDTH);
    }
    if (!span_of(dpitch, width, height, dspan) || !span_of(spitch, width, height, sspan)) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "pitch * height overflows");
    }
    aclError rc = mem_classify(dst, *dspan, true, false, rd);
    if (!rc) {
        rc = mem_classify(src, *sspan, false, false, rs);
    }
    if (rc) {
        return rc;
    }
    bool dd = rd->where == MEM_DEVICE, sd = rs->where == MEM_DEVICE;
    bool ok = dd != sd && (kind == ACL_MEMCPY_DEFAULT || (kind == ACL_MEMCPY_HOST_TO_DEVICE) == dd);
    if (!ok) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "a 2-D copy goes from host to device or device to host only: dst %p "
                    "is %s memory, src %p is %s memory, kind %d", dst, where_name(rd->where), src,
                    where_name(rs->where), (int)kind);
    }
    if (!need_ctx()) {
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    return ACL_SUCCESS;
}

static void journal_args(mock_call *c, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, aclrtMemcpyKind kind)
{
    ja_ptr(c, "dst", dst);
    ja_u64(c, "dpitch", dpitch);
    ja_ptr(c, "src", src);
    ja_u64(c, "spitch", spitch);
    ja_u64(c, "width", width);
    ja_u64(c, "height", height);
    ja_i64(c, "kind", (int64_t)kind);
}

/* Copies row by row (mem_copy resolves device addresses to their backing). */
void copy2d_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    for (size_t r = 0; r < height; r++) {
        mem_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    }
}

ACLMOCK_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, aclrtMemcpyKind kind)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemcpy2d);
    journal_args(&c, dst, dpitch, src, spitch, width, height, kind);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    aclError cap = capture_refuse_unsafe_call("a synchronous 2D copy (aclrtMemcpy2d)"); /* capture.c: api_impl.cc mode gate */
    if (cap) {
        return call_end(&c, cap);
    }
    mem_range rd, rs;
    size_t dspan = 0, sspan = 0;
    aclError rc = check_2d(dst, dpitch, src, spitch, width, height, kind, false, NULL, &rd, &rs, &dspan, &sspan);
    if (rc) {
        return call_end(&c, rc);
    }
    /* not ordered with queued work: the host's own access, as aclrtMemcpy */
    int m = order_access(NULL, src, sspan, false, FN_aclrtMemcpy2d);
    int m2 = order_access(NULL, dst, dspan, true, FN_aclrtMemcpy2d);
    order_journal(&c, m >= 0 ? m : m2);
    copy2d_rows(dst, dpitch, src, spitch, width, height);
    return call_end(&c, ACL_SUCCESS);
}

ACLMOCK_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemcpy2dAsync);
    journal_args(&c, dst, dpitch, src, spitch, width, height, kind);
    ja_stream(&c, "stream", stream);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    mem_range rd, rs;
    size_t dspan = 0, sspan = 0;
    aclError rc = check_2d(dst, dpitch, src, spitch, width, height, kind, true, stream, &rd, &rs, &dspan, &sspan);
    if (rc) {
        return call_end(&c, rc);
    }
    mock_stream *s = stream_in_ctx(stream);
    if (!s) {
        return call_end(&c, tls()->last_rc);
    }
    mock_task *t = task_new(TASK_COPY2D);
    if (!t) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    t->u.copy2d.dst = dst;
    t->u.copy2d.src = src;
    t->u.copy2d.dpitch = dpitch;
    t->u.copy2d.spitch = spitch;
    t->u.copy2d.width = width;
    t->u.copy2d.height = height;
    t->u.copy2d.dst_fp = rd.fp;
    t->u.copy2d.src_fp = rs.fp;
    int m = order_access(s, src, sspan, false, FN_aclrtMemcpy2dAsync);
    int m2 = order_access(s, dst, dspan, true, FN_aclrtMemcpy2dAsync);
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
    /* api_error.cc:2339-2344: pageable host memory makes the runtime
     * synchronize the stream and copy synchronously */
    bool pageable = rd.where == MEM_HOST || rs.where == MEM_HOST;
    jo_str(&c, "mode", pageable ? "synchronous (pageable host memory)" : "asynchronous");
    if (pageable) {
        vclock done = {0};
        vc_copy(&done, &s->vc);
        stream_wait_seq(s, s->submitted, 0);
        order_host_learn(&done);
        vc_free(&done);
    }
    return call_end(&c, ACL_SUCCESS);
}
