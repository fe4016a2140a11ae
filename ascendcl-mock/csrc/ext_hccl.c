/*
 * ext_hccl.c: what the mock's HCCL libraries (libhcomm.so, libhccl.so,
 * csrc/hccl/) need from libascendcl.so beyond the operator entry points of
 * ext_ops.c: the device of the calling thread, the device of a stream, the
 * HCCL timeouts (from the environment, or set by a test), dropping the lock
 * around a blocking rendezvous, and a reset hook that wakes exchanges
 * blocked on a socket so aclmockReset can join the stream workers.
 */
#include "mock.h"
#include "ops/aclmock_ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CANN's defaults, in seconds (hccl-facts.md §1.4, hccl docs hccl_env):
 * HCCL_CONNECT_TIMEOUT 120, HCCL_EXEC_TIMEOUT 1836. */
#define HCCL_CONNECT_DEFAULT_S 120ULL
#define HCCL_EXEC_DEFAULT_S 1836ULL

static void (*volatile reset_hook)(void);

static uint64_t env_seconds_ms(const char *name, uint64_t dflt_s)
{
    const char *v = getenv(name);
    if (v && *v) {
        char *end = NULL;
        unsigned long long s = strtoull(v, &end, 10);
        if (end && *end == '\0' && s > 0 && s <= 86400ULL) {
            return s * 1000ULL;
        }
    }
    return dflt_s * 1000ULL;
}

void hccl_reset_locked(void)
{
    G.hccl_connect_ms = env_seconds_ms("HCCL_CONNECT_TIMEOUT", HCCL_CONNECT_DEFAULT_S);
    G.hccl_exec_ms = env_seconds_ms("HCCL_EXEC_TIMEOUT", HCCL_EXEC_DEFAULT_S);
    /* the mock's scale-down for tests: both timeouts, in milliseconds */
    const char *v = getenv("ASCENDCL_MOCK_HCCL_TIMEOUT_MS");
    if (v && *v) {
        char *end = NULL;
        unsigned long long ms = strtoull(v, &end, 10);
        if (end && *end == '\0' && ms > 0 && ms <= 86400000ULL) {
            G.hccl_connect_ms = ms;
            G.hccl_exec_ms = ms;
        }
    }
}

void hccl_before_reset(void)
{
    void (*hook)(void) = reset_hook;
    if (hook) {
        hook();
    }
}

ACLMOCK_EXPORT void aclmockSetHcclTimeouts(uint64_t connectMs, uint64_t execMs)
{
    mock_lock();
    if (connectMs) {
        G.hccl_connect_ms = connectMs;
    }
    if (execMs) {
        G.hccl_exec_ms = execMs;
    }
    mock_unlock();
}

ACLMOCK_EXPORT void aclmock_hccl_timeouts(uint64_t *connect_ms, uint64_t *exec_ms)
{
    mock_lock();
    *connect_ms = G.hccl_connect_ms;
    *exec_ms = G.hccl_exec_ms;
    mock_unlock();
}

ACLMOCK_EXPORT void aclmock_set_reset_hook(void (*hook)(void)) { reset_hook = hook; }

ACLMOCK_EXPORT void aclmock_unlock(void) { mock_unlock(); }
ACLMOCK_EXPORT void aclmock_lock(void) { mock_lock(); }

ACLMOCK_EXPORT int32_t aclmock_current_device(void)
{
    mock_ctx *ctx = cur_ctx();
    return ctx ? ctx->device : -1;
}

/* aclmock_device_count is defined in ext_ops.c. */

ACLMOCK_EXPORT int32_t aclmock_stream_device(const void *stream, int32_t *device)
{
    mock_stream *s = stream_arg(stream);
    if (!s) {
        return tls()->last_rc ? tls()->last_rc : ACL_ERROR_RT_PARAM_INVALID;
    }
    *device = s->device;
    return 0;
}

ACLMOCK_EXPORT uint64_t aclmock_stream_id(const void *stream)
{
    mock_stream *s = stream_arg(stream);
    return s ? s->h.id : 0;
}
