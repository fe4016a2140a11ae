/*
 * rec_api_hccl_comm.c: recording wrappers of the HCCL communicator functions
 * (libhcomm.so), with the mock's journal keys (csrc/hccl/comm_api.c,
 * comm_misc.c). The root info is opaque and not recorded (the mock's
 * "session" out-value exists only in its own journal: a trace of a card has
 * no such thing).
 */
#include "rec.h"

#include <hccl/hccl.h>
#include <stdio.h>

/* A root info's bytes as "fnv1a64:<16 hex digits>": enough to tell which
 * ranks of a recording joined which root, nothing of its contents (host
 * addresses). It differs from run to run: replay ignores it. */
static void rootinfo_hash(char *out, size_t cap, const HcclRootInfo *r)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    const unsigned char *b = (const unsigned char *)r;
    for (size_t i = 0; i < sizeof(*r); i++) {
        h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    snprintf(out, cap, "fnv1a64:%016llx", (unsigned long long)h);
}

static void ra_rootinfo(rec_call *c, const HcclRootInfo *r)
{
    if (!c->on) {
        return;
    }
    char text[40];
    if (r) {
        rootinfo_hash(text, sizeof(text), r);
    }
    ra_str(c, "rootInfo", r ? text : NULL);
}

REC_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    REC_BEGIN(HcclGetRootInfo);
    aclError rc;
    REC_INVOKE(rc, rootInfo);
    if (c.on && rc == HCCL_SUCCESS && rootInfo) {
        char text[40];
        rootinfo_hash(text, sizeof(text), rootInfo);
        ro_str(&c, "rootInfo", text);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                           HcclComm *comm)
{
    REC_BEGIN(HcclCommInitRootInfo);
    ra_u64(&c, "nRanks", nRanks);
    ra_u64(&c, "rank", rank);
    ra_rootinfo(&c, rootInfo);
    aclError rc;
    REC_INVOKE(rc, nRanks, rootInfo, rank, comm);
    if (rc == HCCL_SUCCESS && comm) {
        ro_new_comm(&c, "comm", *comm);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                 const HcclCommConfig *config, HcclComm *comm)
{
    REC_BEGIN(HcclCommInitRootInfoConfig);
    ra_u64(&c, "nRanks", nRanks);
    ra_u64(&c, "rank", rank);
    ra_rootinfo(&c, rootInfo);
    aclError rc;
    REC_INVOKE(rc, nRanks, rootInfo, rank, config, comm);
    if (rc == HCCL_SUCCESS && comm) {
        ro_new_comm(&c, "comm", *comm);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    REC_BEGIN(HcclCommInitClusterInfo);
    ra_str(&c, "clusterInfo", clusterInfo); /* null is recorded as null */
    ra_u64(&c, "rank", rank);
    aclError rc;
    REC_INVOKE(rc, clusterInfo, rank, comm);
    if (rc == HCCL_SUCCESS && comm) {
        ro_new_comm(&c, "comm", *comm);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                    HcclComm *comm)
{
    REC_BEGIN(HcclCommInitClusterInfoConfig);
    ra_str(&c, "clusterInfo", clusterInfo);
    ra_u64(&c, "rank", rank);
    aclError rc;
    REC_INVOKE(rc, clusterInfo, rank, config, comm);
    if (rc == HCCL_SUCCESS && comm) {
        ro_new_comm(&c, "comm", *comm);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    REC_BEGIN(HcclCommInitAll);
    ra_u64(&c, "ndev", ndev);
    if (c.on && devices && ndev <= 4096) {
        jbuf b;
        jb_init(&b);
        jb_printf(&b, "[");
        for (uint32_t i = 0; i < ndev; i++) {
            jb_printf(&b, "%s%d", i ? "," : "", devices[i]);
        }
        jb_printf(&b, "]");
        ra_str(&c, "devices", jb_str(&b));
        jb_free(&b);
    } else {
        ra_str(&c, "devices", devices ? "?" : NULL); /* as the mock's journal */
    }
    aclError rc;
    REC_INVOKE(rc, ndev, devices, comms);
    /* the mock journals no out-value here but numbers the comms in order */
    for (uint32_t i = 0; rc == HCCL_SUCCESS && comms && i < ndev; i++) {
        rec_comm_add(&c, comms[i]);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    REC_BEGIN(HcclCommDestroy);
    ra_comm(&c, comm);
    aclError rc;
    REC_INVOKE(rc, comm);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    REC_BEGIN(HcclGetRankSize);
    ra_comm(&c, comm);
    aclError rc;
    REC_INVOKE(rc, comm, rankSize);
    if (rc == HCCL_SUCCESS && rankSize) {
        ro_u64(&c, "rankSize", *rankSize);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    REC_BEGIN(HcclGetRankId);
    ra_comm(&c, comm);
    aclError rc;
    REC_INVOKE(rc, comm, rank);
    if (rc == HCCL_SUCCESS && rank) {
        ro_u64(&c, "rank", *rank);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    REC_BEGIN(HcclGetCommName);
    ra_comm(&c, comm);
    aclError rc;
    REC_INVOKE(rc, comm, commName);
    if (rc == HCCL_SUCCESS && commName) {
        ro_str(&c, "commName", commName);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    REC_BEGIN(HcclGetCommAsyncError);
    ra_comm(&c, comm);
    aclError rc;
    REC_INVOKE(rc, comm, asyncError);
    if (rc == HCCL_SUCCESS && asyncError) {
        ro_u64(&c, "asyncError", (uint64_t)*asyncError);
    }
    return (HcclResult)REC_END(rc);
}

REC_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    REC_BEGIN(HcclBarrier);
    ra_comm(&c, comm);
    ra_stream(&c, "stream", stream);
    aclError rc;
    REC_INVOKE(rc, comm, stream);
    return (HcclResult)REC_END(rc);
}

REC_EXPORT const char *HcclGetErrorString(HcclResult code)
{
    REC_BEGIN(HcclGetErrorString);
    ra_i64(&c, "code", code);
    if (rec_on_) {
        rec_invoke(&c, (void *)real_);
    }
    const char *s = real_ ? real_(code) : NULL;
    if (!real_) {
        (void)rec_missing(&c); /* says so once; the text goes to the record's msg */
    }
    if (rec_on_) {
        rec_returned(&c, ACL_SUCCESS);
    }
    if (s) {
        ro_str(&c, "string", s);
    }
    (void)REC_END(ACL_SUCCESS); /* the mock journals this text-returning call with 0 */
    return s ? s : "HcclGetErrorString is not exported by the HCCL library";
}
