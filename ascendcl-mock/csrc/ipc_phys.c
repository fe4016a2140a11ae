/*
 * ipc_phys.c: physical allocations shared between processes of the mock
 * (aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle,
 * aclrtMemImportFromShareableHandle), through the shared-memory objects of
 * ipc.h ("aclmock_p<pid>_<n>"): the allocation's pages are mapped over the
 * exporter's backing and over a new allocation of the importer, which gets a
 * physical handle of its own to map with aclrtMapMem. The shareable handle
 * is (pid << 32) | n, a mock encoding (the driver's is closed).
 *
 * Rules from hicann/runtime v8.5.0: src/acl/aclrt_impl/memory.cpp:1104-1198,
 * src/runtime/feature/src/api/api_c.cc:4271-4292, api_c_memory.cc:429-450,
 * api_impl/api_error.cc:5216-5283, api_impl/api_impl.cc:7082-7201.
 */
#include "ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* api_error.cc:5219 (RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION = 1) */
#define VMM_EXPORT_FLAG_MAX 1u

typedef struct ipc_phys {
    struct ipc_phys *next;
    uint64_t shareable;
    char name[IPC_NAME_MAX + 1];
    bool exporter;
    mock_phys *p;
    ipc_hdr *hdr;
    int fd;
} ipc_phys;

static ipc_phys *physes;
static uint32_t next_n;

static void name_of(uint64_t shareable, char *out, size_t cap)
{
    snprintf(out, cap, "aclmock_p%u_%u", (unsigned)(shareable >> 32), (unsigned)(shareable & 0xffffffffu));
}

static ipc_phys *find(uint64_t shareable, const mock_phys *p)
{
    for (ipc_phys *e = physes; e; e = e->next) {
        if ((p && e->p == p) || (!p && e->exporter && e->shareable == shareable)) {
            return e;
        }
    }
    return NULL;
}

static void unlink_drop(ipc_phys *e, bool unmap_pages)
{
    for (ipc_phys **l = &physes; *l; l = &(*l)->next) {
        if (*l == e) {
            *l = e->next;
            break;
        }
    }
    if (e->exporter) {
        __atomic_store_n(&e->hdr->destroyed, 1, __ATOMIC_RELEASE);
        char path[IPC_NAME_MAX + 2];
        snprintf(path, sizeof(path), "/%s", e->name);
        shm_unlink(path);
    }
    if (unmap_pages) {
        /* private pages again: the allocation goes back to the heap */
        (void)mmap(G.devices[e->p->device].backing + e->p->off, (size_t)e->p->size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    }
    ipc_unmap_hdr(e->hdr);
    close(e->fd);
    free(e);
}

/* Export: null handle, handleType not NONE, null shareableHandle -> 100000
 * (memory.cpp:1109-1112); flags above DISABLE_PID_VALIDATION -> 107000
 * (api_error.cc:5219-5221); a handle that is not a live physical allocation
 * of this process -> 107000 (the driver; as every VMM call of the mock); an
 * allocation exported already -> 107000 (mock). */
ACLMOCK_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                        uint64_t flags, uint64_t *shareableHandle)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemExportToShareableHandle);
    ja_obj(&c, "handle", handle, OBJ_PHYS);
    ja_i64(&c, "handleType", (int64_t)handleType);
    ja_hex(&c, "flags", flags);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!handle || handleType != ACL_MEM_HANDLE_TYPE_NONE || !shareableHandle) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "%s",
                                     !handle ? "handle is null"
                                     : handleType != ACL_MEM_HANDLE_TYPE_NONE
                                         ? "handleType must be ACL_MEM_HANDLE_TYPE_NONE"
                                         : "shareableHandle is null"));
    }
    if (flags > VMM_EXPORT_FLAG_MAX) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "flags 0x%llx is not in [0, %u]",
                                 (unsigned long long)flags, VMM_EXPORT_FLAG_MAX));
    }
    mock_phys *p = phys_arg(handle, false);
    if (!p) {
        return call_end(&c, tls()->last_rc);
    }
    if (find(0, p)) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "physical handle p%llu is already shared",
                                 (unsigned long long)p->h.id));
    }
    ipc_phys *e = calloc(1, sizeof(*e));
    if (!e) {
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory"));
    }
    e->shareable = ((uint64_t)(uint32_t)getpid() << 32) | ++next_n;
    name_of(e->shareable, e->name, sizeof(e->name));
    ipc_hdr *h = ipc_create(e->name, p->size, &e->fd);
    unsigned char *at = G.devices[p->device].backing + p->off;
    if (!h || pwrite(e->fd, at, (size_t)p->size, IPC_HDR) != (ssize_t)p->size ||
        mmap(at, (size_t)p->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, e->fd, IPC_HDR) == MAP_FAILED) {
        if (h) {
            char path[IPC_NAME_MAX + 2];
            snprintf(path, sizeof(path), "/%s", e->name);
            shm_unlink(path);
            ipc_unmap_hdr(h);
            close(e->fd);
        }
        free(e);
        return call_end(&c, fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot share physical handle p%llu",
                                 (unsigned long long)p->h.id));
    }
    h->kind = 'p';
    h->no_pid_check = flags != 0;
    h->device = p->device;
    h->size = p->size;
    h->gran = p->gran;
    h->mem_attr = (int32_t)p->prop.memAttr;
    e->exporter = true;
    e->p = p;
    e->hdr = h;
    e->next = physes;
    physes = e;
    *shareableHandle = e->shareable;
    jo_u64(&c, "shareableHandle", e->shareable);
    return call_end(&c, ACL_SUCCESS);
}

/* Null pid, pidNum 0 -> 100000 (memory.cpp:1187-1189); then the driver
 * (api_impl.cc:7197-7201): a handle this process did not export -> 107000
 * (mock). */
ACLMOCK_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemSetPidToShareableHandle);
    ja_hex(&c, "shareableHandle", shareableHandle);
    ja_u64(&c, "pidNum", pidNum);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!pid || pidNum == 0) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, pid ? "pidNum is 0" : "pid is null"));
    }
    ipc_phys *e = find(shareableHandle, NULL);
    if (!e) {
        return call_end(&c, fail(ACL_ERROR_RT_PARAM_INVALID, "0x%llx is not a shareable handle this process exported",
                                 (unsigned long long)shareableHandle));
    }
    return call_end(&c, ipc_set_pids(e->hdr, pid, pidNum));
}

/* Null handle -> 100000 (memory.cpp:1145); an invalid device -> 107001
 * (api_error.cc:5244-5251); no current context on that device -> 107002
 * (api_impl.cc:7135-7138); then the driver: an unknown or destroyed handle,
 * or a process not on its whitelist -> 107000 (mock). The new handle is a
 * physical allocation of `deviceId`, freed with aclrtFreePhysical. */
ACLMOCK_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                          aclrtDrvMemHandle *handle)
{
    mock_call c;
    call_begin(&c, FN_aclrtMemImportFromShareableHandle);
    ja_hex(&c, "shareableHandle", shareableHandle);
    ja_i64(&c, "deviceId", deviceId);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!handle) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "handle is null"));
    }
    if (!device_valid(deviceId)) {
        return call_end(&c, fail(ACL_ERROR_RT_INVALID_DEVICEID, "device %d is not a valid device", deviceId));
    }
    mock_ctx *ctx = need_ctx();
    if (!ctx || ctx->device != deviceId) {
        return call_end(&c, ctx ? fail(ACL_ERROR_RT_CONTEXT_NULL, "the current context is not of device %d", deviceId)
                                : ACL_ERROR_RT_CONTEXT_NULL);
    }
    char name[IPC_NAME_MAX + 1];
    name_of(shareableHandle, name, sizeof(name));
    int fd = -1;
    ipc_hdr *h = ipc_open(name, &fd);
    aclError rc = h && h->kind == 'p' ? ipc_may_import(h, name)
                                      : fail(ACL_ERROR_RT_PARAM_INVALID, "0x%llx is not a shareable handle",
                                             (unsigned long long)shareableHandle);
    if (!rc) {
        rc = device_windows(deviceId);
    }
    mock_device *d = &G.devices[deviceId];
    uint64_t off = 0;
    if (!rc && !ea_alloc(&d->heap, h->size, h->gran, &off)) {
        rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device %d has no %llu free bytes for the import", deviceId,
                  (unsigned long long)h->size);
    }
    ipc_phys *e = rc ? NULL : calloc(1, sizeof(*e));
    mock_phys *p = e ? calloc(1, sizeof(*p)) : NULL;
    if (!rc && (!p || mmap(d->backing + off, (size_t)h->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                           IPC_HDR) == MAP_FAILED)) {
        uint64_t lo, hi;
        ea_free(&d->heap, off, h->size, &lo, &hi);
        rc = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map shareable handle 0x%llx",
                  (unsigned long long)shareableHandle);
    }
    if (rc) {
        free(p);
        free(e);
        ipc_unmap_hdr(h);
        if (fd >= 0) {
            close(fd);
        }
        return call_end(&c, rc);
    }
    obj_register(&p->h, OBJ_PHYS, ++G.next_phys);
    p->device = deviceId;
    p->off = off;
    p->size = h->size;
    p->gran = h->gran;
    p->prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p->prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p->prop.memAttr = (aclrtMemAttr)h->mem_attr;
    p->prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p->prop.location.id = (uint32_t)deviceId;
    p->refs = 1;
    G.live[ACLMOCK_RES_PHYSICAL]++;
    e->shareable = shareableHandle;
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->p = p;
    e->hdr = h;
    e->fd = fd;
    e->next = physes;
    physes = e;
    *handle = p;
    jo_obj(&c, "handle", p, OBJ_PHYS);
    return call_end(&c, ACL_SUCCESS);
}

void ipc_phys_released(mock_phys *p)
{
    ipc_phys *e = find(0, p);
    if (e) {
        unlink_drop(e, true);
    }
}

void ipc_phys_reset_locked(void)
{
    while (physes) {
        unlink_drop(physes, false); /* the backing goes with the devices */
    }
}
