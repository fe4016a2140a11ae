/*
 * state.c: the global state, its lock and condition variable, environment
 * configuration, thread-local state (invalidated by a generation counter),
 * the handle registry, aclmockReset and the configuration/live-count parts
 * of the control API.
 */
#include "mock.h"
#include "ipc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

mock_global G = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread mock_tls T;

/* ------------------------------------------------------------- lock, wait */

void mock_lock(void) { pthread_mutex_lock(&G.lock); }

void mock_unlock(void) { pthread_mutex_unlock(&G.lock); }

void mock_broadcast(void) { pthread_cond_broadcast(&G.cv); }

bool mock_wait_until(uint64_t deadline_ns)
{
    if (deadline_ns == 0) {
        pthread_cond_wait(&G.cv, &G.lock);
        return true;
    }
    uint64_t now = now_ns();
    if (now >= deadline_ns) {
        return false;
    }
    struct timespec ts = {(time_t)(deadline_ns / 1000000000ULL), (long)(deadline_ns % 1000000000ULL)};
    pthread_cond_timedwait(&G.cv, &G.lock, &ts);
    return now_ns() < deadline_ns;
}

uint64_t deadline_after_ms(int32_t timeout_ms)
{
    if (timeout_ms < 0) {
        return 0;
    }
    return now_ns() + (uint64_t)timeout_ms * 1000000ULL;
}

/* ---------------------------------------------------------- thread-local */

mock_tls *tls(void)
{
    if (T.gen != G.gen) {
        memset(&T, 0, offsetof(mock_tls, msg));
        T.msg[0] = '\0';
        T.gen = G.gen;
        T.cur_fn = -1;
    }
    return &T;
}

mock_ctx *cur_ctx(void)
{
    mock_tls *t = tls();
    if (t->ctx && !t->ctx->h.alive) {
        return NULL;
    }
    return t->ctx;
}

uint64_t thread_small_id(void)
{
    mock_tls *t = tls();
    if (!t->tid) {
        t->tid = ++G.next_tid;
    }
    return t->tid;
}

/* -------------------------------------------------------------- registry */

void obj_register(mock_obj *o, int kind, uint64_t id)
{
    o->kind = kind;
    o->alive = true;
    o->id = id;
    o->all_next = G.objects;
    G.objects = o;
    pm_put(&G.handles, (uint64_t)(uintptr_t)o, (uint64_t)kind);
}

mock_obj *obj_lookup(const void *handle, int kind)
{
    uint64_t k = 0;
    if (!handle || !pm_get(&G.handles, (uint64_t)(uintptr_t)handle, &k) || (int)k != kind) {
        return NULL;
    }
    return (mock_obj *)(uintptr_t)handle;
}

/* ---------------------------------------------------------- configuration */

static void read_env_config(void)
{
    G.device_count = 8;
    G.hbm_bytes = MOCK_DEFAULT_HBM;
    snprintf(G.soc_name, sizeof(G.soc_name), "%s", "Ascend910B1");
    G.delay_us = 0;
    G.abort_on_misuse = false;
    G.journal_cap = 65536;

    const char *v = getenv("ASCENDCL_MOCK_DEVICE_COUNT");
    if (v && *v) {
        char *end = NULL;
        unsigned long n = strtoul(v, &end, 10);
        if (end && *end == '\0' && n >= 1 && n <= MOCK_MAX_DEVICES) {
            G.device_count = (uint32_t)n;
        } else {
            fprintf(stderr, "aclmock: ignoring ASCENDCL_MOCK_DEVICE_COUNT=%s (want 1..%d)\n", v, MOCK_MAX_DEVICES);
        }
    }
    v = getenv("ASCENDCL_MOCK_HBM_BYTES");
    if (v && *v) {
        uint64_t b = 0;
        if (parse_bytes(v, &b) && b >= MOCK_GRAN_2M) {
            G.hbm_bytes = round_down(b, MOCK_PAGE);
        } else {
            fprintf(stderr, "aclmock: ignoring ASCENDCL_MOCK_HBM_BYTES=%s\n", v);
        }
    }
    v = getenv("ASCENDCL_MOCK_SOC_NAME");
    if (v && *v && strlen(v) < sizeof(G.soc_name)) {
        snprintf(G.soc_name, sizeof(G.soc_name), "%s", v);
    }
    v = getenv("ASCENDCL_MOCK_STREAM_DELAY_US");
    if (v && *v) {
        /* a plain decimal in range: strtoull would wrap "-1" to an endless delay */
        char *end = NULL;
        errno = 0;
        unsigned long long us = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : ULLONG_MAX;
        if (!errno && end && *end == '\0' && us <= MOCK_MAX_DELAY_US) {
            G.delay_us = us;
        } else {
            fprintf(stderr, "aclmock: ignoring ASCENDCL_MOCK_STREAM_DELAY_US=%s (want 0..%llu)\n", v,
                    (unsigned long long)MOCK_MAX_DELAY_US);
        }
    }
    v = getenv("ASCENDCL_MOCK_ABORT_ON_MISUSE");
    G.abort_on_misuse = v && strcmp(v, "1") == 0;
    v = getenv("ASCENDCL_MOCK_JOURNAL_CAPACITY");
    if (v && *v) {
        unsigned long long n = strtoull(v, NULL, 10);
        if (n >= 1 && n <= (1ULL << 26)) {
            G.journal_cap = (size_t)n;
        }
    }
}

__attribute__((constructor)) static void mock_load(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&G.cv, &ca);
    pthread_condattr_destroy(&ca);
    G.load_ns = now_ns();
    G.gen = 1;
    mock_lock();
    read_env_config();
    hccl_reset_locked();
    faults_reset_locked();
    journal_reset_locked();
    replay_reset_locked();
    mock_unlock();
}

/* ----------------------------------------------------------------- reset */

static void free_objects_locked(void)
{
    mock_obj *o = G.objects;
    while (o) {
        mock_obj *next = o->all_next;
        if (o->kind == OBJ_STREAM) {
            mock_stream *s = (mock_stream *)o;
            mock_task *t = s->head;
            while (t) {
                mock_task *tn = t->next;
                task_free(t);
                t = tn;
            }
            pthread_cond_destroy(&s->cv);
        }
        if (o->kind == OBJ_NOTIFY) {
            notify_ipc_release((mock_notify *)o);
        }
        order_obj_free(o);
        free(o);
        o = next;
    }
    G.objects = NULL;
    pm_clear(&G.handles);
    free(G.streams);
    G.streams = NULL;
    G.nstreams = G.capstreams = 0;
}

ACLMOCK_EXPORT void aclmockReset(void)
{
    hccl_before_reset(); /* wakes collectives blocked in an exchange (ext_hccl.c) */
    mock_lock();
    streams_stop_all_locked();
    /* join every worker, including those of destroyed streams still exiting */
    for (;;) {
        mock_stream *join = NULL;
        for (mock_obj *o = G.objects; o; o = o->all_next) {
            if (o->kind == OBJ_STREAM && ((mock_stream *)o)->has_thread) {
                join = (mock_stream *)o;
                break;
            }
        }
        if (!join) {
            break;
        }
        pthread_t th = join->thread;
        join->has_thread = false;
        mock_unlock();
        pthread_join(th, NULL);
        mock_lock();
    }
    callbacks_reset_locked();
    ipc_reset_locked();
    ipc_phys_reset_locked();
    memory_reset_locked();
    devices_reset_locked();
    settings_reset_locked();
    dump_reset_locked();
    capture_reset_locked();
    free_objects_locked();
    order_reset_locked();
    memset(G.live, 0, sizeof(G.live));
    memset(G.calls, 0, sizeof(G.calls));
    G.next_tid = G.next_ctx = G.next_stream = G.next_event = G.next_notify = 0;
    G.next_phys = G.next_alloc = G.next_host = G.next_resv = G.next_map = 0;
    G.init_count = 0;
    G.finalized = false;
    G.init_config_known = false;
    sb_free(&G.init_config);
    G.gen++;
    read_env_config();
    hccl_reset_locked();
    errors_reset_locked();
    faults_reset_locked();
    journal_reset_locked();
    replay_reset_locked();
    mock_unlock();
}

ACLMOCK_EXPORT int32_t aclmockSetDeviceCount(uint32_t count)
{
    if (count < 1 || count > MOCK_MAX_DEVICES) {
        return ACL_ERROR_INVALID_PARAM;
    }
    mock_lock();
    G.device_count = count;
    mock_unlock();
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT int32_t aclmockSetHbmBytes(uint64_t bytesPerDevice)
{
    if (bytesPerDevice < MOCK_GRAN_2M || bytesPerDevice > (1ULL << 44)) {
        return ACL_ERROR_INVALID_PARAM;
    }
    mock_lock();
    G.hbm_bytes = round_down(bytesPerDevice, MOCK_PAGE);
    mock_unlock();
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT int32_t aclmockSetSocName(const char *name)
{
    if (!name || !*name || strlen(name) >= sizeof(G.soc_name)) {
        return ACL_ERROR_INVALID_PARAM;
    }
    mock_lock();
    snprintf(G.soc_name, sizeof(G.soc_name), "%s", name);
    mock_unlock();
    return ACL_SUCCESS;
}

ACLMOCK_EXPORT void aclmockSetStreamDelayUs(uint64_t micros)
{
    mock_lock();
    G.delay_us = micros;
    mock_unlock();
}

ACLMOCK_EXPORT uint64_t aclmockLiveCount(aclmockResource kind)
{
    if ((unsigned)kind >= ACLMOCK_RES_COUNT) {
        return 0;
    }
    mock_lock();
    uint64_t v = G.live[kind];
    mock_unlock();
    return v;
}

ACLMOCK_EXPORT uint64_t aclmockBackedBytes(void)
{
    mock_lock();
    uint64_t v = arena_backed_bytes();
    mock_unlock();
    return v;
}
