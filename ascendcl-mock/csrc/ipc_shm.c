/*
 * ipc_shm.c: the named shared-memory objects behind IPC keys (ipc.h), and
 * aclrtDeviceGetBareTgid.
 */
#include "ipc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t next_key;

/* Objects of processes that died without freeing what they exported stay in
 * /dev/shm (RAM): every export unlinks those whose exporter no longer
 * exists. */
static void sweep_dead_exporters(void)
{
    DIR *dir = opendir("/dev/shm");
    if (!dir) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char kind = 0;
        int pid = 0;
        if (sscanf(e->d_name, "aclmock_%c%d_", &kind, &pid) != 2 || pid <= 0 || pid == (int)getpid()) {
            continue;
        }
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char path[IPC_NAME_MAX + 2];
            snprintf(path, sizeof(path), "/%.*s", IPC_NAME_MAX, e->d_name);
            shm_unlink(path);
        }
    }
    closedir(dir);
}

ipc_hdr *ipc_create(const char *name, uint64_t data, int *fd)
{
    sweep_dead_exporters();
    char path[IPC_NAME_MAX + 2];
    snprintf(path, sizeof(path), "/%s", name);
    *fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (*fd < 0) {
        return NULL;
    }
    if (ftruncate(*fd, (off_t)(IPC_HDR + data)) != 0) {
        close(*fd);
        shm_unlink(path);
        return NULL;
    }
    void *m = mmap(NULL, IPC_HDR, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (m == MAP_FAILED) {
        close(*fd);
        shm_unlink(path);
        return NULL;
    }
    ipc_hdr *h = m;
    memset(h, 0, sizeof(*h));
    h->magic = IPC_MAGIC;
    h->owner = (int32_t)getpid();
    return h;
}

ipc_hdr *ipc_open(const char *name, int *fd)
{
    char path[IPC_NAME_MAX + 2];
    if (strlen(name) > IPC_NAME_MAX || strchr(name, '/')) {
        return NULL;
    }
    snprintf(path, sizeof(path), "/%s", name);
    *fd = shm_open(path, O_RDWR, 0);
    if (*fd < 0) {
        return NULL;
    }
    void *m = mmap(NULL, IPC_HDR, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (m == MAP_FAILED || ((ipc_hdr *)m)->magic != IPC_MAGIC) {
        if (m != MAP_FAILED) {
            munmap(m, IPC_HDR);
        }
        close(*fd);
        return NULL;
    }
    return m;
}

void ipc_unmap_hdr(ipc_hdr *h)
{
    if (h) {
        munmap(h, IPC_HDR);
    }
}

/* The whitelist is the driver's (closed); a process that is not on it, or a
 * key its exporter closed, is refused with 107000 (a mock decision,
 * docs/mock-conformance.md). */
aclError ipc_may_import(const ipc_hdr *h, const char *name)
{
    if (__atomic_load_n(&h->destroyed, __ATOMIC_ACQUIRE)) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "the key %s was closed by its exporter", name);
    }
    if (h->owner == (int32_t)getpid()) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "the key %s was exported by this process", name);
    }
    if (h->no_pid_check) {
        return ACL_SUCCESS;
    }
    uint32_t n = __atomic_load_n(&h->npids, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < IPC_MAX_PIDS; i++) {
        if (h->pids[i] == (int32_t)getpid()) {
            return ACL_SUCCESS;
        }
    }
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "process %d is not on the whitelist of key %s (aclrt*SetImportPid, or export with pid validation "
                "disabled)",
                (int)getpid(), name);
}

bool ipc_new_name(char kind, char *key, size_t len)
{
    char name[IPC_NAME_MAX + 1];
    int n = snprintf(name, sizeof(name), "aclmock_%c%d_%llu", kind, (int)getpid(),
                     (unsigned long long)++next_key);
    if ((size_t)n + 1 > len) {
        /* the key's length is checked by the driver (closed): 107000, a mock decision */
        fail(ACL_ERROR_RT_PARAM_INVALID, "a key needs %d bytes, len is %zu", n + 1, len);
        return false;
    }
    memcpy(key, name, (size_t)n + 1);
    return true;
}

aclError ipc_set_pids(ipc_hdr *h, const int32_t *pid, size_t num)
{
    uint32_t have = h->npids;
    if (num > IPC_MAX_PIDS - have) {
        return fail(ACL_ERROR_RT_PARAM_INVALID, "the mock keeps at most %d pids per key", IPC_MAX_PIDS);
    }
    for (size_t i = 0; i < num; i++) {
        h->pids[have + i] = pid[i];
    }
    __atomic_store_n(&h->npids, have + (uint32_t)num, __ATOMIC_RELEASE);
    return ACL_SUCCESS;
}

/* memory.cpp:1263-1275: null -> 100000. The pid is the driver's view of
 * this process; outside a container it is the host pid (a mock decision). */
ACLMOCK_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    mock_call c;
    call_begin(&c, FN_aclrtDeviceGetBareTgid);
    if (call_faulted(&c)) {
        return call_end(&c, c.fault_code);
    }
    if (!pid) {
        return call_end(&c, acl_fail(ACL_ERROR_INVALID_PARAM, "pid is null"));
    }
    *pid = (int32_t)getpid();
    jo_i64(&c, "pid", *pid);
    return call_end(&c, ACL_SUCCESS);
}
