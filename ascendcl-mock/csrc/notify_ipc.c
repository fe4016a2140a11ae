/*
 * notify_ipc.c: notifies shared between processes of the mock
 * (aclrtNotifyGetExportKey, aclrtNotifySetImportPid, aclrtNotifyImportByKey):
 * the exporter's bit moves into the header of a shared-memory object
 * (ipc.h), and the importer's notify uses the same word, set and taken with
 * atomic operations. A record in one process releases a wait in the other.
 *
 * Rules from hicann/runtime v8.5.0: src/acl/aclrt_impl/notify.cpp:119-172,
 * src/runtime/feature/src/api/api_c_event.cc:216-257,
 * api_impl/api_error.cc:3458-3491, api_impl/api_impl.cc:4736-4780,
 * notify/notify.cc:314-345 (CreateIpcNotify), 347-366, 368-. The cross-process
 * wait is not ordered by the happens-before model (it sees one process).
 */
#include "ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* src/inc/runtime/event.h:63-64 */
#define RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x2u
#define RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x2u

void notify_bit_set(mock_notify *n)
{
    if (n->ipc) {
        __atomic_store_n(&n->ipc->bit, 1, __ATOMIC_RELEASE);
    } else {
        n->set = true;
    }
}

bool notify_bit_take(mock_notify *n)
{
    if (n->ipc) {
        uint32_t one = 1;
        return __atomic_compare_exchange_n(&n->ipc->bit, &one, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    bool was = n->set;
    n->set = false;
    return was;
}

void notify_ipc_release(mock_notify *n)
{
    if (!n->ipc) {
        return;
    }
    if (n->ipc_exporter) {
        /* notify.cc:40-43: the creator's destroy destroys the IPC notify */
        __atomic_store_n(&n->ipc->destroyed, 1, __ATOMIC_RELEASE);
        char path[sizeof(n->ipc_name) + 1];
        snprintf(path, sizeof(path), "/%s", n->ipc_name);
        shm_unlink(path);
    }
    ipc_unmap_hdr(n->ipc);
    close(n->ipc_fd);
    n->ipc = NULL;
}

static mock_notify *live_notify(const void *handle)
{
    mock_notify *n = (mock_notify *)obj_lookup(handle, OBJ_NOTIFY);
    if (!n || !n->h.alive) {
        misuse(ACLMOCK_MISUSE_DESTROYED_HANDLE, "notify %p is %s", handle, n ? "destroyed" : "not a live notify");
        fail(ACL_ERROR_RT_PARAM_INVALID, "notify %p is %s", handle, n ? "already destroyed" : "not a notify");
        return NULL;
    }
    return n;
}

/*
 * Export: null notify or key -> 100000 (notify.cpp:123-124); len 0 ->
 * 107000 (api_error.cc:3462); a flag other than 0 and
 * DISABLE_PID_VALIDATION (2) -> 107000 (api_error.cc:3471-3473); a notify
 * already exported or imported -> refused (notify.cc:316-317,
 * RT_ERROR_NOTIFY_TYPE: 107000 in the mock).
 */
ACLMOCK_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtNotifyGetExportKey);
    ja_obj(&c, "notify", notify, OBJ_NOTIFY);
    ja_u64(&c, "len", len);
    ja_hex(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!notify || !key) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", notify ? "key" : "notify"));
    }
    mock_notify *n = live_notify(notify);
    if (!n) {
        return call_end(&c, tls()->last_rc);
    }
    if (len == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "len is 0"));
    }
    if (flags != 0 && flags != RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "flags 0x%llx is not 0 or 0x%x",
                                 (unsigned long long)flags, RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    }
    if (n->ipc) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "notify y%llu is already an IPC notify (%s)",
                                 (unsigned long long)n->h.id, n->ipc_name));
    }
    if (!ipc_new_name('n', key, len)) {
        return call_end(&c, tls()->last_rc);
    }
    int fd = -1;
    ipc_hdr *h = ipc_create(key, 0, &fd);
    if (!h) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot create the shared notify of key %s", key));
    }
    h->kind = 'n';
    h->no_pid_check = flags != 0;
    h->device = n->device;
    h->bit = n->set ? 1 : 0;
    n->set = false;
    n->ipc = h;
    n->ipc_fd = fd;
    n->ipc_exporter = true;
    snprintf(n->ipc_name, sizeof(n->ipc_name), "%s", key);
    jo_str(&c, "key", key);
    return call_end(&c, ACL_SUCCESS);
}

/* Null notify or pid -> 100000 (notify.cpp:161-162); the chip feature
 * (api_c_event.cc:240-245; Ascend910B has RT_FEATURE_IPC_NOTIFY,
 * dev_info_reg.cc:48); num <= 0 -> 107000 (api_error.cc:2966-2969); no
 * context -> 107002 (api_impl.cc:4457-4458); a notify that was not exported
 * by this process -> 107000 (its IPC name is empty: the driver; mock). */
ACLMOCK_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    mock_call c;
    call_begin(&c, FN_aclrtNotifySetImportPid);
    ja_obj(&c, "notify", notify, OBJ_NOTIFY);
    ja_u64(&c, "num", num);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!notify || !pid) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", notify ? "pid" : "notify"));
    }
    mock_notify *n = live_notify(notify);
    if (!n) {
        return call_end(&c, tls()->last_rc);
    }
    if ((int32_t)num <= 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "num %zu is not in (0, 2147483647]", num));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    if (!n->ipc || !n->ipc_exporter) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "notify y%llu has no export key of this process",
                                 (unsigned long long)n->h.id));
    }
    return call_end(&c, ipc_set_pids(n->ipc, pid, num));
}

/* Null notify or key -> 100000 (notify.cpp:140-141); flags above
 * ACL_NOTIFY_DEVICE_USE_ONLY (1) -> 100000 (notify.cpp:142-145); no context
 * -> 107002 (api_impl.cc:4754-4755); then the driver opens the key (closed):
 * unknown, destroyed or not whitelisted -> 107000 (mock). The notify counts
 * as one of the device's. */
ACLMOCK_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtNotifyImportByKey);
    ja_str(&c, "key", key);
    ja_hex(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!notify || !key) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", notify ? "key" : "notify"));
    }
    if (flags > ACL_NOTIFY_DEVICE_USE_ONLY) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "flags 0x%llx is not in [0, %u]",
                                     (unsigned long long)flags, ACL_NOTIFY_DEVICE_USE_ONLY));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    int fd = -1;
    ipc_hdr *h = ipc_open(key, &fd);
    aclError rc = h && h->kind == 'n' ? ipc_may_import(h, key)
                                      : fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not an exported notify key", key);
    mock_device *d = &G.devices[ctx->device];
    if (!rc && d->nnotifies >= MOCK_NOTIFIES_PER_DEVICE) {
        rc = fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "device %d already has %d notifies", ctx->device,
                  MOCK_NOTIFIES_PER_DEVICE);
    }
    mock_notify *n = rc ? NULL : calloc(1, sizeof(*n));
    if (!rc && !n) {
        rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    if (rc) {
        ipc_unmap_hdr(h);
        if (fd >= 0) {
            close(fd);
        }
        return call_end(&c, rc);
    }
    obj_register(&n->h, OBJ_NOTIFY, ++G.next_notify);
    n->device = ctx->device;
    n->flag = flags;
    n->ipc = h;
    n->ipc_fd = fd;
    snprintf(n->ipc_name, sizeof(n->ipc_name), "%s", key);
    d->nnotifies++;
    G.live[ACLMOCK_RES_NOTIFY]++;
    *notify = n;
    jo_obj(&c, "notify", n, OBJ_NOTIFY);
    return call_end(&c, ACL_SUCCESS);
}
