/*
 * ipc_mem.c: device memory shared between processes of the mock
 * (aclrtIpcMemGetExportKey, aclrtIpcMemSetImportPid, aclrtIpcMemImportByKey,
 * aclrtIpcMemClose), through the shared-memory objects of ipc.h.
 *
 * Rules from hicann/runtime v8.5.0: src/acl/aclrt_impl/memory.cpp:1657-1730,
 * src/runtime/feature/src/api/api_c_memory.cc:805-852,
 * api_impl/api_error.cc:2918-3012, api_impl/api_impl.cc:4332-4480. What the
 * driver does below them (CreateIpcMem, OpenIpcMem, CloseIpcMem,
 * DestroyIpcMem, the whitelist) is closed: the mock's choices are in
 * docs/mock-conformance.md.
 *
 * Exporter: the pages of the whole aclrtMalloc block become the object's data
 * (copied in, then mapped over the block's backing), until aclrtFree gives
 * the block private pages again. Importer: a block of its own device window,
 * page-aligned so that the exported address keeps its offset in the page,
 * with the object's data mapped over its backing; aclrtIpcMemClose unmaps it.
 * Accesses of the other process are not seen by the happens-before model.
 */
#include "ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* api_error.cc:2926 (RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 1) and
 * api_error.cc:2988 (RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS = 1) */
#define EXPORT_FLAG_MAX 1u
#define IMPORT_FLAG_MAX 1u

typedef struct ipc_mem {
    struct ipc_mem *next;
    char name[IPC_NAME_MAX + 1];
    bool exporter; /* else an import */
    bool closed;   /* exporter: aclrtIpcMemClose destroyed the key */
    int dev;
    uint64_t span_off, span; /* backing pages the object's data covers */
    uint64_t block_off;      /* exporter: the block; importer: its alloc's off */
    ipc_hdr *hdr;
    int fd;
} ipc_mem;

static ipc_mem *mems;

static ipc_mem *find_name(const char *key)
{
    for (ipc_mem *m = mems; m; m = m->next) {
        if (strcmp(m->name, key) == 0) {
            return m;
        }
    }
    return NULL;
}

static void unlink_name(const char *name)
{
    char path[IPC_NAME_MAX + 2];
    snprintf(path, sizeof(path), "/%s", name);
    shm_unlink(path);
}

/* Private anonymous pages again over [off, off+len) of dev's backing, with
 * the bytes they show now when `keep`. */
static void back_privately(int dev, uint64_t off, uint64_t len, bool keep)
{
    unsigned char *at = G.devices[dev].backing + off;
    void *copy = keep ? malloc((size_t)len) : NULL;
    if (copy) {
        memcpy(copy, at, (size_t)len);
    }
    (void)mmap(at, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
               0);
    if (copy) {
        memcpy(at, copy, (size_t)len);
        free(copy);
    }
}

static void drop(ipc_mem *m)
{
    for (ipc_mem **l = &mems; *l; l = &(*l)->next) {
        if (*l == m) {
            *l = m->next;
            break;
        }
    }
    ipc_unmap_hdr(m->hdr);
    close(m->fd);
    free(m);
}

/*
 * Export: null devPtr or key -> 100000 (memory.cpp:1662-1663); size 0 or len
 * 0 -> 107000 (api_error.cc:2923-2924, ZERO_RETURN_AND_MSG_OUTER); flags
 * above DISABLE_PID_VALIDATION -> 107000 (api_error.cc:2926-2928); no current
 * context -> 107002 (api_impl.cc:4335-4336). The range must be device memory
 * of one aclrtMalloc block of the current device (the driver's rule; 107000).
 */
ACLMOCK_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtIpcMemGetExportKey);
    ja_ptr(&c, "devPtr", devPtr);
    ja_u64(&c, "size", size);
    ja_u64(&c, "len", len);
    ja_hex(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!devPtr || !key) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", devPtr ? "key" : "devPtr"));
    }
    if (size == 0 || len == 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%s is 0", size == 0 ? "size" : "len"));
    }
    if (flags > EXPORT_FLAG_MAX) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "flags 0x%llx is not in [0, %u]",
                                 (unsigned long long)flags, EXPORT_FLAG_MAX));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    mem_range r;
    aclError rc = mem_classify(devPtr, size, false, false, &r);
    if (rc) {
        return call_end(&c, rc);
    }
    uintptr_t a = (uintptr_t)devPtr;
    int dev = -1;
    bool vmm = false;
    mock_alloc *al = NULL;
    if (r.where == MEM_DEVICE && mem_window(a, &dev, &vmm) && !vmm && dev == ctx->device) {
        al = alloc_find(&G.devices[dev], a - G.devices[dev].mwin, true);
    }
    if (!al || ipc_mem_is_import(dev, al->off)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                 "%p is not in an aclrtMalloc block of device %d (the current device)", devPtr,
                                 ctx->device));
    }
    uint64_t span_off = round_down(al->off, MOCK_PAGE), span = round_up(al->off + al->consumed, MOCK_PAGE) - span_off;
    for (ipc_mem *m = mems; m; m = m->next) {
        if (m->dev == dev && m->span_off < span_off + span && span_off < m->span_off + m->span) {
            return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID,
                                     "the pages of %p are already exported as %s (the mock exports a block once)",
                                     devPtr, m->name));
        }
    }
    if (!ipc_new_name('m', key, len)) {
        return call_end(&c, tls()->last_rc);
    }
    ipc_mem *m = calloc(1, sizeof(*m));
    int fd = -1;
    ipc_hdr *h = m ? ipc_create(key, span, &fd) : NULL;
    if (!h) {
        free(m);
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot create the shared memory of key %s", key));
    }
    unsigned char *at = G.devices[dev].backing + span_off;
    if (pwrite(fd, at, (size_t)span, IPC_HDR) != (ssize_t)span ||
        mmap(at, (size_t)span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, IPC_HDR) == MAP_FAILED) {
        ipc_unmap_hdr(h);
        close(fd);
        unlink_name(key);
        free(m);
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot share the pages of %p", devPtr));
    }
    h->kind = 'm';
    h->no_pid_check = (flags & EXPORT_FLAG_MAX) != 0;
    h->device = dev;
    h->size = size;
    h->delta = (a - G.devices[dev].mwin) - span_off;
    h->span = span;
    snprintf(m->name, sizeof(m->name), "%s", key);
    m->exporter = true;
    m->dev = dev;
    m->span_off = span_off;
    m->span = span;
    m->block_off = al->off;
    m->hdr = h;
    m->fd = fd;
    m->next = mems;
    mems = m;
    jo_str(&c, "key", key);
    return call_end(&c, ACL_SUCCESS);
}

/* Null key or pid -> 100000 (memory.cpp:1722-1723); num <= 0 -> 107000
 * (api_error.cc:2975-2978); no context -> 107002 (api_impl.cc:4471-4472).
 * Only the exporter sets the whitelist of its key (driver; 107000). */
ACLMOCK_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    mock_call c;
    call_begin(&c, FN_aclrtIpcMemSetImportPid);
    ja_str(&c, "key", key);
    ja_u64(&c, "num", num);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!key || !pid) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", key ? "pid" : "key"));
    }
    if ((int32_t)num <= 0) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "num %zu is not in (0, 2147483647]", num));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    ipc_mem *m = find_name(key);
    if (!m || !m->exporter || m->closed) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not a key this process exported", key));
    }
    return call_end(&c, ipc_set_pids(m->hdr, pid, num));
}

/* Null devPtr or key -> 100000 (memory.cpp:1689-1690); flags above
 * ENABLE_PEER_ACCESS -> 107000 (api_error.cc:2986-2989); no context ->
 * 107002 (api_impl.cc:4388-4389); then the driver opens the key (closed):
 * an unknown key, a closed one or one whose whitelist lacks this process ->
 * 107000 (mock). ENABLE_PEER_ACCESS enables peer access to the exporter's
 * device (api_impl.cc:4396-4402): the mock's devices always reach each
 * other, so the flag changes nothing. */
ACLMOCK_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    mock_call c;
    call_begin(&c, FN_aclrtIpcMemImportByKey);
    ja_str(&c, "key", key);
    ja_hex(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!devPtr || !key) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s is null", devPtr ? "key" : "devPtr"));
    }
    if (flags > IMPORT_FLAG_MAX) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "flags 0x%llx is not in [0, %u]",
                                 (unsigned long long)flags, IMPORT_FLAG_MAX));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    int fd = -1;
    ipc_hdr *h = ipc_open(key, &fd);
    if (!h || h->kind != 'm') {
        ipc_unmap_hdr(h);
        if (fd >= 0) {
            close(fd);
        }
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not an exported memory key", key));
    }
    aclError rc = ipc_may_import(h, key);
    int dev = ctx->device;
    if (!rc) {
        rc = device_windows(dev);
    }
    mock_device *d = &G.devices[dev];
    uint64_t base = 0;
    if (!rc && !ea_alloc(&d->heap, h->span, MOCK_PAGE, &base)) {
        rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device %d has no %llu free bytes for the import", dev,
                  (unsigned long long)h->span);
    }
    ipc_mem *m = rc ? NULL : calloc(1, sizeof(*m));
    if (!rc && (!m || mmap(d->backing + base, (size_t)h->span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                           IPC_HDR) == MAP_FAILED)) {
        uint64_t lo, hi;
        ea_free(&d->heap, base, h->span, &lo, &hi);
        free(m);
        m = NULL;
        rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map the shared memory of key %s", key);
    }
    if (rc) {
        ipc_unmap_hdr(h);
        close(fd);
        return call_end(&c, rc);
    }
    /* the import's bounds are the exported bytes: no padding past them */
    mock_alloc al = {++G.next_alloc, base + h->delta, h->size, h->size, NULL, h->size};
    alloc_insert(d, &al);
    snprintf(m->name, sizeof(m->name), "%s", key);
    m->dev = dev;
    m->span_off = base;
    m->span = h->span;
    m->block_off = al.off;
    m->hdr = h;
    m->fd = fd;
    m->next = mems;
    mems = m;
    G.live[ACLMOCK_RES_DEVICE_BUFFER]++;
    *devPtr = (void *)(d->mwin + al.off);
    jo_ptr(&c, "devPtr", *devPtr);
    return call_end(&c, ACL_SUCCESS);
}

/* Null key -> 100000 (memory.cpp:1676); no context -> 107002
 * (api_impl.cc:4426-4427). A key this process imported is closed: its
 * mapping goes (api_impl.cc:4430-4435, CloseIpcMem); any other key is
 * destroyed (api_impl.cc:4437-4438, DestroyIpcMem): for the exporter, no
 * process can import it any more; the block stays the exporter's until
 * aclrtFree. A key the process neither exported nor imported -> 107000 (the
 * driver's; mock). */
ACLMOCK_EXPORT aclError aclrtIpcMemClose(const char *key)
{
    mock_call c;
    call_begin(&c, FN_aclrtIpcMemClose);
    ja_str(&c, "key", key);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!key) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "key is null"));
    }
    if (!need_ctx()) {
        return call_end(&c, ACL_ERROR_RT_CONTEXT_NULL);
    }
    ipc_mem *m = find_name(key);
    if (!m || (m->exporter && m->closed)) { /* unknown, or destroyed already */
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not an open IPC memory key of this process", key));
    }
    if (m->exporter) {
        __atomic_store_n(&m->hdr->destroyed, 1, __ATOMIC_RELEASE);
        unlink_name(m->name);
        m->closed = true;
        return call_end(&c, ACL_SUCCESS);
    }
    mock_device *d = &G.devices[m->dev];
    mock_alloc *al = alloc_find(d, m->block_off, false);
    if (al) {
        capture_note_free((void *)(d->mwin + al->off), al->size, "aclrtIpcMemClose");
        order_journal(&c, order_free(&al->log, 'm', al->id, al->size));
        size_t idx = (size_t)(al - d->allocs);
        memmove(&d->allocs[idx], &d->allocs[idx + 1], (d->nallocs - idx - 1) * sizeof(*al));
        d->nallocs--;
        G.live[ACLMOCK_RES_DEVICE_BUFFER]--;
    }
    back_privately(m->dev, m->span_off, m->span, false);
    uint64_t lo, hi;
    ea_free(&d->heap, m->span_off, m->span, &lo, &hi);
    arena_release_backing(m->dev, m->span_off, m->span, lo, hi);
    drop(m);
    return call_end(&c, ACL_SUCCESS);
}

bool ipc_mem_is_import(int dev, uint64_t off)
{
    for (ipc_mem *m = mems; m; m = m->next) {
        if (!m->exporter && m->dev == dev && m->block_off == off) {
            return true;
        }
    }
    return false;
}

void ipc_mem_block_freed(int dev, uint64_t off, uint64_t consumed)
{
    (void)consumed;
    for (ipc_mem *m = mems; m; m = m->next) {
        if (m->exporter && m->dev == dev && m->block_off == off) {
            if (!m->closed) {
                __atomic_store_n(&m->hdr->destroyed, 1, __ATOMIC_RELEASE);
                unlink_name(m->name);
            }
            back_privately(dev, m->span_off, m->span, true); /* neighbours may share the edge pages */
            drop(m);
            return;
        }
    }
}

/* aclmockReset: the backing stores go (devices_reset_locked) and with them
 * every mapping; the keys this process exported are destroyed. */
void ipc_reset_locked(void)
{
    while (mems) {
        ipc_mem *m = mems;
        if (m->exporter && !m->closed) {
            unlink_name(m->name);
        }
        drop(m);
    }
}
