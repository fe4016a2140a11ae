/*
 * comm_api.c: the communicator functions of libhcomm.so: root info, init
 * (root info, one process for several devices), destroy, rank queries,
 * barrier, async error, error strings, the determinism switch, group
 * start/end. Argument rules cite hcomm/hccl sources where they decide;
 * docs/mock-conformance.md ("HCCL") lists what the sources leave open.
 */
#include "hccl_mock.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

HM_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclGetRootInfo);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!rootInfo) {
        return HM_FAIL(HCCL_E_PTR, "rootInfo is null");
    }
    /* hccl-facts.md §1.3: called on the root rank after aclrtSetDevice */
    if (aclmock_current_device() < 0) {
        return HM_FAIL(HCCL_E_RUNTIME, "no device is set on this thread: call aclrtSetDevice first");
    }
    hm_root root;
    HcclResult rc = hm_hub_start(&root, connect_ms, exec_ms);
    if (rc != HCCL_SUCCESS) {
        return HM_FAIL(rc, "cannot start the rendezvous (socket, thread or memory)");
    }
    memset(rootInfo, 0, sizeof(*rootInfo));
    memcpy(rootInfo->internal, &root, sizeof(root));
    char sess[24];
    snprintf(sess, sizeof(sess), "%016llx", (unsigned long long)root.session);
    aclmock_out_str(&call_, "session", sess);
    return HM_END(HCCL_SUCCESS);
}

/* Connects rank `rank` to the hub and sends JOIN; the fd or -1. */
static int join_send(const hm_root *root, uint32_t nranks, uint32_t rank, int32_t device)
{
    int fd = hm_connect(root->path);
    if (fd < 0) {
        return -1;
    }
    hm_join j = {.session = root->session, .nranks = nranks, .rank = rank, .device = device, .pid = getpid()};
    if (hm_send(fd, HM_JOIN, &j, sizeof(j), NULL, 0, NULL, 0) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Waits for the hub's answer to a JOIN (without the mock's lock). */
static HcclResult join_wait(int fd, uint64_t deadline_ns, char *msg, size_t cap)
{
    uint32_t type = 0;
    void *p = NULL;
    uint64_t len = 0;
    int r = hm_recv(fd, &type, &p, &len, deadline_ns);
    if (r == -2) {
        snprintf(msg, cap, "not every rank joined in time (HCCL_CONNECT_TIMEOUT)");
        return HCCL_E_TIMEOUT;
    }
    hm_joined j;
    if (r != 0 || type != HM_JOINED || len != sizeof(j)) {
        free(p);
        snprintf(msg, cap, "the rendezvous hub closed the connection");
        return HCCL_E_TCP_TRANSFER;
    }
    memcpy(&j, p, sizeof(j));
    free(p);
    j.msg[sizeof(j.msg) - 1] = '\0';
    snprintf(msg, cap, "%s", j.msg);
    return (HcclResult)j.status;
}

static bool root_valid(const HcclRootInfo *info, hm_root *out)
{
    memcpy(out, info->internal, sizeof(*out));
    out->path[sizeof(out->path) - 1] = '\0';
    return memcmp(out->magic, HM_ROOT_MAGIC, sizeof(HM_ROOT_MAGIC)) == 0 &&
           (out->path[0] == '/' || strncmp(out->path, "tcp:", 4) == 0);
}

static HcclResult init_root_waiting(aclmock_call *call, uint32_t nRanks, const HcclRootInfo *rootInfo,
                                    uint32_t rank, HcclComm *comm, uint64_t connect_ms, uint64_t exec_ms,
                                    bool wait_for_hub);

static HcclResult init_root(aclmock_call *call, uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                            HcclComm *comm, uint64_t connect_ms, uint64_t exec_ms)
{
    return init_root_waiting(call, nRanks, rootInfo, rank, comm, connect_ms, exec_ms, false);
}

/* As init_root; with `wait_for_hub`, a hub that does not listen yet is
 * retried until the connect timeout (a rank table's rank 0 may start after
 * the others). */
static HcclResult init_root_waiting(aclmock_call *call, uint32_t nRanks, const HcclRootInfo *rootInfo,
                                    uint32_t rank, HcclComm *comm, uint64_t connect_ms, uint64_t exec_ms,
                                    bool wait_for_hub)
{
    if (!rootInfo || !comm) {
        aclmock_fail(HCCL_E_PTR, "%s is null", rootInfo ? "comm" : "rootInfo");
        return HCCL_E_PTR;
    }
    /* hccl src/common/param_check.cc:134-141 (HcomCheckUserRank): rank < nRanks */
    if (nRanks == 0 || rank >= nRanks) {
        aclmock_fail(HCCL_E_PARA, "rank %u is out of range for %u ranks", rank, nRanks);
        return HCCL_E_PARA;
    }
    hm_root root;
    if (!root_valid(rootInfo, &root)) {
        aclmock_fail(HCCL_E_PARA, "rootInfo was not made by HcclGetRootInfo of this mock");
        return HCCL_E_PARA;
    }
    int32_t device = aclmock_current_device();
    if (device < 0) {
        aclmock_fail(HCCL_E_RUNTIME, "no device is set on this thread: call aclrtSetDevice first");
        return HCCL_E_RUNTIME;
    }
    char msg[192] = "";
    aclmock_unlock(); /* the other ranks' calls must get in while this one waits */
    int fd = join_send(&root, nRanks, rank, device);
    uint64_t hub_deadline = hm_now_ns() + connect_ms * 1000000ULL;
    while (fd < 0 && wait_for_hub && hm_now_ns() < hub_deadline) {
        usleep(2000);
        fd = join_send(&root, nRanks, rank, device);
    }
    HcclResult rc = fd < 0 ? HCCL_E_TCP_CONNECT
                           : join_wait(fd, hm_now_ns() + (connect_ms + 2000ULL) * 1000000ULL, msg, sizeof(msg));
    aclmock_lock();
    if (fd < 0) {
        aclmock_fail(rc, "cannot reach the rendezvous at %s (its process ended, or it timed out)", root.path);
        return rc;
    }
    if (rc != HCCL_SUCCESS) {
        close(fd);
        aclmock_fail(rc, "rank %u of %u: %s", rank, nRanks, msg);
        return rc;
    }
    char name[64];
    snprintf(name, sizeof(name), "aclmock-%016llx", (unsigned long long)root.session);
    hm_comm *c = hm_comm_new(rank, nRanks, device, fd, exec_ms, name);
    if (!c) {
        close(fd);
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
    }
    hm_comm_register(c);
    aclmock_live_add(14 /* ACLMOCK_RES_HCCL_COMM */, 1);
    *comm = c;
    char id[32];
    snprintf(id, sizeof(id), "comm%llu", (unsigned long long)c->id);
    aclmock_out_str(call, "comm", id);
    return HCCL_SUCCESS;
}

HM_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                          HcclComm *comm)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclCommInitRootInfo);
    aclmock_arg_u64(&call_, "nRanks", nRanks);
    aclmock_arg_u64(&call_, "rank", rank);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    return HM_END(init_root(&call_, nRanks, rootInfo, rank, comm, connect_ms, exec_ms));
}

HM_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                const HcclCommConfig *config, HcclComm *comm)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclCommInitRootInfoConfig);
    aclmock_arg_u64(&call_, "nRanks", nRanks);
    aclmock_arg_u64(&call_, "rank", rank);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!config) {
        return HM_FAIL(HCCL_E_PTR, "config is null");
    }
    /* the mock reads no field of the config (docs/mock-conformance.md) */
    return HM_END(init_root(&call_, nRanks, rootInfo, rank, comm, connect_ms, exec_ms));
}

/* A rank table's rank count: its "rank_id" keys. The mock reads no other
 * field (mock decision: HCCL validates the table itself, and so does the
 * safe layer before the call; hicann/hccl docs/rank_table_config_a2.md). */
static uint32_t rank_table_ranks(const char *text)
{
    uint32_t n = 0;
    for (const char *p = text; (p = strstr(p, "\"rank_id\"")) != NULL; p += 9) {
        n++;
    }
    return n;
}

/* HcclCommInitClusterInfo and its Config form after their own checks. */
static HcclResult init_cluster(aclmock_call *call, const char *clusterInfo, uint32_t rank, HcclComm *comm,
                               uint64_t connect_ms, uint64_t exec_ms)
{
    FILE *f = fopen(clusterInfo, "rb");
    if (!f) {
        aclmock_fail(HCCL_E_PARA, "cannot read the rank table %s", clusterInfo);
        return HCCL_E_PARA;
    }
    char *text = calloc(1, 1 << 20);
    size_t len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (!text) {
        aclmock_fail(HCCL_E_MEMORY, "out of host memory");
        return HCCL_E_MEMORY;
    }
    /* Every rank of the job derives the same hub from the table's bytes
     * (FNV-1a; a mock decision: jobs with byte-identical tables at the same
     * time would meet). The rank with rank_id 0 starts it; the others wait
     * for it within the connect timeout. */
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        hash = (hash ^ (unsigned char)text[i]) * 0x100000001b3ULL;
    }
    hash |= 1;
    uint32_t nranks = rank_table_ranks(text);
    free(text);
    if (nranks == 0 || rank >= nranks) {
        aclmock_fail(HCCL_E_PARA, "rank %u is not a rank of the %u the table %s lists", rank, nranks, clusterInfo);
        return HCCL_E_PARA;
    }
    hm_root root;
    if (rank == 0) {
        HcclResult rc = hm_hub_start_at(&root, hash, connect_ms, exec_ms);
        if (rc != HCCL_SUCCESS) {
            aclmock_fail(rc, "cannot start the rank table's rendezvous (socket, thread or memory)");
            return rc;
        }
    } else {
        memset(&root, 0, sizeof(root));
        memcpy(root.magic, HM_ROOT_MAGIC, sizeof(HM_ROOT_MAGIC));
        root.session = hash;
        const char *tmp = getenv("TMPDIR");
        tmp = tmp && *tmp && strlen(tmp) < 24 ? tmp : "/tmp";
        snprintf(root.path, sizeof(root.path), "%s/aclmock-hccl-rt-%016llx/hub", tmp, (unsigned long long)hash);
    }
    HcclRootInfo info;
    memset(&info, 0, sizeof(info));
    memcpy(info.internal, &root, sizeof(root));
    return init_root_waiting(call, nranks, &info, rank, comm, connect_ms, exec_ms, rank != 0);
}

HM_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclCommInitClusterInfo);
    aclmock_arg_str(&call_, "clusterInfo", clusterInfo);
    aclmock_arg_u64(&call_, "rank", rank);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!clusterInfo || !comm) {
        return HM_FAIL(HCCL_E_PTR, "%s is null", clusterInfo ? "comm" : "clusterInfo");
    }
    return HM_END(init_cluster(&call_, clusterInfo, rank, comm, connect_ms, exec_ms));
}

/* The rank-table join with a config (hcomm's docs, HcclCommInitClusterInfoConfig:
 * the config sets buffer size, determinism and the communicator's name); as
 * for HcclCommInitRootInfoConfig, the mock checks it is there and reads no
 * field of it (docs/mock-conformance.md). */
HM_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                   HcclComm *comm)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclCommInitClusterInfoConfig);
    aclmock_arg_str(&call_, "clusterInfo", clusterInfo);
    aclmock_arg_u64(&call_, "rank", rank);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!clusterInfo || !config || !comm) {
        return HM_FAIL(HCCL_E_PTR, "%s is null", !clusterInfo ? "clusterInfo" : !config ? "config" : "comm");
    }
    return HM_END(init_cluster(&call_, clusterInfo, rank, comm, connect_ms, exec_ms));
}

/* "devices": the ids as "[0,1]" (null as null, "?" for more than 4096),
 * as the recording shim writes them (record/rec_api_hccl_comm.c). */
static void hm_journal_devices(aclmock_call *call, const int32_t *devices, uint32_t ndev)
{
    if (!devices || ndev > 4096) {
        aclmock_arg_str(call, "devices", devices ? "?" : NULL);
        return;
    }
    char *text = malloc(3 + (size_t)ndev * 12);
    if (!text) {
        aclmock_arg_str(call, "devices", "?");
        return;
    }
    size_t k = (size_t)sprintf(text, "[");
    for (uint32_t i = 0; i < ndev; i++) {
        k += (size_t)sprintf(text + k, "%s%d", i ? "," : "", devices[i]);
    }
    sprintf(text + k, "]");
    aclmock_arg_str(call, "devices", text);
    free(text);
}

HM_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    uint64_t connect_ms, exec_ms;
    aclmock_hccl_timeouts(&connect_ms, &exec_ms);
    HM_BEGIN(HcclCommInitAll);
    aclmock_arg_u64(&call_, "ndev", ndev);
    hm_journal_devices(&call_, devices, ndev);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!devices || !comms) {
        return HM_FAIL(HCCL_E_PTR, "%s is null", devices ? "comms" : "devices");
    }
    if (ndev == 0) {
        return HM_FAIL(HCCL_E_PARA, "ndev is 0");
    }
    uint32_t count = aclmock_device_count();
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= count) {
            return HM_FAIL(HCCL_E_PARA, "devices[%u] = %d is not a device (0..%u)", i, devices[i], count - 1);
        }
        for (uint32_t k = 0; k < i; k++) {
            if (devices[k] == devices[i]) {
                return HM_FAIL(HCCL_E_PARA, "device %d is listed twice (hccl-facts.md: no duplicate ids)",
                               devices[i]);
            }
        }
    }
    int *fds = malloc(ndev * sizeof(int));
    if (!fds) {
        return HM_FAIL(HCCL_E_MEMORY, "out of host memory");
    }
    hm_root root;
    HcclResult rc = hm_hub_start(&root, connect_ms, exec_ms);
    if (rc != HCCL_SUCCESS) {
        free(fds);
        return HM_FAIL(rc, "cannot start the rendezvous (socket, thread or memory)");
    }
    char msg[192] = "";
    aclmock_unlock();
    uint64_t deadline = hm_now_ns() + (connect_ms + 2000ULL) * 1000000ULL;
    uint32_t joined = 0;
    for (; joined < ndev; joined++) {
        fds[joined] = join_send(&root, ndev, joined, devices[joined]);
        if (fds[joined] < 0) {
            rc = HCCL_E_TCP_CONNECT;
            snprintf(msg, sizeof(msg), "cannot reach the rendezvous hub");
            break;
        }
    }
    for (uint32_t i = 0; rc == HCCL_SUCCESS && i < ndev; i++) {
        rc = join_wait(fds[i], deadline, msg, sizeof(msg));
    }
    aclmock_lock();
    hm_comm **made = calloc(ndev, sizeof(*made));
    for (uint32_t i = 0; rc == HCCL_SUCCESS && i < ndev; i++) {
        char name[64];
        snprintf(name, sizeof(name), "aclmock-%016llx", (unsigned long long)root.session);
        made[i] = made ? hm_comm_new(i, ndev, devices[i], fds[i], exec_ms, name) : NULL;
        if (!made[i]) {
            rc = HCCL_E_MEMORY;
            snprintf(msg, sizeof(msg), "out of host memory");
        }
    }
    if (rc != HCCL_SUCCESS) {
        for (uint32_t i = 0; i < ndev; i++) {
            if (made && made[i]) {
                made[i]->fd = -1;
                hm_comm_unref(made[i]); /* never registered: frees it */
            }
            if (i < joined) {
                close(fds[i]);
            }
        }
        free(made);
        free(fds);
        return HM_FAIL(rc, "%s", msg);
    }
    for (uint32_t i = 0; i < ndev; i++) {
        hm_comm_register(made[i]);
        aclmock_live_add(14 /* ACLMOCK_RES_HCCL_COMM */, 1);
        comms[i] = made[i];
    }
    free(made);
    free(fds);
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    HM_BEGIN(HcclCommDestroy);
    hm_journal_comm(&call_, comm);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    /* hcomm op_base.cc HcclCommDestroy: a null comm is skipped with success */
    if (!comm) {
        return HM_END(HCCL_SUCCESS);
    }
    HcclResult rc;
    hm_comm *c = hm_comm_enter(comm, &rc);
    if (!c) {
        return HM_END(rc);
    }
    uint64_t gen = c->gen;
    rc = hm_comm_destroy(c);
    if (rc == HCCL_E_AGAIN) {
        return HM_FAIL(rc, "the communicator is in use by another HCCL call: try again");
    }
    if (gen == aclmock_generation()) {
        aclmock_live_add(14 /* ACLMOCK_RES_HCCL_COMM */, -1);
    }
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    HM_BEGIN(HcclGetRankSize);
    hm_journal_comm(&call_, comm);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!rankSize) {
        return HM_FAIL(HCCL_E_PTR, "rankSize is null");
    }
    HcclResult rc;
    hm_comm *c = hm_comm_enter(comm, &rc);
    if (!c) {
        return HM_END(rc);
    }
    *rankSize = c->nranks;
    hm_comm_leave(c);
    aclmock_out_u64(&call_, "rankSize", *rankSize);
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    HM_BEGIN(HcclGetRankId);
    hm_journal_comm(&call_, comm);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!rank) {
        return HM_FAIL(HCCL_E_PTR, "rank is null");
    }
    HcclResult rc;
    hm_comm *c = hm_comm_enter(comm, &rc);
    if (!c) {
        return HM_END(rc);
    }
    *rank = c->rank;
    hm_comm_leave(c);
    aclmock_out_u64(&call_, "rank", *rank);
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    HM_BEGIN(HcclGetCommName);
    hm_journal_comm(&call_, comm);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!commName) {
        return HM_FAIL(HCCL_E_PTR, "commName is null");
    }
    HcclResult rc;
    hm_comm *c = hm_comm_enter(comm, &rc);
    if (!c) {
        return HM_END(rc);
    }
    snprintf(commName, COMM_NAME_MAX_LENGTH, "%s", c->name);
    hm_comm_leave(c);
    aclmock_out_str(&call_, "commName", commName);
    return HM_END(HCCL_SUCCESS);
}

HM_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    HM_BEGIN(HcclGetCommAsyncError);
    hm_journal_comm(&call_, comm);
    if (HM_FAULTED()) {
        return HM_END(fault_);
    }
    if (!asyncError) {
        return HM_FAIL(HCCL_E_PTR, "asyncError is null");
    }
    HcclResult rc;
    hm_comm *c = hm_comm_enter(comm, &rc);
    if (!c) {
        return HM_END(rc);
    }
    *asyncError = (HcclResult)hm_comm_async(c);
    hm_comm_leave(c);
    aclmock_out_u64(&call_, "asyncError", (uint64_t)*asyncError);
    return HM_END(HCCL_SUCCESS);
}
