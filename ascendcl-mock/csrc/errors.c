/*
 * errors.c: per-thread error text and last error code, misuse accounting,
 * and the ACL functions that read them (aclGetRecentErrMsg,
 * aclrtGetLastError, aclrtPeekAtLastError).
 */
#include "mock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runtime-style message code for an error code. */
static const char *msg_code(aclError code)
{
    switch (code) {
    case ACL_ERROR_RT_MEMORY_ALLOCATION:
        return "EL0004";
    case ACL_ERROR_INVALID_PARAM:
    case ACL_ERROR_RT_PARAM_INVALID:
    case ACL_ERROR_RT_INVALID_DEVICEID:
        return "EE1001";
    default:
        return "EE9999";
    }
}

/*
 * Which failures set the thread's last error (aclrtGetLastError /
 * aclrtPeekAtLastError), CANN 8.5.0:
 * - the runtime stores an error only through GetRtExtErrCodeAndSetGlobalErr
 *   (src/runtime/feature/src/api/api_global_err.cc:16-27), called by
 *   ERROR_RETURN_WITH_EXT_ERRCODE and the COND_RETURN_*_EXT_ERRCODE macros
 *   (api/api_c.h:26-80), i.e. with a runtime external code (107xxx, 207xxx,
 *   507xxx, errcode_manage.cc);
 * - the acl layer's checks (ACL_REQUIRES_NOT_NULL*, ACL_CHECK_RANGE_*,
 *   src/acl/common/log_inner.h:291-420) return 100000 without calling the
 *   runtime, so an ACL_ERROR_* code never becomes the last error; the acl
 *   layer's own early returns of runtime codes (e.g. timeout checks,
 *   src/acl/aclrt_impl/event.cpp:464-467, stream.cpp:157-160) do not set it
 *   either (acl_fail);
 * - COND_RETURN_WITH_NOLOG returns (ACL_ERROR_RT_FEATURE_NOT_SUPPORT of event
 *   and stream calls, api_c.cc:729, 749, 791, 815; api_c_stream.cc:139) set
 *   nothing at all: the mock returns those codes without fail().
 */
bool is_runtime_code(aclError code) { return code > 0 && (code / 1000) % 100 == 7; }

static aclError record_failure(aclError code, const char *line, bool set_last)
{
    mock_tls *t = tls();
    size_t len = strnlen(line, sizeof(t->msg) - 1);
    /* accumulate, keeping the newest text when full */
    size_t need = len + (t->msg_len ? 1 : 0);
    if (need >= sizeof(t->msg)) {
        t->msg_len = 0;
        need = len;
    }
    while (t->msg_len && t->msg_len + need >= sizeof(t->msg)) {
        char *nl = memchr(t->msg, '\n', t->msg_len);
        if (!nl) {
            t->msg_len = 0;
            break;
        }
        size_t drop = (size_t)(nl - t->msg) + 1;
        memmove(t->msg, t->msg + drop, t->msg_len - drop);
        t->msg_len -= drop;
    }
    if (t->msg_len) {
        t->msg[t->msg_len++] = '\n';
    }
    memcpy(t->msg + t->msg_len, line, len);
    t->msg_len += len;
    t->msg[t->msg_len] = '\0';
    if (set_last) {
        t->last_error = code;
    }
    t->last_rc = code;
    t->fail_seq++;
    snprintf(t->last_fail, sizeof(t->last_fail), "%s", line);
    return code;
}

static aclError vfail(aclError code, bool set_last, const char *fmt, va_list ap)
{
    mock_tls *t = tls();
    char detail[1024];
    vsnprintf(detail, sizeof(detail), fmt, ap);
    const char *fn = t->cur_fn >= 0 ? mock_fn_names[t->cur_fn] : "aclmock";
    char line[1400];
    int n = snprintf(line, sizeof(line), "%s: %s: %s (error code %d)", msg_code(code), fn, detail, code);
    if (n < 0) {
        line[0] = '\0';
    }
    return record_failure(code, line, set_last);
}

aclError fail(aclError code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aclError rc = vfail(code, is_runtime_code(code), fmt, ap);
    va_end(ap);
    return rc;
}

aclError acl_fail(aclError code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aclError rc = vfail(code, false, fmt, ap);
    va_end(ap);
    return rc;
}

aclError fail_silent(aclError code)
{
    mock_tls *t = tls();
    if (is_runtime_code(code)) {
        t->last_error = code;
    }
    t->last_rc = code;
    return code;
}

aclError fail_verbatim(aclError code, const char *line)
{
    return record_failure(code, line, is_runtime_code(code));
}

static const char *const misuse_names[ACLMOCK_MISUSE_COUNT] = {
    "DOUBLE_FREE",    "UNKNOWN_POINTER", "DESTROYED_HANDLE", "OUT_OF_BOUNDS",    "UNMAP_UNMAPPED",
    "RELEASE_MAPPED", "USE_AFTER_FREE",  "WRONG_CONTEXT",    "HOST_DEREF",       "UNORDERED_ACCESS",
    "PINNED_HOST_ACCESS", "FREE_MAPPED_PHYSICAL",
};

const char *misuse_name(aclmockMisuse kind)
{
    return (unsigned)kind < ACLMOCK_MISUSE_COUNT ? misuse_names[kind] : "UNKNOWN";
}

void misuse(aclmockMisuse kind, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    mock_tls *t = tls();
    const char *fn = t->cur_fn >= 0 ? mock_fn_names[t->cur_fn] : "stream worker";
    G.misuse[kind]++;
    sb_printf(&G.misuse_log, "%s: %s: %s\n", misuse_names[kind], fn, detail);
    if (G.abort_on_misuse) {
        fprintf(stderr, "aclmock: misuse %s in %s: %s\n", misuse_names[kind], fn, detail);
        abort();
    }
}

void errors_reset_locked(void)
{
    memset(G.misuse, 0, sizeof(G.misuse));
    sb_free(&G.misuse_log);
}

ACLMOCK_EXPORT const char *aclGetRecentErrMsg(void)
{
    mock_call c;
    call_begin(&c, FN_aclGetRecentErrMsg);
    if (call_faulted(&c)) {
        call_end(&c, c.fault_code);
        return NULL;
    }
    mock_tls *t = tls();
    const char *ret = NULL;
    const char *recorded = NULL;
    if (replay_out_str(&c, "msg", &recorded)) {
        /* strict replay: the card's text, whatever the mock accumulated */
        t->msg_len = 0;
        t->msg[0] = '\0';
        if (recorded) {
            snprintf(t->returned, sizeof(t->returned), "%s", recorded);
            ret = t->returned;
        }
        jo_str(&c, "msg", ret);
        call_end(&c, ACL_SUCCESS);
        return ret;
    }
    if (t->msg_len) {
        memcpy(t->returned, t->msg, t->msg_len + 1);
        t->msg_len = 0;
        t->msg[0] = '\0';
        ret = t->returned;
        jo_str(&c, "msg", ret);
    } else {
        jo_str(&c, "msg", NULL);
    }
    call_end(&c, ACL_SUCCESS);
    return ret;
}

static aclError last_error(int fn, aclrtLastErrLevel level, bool clear)
{
    mock_call c;
    call_begin(&c, fn);
    ja_i64(&c, "level", (int64_t)level);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (level != ACL_RT_THREAD_LEVEL) {
        /* context.cpp:194-197, 205-208 (v8.5.0): ACL_LOG_ERROR only, no
         * reported text, no thread error */
        return call_end(&c, ACL_ERROR_INVALID_PARAM);
    }
    mock_tls *t = tls();
    aclError e = t->last_error;
    if (clear) {
        t->last_error = ACL_SUCCESS;
    }
    return call_end(&c, e);
}

ACLMOCK_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    return last_error(FN_aclrtPeekAtLastError, level, false);
}

ACLMOCK_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    return last_error(FN_aclrtGetLastError, level, true);
}

ACLMOCK_EXPORT uint64_t aclmockMisuseCount(aclmockMisuse kind)
{
    mock_lock();
    uint64_t v = 0;
    if ((unsigned)kind < ACLMOCK_MISUSE_COUNT) {
        v = G.misuse[kind];
    } else if (kind == ACLMOCK_MISUSE_COUNT) {
        for (int i = 0; i < ACLMOCK_MISUSE_COUNT; i++) {
            v += G.misuse[i];
        }
    }
    mock_unlock();
    return v;
}

ACLMOCK_EXPORT size_t aclmockMisuseLog(char *buf, size_t cap)
{
    mock_lock();
    size_t len = G.misuse_log.len;
    if (buf && cap) {
        size_t n = len < cap - 1 ? len : cap - 1;
        if (n) {
            memcpy(buf, G.misuse_log.s, n);
        }
        buf[n] = '\0';
    }
    mock_unlock();
    return len;
}
